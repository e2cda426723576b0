"""BatchVecEnv (training/batch_vec_env.py): the single-agent views over one batch engine.

Equivalence: with the same seed and the same learner actions, its observations, masks, rewards and
dones equal a DummyVecEnv of the views, step by step, across many auto-reset episodes (the terminal
observation excepted, as its docstring says); VecEnv API checks; MaskablePPO learns on it.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
from stable_baselines3.common.vec_env import DummyVecEnv, VecMonitor

from kabu_envs.agents.base import ActAgent, RandomAgent
from kabu_envs.core.errors import IllegalActionError
from kabu_envs.training.batch_vec_env import BatchVecEnv, VecScaleReward
from kabu_envs.wrappers.single_agent import OpponentPool
from kabu_envs.wrappers.views import make_view

torch.set_num_threads(1)

# (game, role, partner, opponents, rule options, learner steps)
CASES = [
    ("toy_card", None, "self", "random", {"num_players": 3}, 120),
    ("kakeya", None, "self", ["random", "scripted"], {}, 160),
    ("kakeya", None, "pool", ["random", "scripted"], {"max_deals": 2}, 120),
    ("kakeya", None, "self", ["random"], {"num_players": 6, "max_deals": 2}, 120),
    ("oicho_kabu", "bettor", "self", ["random", "scripted"], {}, 120),
    ("oicho_kabu", "dealer", "self", ["random", "expert"], {}, 80),
    # one pool member (the seats drawn in bulk): with the partner drawn, and with a single learner group
    ("kakeya", None, "pool", ["scripted"], {"max_deals": 2}, 80),
    ("oicho_kabu", "dealer", "self", ["scripted"], {}, 60),
    ("oicho_kabu", "bettor", "self", ["scripted"], {"num_players": 5}, 80),
]


def _pair(game, role, partner, opponents, options, n=4, seed=5):
    """A BatchVecEnv and a DummyVecEnv of views (each view with its own opponents), both seeded."""
    batch = BatchVecEnv(game, n, role=role, opponents=opponents, partner=partner, **options)

    def view():
        return make_view(game, role=role, opponents=opponents, partner=partner, **options)

    dummy = DummyVecEnv([view for _ in range(n)])
    batch.seed(seed)
    dummy.seed(seed)
    return batch, dummy


@pytest.mark.parametrize(
    ("game", "role", "partner", "opponents", "options", "steps"),
    CASES,
    ids=[f"{c[0]}-{c[1] or 'default'}-{c[2]}-{len(c[4])}" for c in CASES],
)
def test_equals_a_dummy_vec_env_of_the_views(game, role, partner, opponents, options, steps):
    batch, dummy = _pair(game, role, partner, opponents, options)
    assert batch.observation_space == dummy.observation_space
    assert batch.action_space == dummy.action_space
    assert np.array_equal(batch.reset(), dummy.reset())
    rng = np.random.default_rng(0)
    episodes = 0
    paid = False
    for t in range(steps):
        masks = batch.action_masks()
        assert np.array_equal(masks, np.stack(dummy.env_method("action_masks"))), t
        assert np.array_equal(np.stack(batch.env_method("action_masks")), masks)
        acts = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        ob, rb, db, ib = batch.step(acts)
        od, rd, dd, idd = dummy.step(acts)
        assert np.array_equal(ob, od), t
        assert np.array_equal(rb, rd), (t, rb, rd)
        assert np.array_equal(db, dd), t
        for i in np.flatnonzero(db):
            assert ib[i]["terminal_observation"].shape == idd[i]["terminal_observation"].shape
            assert ib[i]["TimeLimit.truncated"] is False
        episodes += int(db.sum())
        paid |= bool(rb.any())
    assert episodes >= 4 and paid


@pytest.mark.parametrize(("game", "role"), [("oicho_kabu", "bettor"), ("kakeya", None)])
def test_over_the_reference_loop_engine_equals_the_views(game, role, monkeypatch):
    """On ``LoopBatchEnv`` (the engine of a rule set a game does not vectorise: B AEC envs) the VecEnv
    reads the seat groups from the AEC envs and its opponents act on observations: still the views."""
    from kabu_envs import batch as batch_module
    from kabu_envs.batch import LoopBatchEnv

    monkeypatch.setattr(
        batch_module, "make", lambda g, batch_size, **o: LoopBatchEnv(g, batch_size=batch_size, **o)
    )
    env, dummy = _pair(game, role, "self", ["random", "scripted"], {})
    assert isinstance(env.engine, LoopBatchEnv)
    assert np.array_equal(env.reset(), dummy.reset())
    rng = np.random.default_rng(1)
    episodes = 0
    for t in range(60):
        masks = env.action_masks()
        acts = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        ob, rb, db, _ = env.step(acts)
        od, rd, dd, _ = dummy.step(acts)
        assert np.array_equal(ob, od) and np.array_equal(rb, rd) and np.array_equal(db, dd), t
        episodes += int(db.sum())
    assert episodes >= 4


def test_seeding_is_reproducible_and_rows_differ():
    a = BatchVecEnv("kakeya", 3, opponents="random")
    b = BatchVecEnv("kakeya", 3, opponents="random")
    a.seed(11)
    b.seed(11)
    oa, ob = a.reset(), b.reset()
    assert np.array_equal(oa, ob)
    differ = False
    for _ in range(40):
        acts = np.array([np.flatnonzero(m)[-1] for m in a.action_masks()])
        ra, rb = a.step(acts), b.step(acts)
        for x, y in zip(ra[:3], rb[:3], strict=True):
            assert np.array_equal(x, y)
        differ |= not np.array_equal(ra[0][0], ra[0][1])  # each row deals its own cards
    assert differ
    a.seed(11)
    assert np.array_equal(a.reset(), oa)  # seed() + reset() restarts every row's stream


def test_vec_env_api_and_illegal_actions_are_named():
    env = BatchVecEnv("toy_card", 2, opponents="random", num_players=2)
    env.seed(0)
    obs = env.reset()
    assert obs.shape == (2, *env.observation_space.shape) and obs.dtype == np.float32
    assert all(env.observation_space.contains(o) for o in obs)
    assert env.get_attr("render_mode") == [None, None] and env.env_is_wrapped(VecMonitor) == [False] * 2
    assert env.has_attr("action_masks") and not env.has_attr("aec")
    with pytest.raises(AttributeError, match="no method 'render'"):
        env.env_method("render")
    with pytest.raises(AttributeError, match="no attribute 'aec'"):
        env.get_attr("aec")
    masks = env.action_masks()
    bad = np.array([int(np.flatnonzero(~m)[0]) if (~m).any() else 9 for m in masks])
    with pytest.raises((IllegalActionError, ValueError)):
        env.step(bad)
    with pytest.raises(ValueError, match="partner must be"):
        BatchVecEnv("kakeya", 2, partner="other")
    with pytest.raises(ValueError, match="no role"):
        BatchVecEnv("oicho_kabu", 2, role="banker")


def test_scaled_rewards_and_monitor_episodes():
    plain = VecMonitor(BatchVecEnv("toy_card", 4, opponents="random", num_players=2))
    scaled = VecScaleReward(VecMonitor(BatchVecEnv("toy_card", 4, opponents="random", num_players=2)), 0.5)
    plain.seed(3)
    scaled.seed(3)
    plain.reset()
    scaled.reset()
    episodes = 0
    for _ in range(30):
        acts = np.array([np.flatnonzero(m)[-1] for m in plain.venv.action_masks()])
        _, r1, d1, i1 = plain.step(acts)
        _, r2, d2, i2 = scaled.step(acts)
        np.testing.assert_allclose(r2, 0.5 * r1)
        for i in np.flatnonzero(d1):
            assert i1[i]["episode"]["r"] == i2[i]["episode"]["r"]  # the log stays unscaled
            episodes += 1
    assert episodes > 0


def test_the_pool_is_read_at_every_episode_start_and_fallback_agents_keep_their_generator():
    """A snapshot added to the pool (as self-play does) is met by later episodes; a user's agent with only
    ``act`` (adapted once by the pool) plays row by row with the row's generator and gets its own back."""

    class ActOnly:
        def __init__(self, seed: int) -> None:
            self.rng = np.random.default_rng(seed)

        def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
            legal = np.flatnonzero(action_mask)
            return int(legal[self.rng.integers(legal.size)])

    first, later = RandomAgent(seed=1), ActOnly(seed=2)
    own = later.rng
    pool = OpponentPool([(first, 1.0)])
    env = BatchVecEnv("toy_card", 4, opponents=pool, num_players=3)
    env.seed(0)
    env.reset()
    pool.add(later, 1e6)
    seen = set()
    for _ in range(20):
        acts = np.array([np.flatnonzero(m)[0] for m in env.action_masks()])
        env.step(acts)
        seen |= {env._slots[s] for s in np.unique(env._seat_slot[env._seat_slot >= 0])}
    adapted = [a for a in seen if isinstance(a, ActAgent)]
    assert [a.inner for a in adapted] == [later] and later.rng is own


