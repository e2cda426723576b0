"""CI maths, duplicate-deal scoring and ratings on synthetic data with known answers."""

import numpy as np
import pytest

from kabu_envs.agents.base import RandomAgent
from kabu_envs.eval.duplicate import match_deal_seeds, plan_from_groups, play_deal, play_plan, score
from kabu_envs.eval.games import adapt_players
from kabu_envs.eval.stats import mean_ci, summarize, t_cdf, t_quantile
from kabu_envs.eval.tournament import format_table, openskill_ratings
from kabu_envs.toy_card.agents import ScriptedAgent as ToyScriptedAgent
from kabu_envs.toy_card.env import raw_env


def ToyCardEnv(num_players):  # noqa: N802 - reads like the class it stands for
    return raw_env(num_players=num_players)


@pytest.mark.parametrize(
    ("df", "expected"), [(1, 12.7062), (2, 4.3027), (5, 2.5706), (10, 2.2281), (30, 2.0423), (1000, 1.9623)]
)
def test_t_quantiles_match_tables(df, expected):
    assert t_quantile(0.975, df) == pytest.approx(expected, abs=1e-4)
    assert t_cdf(t_quantile(0.9, df), df) == pytest.approx(0.9, abs=1e-9)


def test_ci_known_values_and_coverage():
    m, lo, hi = mean_ci([1.0, 2.0, 3.0, 4.0])  # mean 2.5, s = 1.2910, t(3) = 3.1824
    assert (m, lo, hi) == pytest.approx((2.5, 2.5 - 3.1824 * 1.2910 / 2, 2.5 + 3.1824 * 1.2910 / 2), abs=1e-3)
    rng = np.random.default_rng(0)
    hits = 0
    for _ in range(1000):
        _, lo, hi = mean_ci(rng.normal(1.0, 3.0, size=8))
        hits += lo <= 1.0 <= hi
    assert 0.935 <= hits / 1000 <= 0.965  # a z-interval would cover only ~0.91 at n = 8
    with pytest.raises(ValueError):
        mean_ci([1.0])


def test_summary_rates():
    s = summarize([1.0, -1.0, 0.0, 2.0])
    assert (s.win_rate, s.tie_rate, s.loss_rate, s.n) == (0.5, 0.25, 0.25, 4)
    assert s.as_dict()["ci95"] == [s.lo, s.hi]


class LuckyPolicy:
    """Plays like the scripted toy agent; used twice to check that luck cancels."""

    name = "lucky"

    def reset(self, seed=None):
        pass

    def act(self, observation, action_mask):
        return ToyScriptedAgent().act(observation, action_mask)


def _match(fmt, agent, opponent, deals, seed, reference=None):
    """A two-seat Toy Card match whose groups are the two seats (``"seat"``: seat d % 2 on deal d),
    planned, played on the scalar path and scored."""
    seeds = match_deal_seeds(seed, deals)
    plan = plan_from_groups("toy_card", "seat", fmt, seed, seeds, [[[0], [1]]] * deals, 2)
    players = {"agent": agent, "opponent": opponent} | ({"reference": reference} if reference else {})
    return score(plan, play_plan(plan, adapt_players(players), env=ToyCardEnv(2)))


def test_duplicate_deals_cancel_card_luck():
    res = _match("team", LuckyPolicy(), LuckyPolicy(), deals=200, seed=1)
    assert np.std(res.agent_rewards) > 0.5  # single plays are dominated by the cards ...
    assert res.advantages == [0.0] * 200  # ... which duplicate scoring removes exactly
    res = _match("seat", LuckyPolicy(), LuckyPolicy(), deals=100, seed=2, reference=RandomAgent(seed=3))
    assert res.advantages == [0.0] * 100 and np.std(res.agent_rewards) > 0.5


def test_duplicate_advantage_has_the_known_mean():
    # optimal vs random: per deal pair E[adv] = (E f - E g) / 2 = (1 - 0.25) / 2 = 0.375
    res = _match("team", ToyScriptedAgent(), RandomAgent(seed=0), deals=3000, seed=0)
    s = res.summary()
    assert s.lo < 0.375 < s.hi and s.lo > 0.3  # (with this seed; in general within 4 SE)
    assert abs(s.mean - 0.375) < 4 * s.std / np.sqrt(s.n)
    swapped = _match("team", RandomAgent(seed=0), ToyScriptedAgent(), 3000, seed=5)
    assert swapped.summary().hi < 0


def test_play_deal_is_reproducible_per_seed():
    env = ToyCardEnv(3)
    agents = [RandomAgent(1), RandomAgent(2), RandomAgent(3)]
    a = play_deal(env, agents, 42)
    b = play_deal(env, agents, 42)
    assert np.array_equal(a, b) and a.sum() == pytest.approx(0.0)


def test_openskill_orders_by_advantage_and_table_marks_significance():
    r = openskill_ratings([("good", "bad", [1.0] * 30), ("mid", "bad", [1.0, -1.0, 0.0] * 10)])
    assert list(r)[0] == "good" and r["good"]["ordinal"] > r["bad"]["ordinal"]
    row = {"agent": "good", "opponent": "bad", "role": "seat", "games": 3, "mean": 1.0, "ci95": [0.5, 1.5]}
    assert "*" in format_table("toy_card", [row])


def test_openskill_blocks_rank_by_how_much_not_how_often():
    # "nibbler" wins 9 deals of 10 by 1 chip and loses the tenth by 20: per deal it looks better,
    # per block of 10 deals (summed advantage -11) it is worse, which is what the chips say
    adv = ([1.0] * 9 + [-20.0]) * 40
    per_deal = openskill_ratings([("nibbler", "steady", adv)])
    per_block = openskill_ratings([("nibbler", "steady", adv)], block=10)
    assert per_deal["nibbler"]["ordinal"] > per_deal["steady"]["ordinal"]
    assert per_block["nibbler"]["ordinal"] < per_block["steady"]["ordinal"]
    short = openskill_ratings([("a", "b", [1.0] * 25)], block=10)  # the incomplete last block is dropped
    assert short["a"]["ordinal"] > short["b"]["ordinal"]
    with pytest.raises(ValueError, match="block"):
        openskill_ratings([("a", "b", [1.0])], block=0)
