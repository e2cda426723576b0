"""Both hand-written Oicho-Kabu players (rules of thumb, expert): legal in every preset, clearly better
than random in both roles, deterministic, saved and loaded; then the rule-of-thumb player's own rules."""

import numpy as np
import pytest

from kabu_envs import oicho_kabu_v1
from kabu_envs.agents.base import BaseAgent, RandomAgent
from kabu_envs.core.errors import RuleConfigError
from kabu_envs.oicho_kabu import events
from kabu_envs.oicho_kabu.actions import DRAW, ESCAPE, STAND
from kabu_envs.oicho_kabu.agents.common import bettor_decision
from kabu_envs.oicho_kabu.agents.expert import OichoExpertAgent
from kabu_envs.oicho_kabu.agents.scripted import OichoScriptedAgent, yaku_starters
from kabu_envs.oicho_kabu.config import make_config
from kabu_envs.oicho_kabu.deck import card_ids

ids = card_ids  # card ids for these values, a fresh copy for each repeat


def play(opts: dict, seat: int, agent, n_eps: int, others=None, check_masks: bool = False) -> np.ndarray:
    """Seat ``seat`` played by ``agent``, the rest by seeded random agents; total reward per episode.

    Episode ``ep`` uses env seed ``ep`` and the same seeds for the other seats in every call, so two
    calls with different agents at ``seat`` are paired deal by deal.
    """
    env = oicho_kabu_v1.raw_env(**opts)
    n = env.config.num_players
    others = others or [RandomAgent() for _ in range(n)]
    out = []
    for ep in range(n_eps):
        env.reset(seed=ep)
        for i, a in enumerate(others):
            a.reset(10_000 * i + ep)
        agent.reset(ep)
        seats = list(others)
        seats[seat] = agent
        total = 0.0
        for name in env.agent_iter():
            obs, rew, term, trunc, _ = env.last()
            i = int(name.rsplit("_", 1)[1])
            if i == seat:
                total += rew
            if term or trunc:
                env.step(None)
                continue
            a = seats[i].act(obs["observation"], obs["action_mask"])
            if check_masks:
                assert obs["action_mask"][a] == 1, (name, a)
            env.step(a)
        out.append(total)
    return np.array(out)


LONG = {
    "dealer_selection": "fixed",
    "max_rounds": 10,
    "dealer_change": (),
    "bankroll": 10_000,
    "num_players": 3,
}


PLAYERS = pytest.mark.parametrize("cls", [OichoScriptedAgent, OichoExpertAgent], ids=["scripted", "expert"])


@PLAYERS
@pytest.mark.parametrize(
    "rules, seat, n_eps",
    [("standard", 0, 160), ("standard", 1, 300), ("kansai", 0, 80), ("kansai", 1, 300)],
    ids=["standard-dealer", "standard-bettor", "kansai-dealer", "kansai-bettor"],
)
def test_beats_random_in_both_roles(cls, rules, seat, n_eps):
    opts = {"rules": rules, **LONG}
    scripted = cls(**opts)
    a = play(opts, seat, scripted, n_eps)
    b = play(opts, seat, RandomAgent(), n_eps)
    diff = a - b  # paired: same deals, same opponents
    se = diff.std(ddof=1) / np.sqrt(len(diff))
    assert diff.mean() > 3 * se, (a.mean(), b.mean(), se)
    if seat != 0:
        assert a.mean() > 0  # as a bettor it wins chips outright, it does not just lose less
    assert scripted.fallbacks == 0


@PLAYERS
@pytest.mark.parametrize("rules", ["standard", "kansai", "kabufuda_site"])
def test_only_legal_actions_in_every_preset(cls, rules):
    opts = {"rules": rules, "max_rounds": 6, "num_players": 3}
    if rules == "standard":
        opts["local_yaku"] = ["zoro", "niichi", "shiro", "pin_basami", "nobori", "kudari", "wake_satsu"]
    if rules == "kabufuda_site":
        opts["dealer_selection"] = "closest_to_nine"
    agents = [cls(**opts) for _ in range(3)]
    play(opts, 0, agents[0], 25, others=agents, check_masks=True)  # self-play: every seat this player
    mixed = [RandomAgent(), agents[1], RandomAgent()]
    play(opts, 0, agents[0], 25, others=mixed, check_masks=True)
    assert sum(a.fallbacks for a in agents) == 0


