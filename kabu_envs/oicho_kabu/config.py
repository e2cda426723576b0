"""Oicho-Kabu rule set: every option (docs/oicho_kabu.md#options), presets as data, and validation.

One frozen, hashable ``Config`` is built by ``make_config(**options)``: the preset named by ``rules`` is
applied first, then the caller's overrides, then every value is checked so a typo or an out-of-range
value fails at construction with a ``RuleConfigError`` naming the option and what is allowed (never
mid-game). The options are declared once, as records in ``options.OPTIONS``: the field defaults below
are read from them.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from types import MappingProxyType
from typing import Any

from kabu_envs.core.errors import RuleConfigError
from kabu_envs.oicho_kabu.options import OPTIONS, PRESETS
from kabu_envs.oicho_kabu.yaku import BETTOR, BOTH, DEALER, YAKU, Yaku

__all__ = ["Config", "make_config"]


def _default(name: str) -> Any:
    return OPTIONS.by_name[name].default


@dataclass(frozen=True)
class Config:
    """Every rule option plus the resolved yaku table; the defaults are those of ``options.OPTIONS``.

    Build it with ``make_config``; constructing it directly skips the preset logic but still validates.
    """

    rules: str = _default("rules")
    num_players: int = _default("num_players")
    deck: str = _default("deck")
    dealer_selection: str = _default("dealer_selection")
    dealer_selection_each_deal: bool = _default("dealer_selection_each_deal")
    domae: int = _default("domae")
    bet_sizes: tuple[int, ...] = _default("bet_sizes")
    bankroll: int = _default("bankroll")
    redeal_on_triple_table: bool = _default("redeal_on_triple_table")
    info_cards: bool = _default("info_cards")
    minso: bool = _default("minso")
    minso_limit: int = _default("minso_limit")
    dealer_first_card: str = _default("dealer_first_card")
    dealer_card_choice: bool = _default("dealer_card_choice")
    pair_may_draw: bool = _default("pair_may_draw")
    free_draw: bool = _default("free_draw")
    shiroku_escape: bool = _default("shiroku_escape")
    decision_order: str = _default("decision_order")
    unbacked_spread_card: bool = _default("unbacked_spread_card")
    dealer_second_card_face_up: bool = _default("dealer_second_card_face_up")
    dealer_draw_rule: str = _default("dealer_draw_rule")
    zero_zero: str = _default("zero_zero")
    tie_rule: str = _default("tie_rule")
    arashi_holders: str = _default("arashi_holders")
    kuppin_order: str = _default("kuppin_order")
    shippin_order: str = _default("shippin_order")
    toichi_order: str = _default("toichi_order")
    kuppin_four_one: bool = _default("kuppin_four_one")
    zoro_values: tuple[int, ...] = _default("zoro_values")
    core_yaku: tuple[str, ...] = _default("core_yaku")
    local_yaku: tuple[str, ...] = _default("local_yaku")
    wake_satsu_beats: tuple[str, ...] = _default("wake_satsu_beats")
    yaku_overrides: tuple[tuple[str, tuple[tuple[str, Any], ...]], ...] = _default("yaku_overrides")
    yaku_choice: str = _default("yaku_choice")
    arashi_vs_arashi: str = _default("arashi_vs_arashi")
    bettor_three_tens: str = _default("bettor_three_tens")
    dealer_three_tens: str = _default("dealer_three_tens")
    bettor_ten_pair: str = _default("bettor_ten_pair")
    max_rounds: int = _default("max_rounds")
    dealer_change: tuple[str, ...] = _default("dealer_change")
    dealer_max_deals: int = _default("dealer_max_deals")
    # Derived, not options: the enabled yaku (name -> Yaku record) and a memo for the hot-path rule lookups.
    yaku: MappingProxyType[str, Any] = field(init=False, compare=False, hash=False, repr=False)
    _memo: dict[Any, Any] = field(init=False, compare=False, hash=False, repr=False)

    def __post_init__(self) -> None:
        for f in fields(self):
            if f.init:
                object.__setattr__(self, f.name, OPTIONS.check(f.name, getattr(self, f.name)))
        if self.dealer_selection_each_deal and self.dealer_selection == "fixed":
            raise RuleConfigError(
                "dealer_selection_each_deal=True needs dealer_selection='closest_to_nine' or 'lowest', got "
                "dealer_selection='fixed' (set dealer_selection_each_deal=False for a fixed first dealer)"
            )
        for y in YAKU:
            if y.deck and y.deck != self.deck and y.name in self.core_yaku + self.local_yaku:
                raise RuleConfigError(
                    f"yaku {y.name!r} ({y.condition}) requires deck={y.deck!r}, got deck={self.deck!r}"
                )
        object.__setattr__(self, "yaku", MappingProxyType(_resolve_yaku(self)))
        object.__setattr__(self, "_memo", {})

    def __reduce__(self) -> tuple[Any, ...]:
        # The derived yaku table (a mappingproxy) cannot be pickled; rebuild from the options instead,
        # so configs survive deepcopy and multiprocessing.
        return (Config, tuple(getattr(self, f.name) for f in fields(self) if f.init))

    @property
    def options(self) -> dict[str, Any]:
        """The option values as a plain dict (what ``make_config`` would need to rebuild this config)."""
        out = {f.name: getattr(self, f.name) for f in fields(self) if f.init}
        # holder and beats sets as sorted lists: plain data in one order whatever the hash seed (the
        # state API and OpenSpiel's parameters write it as JSON and compare it as text)
        out["yaku_overrides"] = {
            n: {k: sorted(v) if isinstance(v, frozenset) else v for k, v in kv}
            for n, kv in self.yaku_overrides
        }
        return out

    def as_dict(self) -> dict[str, Any]:
        """``options``, under the name every game's config gives it (the env's state API reads it)."""
        return self.options


def make_config(**options: Any) -> Config:
    """Build a validated config: preset ``rules`` (default "standard") as data, then ``options`` on top."""
    OPTIONS.check_known(options)
    preset = OPTIONS.check("rules", options.get("rules", "standard"))
    merged: dict[str, Any] = dict(PRESETS[preset])
    overrides = options.get("yaku_overrides")
    if overrides is not None and "yaku_overrides" in merged:
        # A preset's per-yaku changes and the caller's are merged key by key (the caller wins).
        base = {n: dict(kv) for n, kv in OPTIONS.check("yaku_overrides", merged["yaku_overrides"])}
        for n, kv in OPTIONS.check("yaku_overrides", overrides):
            base.setdefault(n, {}).update(dict(kv))
        options = {**options, "yaku_overrides": base}
    merged.update(options)
    merged["rules"] = preset
    return Config(**merged)


def _resolve_yaku(cfg: Config) -> dict[str, Yaku]:
    """The enabled yaku records with the options and per-yaku overrides applied, in table order."""
    enabled = set(cfg.core_yaku) | set(cfg.local_yaku)
    table: dict[str, Yaku] = {}
    holders_for_arashi = {"both": BOTH, "bettors": BETTOR, "dealer": DEALER}[cfg.arashi_holders]
    overrides = {n: dict(kv) for n, kv in cfg.yaku_overrides}
    for y in YAKU:
        name = y.name
        if name not in enabled:
            continue
        if name in ("arashi", "arashi_kabu"):
            y = y.replace(holders=holders_for_arashi)
        elif name == "wake_satsu":
            y = y.replace(beats=frozenset(cfg.wake_satsu_beats))
        if name in overrides:
            y = y.replace(**overrides[name])
        table[name] = y
    return table


# --- bounds that OpenSpiel asks for (kabu_envs.openspiel reads them through the registry hook) ---------


def utility_bound(cfg: Config) -> float:
    """The largest total reward of any seat: each round moves at most the table limit (``domae``) times
    the largest payment multiplier (a yaku's, or a middle card's value, 10) to or from a seat."""
    top = max([10, *(int(y.multiplier) for y in cfg.yaku.values())])
    return float(cfg.max_rounds) * float(cfg.domae) * float(top)


def length_bound(cfg: Config, deck_size: int) -> int:
    """Moves (decisions and chance outcomes, a shuffle being one outcome a card) of a whole episode:
    per round the minso redeals, four bets a bettor, the dealer's choices and draws, the spreads'
    decisions, and the shuffles: the fresh deck, minso and selection reshuffles, and up to 16
    triple-table redeals (a 17th in a row has a chance below 1e-20)."""
    decisions = cfg.minso_limit + 4 * cfg.num_players + 16
    shuffles = 2 + cfg.minso_limit + 16 + 16
    return cfg.max_rounds * (decisions + shuffles * deck_size)
