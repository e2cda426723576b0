"""Kakeya v2 (issue #24): the defaults that follow the Kakeya text, played through the AEC env with
stacked decks (docs/kakeya.md#traceability rows kakeya.11 and kakeya.14), and ``kakeya_v1`` /
``kakeya_v0`` as exact aliases of the defaults they shipped with (docs/kakeya.md#version-history)."""

import importlib
import sys

import numpy as np
import pytest
from kakeya_testlib import deal_order, deck_for, ids, suit_hands

from kabu_envs import kakeya_v2
from kabu_envs.kakeya import Action
from kabu_envs.kakeya.config import make_config
from kabu_envs.kakeya.observation import obs_spec


def _v1():
    with pytest.warns(DeprecationWarning, match="kakeya_v2"):
        sys.modules.pop("kabu_envs.kakeya_v1", None)
        return importlib.import_module("kabu_envs.kakeya_v1")


def _hand_sizes(env) -> list[int]:
    return [bin(int(h)).count("1") for h in env.unwrapped.game.hands]


def _play_lowest(env) -> set[str]:
    """Play the lowest legal action to the end; returns the agents that played a card."""
    played = set()
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        action = int(np.flatnonzero(obs["action_mask"])[0])
        if action < 52:
            played.add(agent)
        env.step(action)
    return played


def test_six_players_all_play_by_default():
    """Departure 10: "with six, each player ends up with an unequal number of cards". The first dealer
    is seat 2; the deal starts at seat 3, so seats 3, 4, 5, 0 get 9 cards and seats 1, 2 get 8, and every
    seat plays. ``six_player_mode="dealers_sit_out"`` (v1's default) stays an option."""
    env = kakeya_v2.env(num_players=6, dealers_choose_trump=False)
    env.reset(seed=0, options={"deck": list(range(52))})
    assert env.unwrapped.config.six_player_mode == "all_play"
    assert _hand_sizes(env) == [9, 8, 8, 9, 9, 9]
    assert _play_lowest(env) == set(env.possible_agents)

    env = kakeya_v2.env(num_players=6, six_player_mode="dealers_sit_out", dealers_choose_trump=False)
    env.reset(seed=0, options={"deck": list(range(52))})
    assert _hand_sizes(env) == [13, 13, 0, 13, 13, 0]
    assert _play_lowest(env) == {"player_0", "player_1", "player_3", "player_4"}


# trump -> Rensho: the Kakeya text's sentence (v2) and the traditional rule (v1)
RENSHO = {
    "seed": {"clubs": "AC", "diamonds": "AS", "hearts": "AS", "spades": "AS"},
    "traditional": {"clubs": "AS", "diamonds": "AS", "hearts": "AS", "spades": "AC"},
}


@pytest.mark.parametrize("trump", ["clubs", "diamonds", "hearts", "spades"])
def test_rensho_follows_the_kakeya_text_by_default(trump):
    """Departure 11: "if the trump suit becomes clubs, the trump ace is the ace of clubs; if diamonds or
    hearts, it stays the ace of spades" — v2's default; the engine and every seat's observation agree."""
    suit = ["clubs", "diamonds", "hearts", "spades"].index(trump)
    for env, rule in ((kakeya_v2.env(), "seed"), (kakeya_v2.env(rensho_rule="traditional"), "traditional")):
        env.reset(seed=0, options={"deck": deck_for(suit_hands(), deal_order(4, 1))})
        env.step(Action.TRUMP(suit))
        want = ids([RENSHO[rule][trump]])[0]
        assert env.unwrapped.game.rensho == want, (rule, trump)
        spec = obs_spec(env.unwrapped.config)
        for seat in range(4):
            bits = spec.decode(env.observe(f"player_{seat}")["observation"])["rensho"]
            assert list(bits) == ([1, 0] if RENSHO[rule][trump] == "AC" else [0, 1])


def test_rensho_under_clubs_changes_the_deal():
    """Seat s holds suit s, clubs trumps, lowest-card play. v2: the ace of clubs is Rensho and seat 0
    holds every trump, so partnership 0 takes all 16 egara; v1 (Rensho = AS, seat 3): seat 3's AS takes
    the last trick, 12-4."""
    deck = deck_for(suit_hands(), deal_order(4, 1))
    for env, egara in ((kakeya_v2.env(), {0: 16, 1: 0}), (_v1().env(), {0: 12, 1: 4})):
        env.reset(seed=0, options={"deck": deck})
        env.step(Action.TRUMP(0))
        _play_lowest(env)
        assert env.unwrapped.game.results[0].egara == egara


