"""What an installed kabu-envs offers a fresh interpreter (no project imports beforehand)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import kabu_envs


def test_gymnasium_make_with_the_module_prefix_needs_no_import() -> None:
    """Gymnasium 1.x has no plugin entry points; ``module:id`` imports the registering module first."""
    code = (
        "import sys, gymnasium\n"
        "assert 'kabu_envs' not in sys.modules\n"
        "env = gymnasium.make('kabu_envs.wrappers:kabu_envs/Kakeya-v1')\n"
        "obs, info = env.reset(seed=0)\n"
        "print(obs.shape[0], env.action_space.n)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    size, actions = (int(x) for x in out.stdout.split())
    assert size > 0 and actions > 0


def test_the_package_is_typed() -> None:
    """PEP 561 marker, so users' type checkers read kabu_envs' hints."""
    assert (Path(kabu_envs.__file__).parent / "py.typed").is_file()
