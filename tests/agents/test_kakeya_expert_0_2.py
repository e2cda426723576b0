"""``expert_0_2``: the Kakeya expert as it shipped in 0.2 (a Python search), now on the kernel, makes the
same decisions bit for bit: tests/agents/data/kakeya_expert_0_2.npz was recorded from the Python search
(tests/agents/make_expert_fixture.py) over 410 decisions (trump, lead and card choices; 4 and 6 players;
stones and egara rewards; a capped match; the solver over 2 and 3 tricks)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from kabu_envs.agents.registry import make_agent
from kabu_envs.kakeya.agents.expert import EXPERT_0_2, KakeyaExpertAgent

FIXTURE = Path(__file__).parent / "data" / "kakeya_expert_0_2.npz"


def decisions():
    """(case options, expert parameters, seed, observation, mask, action, candidates, totals) rows; the
    parameters are 0.2's (``EXPERT_0_2``) with the case's changes (``DEFAULT_PARAMS`` may move on), the
    rules those of the recording (six players all playing: ``all_play_payment="each_loser"``)."""
    with np.load(FIXTURE, allow_pickle=False) as data:
        cases = json.loads(str(data["cases"]))
        at = [0] * len(cases)
        for i, ci in enumerate(data["case"].tolist()):
            opts, changes = cases[ci]
            if opts.get("num_players") == 6:  # recorded when every losing partnership paid the whole table
                opts = {"all_play_payment": "each_loser", **opts}
            params = {**EXPERT_0_2, **changes}
            row = at[ci]
            at[ci] += 1
            cards = [int(c) for c in data["candidates"][i] if c >= 0]
            yield (
                opts,
                params,
                int(data["seed"][i]),
                data[f"obs{ci}"][row],
                data[f"mask{ci}"][row],
                int(data["action"][i]),
                cards,
                data["values"][i][: len(cards)],
            )


def test_the_kernel_expert_makes_expert_0_2s_decisions():
    """Every recorded decision again, from its seed: the same action and the same per-candidate totals
    (exactly: the kernel adds the same float values in the same sample order)."""
    checked = valued = 0
    for opts, params, seed, obs, mask, action, cards, totals in decisions():
        agent = KakeyaExpertAgent(seed=seed, **opts, **params)
        assert agent.act(obs, mask) == action, (opts, params, seed)
        if cards:
            again = KakeyaExpertAgent(seed=seed, **opts, **params)
            view = again.decoder.decode(obs)
            assert again.candidates(view, [int(a) for a in np.flatnonzero(mask)]) == cards
            assert again.card_values(view, cards) == totals.tolist(), (opts, params, seed)
            valued += 1
        checked += 1
    assert checked == 410 and valued > 300


def test_expert_0_2_is_registered_with_the_shipped_parameters():
    agent = make_agent("kakeya", "expert_0_2", seed=3)
    assert isinstance(agent, KakeyaExpertAgent)
    assert (
        agent.params
        == EXPERT_0_2
        == {
            "samples": 16,
            "lead_samples": 12,
            "trump_samples": 8,
            "dd_tricks": 2,
            "max_ms": None,
            "rensho_min_egara": 2,
            "lead_self_strength": 2,
        }
    )


def test_expert_0_2_refuses_other_parameters_but_takes_rule_options():
    with pytest.raises(ValueError, match="fixed reference.*samples"):
        make_agent("kakeya", "expert_0_2", samples=64)
    agent = make_agent("kakeya", "expert_0_2", num_players=6, samples=16)
    assert agent.cfg.num_players == 6 and agent.params["samples"] == 16


_PLAIN = """
import importlib.util
spec = importlib.util.spec_from_file_location("fixture", "tests/agents/test_kakeya_expert_0_2.py")
t = importlib.util.module_from_spec(spec)
spec.loader.exec_module(t)
from kabu_envs.kakeya.agents.expert import EXPERT_0_2, KakeyaExpertAgent
exact = played = 0
for opts, params, seed, obs, mask, action, cards, totals in t.decisions():
    if params["dd_tricks"] != 3 and played >= 12:
        continue
    agent = KakeyaExpertAgent(seed=seed, **opts, **params)
    assert agent.act(obs, mask) == action, (opts, params, seed)
    played += 1
    if cards and params["dd_tricks"] == 3:
        view = agent.decoder.decode(obs)
        again = KakeyaExpertAgent(seed=seed, **opts, **params)
        assert again.card_values(view, cards) == totals.tolist()
        exact += 1
    if exact >= 6:
        break
print("plain python ok", played, exact)
"""


def test_the_search_runs_as_plain_python(plain_python):
    """``NUMBA_DISABLE_JIT=1``: the search kernel as plain Python makes the same decisions (a few,
    the solver's included: it is slow)."""
    assert "plain python ok" in plain_python(_PLAIN)
