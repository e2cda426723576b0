"""Shared helpers for the Oicho-Kabu game/env tests: stacked decks by value, scripted play."""

from __future__ import annotations

from collections.abc import Iterable

from kabu_envs.core.rng import make_rng
from kabu_envs.oicho_kabu.actions import Action
from kabu_envs.oicho_kabu.config import make_config
from kabu_envs.oicho_kabu.deck import VALUES
from kabu_envs.oicho_kabu.game import Game
from kabu_envs.oicho_kabu.options import PRESETS

S, D, E = int(Action.STAND), int(Action.DRAW), int(Action.ESCAPE)
KEEP, REDEAL = int(Action.KEEP), int(Action.REDEAL)
TOP, BOTTOM, FOURTH = int(Action.TAKE_TOP), int(Action.TAKE_BOTTOM), int(Action.TAKE_FOURTH)


def B(k: int) -> int:  # noqa: N802 - mirrors Action.BET
    return int(Action.BET(k))


def stack(values: Iterable[int]) -> list[int]:
    """Card ids for ``values`` in order, each the highest unused copy (copy 0 = hanafuda light last)."""
    used: dict[int, int] = {}
    out = []
    for v in values:
        if not 1 <= v <= 10:
            raise ValueError(f"card value {v} not in 1..10")
        k = used.get(v, 0)
        if k >= 4:
            raise ValueError(f"more than four cards of value {v}")
        used[v] = k + 1
        out.append((v - 1) * 4 + (3 - k))
    return out


def values(cards: Iterable[int]) -> list[int]:
    return [VALUES[c] for c in cards]


def new_game(deck_values: Iterable[int] = (), seed: int = 0, **options) -> Game:
    """A game on a stacked deck; two players unless ``num_players`` is given. player_0 deals
    (``dealer_selection="fixed"``, so the deck lists no selection draws) unless the test or its preset
    chooses a selection, and no card goes to an unbacked spread (``unbacked_spread_card=False``, so
    the deck lists none) unless the test asks for it: the tests of that rule set it themselves."""
    options.setdefault("num_players", 2)
    options.setdefault("unbacked_spread_card", False)
    if not PRESETS[options.get("rules", "standard")].get("dealer_selection_each_deal"):
        options.setdefault("dealer_selection", "fixed")
    return Game(make_config(**options), make_rng(seed), stack(deck_values))


def bet_round(game: Game, stakes: dict[int, dict[int, int]]) -> None:
    """Play the whole betting phase: ``stakes[seat][spread] = k`` (BET(k)); missing = BET(0)."""
    from kabu_envs.oicho_kabu.game import Phase

    while game.phase == Phase.BET:
        seat, s = game.current_player, game.active_spread
        game.apply_action(B(stakes.get(seat, {}).get(s, 0)))


def play(game: Game, actions: Iterable[int]) -> None:
    for a in actions:
        game.apply_action(a)