@PLAYERS
def test_hanafuda_lights_are_read(cls):
    opts = {"deck": "hanafuda", "local_yaku": ["sanpachi_hikari"], "max_rounds": 3}
    agents = [cls(**opts) for _ in range(4)]
    play(opts, 0, agents[0], 10, others=agents, check_masks=True)
    assert sum(a.fallbacks for a in agents) == 0


def stacked_round(opts: dict, deck: list[int], cls=OichoScriptedAgent, **params) -> list[events.Event]:
    """One round on a stacked deck with every seat played by ``cls``; the game's event log."""
    env = oicho_kabu_v1.raw_env(**opts)
    agents = [cls(**params, **opts) for _ in range(env.config.num_players)]
    env.reset(seed=0, options={"deck": deck})
    for name in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        env.step(agents[int(name.rsplit("_", 1)[1])].act(obs["observation"], obs["action_mask"]))
    return env.unwrapped.game.log


@pytest.mark.parametrize(
    "options, values, params, expect",
    [
        ({}, (4, 1), {}, STAND),  # shippin (5) would draw by value, but a third card voids it
        ({}, (2, 3), {}, DRAW),
        ({}, (3, 3), {}, STAND),
        ({}, (3, 3), {"draw_threshold": 6}, DRAW),
        ({}, (4, 4), {}, STAND),
        ({}, (4, 4), {"pair_draw": True}, DRAW),
        ({}, (1, 2), {}, DRAW),  # forced
        ({"local_yaku": ["niichi"]}, (1, 2), {}, STAND),
        ({"shiroku_escape": True}, (4, 6), {}, ESCAPE),
        ({"shiroku_escape": True}, (4, 6), {"escape": False}, DRAW),
        ({"rules": "kansai"}, (4, 5), {}, STAND),
        # free_draw is a permission: the player uses it only when its own rule says draw ...
        ({"rules": "kansai"}, (4, 5), {"draw_threshold": 9}, DRAW),
        ({"rules": "kansai"}, (4, 4), {"pair_draw": True}, DRAW),
        # ... and a value <= 3 still must draw, whatever the threshold
        ({"rules": "kansai"}, (1, 2), {"draw_threshold": 0}, DRAW),
        ({"free_draw": True}, (2, 8), {"draw_threshold": 0}, DRAW),
    ],
)
def test_bettor_decision(options, values, params, expect):
    p = {**OichoScriptedAgent(**options).p, **params}
    assert p.keys() >= OichoExpertAgent(**options).p.keys() - {
        "min_edge",
        "bet_fraction",
        "strong_edge",
        "strong_factor",
        "minso_margin",
        "dealer_model_threshold",
        "model_trust",
        "edge_samples",
        "edges",
        "dealer_model_shift",
        "exact_min_edge",
        "exact_strong_edge",
        "exact_strong_fraction",
    }
    assert bettor_decision(make_config(**options), tuple(ids(*values)), p) == expect


@PLAYERS
def test_params_save_load_and_unknown_options(cls, tmp_path):
    a = cls(seed=3, rules="kansai", bet_sizes=[1, 5], draw_threshold=4, take="bottom")
    path = tmp_path / "agent.json"
    a.save(path)
    b = BaseAgent.load(path, seed=3)
    assert isinstance(b, cls) and b.p == a.p and b.cfg == a.cfg
    with pytest.raises(RuleConfigError, match="drwa_threshold"):
        cls(drwa_threshold=3)
    with pytest.raises(ValueError, match="take"):
        cls(take="middle")


@PLAYERS
def test_deterministic_and_global_rng_untouched(cls):
    state = np.random.get_state()[1].copy()
    opts = {"max_rounds": 3}
    r1 = play(opts, 0, cls(**opts), 5)
    r2 = play(opts, 0, cls(**opts), 5)
    assert (r1 == r2).all()
    assert (np.random.get_state()[1] == state).all()


