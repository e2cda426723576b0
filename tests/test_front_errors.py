"""Errors that help (front-door issue, item 8): install hints from this repository, --heatmap refused
when the arguments are parsed, unknown-agent errors listing the game's own agents and models."""

from __future__ import annotations

import importlib.util

import pytest

from kabu_envs.agents.registry import make_agent, shipped_models
from kabu_envs.eval.__main__ import main as eval_main


def test_an_unknown_agent_is_answered_with_the_games_own_agents_and_models() -> None:
    with pytest.raises(ValueError) as info:
        make_agent("kakeya", "ppo_nope_x")
    message = str(info.value)
    assert "'expert_0_2'" in message and "ppo_kakeya" in message
    assert "oicho" not in message  # no Oicho-Kabu model offered for Kakeya
    with pytest.raises(ValueError) as info:
        make_agent("oicho_kabu", "nobody")
    assert "ppo_oicho_dealer" in str(info.value) and "kakeya" not in str(info.value)
    assert set(shipped_models("kakeya")) | set(shipped_models("oicho_kabu")) == set(shipped_models())


def test_heatmap_without_matplotlib_is_refused_before_any_deal(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "matplotlib" else real(name, *a)
    )
    played = []
    monkeypatch.setattr("kabu_envs.eval.tournament.round_robin", lambda *a, **k: played.append(1))
    args = ["--game", "toy_card", "--agents", "random", "--opponents", "scripted", "--deals", "2"]
    with pytest.raises(SystemExit) as exit_info:
        eval_main([*args, "--heatmap", "h.png"])
    assert exit_info.value.code == 2 and not played
    err = capsys.readouterr().err
    assert "--heatmap" in err and 'pip install ".[demo]"' in err and "Traceback" not in err