def test_v1_and_v0_are_the_old_defaults():
    """kakeya_v1 = v2 with ``rensho_rule="traditional"`` (and ``dealers_sit_out`` with six players;
    the option is an error with four, so it is added only with six); kakeya_v0 adds
    ``rensho_follow="must_follow"``. Given options still win."""
    v1 = _v1()
    assert v1.raw_env().config == make_config(rensho_rule="traditional")
    assert v1.raw_env(num_players=np.int64(6)).config == make_config(
        num_players=6,
        six_player_mode="dealers_sit_out",
        rensho_rule="traditional",
        all_play_payment="each_loser",
    )
    played = v1.env(num_players=6, six_player_mode="all_play").unwrapped.config
    assert played.all_play and played.all_play_payment == "each_loser"  # v1's all_play: each loser pays
    with pytest.raises(ValueError, match="all_play_payment"):
        make_config(all_play_payment="shared")  # four players: no meaning
    assert v1.env(rensho_rule="seed").unwrapped.config.rensho_rule == "seed"
    with pytest.raises(ValueError, match="six_player_mode"):
        v1.env(six_player_mode="dealers_sit_out")  # four players: as in v1
    sys.modules.pop("kabu_envs.kakeya_v0", None)
    with pytest.warns(DeprecationWarning, match="kakeya_v0"):
        v0 = importlib.import_module("kabu_envs.kakeya_v0")
    assert v0.raw_env(num_players=6).config == make_config(
        num_players=6,
        six_player_mode="dealers_sit_out",
        all_play_payment="each_loser",
        rensho_rule="traditional",
        rensho_follow="must_follow",
    )


@pytest.mark.parametrize("options", [{"max_deals": 3}, {"num_players": 6, "max_deals": 2}])
def test_v1_plays_exactly_as_v2_with_the_old_defaults(options):
    """Seeded random play through kakeya_v1 and through v2 with v1's defaults spelt out: the same
    actions, observations and rewards (the goldens recorded under v1 replay through v1 too)."""
    old = {"rensho_rule": "traditional"}
    if options.get("num_players") == 6:
        old["six_player_mode"] = "dealers_sit_out"
    traces = []
    for env in (_v1().env(**options), kakeya_v2.env(**options, **old)):
        env.reset(seed=7)
        rng = np.random.Generator(np.random.PCG64(7))
        trace = []
        for agent in env.agent_iter():
            obs, reward, term, trunc, _ = env.last()
            trace.append((agent, obs["observation"].tobytes(), obs["action_mask"].tobytes(), reward))
            action = None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"])))
            env.step(action)
        traces.append(trace)
    assert traces[0] == traces[1]


@pytest.mark.parametrize(
    ("deck", "egara", "shared", "each_loser"),
    [
        # 10-3-3, the winners took an ace (the table's 1): v1 paid them 2; v2 the table's 1, from the
        # loser with fewer egara (tie: the lower partnership, 1)
        ([i * 3 % 52 for i in range(52)], {0: 10, 1: 3, 2: 3}, {0: 1, 1: -1, 2: 0}, {0: 2, 1: -1, 2: -1}),
        # 12-1-3 with aces (the table's 2): v1 paid 4; v2 pays 2, one stone from each loser
        ([(i + 42) % 52 for i in range(52)], {0: 12, 1: 1, 2: 3}, {0: 2, 1: -1, 2: -1}, {0: 4, 1: -2, 2: -2}),
    ],
)
def test_all_play_winners_receive_the_tables_stones_once(deck, egara, shared, each_loser):
    """Row kakeya.23, six players all playing: "if the partners who became winners took no aces among
    their picture cards, they get 4 stones" (Если у партнеров, которые стали победителями, во взятых
    картинках не было тузов, то они получают 4 камня): the winners *receive* the table's number, so
    with two losing partnerships each pays half of it (the odd stone: the loser with fewer egara), not
    all of it (v1, ``all_play_payment="each_loser"``, which paid the winners twice the table)."""
    for payment, want in (("shared", shared), ("each_loser", each_loser)):
        env = kakeya_v2.env(num_players=6, dealers_choose_trump=False, all_play_payment=payment)
        env.reset(seed=0, options={"deck": deck})
        returns = dict.fromkeys(env.possible_agents, 0.0)
        for agent in env.agent_iter():
            obs, reward, term, trunc, _ = env.last()
            returns[agent] += reward
            env.step(None if term or trunc else int(np.flatnonzero(obs["action_mask"])[0]))
        result = env.unwrapped.game.results[-1]
        assert result.egara == egara and result.winner == 0 and result.stones_change == want
        assert [returns[f"player_{s}"] for s in range(6)] == [want[s % 3] for s in range(6)]
    assert kakeya_v2.env(num_players=6).unwrapped.config.all_play_payment == "shared"