def test_yaku_starters_follow_the_rule_set():
    assert yaku_starters(make_config()) == {1, 4}  # shippin
    assert yaku_starters(make_config(rules="kabufuda_site")) == set()  # no two-card bettor yaku
    assert yaku_starters(make_config(local_yaku=["toichi", "pin_basami"])) == {1, 4, 10}
    assert yaku_starters(make_config(local_yaku=["zoro"])) == set(range(1, 11))


def test_bets_strong_share_on_starters_and_weak_share_elsewhere():
    # 4 players: fair share 50 / 3; strong 0.6 -> 10 chips, weak 0.12 -> 2 chips; two bettors stake
    # 24 each, so the domae (50) leaves the third bettor 2 chips: its 10 is cut to what fits
    log = stacked_round({}, ids(1, 6, 4, 8))
    bets = [e for e in log if isinstance(e, events.Bet)]
    full = [events.Bet(seat, s, amount) for seat in (1, 2) for s, amount in enumerate((10, 2, 10, 2))]
    assert bets == [*full, events.Bet(3, 0, 2)]
    none = stacked_round({"num_players": 2}, ids(1, 6, 4, 8), weak_share=0.0)
    assert [e for e in none if isinstance(e, events.Bet)] == [events.Bet(1, 0, 10), events.Bet(1, 2, 10)]
    with pytest.raises(ValueError, match="weak_share"):
        OichoScriptedAgent(weak_share=1.5)


@pytest.mark.parametrize("second, expect", [(5, events.DealerDraw), (2, events.DealerStand)])
def test_dealer_threshold_moves_up_when_the_stakes_stood(second, expect):
    # spread 0: 1 then ``second``: 1+5 = 6 stands, 1+2 = 3 draws (a 7); the dealer holds 2+4 = 6.
    # Stood -> threshold 5 + 1 = 6 -> the dealer draws; drew -> threshold 5 -> the dealer stands.
    opts = {"num_players": 2}
    table = [0, 20, 24, 28]  # values 1, 6, 7, 8
    spread0 = (second - 1) * 4 + 1
    third = [25] if second == 2 else []  # a 7 for the spread that draws
    deck = [*table, 4, spread0, 21, 26, 29, *third, 12]
    log = stacked_round(opts, deck, weak_share=0.0)
    assert events.Bet(1, 0, 10) in log
    decided = events.Draw if second == 2 else events.Stand
    assert any(isinstance(e, decided) and e.spread == 0 for e in log), log
    assert any(isinstance(e, expect) for e in log), log


def test_minso_counts_the_starters_on_the_table():
    opts = {"rules": "kansai", "num_players": 2}
    assert events.MinsoRedeal(tuple(ids(1, 6, 4, 8))) in stacked_round(opts, ids(1, 6, 4, 8))
    assert events.MinsoKeep() in stacked_round(opts, ids(1, 6, 7, 8))
    assert events.MinsoKeep() in stacked_round(opts, ids(1, 6, 4, 8), minso_starters=3)


@PLAYERS
def test_plays_a_deal_whose_seat_order_follows_the_selection_cards(cls):
    # kabufuda_site chooses the dealer before every deal: 6, 2, 9 -> player_1 deals, player_0 (6) bets
    # first, then player_2 (9); the players read roles and turns from the observation, not from seats
    opts = {"rules": "kabufuda_site", "num_players": 3}
    log = stacked_round(opts, ids(6, 2, 9, 5, 3, 1, 4, 7, 8), cls)
    assert log[0] == events.Select(tuple(zip((0, 1, 2), ids(6, 2, 9), strict=True)), 1)
    bettors = [e.seat for e in log if isinstance(e, events.Bet)]
    assert bettors == sorted(bettors, key=[0, 2].index)  # player_0's stakes before player_2's
    if cls is OichoScriptedAgent:
        assert bettors and bettors[0] == 0
    assert make_config(**opts).dealer_selection_each_deal
    long = {**opts, "max_rounds": 8}  # a new dealer and seat order every deal
    agents = [cls(**long) for _ in range(3)]
    play(long, 0, agents[0], 5, others=agents, check_masks=True)
    assert sum(a.fallbacks for a in agents) == 0
