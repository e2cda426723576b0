"""The single-agent views of the real games: own reward, roles, partnerships, checkers."""

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env as gym_check_env
from stable_baselines3.common.env_checker import check_env as sb3_check_env

from kabu_envs.agents.base import RandomAgent
from kabu_envs.kakeya.game import partnership_seats
from kabu_envs.wrappers.views import make_view


def oicho_view(**kwargs):
    return make_view("oicho_kabu", **kwargs)


def kakeya_view(**kwargs):
    return make_view("kakeya", role="partnership", **kwargs)


def kakeya_teams(n):
    return [partnership_seats(p, n) for p in range(n // 2)]


def _play(env, episodes, seed, snapshot):
    """Random legal play; per episode the summed step rewards, learner seats and a final-state snapshot."""
    rng = np.random.default_rng(seed)
    out = []
    _, info = env.reset(seed=seed)
    for _ in range(episodes):
        total, done = 0.0, False
        while not done:
            _, r, done, _, step_info = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
            total += r
        out.append((total, info["learner_seats"], snapshot(env.aec.unwrapped)))
        _, info = env.reset()
    return out


@pytest.mark.parametrize("role", ["bettor", "dealer"])
def test_oicho_view_returns_learners_own_chip_change(role):
    env = oicho_view(role=role, opponents=[RandomAgent(0)])
    bankroll = env.aec.unwrapped.config.bankroll
    nonzero = 0
    snap = lambda raw: (raw.game.dealer, list(raw.game.chips))  # noqa: E731
    for total, seats, (dealer, chips) in _play(env, 60, 3, snap):
        (seat,) = [int(s[7:]) for s in seats]
        assert (seat == dealer) == (role == "dealer")
        assert total == pytest.approx(chips[seat] - bankroll)  # #1147: not the next seat's change
        nonzero += total != 0 and any(chips[s] - bankroll != total for s in range(len(chips)) if s != seat)
    assert nonzero > 5


def test_kakeya_view_learner_plays_a_partnership_and_gets_its_stones():
    env = kakeya_view(opponents=[RandomAgent(0)])
    seen = set()
    start = env.aec.unwrapped.config.stones_per_player
    moved = 0
    for total, seats, stones in _play(env, 16, 4, lambda raw: list(raw.stones)):
        team = sorted(int(s[7:]) for s in seats)
        assert team in kakeya_teams(4)
        seen.add(tuple(team))
        assert total == pytest.approx(sum(stones[s] - start for s in team))  # the partnership's change
        moved += total != 0
    assert len(seen) == 2 and moved > 5
    single = kakeya_view(partner="pool", opponents=[RandomAgent(0)])
    _, info = single.reset(seed=1)
    assert len(info["learner_seats"]) == 1


@pytest.mark.parametrize("make", [lambda: oicho_view(role="bettor"), lambda: oicho_view(role="dealer")])
def test_oicho_views_pass_checkers(make):
    env = make()
    env.illegal_action = "penalty"
    gym_check_env(env, skip_render_check=True)
    sb3_check_env(env)


def test_kakeya_view_passes_checkers():
    env = kakeya_view(opponents="random", illegal_action="penalty")
    gym_check_env(env, skip_render_check=True)
    sb3_check_env(env)