def _mean_reward(policy, seed: int, steps: int = 60) -> float:
    """Mean learner reward over ``steps`` steps of 16 Toy Card games against random."""
    env = BatchVecEnv("toy_card", 16, opponents="random", num_players=2)
    env.seed(seed)
    obs = env.reset()
    total = 0.0
    for _ in range(steps):
        masks = env.action_masks()
        obs, r, _, _ = env.step(policy(obs, masks))
        total += float(r.mean())
    return total / steps


def test_maskable_ppo_learns_on_it():
    """A few hundred MaskablePPO steps on Toy Card against random: the learner then earns clearly more
    than a random learner on the same deals, near the optimal (scripted) policy."""
    from sb3_contrib import MaskablePPO

    from kabu_envs.toy_card.agents import ScriptedAgent

    env = VecMonitor(BatchVecEnv("toy_card", 16, opponents="random", num_players=2))
    env.seed(0)
    model = MaskablePPO(
        "MlpPolicy",
        env,
        n_steps=16,
        batch_size=64,
        n_epochs=4,
        learning_rate=3e-3,
        seed=0,
        device="cpu",
        policy_kwargs={"net_arch": [16]},
    )
    model.learn(768)
    assert model.num_timesteps >= 768

    def trained(obs, masks):
        acts, _ = model.predict(obs, action_masks=masks, deterministic=True)
        assert masks[np.arange(len(acts)), acts].all()
        return acts

    rng = np.random.default_rng(1)
    scripted = ScriptedAgent()
    learned = _mean_reward(trained, seed=9)
    uniform = _mean_reward(lambda o, m: np.array([rng.choice(np.flatnonzero(x)) for x in m]), seed=9)
    best = _mean_reward(
        lambda o, m: np.array([scripted.act(x, y) for x, y in zip(o, m, strict=True)]), seed=9
    )
    assert learned > uniform + 0.5 * (best - uniform), (learned, uniform, best)


