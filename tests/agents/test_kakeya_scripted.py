"""The scripted Kakeya player: decodes the observation, makes every decision, beats random."""

import numpy as np
import pytest

from kabu_envs import kakeya_v2
from kabu_envs.agents.base import BaseAgent, RandomAgent
from kabu_envs.kakeya import Action, card_id
from kabu_envs.kakeya.agents.scripted import KakeyaScriptedAgent
from kabu_envs.kakeya.cards import card_ids as ids
from kabu_envs.kakeya.game import partnership_of


def partnership_match(opts: dict, deals: int) -> tuple[float, float]:
    """Scripted partnership vs random partnerships, alternating which partnership is scripted.
    Returns (mean stones reward per deal of the scripted side, share of deals it won)."""
    env = kakeya_v2.env(**opts)
    n = env.unwrapped.config.num_players
    num_partnerships = n // 2
    total = wins = played = 0.0
    for d in range(deals):
        side = d % num_partnerships
        agents = [
            KakeyaScriptedAgent(seed=d, **opts)
            if partnership_of(s, n) == side
            else RandomAgent(seed=10_000 * s + d)
            for s in range(n)
        ]
        env.reset(seed=d)
        for agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            seat = int(agent.split("_")[1])
            env.step(None if term or trunc else agents[seat].act(obs["observation"], obs["action_mask"]))
        result = env.unwrapped.game.results[0]
        if side in result.egara:
            played += 1
            wins += result.winner == side
            total += result.stones_change[side]
    return total / played, wins / played


@pytest.mark.parametrize(
    "opts, deals",
    [
        ({}, 300),
        ({"num_players": 6, "six_player_mode": "dealers_sit_out"}, 150),
        ({"num_players": 6, "six_player_mode": "all_play"}, 150),
    ],
    ids=["4p", "6p_sit_out", "6p_all_play"],
)
def test_beats_random_partnership_vs_partnership(opts, deals):
    """Random vs random measures about 0.0 stones per deal and a win share of 0.5 (0.17 in all_play,
    where three partnerships compete and many deals have no winner); scripted: about 0.95 / 0.77
    (4p), 0.8 / 0.76 (sit-out), 0.34 / 0.33 (all_play, where the two losers share the table's stones:
    0.65 when each paid all of them)."""
    mean, win_share = partnership_match(opts, deals)
    assert mean > (0.2 if opts.get("six_player_mode") == "all_play" else 0.5), mean
    assert win_share > (0.25 if opts.get("six_player_mode") == "all_play" else 0.65), win_share


def _env_at(lib, hands, **opts):
    """``lib`` is the ``kakeya_testlib`` fixture (tests/kakeya/kakeya_testlib.py). These scenes have
    Rensho AS under clubs: ``rensho_rule="traditional"`` (v2's default makes AC Rensho there)."""
    env = kakeya_v2.env(dealers_choose_trump=False, rensho_rule="traditional", **opts)
    env.reset(seed=0, options={"deck": lib.deck_for(hands, lib.deal_order(4, 1))})
    return env


def _act(env, agent):
    obs = env.observe(env.agent_selection)
    a = agent.act(obs["observation"], obs["action_mask"])
    env.step(a)
    return a


def test_wins_egara_tricks_cheaply_and_spends_rensho_last(kakeya_testlib):
    ids = kakeya_testlib.ids
    hands = {
        0: list(range(0, 13)),  # all clubs (trumps)
        1: list(range(13, 24)) + ids(["2H", "AS"]),
        2: list(range(27, 39)) + ids(["KD"]),
        3: list(range(39, 51)) + ids(["AD"]),
    }
    env = _env_at(kakeya_testlib, hands)
    agent = KakeyaScriptedAgent(rensho_rule="traditional")
    env.step(Action.LEAD_SELF)
    env.step(card_id("KH"))  # seat 2 leads an egara
    assert _act(env, agent) == card_id("2S")  # seat 3 cannot win: lowest plain card, keeps AD
    assert _act(env, agent) == card_id("2C")  # seat 0 wins the egara trick with its lowest trump
    assert _act(env, agent) == card_id("AS")  # seat 1 is last: Rensho takes KH back


def test_leads_a_master_and_gives_egara_to_a_sure_partner(kakeya_testlib):
    ids = kakeya_testlib.ids
    hands = {
        0: list(range(0, 11)) + ids(["KH", "AH"]),
        1: list(range(13, 26)),
        2: list(range(26, 37)) + ids(["AS", "KC"]),
        3: list(range(39, 51)) + ids(["AC"]),
    }
    env = _env_at(kakeya_testlib, hands)
    agent = KakeyaScriptedAgent(rensho_rule="traditional")
    env.step(Action.LEAD_SELF)
    assert _act(env, agent) == card_id("AS")  # Rensho is a master: lead it
    assert _act(env, agent) == card_id("2S")  # cannot beat Rensho: cheapest plain card
    assert _act(env, agent) == card_id("KH")  # partner's Rensho wins: give it an egara
    assert _act(env, agent) == card_id("2D")


