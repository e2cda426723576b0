"""Fuzz rare Oicho-Kabu paths: dealer selection before every deal with tie redraws, triple-table
redeals across rounds, huge stakes (up to 2**31 - 1). Every step: the payments sum to zero, the
chips are conserved, no card is in play twice; every round that is not the last leaves its showdown
for the viewers (hardening #9); a saved state reloads to the same game."""

from __future__ import annotations

from typing import Any

import numpy as np
from fuzz_helpers import count, examples
from hypothesis import given
from hypothesis import strategies as st

from kabu_envs import registry
from kabu_envs.oicho_kabu import events
from kabu_envs.oicho_kabu.deck import VALUES
from kabu_envs.oicho_kabu.view import VIEWER

BIG = 2**31 - 1


@st.composite
def rare_options(draw: Any) -> dict[str, Any]:
    n = draw(st.integers(2, 8), label="num_players")
    options: dict[str, Any] = {
        "num_players": n,
        "max_rounds": draw(st.integers(2, 6), label="max_rounds"),
        "dealer_selection": draw(st.sampled_from(["closest_to_nine", "lowest", "fixed"]), label="selection"),
        "redeal_on_triple_table": draw(st.booleans(), label="triple redeal"),
    }
    if options["dealer_selection"] != "fixed":
        options["dealer_selection_each_deal"] = draw(st.booleans(), label="each deal")
    if draw(st.booleans(), label="kansai"):
        options["rules"] = "kansai"  # minso, triple-table redeals, free draws
    if draw(st.booleans(), label="huge stakes"):
        bet = draw(st.integers(1, BIG), label="bet")
        options["bankroll"] = draw(st.integers(bet, BIG), label="bankroll")
        options["domae"] = draw(st.integers(bet, BIG), label="domae")
        options["bet_sizes"] = [bet]
    return options


def _stacked(draw: Any, n: int, fixed: bool) -> list[int] | None:
    """A deck whose first cards share values (selection ties; a table of three of a value), or None."""
    if not draw(st.booleans(), label="stacked"):
        return None
    value = draw(st.integers(1, 10), label="value")
    same = [c for c in range(40) if VALUES[c] == value]  # (the default deck: 40 cards, four a value)
    other = [c for c in range(40) if c not in same]
    if fixed:  # no selection draws: the table is the first four cards
        return same[:3]
    if draw(st.booleans(), label="tie first"):  # the selection draws tie
        return same[: draw(st.integers(2, 4), label="same")] + other[: draw(st.integers(0, n), label="more")]
    # one card of each of n values for the selection draws (no tie), then a table of three of a value
    firsts = [next(c for c in other if VALUES[c] == v) for v in range(1, 11) if v != value][:n]
    return firsts + same[:3]


@examples(4)
@given(data=st.data())
def test_rare_paths_keep_every_invariant(data):
    options = data.draw(rare_options(), label="options")
    spec = registry.get("oicho_kabu")
    try:
        env = spec.make_raw_env(**options)
    except ValueError as exc:  # (e.g. a bet size above the domae of a preset)
        assert "option" in str(exc) or "=" in str(exc)
        count("oicho rare option sets refused")
        return
    n = env.num_players
    deck = _stacked(data.draw, n, env.config.dealer_selection == "fixed")
    seed = data.draw(st.integers(0, 2**32 - 1), label="seed")
    env.reset(seed=seed, options=None if deck is None else {"deck": deck})
    game = env.game
    total = sum(game.chips)
    rng = np.random.default_rng(seed)
    save_at = data.draw(st.integers(0, 60), label="save at")
    seen_events = len(game.log)
    rounds_before = game.round_index
    steps = 0
    while env.agents:
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            env.step(None)
            continue
        if steps == save_at:
            state = env.state_dict()
            twin = spec.make_raw_env(**options)
            twin.load_state_dict(state)
            assert twin.state_dict() == state
            count("oicho rare states reloaded")
        legal = env.legal_actions()
        env.step(int(legal[-1] if rng.random() < 0.4 else rng.choice(legal)))  # often the largest bet
        steps += 1
        game = env.game
        paid = [env.rewards[a] for a in env.possible_agents]
        assert sum(paid) == 0, paid
        assert sum(game.chips) == total
        cards = game.cards_in_play()
        assert len(cards) == len(set(cards)), cards
        log = game.log
        new = log[seen_events:] if len(log) >= seen_events else log
        seen_events = len(log)
        for event in new:
            if isinstance(event, events.TripleRedeal):
                count("oicho triple-table redeals")
            elif isinstance(event, events.Select):
                count("oicho selection draws")
                if len(event.draws) > len({seat for seat, _ in event.draws}):
                    count("oicho selection tie redraws")
        if game.round_index != rounds_before and not game.terminal:
            stand_in = VIEWER.round_end_env(env)
            assert stand_in is not None and stand_in.game.round_index == game.round_index
            view = VIEWER.seat_view(stand_in, 0)
            assert view["result"] and view["result"][-1].startswith("round result:")
            count("oicho showdowns kept before the next deal")
        rounds_before = game.round_index
        if max(abs(c) for c in game.chips) > 2**40:
            count("oicho episodes with chips beyond 2**40")
    count("oicho rare episodes")
    count("oicho rare steps", steps)
