"""OpenSpiel's search bots as agents (kabu_envs.openspiel.bots): the env's history as an OpenSpiel state,
resampled worlds that keep the seat's information state and never depend on the cards it cannot see,
agent names, and bots playing the duplicate evaluation deterministically.

Skipped only when open_spiel is absent and ``KABU_REQUIRE_OPENSPIEL`` is unset (as the game tests)."""

from __future__ import annotations

import os
from typing import Any

import numpy as np
import pytest

if not os.environ.get("KABU_REQUIRE_OPENSPIEL"):
    pytest.importorskip("pyspiel", reason="open_spiel is not installed (the 'openspiel' extra)")

from kabu_envs import registry
from kabu_envs.agents.registry import make_agent
from kabu_envs.eval.games import matchup
from kabu_envs.openspiel import bots

CASES: list[tuple[str, dict[str, Any]]] = [
    ("toy_card", {}),
    ("oicho_kabu", {}),
    ("oicho_kabu", {"num_players": 2, "bet_sizes": [1, 5], "max_rounds": 2}),
    ("kakeya", {}),
]


def _play_until(env: Any, decisions: int, seed: int) -> bool:
    """Step a seeded env with random legal actions until ``decisions`` were made; False when it ended."""
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    for _ in range(decisions):
        if not env.agents or env.unwrapped.game.terminal:
            return False
        legal = env.legal_actions()
        env.step(int(legal[rng.integers(len(legal))]))
    return bool(env.agents) and not env.unwrapped.game.terminal


def _positions(game_id: str, options: dict[str, Any]) -> list[tuple[Any, bots.History, Any]]:
    """(env, history, OpenSpiel state) at a few decision points of a few seeded random episodes."""
    out = []
    for seed in range(3):
        for k in (0, 3, 9):
            env = registry.get(game_id).make_raw_env(**options)
            if _play_until(env, k, seed):
                game = bots.load_game(game_id, options)
                history = bots.history_from_env(game_id, env)
                out.append((env, history, bots.replay(game, history)))
    return out


@pytest.mark.parametrize(("game_id", "options"), CASES)
def test_the_env_history_replays_to_the_same_state(game_id: str, options: dict[str, Any]) -> None:
    positions = _positions(game_id, options)
    assert positions
    for env, _, state in positions:
        assert state.current_player() == env.possible_agents.index(env.agent_selection)
        assert sorted(state.legal_actions()) == sorted(int(a) for a in env.legal_actions())
        for p, agent in enumerate(env.possible_agents):
            np.testing.assert_array_equal(
                state.information_state_tensor(p), env.observe(agent)["observation"]
            )


@pytest.mark.parametrize(("game_id", "options"), CASES)
def test_a_world_keeps_the_seat_information_and_redeals_the_rest(
    game_id: str, options: dict[str, Any]
) -> None:
    changed = 0
    for _, history, state in _positions(game_id, options):
        player = state.current_player()
        resampler = bots.Resampler(bots.load_game(game_id, options))
        rng = np.random.default_rng(1)
        for _ in range(4):
            world = resampler.sample(history, state, player, rng)
            assert world.information_state_string(player) == state.information_state_string(player)
            assert world.legal_actions() == state.legal_actions()
            changed += str(world) != str(state)
    assert changed  # the worlds are not all the true deal


def _hidden_swap(
    game_id: str, env: Any, state: Any, history: bots.History, player: int
) -> bots.History | None:
    """The history with two cards of the deck in play that the seat's view does not show exchanged, such
    that ``player`` cannot tell (its information state is the same) but the deal differs; None if no
    near pair does it."""
    shuffles, moves = history
    if not shuffles:
        return None
    deck = shuffles[-1]
    shown = bots._view_card_ids(bots.ViewResampler(game_id).viewer.seat_view(env, player))
    key = state.information_state_string(player)
    game = bots.load_game(game_id, {})
    for i in range(len(deck)):
        for j in range(i + 1, min(len(deck), i + 4)):
            if deck[i] in shown or deck[j] in shown:
                continue
            swapped = list(deck)
            swapped[i], swapped[j] = swapped[j], swapped[i]
            try:
                other = bots.replay(game, ([*shuffles[:-1], swapped], moves))
            except ValueError:
                continue
            if other.information_state_string(player) == key and str(other) != str(state):
                return [*shuffles[:-1], swapped], moves
    return None


@pytest.mark.parametrize("game_id", ["toy_card", "oicho_kabu", "kakeya"])
def test_worlds_do_not_depend_on_the_cards_the_seat_cannot_see(game_id: str) -> None:
    """Two true deals the seat cannot tell apart (hidden cards exchanged) give the same worlds under the
    same generator: the resampler reads nothing hidden."""
    found = 0
    for env, history, state in _positions(game_id, {})[:5]:
        player = state.current_player()
        swapped = _hidden_swap(game_id, env, state, history, player)
        if swapped is None:
            continue
        found += 1
        other = bots.replay(bots.load_game(game_id, {}), swapped)
        worlds = []
        for truth, hist in ((state, history), (other, swapped)):
            resampler = bots.Resampler(bots.load_game(game_id, {}))
            rng = np.random.default_rng(7)
            worlds.append([str(resampler.sample(hist, truth, player, rng)) for _ in range(3)])
        assert worlds[0] == worlds[1]
    assert found


