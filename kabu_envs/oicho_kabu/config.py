"""Oicho-Kabu rule set: every option of the spec, presets as data, and validation.

One frozen, hashable ``Config`` is built by ``make_config(**options)``: the preset named by
``rules`` is applied first, then the caller's overrides, then every value is checked so a typo or an
out-of-range value fails at construction with a message naming the option (never mid-game).
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from types import MappingProxyType
from typing import Any

from kabu_envs.core.errors import RuleConfigError
from kabu_envs.oicho_kabu.options import PRESETS, check_option
from kabu_envs.oicho_kabu.yaku import CORE_YAKU, LOCAL_YAKU, YAKU, Yaku

__all__ = ["Config", "Yaku", "make_config", "option_names", "CORE_YAKU", "LOCAL_YAKU", "PRESETS"]


@dataclass(frozen=True)
class Config:
    """Every rule option (names exactly as in the spec) plus the resolved yaku table.

    Build it with ``make_config``; constructing it directly skips the preset logic but still validates.
    """

    rules: str = "standard"
    num_players: int = 4
    deck: str = "kabufuda"
    dealer_selection: str = "fixed"
    domae: int = 50
    bet_sizes: tuple[int, ...] = (1, 2, 5, 10)
    bankroll: int = 100
    redeal_on_triple_table: bool = False
    info_cards: bool = False
    minso: bool = False
    minso_limit: int = 1
    dealer_first_card: str = "before_bets"
    dealer_card_choice: bool = False
    pair_may_draw: bool = True
    free_draw: bool = False
    shiroku_escape: bool = False
    dealer_second_card_face_up: bool = True
    dealer_draw_rule: str = "same_as_bettors"
    zero_zero: str = "dealer_wins"
    tie_rule: str = "push"
    arashi_holders: str = "both"
    kuppin_order: str = "any"
    shippin_order: str = "any"
    toichi_order: str = "any"
    kuppin_four_one: bool = False
    zoro_values: tuple[int, ...] = (1, 2, 3, 4, 5, 6, 7, 8, 9, 10)
    core_yaku: tuple[str, ...] = CORE_YAKU
    local_yaku: tuple[str, ...] = ()
    wake_satsu_beats: tuple[str, ...] = ("kuppin", "shippin")
    yaku_overrides: tuple[tuple[str, tuple[tuple[str, Any], ...]], ...] = ()
    arashi_vs_arashi: str = "higher_value"
    bettor_three_tens: str = "arashi"
    dealer_three_tens: str = "arashi"
    bettor_ten_pair: str = "zoro"
    max_rounds: int = 1
    dealer_change: tuple[str, ...] = ("deals", "bust")
    dealer_max_deals: int = 5
    # Derived, not options: the enabled yaku (name -> Yaku record) and a memo for the hot-path rule lookups.
    yaku: MappingProxyType = field(init=False, compare=False, hash=False, repr=False)
    _memo: dict = field(init=False, compare=False, hash=False, repr=False)

    def __post_init__(self) -> None:
        for f in fields(self):
            if f.init:
                object.__setattr__(self, f.name, check_option(f.name, getattr(self, f.name)))
        for y in YAKU:
            if y.deck and y.deck != self.deck and y.name in self.core_yaku + self.local_yaku:
                raise RuleConfigError(
                    f"yaku {y.name!r} ({y.condition}) requires deck={y.deck!r}, got deck={self.deck!r}"
                )
        object.__setattr__(self, "yaku", MappingProxyType(_resolve_yaku(self)))
        object.__setattr__(self, "_memo", {})

    def __reduce__(self) -> tuple:
        # The derived yaku table (a mappingproxy) cannot be pickled; rebuild from the options instead,
        # so configs survive deepcopy and multiprocessing.
        return (Config, tuple(getattr(self, f.name) for f in fields(self) if f.init))

    @property
    def options(self) -> dict[str, Any]:
        """The option values as a plain dict (what ``make_config`` would need to rebuild this config)."""
        out = {f.name: getattr(self, f.name) for f in fields(self) if f.init}
        out["yaku_overrides"] = {n: dict(kv) for n, kv in self.yaku_overrides}
        return out

    def enabled(self, name: str) -> bool:
        """True when yaku ``name`` is in play."""
        return name in self.yaku


def option_names() -> tuple[str, ...]:
    """Every option ``make_config`` accepts, in declaration order."""
    return tuple(f.name for f in fields(Config) if f.init)


def make_config(**options: Any) -> Config:
    """Build a validated config: preset ``rules`` (default "standard") as data, then ``options`` on top."""
    valid = option_names()
    unknown = sorted(set(options) - set(valid))
    if unknown:
        raise RuleConfigError(
            f"unknown Oicho-Kabu option(s) {', '.join(map(repr, unknown))}; valid options: {', '.join(valid)}"
        )
    preset = options.get("rules", "standard")
    if preset not in PRESETS:
        raise RuleConfigError(f"option 'rules' = {preset!r} is not a preset; allowed: {', '.join(PRESETS)}")
    merged: dict[str, Any] = dict(PRESETS[preset])
    overrides = options.get("yaku_overrides")
    if overrides is not None and "yaku_overrides" in merged:
        # A preset's per-yaku changes and the caller's are merged key by key (the caller wins).
        base = {n: dict(kv) for n, kv in check_option("yaku_overrides", merged["yaku_overrides"])}
        for n, kv in check_option("yaku_overrides", overrides):
            base.setdefault(n, {}).update(dict(kv))
        options = {**options, "yaku_overrides": base}
    merged.update(options)
    merged["rules"] = preset
    return Config(**merged)


def _resolve_yaku(cfg: Config) -> dict[str, Yaku]:
    """The enabled yaku records with the options and per-yaku overrides applied, in table order."""
    enabled = set(cfg.core_yaku) | set(cfg.local_yaku)
    table: dict[str, Yaku] = {}
    holders_for_arashi = {
        "both": frozenset({"dealer", "bettor"}),
        "bettors": frozenset({"bettor"}),
        "dealer": frozenset({"dealer"}),
    }[cfg.arashi_holders]
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
