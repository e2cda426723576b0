"""Resumable checkpoints that carry no code: the policy file plus Adam's state as arrays.

SB3's own checkpoints are zips of pickles; ours are a folder per checkpoint, ``step_<n>/``:

* ``policy.npz`` + ``policy.json`` — the policy file (agents/policy_file.py), actor and critic;
* ``optimizer.npz`` — every tensor of Adam's state (``<param index>.<key>``), read with
  ``allow_pickle=False``; ``optimizer.json`` — Adam's param groups (numbers only) and the
  checkpoint's ``num_timesteps``.

``--resume`` rebuilds the model from the newest complete checkpoint (the folder is written under a
temporary name and renamed when complete), restores Adam and the step count, and learns the rest.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from kabu_envs.training.outputs import clear

if TYPE_CHECKING:
    from sb3_contrib import MaskablePPO

META = "optimizer.json"
STATE = "optimizer.npz"


def save_checkpoint(
    model: MaskablePPO, folder: Path, policy_writer: Callable[[MaskablePPO, Path], None]
) -> Path:
    """Write ``folder/step_<n>/`` for ``model`` (``policy_writer(model, out_dir)`` writes the policy)."""
    n = int(model.num_timesteps)
    final = folder / f"step_{n:012d}"
    stage = clear(folder / f".step_{n:012d}.incoming-{os.getpid()}")
    stage.mkdir(parents=True)
    policy_writer(model, stage)
    state = model.policy.optimizer.state_dict()
    arrays = {
        f"{idx}.{key}": value.detach().cpu().numpy()
        for idx, entry in state["state"].items()
        for key, value in entry.items()
    }
    np.savez(stage / STATE, **arrays)
    groups = [{k: v for k, v in g.items()} for g in state["param_groups"]]
    meta = {"num_timesteps": n, "param_groups": groups, "format_version": 1}
    (stage / META).write_text(json.dumps(meta, indent=1, default=_plain))
    os.replace(stage, clear(final))
    return final


def _plain(x: Any) -> Any:
    if isinstance(x, (np.integer, np.floating)):
        return x.item()
    if isinstance(x, tuple):
        return list(x)
    raise TypeError(f"not JSON: {type(x).__name__}")


def latest_checkpoint(folder: Path) -> Path | None:
    """The newest complete checkpoint under ``folder`` (None when there is none)."""
    if not folder.is_dir():
        return None
    done = sorted(p for p in folder.glob("step_*") if p.is_dir() and (p / META).is_file())
    return done[-1] if done else None


def restore_optimizer(model: MaskablePPO, checkpoint: Path) -> int:
    """Load Adam's state of ``checkpoint`` into ``model``; returns the checkpoint's step count."""
    import torch

    meta = json.loads((checkpoint / META).read_text())
    with np.load(checkpoint / STATE, allow_pickle=False) as z:
        arrays = {k: z[k] for k in z.files}
    state: dict[int, dict[str, Any]] = {}
    for name, value in arrays.items():
        idx, _, key = name.partition(".")
        state.setdefault(int(idx), {})[key] = torch.from_numpy(value.copy())
    groups = meta["param_groups"]
    for g in groups:
        if "betas" in g:
            g["betas"] = tuple(g["betas"])
    model.policy.optimizer.load_state_dict({"state": state, "param_groups": groups})
    return int(meta["num_timesteps"])