def test_agent_names_parse_and_bad_ones_are_refused() -> None:
    assert bots.parse_openspiel_name("openspiel:ismcts:simulations=5,uct_c=1.5") == (
        "ismcts",
        {"simulations": 5, "uct_c": 1.5},
    )
    agent = make_agent("toy_card", "openspiel:ismcts:simulations=5", 0)
    assert isinstance(agent, bots.ISMCTSAgent) and agent.params["simulations"] == 5
    assert agent.capabilities.table and not agent.capabilities.batch
    assert isinstance(make_agent("oicho_kabu", "openspiel:pimc", 0, num_players=2), bots.PIMCAgent)
    for name, words in [
        ("openspiel:", "name the bot"),
        ("openspiel:alphazero", "unknown OpenSpiel bot"),
        ("openspiel:ismcts:simulations", "key=value"),
        ("openspiel:ismcts:simulations=x", "key=value"),
        ("openspiel:ismcts:sims=5", "unknown option"),
        ("openspiel:ismcts:simulations=0", "simulations must be"),
        ("openspiel:pimc:worlds=2.5", "worlds must be"),
    ]:
        with pytest.raises(ValueError, match=words):
            make_agent("toy_card", name, 0)
    with pytest.raises(TypeError, match="act_at_table"):
        agent.act(np.zeros(18, np.float32), np.ones(3, np.int8))


@pytest.mark.parametrize("bot", ["ismcts:simulations=10,worlds=3", "pimc:simulations=4,worlds=2"])
@pytest.mark.parametrize(("game_id", "options"), [("toy_card", {}), ("oicho_kabu", {"num_players": 2})])
def test_bots_play_the_duplicate_evaluation_deterministically(
    bot: str, game_id: str, options: dict[str, Any]
) -> None:
    results = []
    for _ in range(2):
        agent = make_agent(game_id, f"openspiel:{bot}", 0, **options)
        opponent = make_agent(game_id, "scripted", 1, **options)
        results.append(matchup(game_id, agent, opponent, deals=4, seed=3, env_options=options))
        assert agent.decisions > 0 and agent.resampler.kept > 0
    assert results[0].advantages == results[1].advantages
    assert results[0].agent_rewards == results[1].agent_rewards


def test_search_finds_the_better_action_in_toy_card() -> None:
    """IS-MCTS with the resampler plays Toy Card better than random: on the same deals it raises with a
    winning card and passes with a losing one far more often than chance (a search that reads garbage
    worlds would not)."""
    agent = make_agent("toy_card", "openspiel:ismcts:simulations=60,worlds=6", 0)
    random = make_agent("toy_card", "random", 0)
    result = matchup("toy_card", agent, random, deals=24, seed=0)
    assert np.mean(result.advantages) > 0


def test_kabu_eval_plays_a_bot_and_reports_its_time(tmp_path: Any, capsys: Any) -> None:
    from kabu_envs.eval.__main__ import main

    out = tmp_path / "t.json"
    name = "openspiel:ismcts:simulations=8,worlds=2"
    assert (
        main(
            [
                "--game",
                "toy_card",
                "--agents",
                name,
                "--opponents",
                "scripted",
                "--deals",
                "3",
                "--json",
                str(out),
            ]
        )
        == 0
    )
    assert "ms/decision" in capsys.readouterr().out
    import json

    (row,) = json.loads(out.read_text())["matchups"]
    assert row["agent"] == name and row["agent_decisions"] > 0 and row["agent_ms_per_decision"] > 0
    assert "opponent_ms_per_decision" not in row  # the scripted agent keeps the row as it was
    with pytest.raises(SystemExit):  # a bad bot name is refused before the first deal
        main(["--game", "toy_card", "--agents", "openspiel:ismcts:sims=3", "--opponents", "scripted"])


def test_oicho_worlds_do_not_keep_a_returned_selection_card_in_place() -> None:
    """The dealer-selection cards are shown, then go back into the deck: the seat knows they are in the
    deck, not where. Moving one to another undealt place (the seat cannot tell) gives the same worlds."""
    options = {"num_players": 2, "dealer_selection": "closest_to_nine"}
    checked = 0
    for seed in range(6):
        env = registry.get("oicho_kabu").make_raw_env(**options)
        if not _play_until(env, 2, seed):
            continue
        game = bots.load_game("oicho_kabu", options)
        history = bots.history_from_env("oicho_kabu", env)
        state = bots.replay(game, history)
        player = state.current_player()
        shuffles, moves = history
        deck, top = shuffles[-1], env.unwrapped.game.deck.top
        shown = bots._view_card_ids(bots.ViewResampler("oicho_kabu").viewer.seat_view(env, player))
        returned = [i for i in range(top, len(deck)) if deck[i] in shown]
        plain = [i for i in range(top, len(deck)) if deck[i] not in shown]
        if not returned:
            continue
        i, j = returned[0], plain[-1]
        swapped = list(deck)
        swapped[i], swapped[j] = swapped[j], swapped[i]
        other_history = ([*shuffles[:-1], swapped], moves)
        other = bots.replay(game, other_history)
        assert other.information_state_string(player) == state.information_state_string(player)
        worlds = []
        for truth, hist in ((state, history), (other, other_history)):
            resampler = bots.Resampler(game)
            rng = np.random.default_rng(3)
            worlds.append([str(resampler.sample(hist, truth, player, rng)) for _ in range(3)])
        assert worlds[0] == worlds[1]
        checked += 1
    assert checked
