"""docs/views.md's SB3 example (make_vec_env, SubprocVecEnv, check_env) runs as written."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

DOC = Path(__file__).resolve().parent.parent / "docs" / "views.md"


def _sb3_block() -> str:
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(), flags=re.S)
    found = [b for b in blocks if "SubprocVecEnv" in b]
    assert len(found) == 1, "docs/views.md should hold one SubprocVecEnv example"
    return found[0]


def test_sb3_example_runs_in_worker_processes(tmp_path: Path) -> None:
    pytest.importorskip("sb3_contrib")
    script = tmp_path / "sb3_example.py"
    script.write_text(_sb3_block())
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    out = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, env=env, timeout=300, check=False
    )
    assert out.returncode == 0, out.stderr[-2000:]
    shape, masks = out.stdout.strip().splitlines()[-1].rsplit(" ", 1)
    assert shape.startswith("(2, ") and int(masks) == 2
