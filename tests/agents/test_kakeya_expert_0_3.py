"""``expert_0_3``: the Kakeya kernel expert as it stood in 0.3, a fixed reference. Its decisions are held
to tests/agents/data/kakeya_expert_0_3.npz (recorded by tests/agents/make_expert_0_3_fixture.py): 430
single decisions with their action values and 240 batched ones (trump, lead and card choices; four and
six players; all play and dealers sitting out; stones and egara rewards; multi-deal matches), so a change
of the kernels that changes the player (a parallel version over rows included) fails here."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from kabu_envs.agents.registry import make_agent
from kabu_envs.kakeya.agents.kernel_expert import EXPERT_0_3, KakeyaExpert03Agent

FIXTURE = Path(__file__).parent / "data" / "kakeya_expert_0_3.npz"


def fixture():
    with np.load(FIXTURE, allow_pickle=False) as data:
        return json.loads(str(data["cases"])), int(data["batch"]), {k: data[k] for k in data.files}


def test_expert_0_3_makes_the_recorded_decisions_with_the_recorded_values():
    """Every single decision again, from its seed: the same action and the same action values, exactly
    (NaN where nothing was searched)."""
    cases, _, data = fixture()
    checked = valued = 0
    for ci, (opts, single, _, _) in enumerate(cases):
        obs, masks = data[f"obs{ci}"], data[f"mask{ci}"]
        for i in range(single):
            agent = KakeyaExpert03Agent(seed=int(data[f"seed{ci}"][i]), **opts)
            action, values = agent.act_with_values(obs[i], masks[i])
            assert action == data[f"action{ci}"][i], (opts, i)
            np.testing.assert_array_equal(values, data[f"values{ci}"][i], err_msg=f"{opts} decision {i}")
            checked += 1
            valued += bool(np.isfinite(values).any())
    assert checked == 430 and valued > 400


def test_expert_0_3_makes_the_recorded_batched_decisions():
    """``act_batch`` on the recorded batches: with a generator per row and with the agent's own generator
    row after row, the same actions, and the generators left where the recording left them."""
    cases, batch, data = fixture()
    batches = 0
    for ci, (opts, single, per_row, own) in enumerate(cases):
        obs, masks = data[f"obs{ci}"], data[f"mask{ci}"]
        at = single
        for b in range(per_row + own):
            rows = slice(at, at + batch)
            at += batch
            agent = KakeyaExpert03Agent(seed=10_007 * (b + 1) + ci, **opts)
            if b < per_row:
                rngs = [np.random.default_rng(int(s)) for s in data[f"batch_seeds{ci}"][b]]
                actions = agent.act_batch(obs[rows], masks[rows], rngs=rngs)
                after = [int(r.integers(1 << 62)) for r in rngs][-1]
            else:
                actions = agent.act_batch(obs[rows], masks[rows])
                after = int(agent.rng.integers(1 << 62))
            np.testing.assert_array_equal(actions, data[f"batch_actions{ci}"][b], err_msg=f"{opts} batch {b}")
            assert after == data[f"batch_after{ci}"][b], (opts, b)
            batches += 1
    assert batches == 6


def test_expert_0_3_is_registered_with_the_pinned_parameters():
    agent = make_agent("kakeya", "expert_0_3", seed=3)
    assert isinstance(agent, KakeyaExpert03Agent)
    assert (
        agent.params
        == EXPERT_0_3
        == {
            "samples": 160,
            "min_samples": 16,
            "check_every": 8,
            "z": 2.0,
            "delta": 0.0,
            "eps": 1.0,
            "lead_samples": 12,
            "trump_samples": 8,
            "dd_tricks": 2,
            "max_ms": None,
            "rensho_min_egara": 2,
            "lead_self_strength": 2,
            "tie_rule": "relative",  # (0.3's scoring of two six-player losers tied on egara)
        }
    )


@pytest.mark.parametrize(
    "change", [{"samples": 64}, {"z": 3.0}, {"eps": 0.5}, {"max_ms": 5}, {"tie_rule": "absolute"}]
)
def test_expert_0_3_refuses_other_parameters_but_takes_rule_options(change):
    with pytest.raises(ValueError, match=f"fixed reference.*{next(iter(change))}"):
        make_agent("kakeya", "expert_0_3", **change)
    agent = make_agent("kakeya", "expert_0_3", num_players=6, samples=160)
    assert agent.cfg.num_players == 6 and agent.params == EXPERT_0_3
