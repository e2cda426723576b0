"""Long jobs draw a progress bar on a terminal and stay quiet otherwise (eval/progress.py)."""

from __future__ import annotations

import io
import sys

import pytest

from kabu_envs.eval.progress import progress


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_quiet_when_stderr_is_not_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    err = io.StringIO()
    monkeypatch.setattr(sys, "stderr", err)
    assert list(progress(range(5), total=5, desc="deals")) == [0, 1, 2, 3, 4]
    assert err.getvalue() == ""


def test_bar_on_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    err = _Terminal()
    monkeypatch.setattr(sys, "stderr", err)
    assert list(progress(iter(range(3)), total=3, desc="demo matchups")) == [0, 1, 2]
    assert "demo matchups" in err.getvalue() and "/3 [" in err.getvalue()  # the bar was drawn


def test_eval_round_robin_output_unchanged_without_a_terminal(capsys: pytest.CaptureFixture[str]) -> None:
    from kabu_envs.eval.tournament import round_robin

    out = round_robin("toy_card", ["random"], ["scripted"], deals=20, seed=0)
    assert [r["games"] for r in out["matchups"]] == [20]
    assert capsys.readouterr().err == ""