def test_trump_and_lead_choices():
    env = kakeya_v2.env(default_trump="hearts")
    env.reset(seed=0)
    agent = KakeyaScriptedAgent(default_trump="hearts")
    assert _act(env, agent) == Action.TRUMP(2)  # keeps the current trump (no hand is seen yet)
    obs = env.observe(env.agent_selection)
    a = agent.act(obs["observation"], obs["action_mask"])
    assert a in (Action.LEAD_SELF, Action.LEAD_PARTNER)
    strong = KakeyaScriptedAgent(lead_self_strength=0).act(obs["observation"], obs["action_mask"])
    weak = KakeyaScriptedAgent(lead_self_strength=14).act(obs["observation"], obs["action_mask"])
    assert (strong, weak) == (Action.LEAD_SELF, Action.LEAD_PARTNER)


def test_params_rules_and_save_load(tmp_path):
    agent = KakeyaScriptedAgent(seed=1, num_players=6, six_player_mode="all_play", rensho_min_egara=1)
    assert isinstance(agent, BaseAgent) and agent.cfg.all_play and agent.params["rensho_min_egara"] == 1
    path = tmp_path / "agent.json"
    agent.save(path)
    again = BaseAgent.load(path)
    assert isinstance(again, KakeyaScriptedAgent) and again.params == agent.params
    with pytest.raises(ValueError, match="unknown option"):
        KakeyaScriptedAgent(cleverness=3)
    with pytest.raises(ValueError, match="num_players"):
        KakeyaScriptedAgent(num_players=5)


def test_always_legal_in_every_mode():
    for opts in (
        {},
        {"rensho_follow": "must_follow", "rensho_rule": "seed"},
        {"num_players": 6},
        {"num_players": 6, "six_player_mode": "all_play", "max_deals": 3, "rensho_follow": "must_follow"},
    ):
        env = kakeya_v2.env(**opts)
        agent = KakeyaScriptedAgent(**opts)
        for seed in range(10):
            env.reset(seed=seed)
            for _name in env.agent_iter():
                obs, _, term, trunc, _ = env.last()
                if term or trunc:
                    env.step(None)
                    continue
                a = agent.act(obs["observation"], obs["action_mask"])
                assert obs["action_mask"][a] == 1
                env.step(a)
    assert np.random.get_state()  # (the agent has its own generator)


# Seat 3 holds Rensho AS as its only spade; seat 2 leads; seats 0 and 1 hold no spade.
RENSHO_ALONE = {
    3: ids(["AS", "2H", "3H", "4H", "5H", "6H", "7H", "2D", "3D", "4D", "5D", "6D", "7D"]),
    2: ids(["2S", "3S", "4S", "5S", "6S", "7S", "8S", "9S", "10S", "JS", "QS", "KS", "2C"]),
    0: list(range(1, 13)) + ids(["8H"]),  # 3C..AC
    1: ids(["8D", "9D", "10D", "JD", "QD", "KD", "AD", "9H", "10H", "JH", "QH", "KH", "AH"]),
}


@pytest.mark.parametrize("rensho_follow", ["free", "must_follow"])
def test_keeps_rensho_back_when_the_rules_allow(rensho_follow, kakeya_testlib):
    """A plain spade lead with no egara: "free" lets seat 3 keep Rensho and throw its lowest card;
    "must_follow" leaves it Rensho only. The agent plays from the mask either way."""
    env = _env_at(kakeya_testlib, RENSHO_ALONE, rensho_follow=rensho_follow)
    agent = KakeyaScriptedAgent(rensho_follow=rensho_follow, rensho_rule="traditional")
    env.step(Action.LEAD_SELF)
    env.step(card_id("2S"))
    assert _act(env, agent) == card_id("2D" if rensho_follow == "free" else "AS")


def test_a_shown_out_seat_may_still_hold_rensho(kakeya_testlib):
    """With "free", seat 3 shows out of spades while holding Rensho AS. Seat 2 wins the trick and
    leads again holding KS QS JS: none of them is a master (AS is neither played nor mine, and the
    void does not say seat 3 has no AS), so it does not lead a spade egara into Rensho."""
    env = _env_at(kakeya_testlib, RENSHO_ALONE)
    agent = KakeyaScriptedAgent(rensho_rule="traditional")
    env.step(Action.LEAD_SELF)
    for card in ("2S", "2H", "8H", "8D"):  # seat 2, 3 (shows out, keeps AS), 0, 1
        env.step(card_id(card))
    game = env.unwrapped.game
    assert game.last_trick.winner == 2 and env.agent_selection == "player_2"
    assert game.void_bits >> (4 * 3 + 3) & 1 and game.hands[3] >> card_id("AS") & 1
    led = _act(env, agent)
    assert led not in ids(["JS", "QS", "KS"])
