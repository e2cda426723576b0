"""The single-agent views follow Gymnasium's and SB3's conventions with their defaults (issue: front door,
item 5): the checkers pass on every registered id, an illegal action ends the episode with a penalty
and one warning (raising stays an option, the AEC env's message), ``info["action_mask"]`` survives a
vector env's next-step autoreset, and the AEC envs and the views share the option names."""

from __future__ import annotations

import warnings

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env as gym_check_env

import kabu_envs.wrappers
from kabu_envs import registry
from kabu_envs.core.errors import IllegalActionError

VIEW_IDS = [gym_id for gym_id, _, _ in registry.iter_gym_ids()]


def _illegal(mask: np.ndarray) -> int:
    return int(np.flatnonzero(~np.asarray(mask, dtype=bool))[0])


@pytest.mark.parametrize("env_id", VIEW_IDS)
def test_every_registered_view_passes_both_checkers_with_defaults(env_id: str) -> None:
    sb3_checker = pytest.importorskip("stable_baselines3.common.env_checker")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # the illegal-action warning (tested below)
        gym_check_env(gymnasium.make(env_id).unwrapped, skip_render_check=True)
        sb3_checker.check_env(gymnasium.make(env_id))


def test_the_registry_lists_the_views_the_checkers_cover() -> None:
    assert {"kabu_envs/Kakeya-v2", "kabu_envs/OichoKabuBettor-v2", "kabu_envs/ToyCard-v1"} <= set(VIEW_IDS)
    assert set(VIEW_IDS) == {k for k in gymnasium.registry if k.startswith("kabu_envs/")}


def test_the_retired_id_points_to_its_successor_and_raise_stays_an_option() -> None:
    with pytest.raises(gymnasium.error.DeprecatedEnv, match="ToyCard-v1"):
        gymnasium.make("kabu_envs/ToyCard-v0")
    old = gymnasium.make("kabu_envs/ToyCard-v1", illegal_action="raise").unwrapped
    _, info = old.reset(seed=0)
    with pytest.raises(IllegalActionError, match=r"illegal action 2 \(RAISE\)"):
        old.step(_illegal(info["action_mask"]))
    new = gymnasium.make("kabu_envs/ToyCard-v1").unwrapped
    _, info = new.reset(seed=0)
    with pytest.warns(RuntimeWarning, match="RAISE"):
        _, reward, term, trunc, info = new.step(_illegal(info["action_mask"]))
    assert (reward, term, trunc, info["illegal_action"]) == (-1.0, True, False, 2)


def test_an_illegal_action_warns_once_per_env_and_raises_with_the_aec_message() -> None:
    env = kabu_envs.wrappers.make_view("kakeya", opponents="random", illegal_reward=-2.0)
    seen = []
    for seed in range(3):
        _, info = env.reset(seed=seed)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            _, reward, term, _, _ = env.step(_illegal(info["action_mask"]))
        seen += [w for w in caught if issubclass(w.category, RuntimeWarning)]
        assert reward == -2.0 and term
    assert len(seen) == 1 and "legal actions: [" in str(seen[0].message)
    strict = kabu_envs.wrappers.make_view("kakeya", opponents="random", illegal_action="raise")
    _, info = strict.reset(seed=0)
    bad = _illegal(info["action_mask"])
    with pytest.raises(IllegalActionError) as view_err:
        strict.step(bad)
    aec = strict.aec  # the same deal at the same decision
    with pytest.raises(IllegalActionError) as aec_err:
        aec.step(bad)
    assert str(view_err.value).split(";")[0].startswith(f"illegal action {bad} (PLAY(")
    assert str(view_err.value).split(" (player")[0] == str(aec_err.value).split(" (player")[0]
    assert str(view_err.value).split("legal actions: ")[1] == str(aec_err.value).split("legal actions: ")[1]


def test_the_old_option_name_still_works_with_a_deprecation_warning() -> None:
    with pytest.warns(DeprecationWarning, match="illegal_reward"):
        env = kabu_envs.wrappers.make_view("toy_card", opponents="random", illegal_penalty=-5.0)
    assert env.illegal_reward == -5.0
    with pytest.warns(DeprecationWarning):
        assert env.illegal_penalty == -5.0
    with pytest.raises(ValueError, match="only illegal_reward"):
        kabu_envs.wrappers.make_view("toy_card", illegal_penalty=-5.0, illegal_reward=-1.0)
    with pytest.raises(ValueError, match="illegal_action='raise'"):
        kabu_envs.wrappers.make_view("toy_card", illegal_action="raise", illegal_reward=-1.0)


@pytest.mark.parametrize("game", ["toy_card", "kakeya", "oicho_kabu"])
def test_the_aec_envs_take_the_views_option_names(game: str) -> None:
    spec = registry.get(game)
    env_fn = registry.resolve(spec.env)
    for kwargs, reward in (({"illegal_action": "penalty"}, -1.0), ({"illegal_reward": -3.0}, -3.0)):
        env = env_fn(**kwargs)
        env.reset(seed=0)
        agent = env.agent_selection
        env.step(_illegal(env.observe(agent)["action_mask"]))
        assert env.rewards[agent] == reward and env.terminations[agent]
    env = env_fn()  # the AEC default stays "raise"
    env.reset(seed=0)
    with pytest.raises(IllegalActionError):
        env.step(_illegal(env.observe(env.agent_selection)["action_mask"]))
    with pytest.raises(ValueError, match="illegal_action must be one of"):
        env_fn(illegal_action="remap")


def test_info_masks_stay_valid_across_next_step_autoreset() -> None:
    """Gymnasium 1.x vector envs reset a finished sub-env on the next step: ``action_masks()`` of it is
    all False in between, while the masks in ``info`` always belong to the next decision."""
    from gymnasium.vector import AutoresetMode, SyncVectorEnv

    vec = SyncVectorEnv(
        [lambda: gymnasium.make("kabu_envs/ToyCard-v1", opponents="random") for _ in range(3)],
        autoreset_mode=AutoresetMode.NEXT_STEP,
    )
    _, info = vec.reset(seed=0)
    rng = np.random.default_rng(0)
    done = np.zeros(3, dtype=bool)
    empty_calls = 0
    for _ in range(300):
        masks = np.asarray(info["action_mask"], dtype=bool)
        assert masks[~done].any(axis=1).all()  # every live decision has its legal actions
        empty_calls += int((~np.stack(vec.call("action_masks")).any(axis=1)).sum())
        actions = np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in masks])
        _, _, term, trunc, info = vec.step(actions)
        done = term | trunc
    assert empty_calls > 0  # what the info masks are for: action_masks() of a finished sub-env
    vec.close()