@pytest.mark.parametrize(("game", "role"), [("oicho_kabu", "bettor"), ("kakeya", None)])
def test_opponent_turns_share_engine_calls_and_restarts_come_together(game, role):
    """Between two learner decisions every row that waits for an opponent moves in every engine call
    until it reaches its learner or its game ends; finished games restart together, in one deal call,
    once no opponent is to move anywhere, and then the same holds for them. So within each phase between
    deal calls the moved rows shrink call by call, never come back, and the calls are as many as the
    longest run of any row."""
    env = BatchVecEnv(game, 64, role=role, opponents="scripted")
    env.seed(2)
    env.reset()
    calls: list[np.ndarray | None] = []  # engine steps' active rows; None: a deal call
    step, deal = env.engine.step, env._deal

    def counted(actions, active=None):
        calls.append(np.ones(env.num_envs, dtype=bool) if active is None else np.array(active, dtype=bool))
        step(actions, active=active)

    def dealt(rows):
        assert not (
            (env.engine.current_player >= 0) & (env._seat_slot[env._rows, env.engine.current_player] >= 0)
        ).any()
        calls.append(None)
        deal(rows)

    env.engine.step, env._deal = counted, dealt
    rng = np.random.default_rng(0)
    restarts = together = 0
    for _ in range(30):
        calls.clear()
        masks = env.action_masks()
        _, _, done, _ = env.step(np.where(masks, rng.random(masks.shape), -1.0).argmax(axis=1))
        restarts += int(done.sum())
        first = calls[0]
        assert first is not None and first.all()  # the learners' step
        phases: list[list[np.ndarray]] = [[]]
        for c in calls[1:]:
            if c is None:
                phases.append([])
            else:
                phases[-1].append(c)
        if done.any() and len(phases) == 2:  # one deal call for all the games that finished
            together += 1
        for moved in phases:
            for before, after in zip(moved, moved[1:], strict=False):
                assert not (after & ~before).any()  # a row that reached its learner stays there
            if moved:
                assert len(moved) == int(np.sum(moved, axis=0).max())
    assert restarts > 0
    assert together > 0
