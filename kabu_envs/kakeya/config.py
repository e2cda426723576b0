"""Kakeya rule options (docs/kakeya.md#options), declared once as ``Option`` records.

``OPTIONS`` lists every option with its default, its checker, where the rule comes from and what it
means. The records are the only place a value is validated (``make_config`` and ``Config``), they give
the defaults (a test checks that ``Config``'s field defaults agree) and they print the docs table
(``kabu_envs.kakeya.docs``). Bad values raise ``RuleConfigError`` (a ``ValueError``) naming the option,
the value and what is allowed.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

from kabu_envs.core.errors import RuleConfigError
from kabu_envs.core.options import Option, OptionSet, boolean, choice, integer
from kabu_envs.kakeya.cards import NUM_SUITS, SUIT_NAMES

_suit_index = integer(0, NUM_SUITS - 1)


def suit(value: Any) -> str:
    """A suit by name (any case) or by index 0..3; returns the lower-case name."""
    if isinstance(value, str):
        if value.lower() in SUIT_NAMES:
            return value.lower()
    else:
        try:
            return SUIT_NAMES[_suit_index(value)]
        except ValueError:
            pass
    raise ValueError(f"allowed: a suit name ({', '.join(SUIT_NAMES)}) or its index 0..{NUM_SUITS - 1}")


OPTIONS = OptionSet(
    "Kakeya",
    (
        Option(
            "num_players",
            4,
            choice(4, 6),
            "Kakeya text",
            "seats; partnerships are `seat % (n // 2)` ([Seats](#seats-and-partnerships))",
        ),
        Option(
            "six_player_mode",
            "all_play",
            choice("dealers_sit_out", "all_play"),
            "Kakeya text (unequal hands with six); `'dealers_sit_out'` = traditional, v1's default",
            "6 players only (an error with 4): all six play (9/9/9/9/8/8 cards), or the dealing "
            "partnership sits out ([Deal](#deal))",
        ),
        Option(
            "all_play_payment",
            "shared",
            choice("shared", "each_loser"),
            "Kakeya text (the winners \"get\" the table's stones); `'each_loser'` = v1",
            "6 players, `all_play` only (an error with 4): the two losing partnerships share the "
            "table's amount, the one with fewer egara paying the odd stone, or each pays all of it "
            "([Scoring a deal](#scoring-a-deal))",
        ),
        Option(
            "default_trump",
            "clubs",
            suit,
            "Kakeya text (clubs before the first deal)",
            "trump until a dealer changes it ([Trump and Rensho](#trump-and-rensho))",
            allowed="a suit name or its index 0..3",
        ),
        Option(
            "dealers_choose_trump",
            True,
            boolean,
            "Kakeya text (the dealers may change it)",
            "each deal's first dealer plays `TRUMP(suit)` before any card is dealt "
            "([Trump and Rensho](#trump-and-rensho))",
        ),
        Option(
            "rensho_rule",
            "seed",
            choice("traditional", "seed"),
            "Kakeya text (`'seed'`); `'traditional'` = v1's default",
            "seed: AC when clubs are trumps, else AS; traditional: AS, or AC when spades are trumps "
            "([Trump and Rensho](#trump-and-rensho))",
        ),
        Option(
            "rensho_follow",
            "free",
            choice("free", "must_follow"),
            "Kakeya text (no laying rule binds Rensho); `'must_follow'` = first release",
            "free: Rensho is no card of its suit for following, so it is never forced out; must_follow: "
            "a seat whose only card of the led suit is Rensho must play it ([Play](#play))",
        ),
        Option(
            "max_deals",
            1,
            integer(1),
            "this library (episode length)",
            "deals in one episode (a match) ([Matches and stones](#matches-and-stones))",
        ),
        Option(
            "stones_per_player",
            5,
            integer(1),
            "Kakeya text (5 stones each)",
            "stones each seat starts a match with ([Matches and stones](#matches-and-stones))",
        ),
        Option(
            "reward",
            "stones",
            choice("stones", "egara"),
            "this library (RL reward)",
            "per-deal reward: partnership stone change, or normalised partnership egara difference "
            "([Rewards](#rewards))",
        ),
    ),
)


@dataclass(frozen=True)
class Config:
    """One validated rule set; build it with ``make_config(**options)``.

    The field defaults are ``OPTIONS``' defaults (a test checks it); every value passes its option's
    checker on construction, so a ``Config`` always holds normalised plain Python values.
    """

    num_players: int = 4
    six_player_mode: str = "all_play"
    all_play_payment: str = "shared"
    default_trump: str = "clubs"
    dealers_choose_trump: bool = True
    rensho_rule: str = "seed"
    rensho_follow: str = "free"
    max_deals: int = 1
    stones_per_player: int = 5
    reward: str = "stones"

    def __post_init__(self) -> None:
        for f in fields(self):
            object.__setattr__(self, f.name, OPTIONS.check(f.name, getattr(self, f.name)))

    @property
    def num_partnerships(self) -> int:
        return self.num_players // 2

    @property
    def all_play(self) -> bool:
        """True when all six seats play (the Kakeya text's reading of 6 players)."""
        return self.num_players == 6 and self.six_player_mode == "all_play"

    @property
    def dealers_sit_out(self) -> bool:
        return self.num_players == 6 and self.six_player_mode == "dealers_sit_out"

    @property
    def default_trump_suit(self) -> int:
        return SUIT_NAMES.index(self.default_trump)

    def as_dict(self) -> dict[str, Any]:
        """The options that rebuild this rule set: ``make_config(**cfg.as_dict()) == cfg``
        (``six_player_mode`` and ``all_play_payment`` only with 6 players, where they have a meaning)."""
        out = {f.name: getattr(self, f.name) for f in fields(self)}
        if self.num_players != 6:
            del out["six_player_mode"], out["all_play_payment"]
        return out


def make_config(**options: Any) -> Config:
    """Validate ``options`` against ``OPTIONS``: unknown names, bad values and ``six_player_mode``
    with 4 players raise ``RuleConfigError`` naming the option, the value and what is allowed."""
    OPTIONS.check_known(options)
    num_players = OPTIONS.check("num_players", options.get("num_players", OPTIONS.defaults()["num_players"]))
    for name in ("six_player_mode", "all_play_payment"):
        if name in options and num_players != 6:
            mode = OPTIONS.check(name, options[name])
            raise RuleConfigError(
                f"option {name!r} = {mode!r} has no meaning with num_players={num_players}: "
                "it only chooses how 6 players play; leave it out, or set num_players=6"
            )
    return Config(**options)


# --- bounds that OpenSpiel asks for (kabu_envs.openspiel reads them through the registry hook) ---------


def utility_bound(cfg: Config) -> float:
    """The largest total reward of a seat: a deal's reward is at most every stone of the table (or, with
    ``reward="egara"``, a normalised difference of at most 1)."""
    return float(cfg.max_deals) * float(max(1, cfg.num_players * cfg.stones_per_player))


def length_bound(cfg: Config, deck_size: int) -> int:
    """Moves of a whole episode: per deal a shuffle (one chance outcome a card), every card played, and
    a few trump decisions."""
    return cfg.max_deals * (2 * deck_size + 16)
