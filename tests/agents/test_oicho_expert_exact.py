"""The expert's exact bet edges (``edges="exact"``, the default under info cards): the draw
probabilities and the edges against brute force over every ordered draw of a small pool, and the
bets reading the seat's own info card."""

import itertools

import numpy as np
import pytest

from kabu_envs import oicho_kabu_v2
from kabu_envs.oicho_kabu.actions import BET_BASE, DRAW, ESCAPE, STAND
from kabu_envs.oicho_kabu.agents.common import BETTOR_KEYS, bettor_decision, dealer_threshold_decision
from kabu_envs.oicho_kabu.agents.expert import OichoExpertAgent
from kabu_envs.oicho_kabu.agents.pool_edges import draw_probabilities, pool_edges
from kabu_envs.oicho_kabu.config import make_config
from kabu_envs.oicho_kabu.deck import card_ids
from kabu_envs.oicho_kabu.game import Phase
from kabu_envs.oicho_kabu.rules import settle

# a small pool: values 1, 2, 5, 7, 9 with these counts (ten cards)
POOL = np.array([2, 1, 0, 0, 3, 0, 2, 0, 2, 0])


def _cards(pool: np.ndarray) -> list[int]:
    """One value per card of ``pool`` (values 1..10)."""
    return [v + 1 for v in range(10) for _ in range(int(pool[v]))]


def test_draw_probabilities_are_those_of_ordered_draws_without_replacement():
    cards = _cards(POOL)
    brute = np.zeros((10,) * 5)
    perms = list(itertools.permutations(range(len(cards)), 5))
    for p in perms:
        brute[tuple(cards[i] - 1 for i in p)] += 1.0 / len(perms)
    got = draw_probabilities(POOL)
    assert np.allclose(got, brute, atol=1e-15) and got.sum() == pytest.approx(1.0)
    assert not draw_probabilities(np.array([1, 1, 1, 1, 0, 0, 0, 0, 0, 0])).any()  # four cards: none


@pytest.mark.parametrize("rules", ["kabufuda_site", "standard"])
@pytest.mark.parametrize("shift", [0, 1])
def test_pool_edges_equal_brute_force_over_every_ordered_draw(rules, shift):
    cfg = make_config(rules=rules)
    p = OichoExpertAgent(rules=rules).p
    key = tuple((k, p[k]) for k in BETTOR_KEYS)
    edges = pool_edges(cfg, key, 5, shift, tuple(POOL.tolist()))
    cards = _cards(POOL)
    perms = list(itertools.permutations(range(len(cards)), 5))
    for v in (1, 4, 6, 10):
        total = 0.0
        for perm in perms:
            x, y, d1, d2, d3 = (cards[i] for i in perm)
            ids = card_ids(v, x, y, d1, d2, d3)  # distinct copies, in this order
            act = bettor_decision(cfg, tuple(ids[:2]), p)
            if act == ESCAPE:
                continue
            bettor = tuple(ids[:3]) if act == DRAW else tuple(ids[:2])
            dealer = tuple(ids[3:5])
            if dealer_threshold_decision(cfg, dealer, 5 + (shift if act == STAND else 0)) == DRAW:
                dealer = tuple(ids[3:6])
            total += settle(cfg, dealer, bettor)
        assert edges[v - 1] == pytest.approx(total / len(perms), abs=1e-12), v


def _bet_observation(info_value: int) -> tuple[OichoExpertAgent, np.ndarray, np.ndarray]:
    """A kabufuda-site bettor's first BET observation of deal seed 5, its info card set to
    ``info_value`` (the rest as dealt)."""
    env = oicho_kabu_v2.raw_env(rules="kabufuda_site")
    env.reset(seed=5)
    agent = OichoExpertAgent(rules="kabufuda_site")
    obs = env.observe(env.agent_selection)
    o, mask = obs["observation"].copy(), obs["action_mask"]
    assert int(o[agent.sl["phase"]].argmax()) == Phase.BET
    o[agent.sl["info_card"]] = 0.0
    o[agent.sl["info_card"].start + info_value - 1] = 1.0
    return agent, o, mask


def test_site_bets_follow_the_exact_edge_of_the_cards_the_seat_has_seen():
    stakes = set()
    for info in range(1, 11):
        agent, o, mask = _bet_observation(info)
        first = agent._spread(o, agent._active_spread(o))[0]
        pool = np.full(10, 4)
        for v in [agent._spread(o, s)[0] for s in range(4)] + [info]:
            pool[v - 1] -= 1
        p = agent.p
        edge = pool_edges(agent.cfg, tuple((k, p[k]) for k in BETTOR_KEYS), 5, 1, tuple(pool.tolist()))
        a = agent.act(o, mask)
        assert (a == BET_BASE) == (edge[first - 1] <= p["exact_min_edge"]), (info, edge[first - 1])
        if edge[first - 1] > p["exact_strong_edge"]:
            assert agent.cfg.bet_sizes[a - BET_BASE - 1] == 25
        assert int(agent.act_batch(o[None], mask[None])[0]) == a
        stakes.add(a)
    assert len(stakes) > 1  # the info card changes the bet


def test_edges_modes():
    assert OichoExpertAgent(rules="kabufuda_site")._exact
    assert not OichoExpertAgent()._exact
    assert OichoExpertAgent(edges="exact")._exact
    assert not OichoExpertAgent(rules="kabufuda_site", edges="sampled")._exact
    with pytest.raises(ValueError, match="edges='bogus'"):
        OichoExpertAgent(edges="bogus")
