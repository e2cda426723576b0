"""Single-agent views: own reward (PettingZoo #1147), masks, illegal actions, checkers."""

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env as gym_check_env
from stable_baselines3.common.env_checker import check_env as sb3_check_env

from kabu_envs.agents.base import RandomAgent
from kabu_envs.core.errors import IllegalActionError
from kabu_envs.toy_card.game import Action
from kabu_envs.wrappers import OpponentPool

PASS, PLAY, RAISE = Action.PASS, Action.PLAY, Action.RAISE


class Always:
    """Plays a fixed action (or PLAY when it is illegal); counts its calls."""

    name = "always"

    def __init__(self, action):
        self.action, self.calls = action, 0

    def reset(self, seed=None):
        pass

    def act(self, observation, action_mask):
        self.calls += 1
        return self.action if action_mask[self.action] else PLAY


def _deck(*values):
    return [4 * v + i for i, v in enumerate(values)]  # card id 4*v+copy has value v (copy < 4)


def test_reward_is_learners_own_when_episode_ends_on_another_seats_move(toy_view):
    # seat 0 (card 9) raises, seat 1 (card 0) plays -> scores 2 and -1; rewards +1.5 / -1.5.
    env = toy_view(num_players=2, learner_seats=[0], opponents=Always(PLAY))
    env.reset(seed=1, options={"deck": _deck(9, 0)})
    _, reward, term, trunc, _ = env.step(RAISE)
    assert term and not trunc
    assert reward == pytest.approx(1.5)  # the next agent's reward (#1147) would be -1.5
    assert env.aec.rewards["player_1"] == pytest.approx(-1.5)


def test_reward_accumulates_over_several_other_seats_moves(toy_view):
    # 3 seats, learner seat 0 passes; seats 1 and 2 (cards 9, 9) raise: scores 0, 2, 2 -> reward -4/3.
    env = toy_view(num_players=3, learner_seats=[0], opponents=Always(RAISE))
    env.reset(seed=2, options={"deck": _deck(0, 9, 9)})
    _, reward, term, _, _ = env.step(PASS)
    assert term and reward == pytest.approx(-4 / 3)


def test_learner_in_last_seat_gets_its_reward_and_others_play_first(toy_view):
    opp = Always(RAISE)
    env = toy_view(num_players=3, learner_seats=[2], opponents=opp)
    obs, info = env.reset(seed=3, options={"deck": _deck(9, 0, 1)})
    assert opp.calls == 2 and info["acting"] == "player_2"
    assert obs[10 + 2] == 1.0  # the learner sees its own seat's observation
    _, reward, term, _, _ = env.step(PLAY)
    # scores: 2 (raise, high), 1*... seat1 card 0 -> PLAY = -1, seat2 PLAY low = -1 -> mean 0
    assert term and reward == pytest.approx(-1.0)


def test_multi_seat_learner_and_reward_is_mean_of_its_seats(toy_view):
    env = toy_view(num_players=4, learner_seats=[0, 2], together=True, opponents=Always(PASS))
    env.reset(seed=4, options={"deck": _deck(9, 0, 8, 1)})
    assert env.action_masks().tolist() == [True, True, True]
    _, r1, term, _, info = env.step(RAISE)
    assert not term and info["acting"] == "player_2"
    _, r2, term, _, _ = env.step(RAISE)
    assert r1 == 0.0 and term
    assert r2 == pytest.approx(2 - 1.0)  # each learner seat scores 2, the table mean is 1


def test_masks_illegal_actions_raise_or_penalise(toy_view):
    env = toy_view(num_players=2, learner_seats=[0], opponents=Always(PLAY), illegal_action="raise")
    env.reset(seed=5, options={"deck": _deck(2, 9)})
    assert env.action_masks().tolist() == [True, True, False]
    with pytest.raises(IllegalActionError, match="illegal action 2"):
        env.step(RAISE)
    pen = toy_view(num_players=2, learner_seats=[0], opponents=Always(PLAY))  # the default: penalty
    pen.reset(seed=5, options={"deck": _deck(2, 9)})
    with pytest.warns(RuntimeWarning, match="illegal action 2"):
        _, reward, term, _, info = pen.step(RAISE)
    assert term and reward == -1.0 and info["illegal_action"] == RAISE
    with pytest.raises(RuntimeError, match="reset"):
        pen.step(PASS)
    with pytest.raises(ValueError, match="illegal_action"):
        toy_view(illegal_action="remap")


def test_seeded_reset_is_reproducible_and_global_rng_untouched(toy_view):
    state = np.random.get_state()[1].copy()
    env = toy_view(num_players=3, learner_seats=[0, 1, 2], opponents=[RandomAgent(0)])

    def run(seed):
        out = []
        obs, info = env.reset(seed=seed)
        out.append((obs.tolist(), info["learner_seats"]))
        for _ in range(5):
            obs, r, term, _, _ = env.step(int(np.flatnonzero(env.action_masks())[0]))
            out.append((obs.tolist(), r))
            if term:
                obs, info = env.reset()
                out.append((obs.tolist(), info["learner_seats"]))
        return out

    assert run(11) == run(11)
    assert np.array_equal(np.random.get_state()[1], state)


def test_pool_weights_and_snapshot_cap():
    a, b, c = Always(PASS), Always(PLAY), Always(RAISE)
    pool = OpponentPool([(a, 3.0), (b, 1.0)], max_added=1)
    rng = np.random.default_rng(0)
    draws = [pool.sample(rng).inner for _ in range(4000)]  # (act-only objects: adapted, ActAgent)
    assert abs(draws.count(a) / 4000 - 0.75) < 0.03
    pool.add(c, 4.0)
    pool.add(Always(PASS), 4.0)
    agents, p = pool.members()
    inner = [x.inner for x in agents]
    assert c not in inner and len(agents) == 3 and p[-1] == pytest.approx(0.5)
    with pytest.raises(ValueError):
        OpponentPool([])


def test_toy_view_passes_gymnasium_and_sb3_checkers(toy_view):
    env = toy_view(num_players=3, learner_seats=[0, 1, 2], illegal_action="penalty")
    gym_check_env(env, skip_render_check=True)
    sb3_check_env(env)


def test_registered_ids_make_envs():
    import kabu_envs.wrappers  # noqa: F401  (registers the ids)

    env = gymnasium.make("kabu_envs/ToyCard-v1", num_players=2)
    obs, _ = env.reset(seed=0)
    assert env.observation_space.contains(obs)
    assert env.unwrapped.action_masks().dtype == bool
    for env_id in ("kabu_envs/OichoKabuBettor-v2", "kabu_envs/OichoKabuDealer-v2", "kabu_envs/Kakeya-v2"):
        assert env_id in gymnasium.registry
