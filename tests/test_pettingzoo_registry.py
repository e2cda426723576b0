"""PettingZoo's registry: every registered game is created by ``pettingzoo.make("aec", id)`` after
``import kabu_envs`` (whichever of the two is imported first), passes PettingZoo's ``api_test`` that
way, and ``import kabu_envs`` alone still imports neither pettingzoo nor gymnasium."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from kabu_envs import registry
from kabu_envs.core.after_import import after_import

IDS = [(g.id, g.pettingzoo_id) for g in registry.games() if g.pettingzoo_id]


def _run(code: str) -> str:
    out = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0, out.stderr
    return out.stdout.strip()


@pytest.mark.parametrize("first", ["kabu_envs", "pettingzoo"])
def test_make_after_import_in_a_fresh_interpreter(first: str) -> None:
    ids = [pz for _, pz in IDS]
    assert ids, "no game declares a PettingZoo id"
    second = "pettingzoo" if first == "kabu_envs" else "kabu_envs"
    got = _run(
        f"""
        import sys
        import {first}
        import {second}
        import pettingzoo
        for env_id in {ids!r}:
            env = pettingzoo.make("aec", env_id)
            env.reset(seed=0)
            assert env.agents, env_id
        print("ok")
        """
    )
    assert got == "ok"


def test_import_kabu_envs_imports_no_pettingzoo() -> None:
    got = _run(
        """
        import sys
        import kabu_envs
        print(sorted(m for m in ("pettingzoo", "gymnasium") if m in sys.modules))
        """
    )
    assert got == "[]"


@pytest.mark.parametrize(("game", "env_id"), IDS)
def test_api_test_through_pettingzoo_make(game: str, env_id: str) -> None:
    import pettingzoo
    from pettingzoo.test import api_test

    env = pettingzoo.make("aec", env_id)
    assert type(env.unwrapped) is type(registry.get(game).make_raw_env())
    api_test(env, num_cycles=200)


def test_after_import_runs_the_callback_once_after_the_module(tmp_path: Path) -> None:
    name = "kabu_probe_module_for_after_import"
    (tmp_path / f"{name}.py").write_text("VALUE = 41\n")
    calls: list[int] = []
    sys.path.insert(0, str(tmp_path))
    try:
        after_import(name, lambda: calls.append(sys.modules[name].VALUE + 1))
        assert calls == []
        __import__(name)
        assert calls == [42]
        after_import(name, lambda: calls.append(0))  # already imported: at once
        assert calls == [42, 0]
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop(name, None)
