"""The Kakeya expert's batched path (``KakeyaKernelExpertAgent.act_batch``): the rows' card searches run
at once over numba's threads (``decide.decide_rows``), with the same actions as one row at a time
whatever the number of workspaces (threads), every rule variant's search included."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from kabu_envs import batch
from kabu_envs.agents.batching import act_row_by_row
from kabu_envs.agents.registry import make_agent
from kabu_envs.core import kernel as core
from kabu_envs.core import threads
from kabu_envs.kakeya.agents.kernel_expert import KakeyaKernelExpertAgent

VARIANTS = [
    {},
    {"num_players": 6, "six_player_mode": "dealers_sit_out", "reward": "egara"},
]


def _decisions(options: dict[str, Any], every: int = 5) -> tuple[np.ndarray, np.ndarray]:
    """Observations and masks of a batch engine's games under random legal play: every phase, most of
    them card decisions (early and late in a deal: play-outs and the exact solver)."""
    env = batch.make("kakeya", batch_size=12, autoreset=True, **options)
    env.reset(seed=4)
    rng = np.random.default_rng(2)
    obs, masks = [], []
    for t in range(60):
        mask = env.legal_action_mask
        if t % every == every - 1:
            obs.append(env.observation.copy())
            masks.append(mask.copy())
        env.step(np.argmax(mask * rng.random(mask.shape), axis=1))
    return np.concatenate(obs), np.concatenate(masks)


@pytest.mark.skipif(core.jit_disabled(), reason="plain Python: minutes per search")
@pytest.mark.parametrize("options", VARIANTS, ids=["four", "six_egara"])
def test_the_batched_searches_act_as_row_by_row_for_any_thread_count(
    options: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    obs, masks = _decisions(options)
    agent = make_agent("kakeya", "expert_0_3", seed=0, **options)
    assert isinstance(agent, KakeyaKernelExpertAgent)
    reference = act_row_by_row(agent, obs, masks, [np.random.default_rng(i) for i in range(len(obs))])
    monkeypatch.setattr(KakeyaKernelExpertAgent, "_parallel_threads", staticmethod(lambda: True))
    for workspaces in (1, 2, 3):
        monkeypatch.setattr(threads, "threads", lambda w=workspaces: w)
        rngs = [np.random.default_rng(i) for i in range(len(obs))]
        got = agent.act_batch(obs, masks, rngs)
        assert np.array_equal(got, reference), workspaces
        # each row's generator ends where the row's own ``act`` leaves it
        again = [np.random.default_rng(i) for i in range(len(obs))]
        act_row_by_row(agent, obs, masks, again)
        assert [r.integers(1 << 62) for r in rngs] == [r.integers(1 << 62) for r in again]
    from kabu_envs.kakeya.kernel import decide

    for f in (
        decide.decide_cards,
        decide.decide_rows,
    ):  # one version each (the cache rule)
        assert len(f.signatures) <= 1 and len(f._cache._cache_file._load_index()) <= 1, f.__name__
    # the agent's own generator, row after row, when no generators are given
    first = make_agent("kakeya", "expert_0_3", seed=9, **options)
    second = make_agent("kakeya", "expert_0_3", seed=9, **options)
    assert np.array_equal(first.act_batch(obs, masks), act_row_by_row(second, obs, masks, None))


def test_a_time_capped_expert_searches_row_by_row(monkeypatch: pytest.MonkeyPatch) -> None:
    """Under ``max_ms`` a decision depends on the machine's pace: the batched path is not taken."""
    agent = make_agent("kakeya", "expert", seed=0, max_ms=5)
    monkeypatch.setattr(KakeyaKernelExpertAgent, "_parallel_threads", staticmethod(lambda: True))
    called: list[int] = []
    monkeypatch.setattr(type(agent), "batch_search", property(lambda self: called.append(1)))
    obs, masks = _decisions({}, every=20)
    agent.act_batch(obs, masks)
    assert called == []
