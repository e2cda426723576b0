"""Frozen, validated Kakeya rule options (spec sections 1-6).

Every option is listed once in ``OPTIONS`` with its default, allowed values and source
(``traditional`` or ``seed``); ``make_config`` rejects unknown names and bad values with
an error that names them, and the docs table is generated from the same list.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

from kabu_envs.core.errors import RuleConfigError
from kabu_envs.kakeya.cards import SUIT_NAMES


@dataclass(frozen=True)
class OptionDoc:
    """One rule option as the docs show it."""

    name: str
    default: Any
    allowed: str
    source: str
    meaning: str


OPTIONS: tuple[OptionDoc, ...] = (
    OptionDoc("num_players", 4, "4, 6", "spec §1, seed", "seats; partnerships are `seat % (n // 2)`"),
    OptionDoc(
        "six_player_mode",
        "dealers_sit_out",
        '"dealers_sit_out", "all_play"',
        'traditional; "all_play" = seed',
        "6 players: the dealing partnership sits out, or all six play (9/9/9/9/8/8 cards)",
    ),
    OptionDoc(
        "default_trump",
        "clubs",
        "suit name or 0..3",
        "seed (clubs before the first deal)",
        "trump until a dealer changes it",
    ),
    OptionDoc(
        "dealers_choose_trump",
        True,
        "True, False",
        "seed (the dealers may change it)",
        "each deal's first dealer plays TRUMP(suit) before any card is dealt",
    ),
    OptionDoc(
        "rensho_rule",
        "traditional",
        '"traditional", "seed"',
        'traditional; "seed" = seed',
        "traditional: AS, or AC when spades are trumps; seed: AC when clubs are trumps, else AS",
    ),
    OptionDoc("max_deals", 1, "int >= 1", "spec §6", "deals in one episode (a match)"),
    OptionDoc(
        "stones_per_player", 5, "int >= 1", "seed (5 stones each)", "stones each seat starts a match with"
    ),
    OptionDoc(
        "reward",
        "stones",
        '"stones", "egara"',
        "spec §6",
        "per-deal reward: partnership stone change, or normalised partnership egara difference",
    ),
)

SIX_PLAYER_MODES = ("dealers_sit_out", "all_play")
RENSHO_RULES = ("traditional", "seed")
REWARDS = ("stones", "egara")


@dataclass(frozen=True)
class Config:
    """One validated rule set; build it with ``make_config(**options)``."""

    num_players: int = 4
    six_player_mode: str = "dealers_sit_out"
    default_trump: str = "clubs"
    dealers_choose_trump: bool = True
    rensho_rule: str = "traditional"
    max_deals: int = 1
    stones_per_player: int = 5
    reward: str = "stones"

    @property
    def num_partnerships(self) -> int:
        return self.num_players // 2

    @property
    def all_play(self) -> bool:
        """True when all six seats play (the seed's reading of 6 players)."""
        return self.num_players == 6 and self.six_player_mode == "all_play"

    @property
    def dealers_sit_out(self) -> bool:
        return self.num_players == 6 and self.six_player_mode == "dealers_sit_out"

    @property
    def default_trump_suit(self) -> int:
        return SUIT_NAMES.index(self.default_trump)

    def as_dict(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self)}


def _choice(name: str, value: Any, allowed: tuple[str, ...]) -> str:
    if value not in allowed:
        raise RuleConfigError(f"option {name}={value!r} is invalid; use one of {list(allowed)}")
    return value


def _int(name: str, value: Any, low: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        raise RuleConfigError(f"option {name}={value!r} is invalid; it must be an int >= {low}")
    return int(value)


def _suit(value: Any) -> str:
    if isinstance(value, str) and value.lower() in SUIT_NAMES:
        return value.lower()
    if not isinstance(value, bool) and isinstance(value, int) and 0 <= value < 4:
        return SUIT_NAMES[value]
    raise RuleConfigError(f"option default_trump={value!r} is invalid; use one of {list(SUIT_NAMES)} or 0..3")


def make_config(**options: Any) -> Config:
    """Validate ``options`` (unknown names and bad values raise ``RuleConfigError``)."""
    known = {o.name for o in OPTIONS}
    unknown = sorted(set(options) - known)
    if unknown:
        raise RuleConfigError(f"unknown Kakeya option(s) {unknown}; known options: {sorted(known)}")
    opt = {o.name: o.default for o in OPTIONS}
    opt.update(options)
    if opt["num_players"] not in (4, 6) or isinstance(opt["num_players"], bool):
        raise RuleConfigError(f"option num_players={opt['num_players']!r} is invalid; use 4 or 6")
    if not isinstance(opt["dealers_choose_trump"], bool):
        raise RuleConfigError(
            f"option dealers_choose_trump={opt['dealers_choose_trump']!r} is invalid; use True or False"
        )
    return Config(
        num_players=int(opt["num_players"]),
        six_player_mode=_choice("six_player_mode", opt["six_player_mode"], SIX_PLAYER_MODES),
        default_trump=_suit(opt["default_trump"]),
        dealers_choose_trump=opt["dealers_choose_trump"],
        rensho_rule=_choice("rensho_rule", opt["rensho_rule"], RENSHO_RULES),
        max_deals=_int("max_deals", opt["max_deals"], 1),
        stones_per_player=_int("stones_per_player", opt["stones_per_player"], 1),
        reward=_choice("reward", opt["reward"], REWARDS),
    )
