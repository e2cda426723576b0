"""``python -m kabu_envs.training.export <model.zip> <out_dir> [--game G] [--role R] [--option K=V ...]``.

Converts a Stable-Baselines3 MaskablePPO zip into a policy file (``policy.npz`` + ``policy.json``,
agents/policy_file.py) WITHOUT unpickling anything from the zip: only its ``policy.pth`` entry is
read, with ``torch.load(..., weights_only=True)`` (torch's restricted loader, which builds tensors
and plain containers and refuses anything else). The ``data`` entry, where SB3 keeps cloudpickled
objects, is never read. What the zip cannot say safely is given on the command line: the game, the
learner's role and the rule options (``--option``, values parsed as JSON when they parse). A
``run.json`` beside the zip (written by ``python -m kabu_envs.training``) supplies them and the training run's
record when the flags are left out; a flag that contradicts it is an error. The activation is the
MlpPolicy default, Tanh, unless ``--activation relu`` (SB3 keeps it only in the pickled ``data``).
The network's sizes must be those of the game's table with these options, or the conversion fails.
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import os
import zipfile
from pathlib import Path
from typing import Any

import numpy as np

from kabu_envs.agents.policy_file import ACTIVATIONS, policy_from_sb3_state_dict, write_policy
from kabu_envs.core.options import parse_assignments
from kabu_envs.training.config import TrainConfig, load_run_config

os.environ.setdefault("OMP_NUM_THREADS", "1")


def read_sb3_weights(zip_path: str | Path) -> dict[str, np.ndarray]:
    """The policy's state dict from an SB3 zip: ``policy.pth`` only, with ``weights_only=True``."""
    import torch

    with zipfile.ZipFile(zip_path) as z:
        if "policy.pth" not in z.namelist():
            raise ValueError(f"{zip_path} has no policy.pth entry: not a Stable-Baselines3 model zip")
        raw = z.read("policy.pth")
    try:
        state = torch.load(io.BytesIO(raw), map_location="cpu", weights_only=True)
    except Exception as e:  # weights_only refuses anything but tensors and plain containers
        raise ValueError(f"{zip_path}: policy.pth is not plain weights, refused: {e}") from None
    if not isinstance(state, dict) or not all(isinstance(v, torch.Tensor) for v in state.values()):
        raise ValueError(f"{zip_path}: policy.pth is not a state dict of tensors")
    return {str(k): v.detach().cpu().numpy() for k, v in state.items()}


def _run_record(run_json: Path) -> tuple[TrainConfig, dict[str, Any]]:
    """(config, training record) from a run.json written by ``python -m kabu_envs.training``."""
    cfg = load_run_config(run_json)
    run = json.loads(run_json.read_text())
    training = {
        "name": run.get("name"),
        "seed": run.get("seed"),
        "timesteps": run.get("timesteps"),
        "package_version": run.get("versions", {}).get("kabu-envs"),
    }
    return cfg, {k: v for k, v in training.items() if v is not None}


def convert(
    zip_path: str | Path,
    out_dir: str | Path,
    game: str | None = None,
    role: str | None = None,
    env_options: dict[str, Any] | None = None,
    activation: str = "tanh",
) -> Path:
    """Write ``out_dir/policy.npz`` + ``policy.json`` from an SB3 zip; returns the JSON's path."""
    from kabu_envs import registry

    zip_path = Path(zip_path)
    training: dict[str, Any] = {}
    run_json = zip_path.with_name("run.json")
    if run_json.is_file():
        cfg, training = _run_record(run_json)
        recorded = {"game": cfg.game, "role": cfg.role, "env_options": cfg.env_options}
        for key, given in (("game", game), ("role", role), ("env_options", env_options)):
            if given is not None and given != recorded[key]:
                raise ValueError(f"{key} {given!r} contradicts {run_json} ({recorded[key]!r})")
        game, role, env_options = cfg.game, cfg.role, cfg.env_options
    if game is None or role is None:
        raise ValueError("say what the model was trained for: --game and --role (no run.json beside the zip)")
    registry.get(game).role(role)  # unknown games and roles raise, naming the known ones
    state = read_sb3_weights(zip_path)
    training["converted_from"] = {
        "file": zip_path.name,
        "sha256": hashlib.sha256(zip_path.read_bytes()).hexdigest(),
    }
    policy = policy_from_sb3_state_dict(state, activation, game, role, env_options or {}, training)
    return write_policy(policy, out_dir)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m kabu_envs.training.export", description=__doc__)
    ap.add_argument("zip", help="a Stable-Baselines3 MaskablePPO model .zip")
    ap.add_argument("out_dir", help="where policy.npz and policy.json go")
    ap.add_argument("--game", help="a registered game id (kabu_envs.registry)")
    ap.add_argument("--role", help="the learner's role (one of the game's roles)")
    ap.add_argument("--option", action="append", default=None, metavar="KEY=VALUE", help="a rule option")
    ap.add_argument("--activation", choices=ACTIVATIONS, default="tanh")
    args = ap.parse_args(argv)
    try:
        opts = None if args.option is None else parse_assignments(args.option)
    except ValueError as e:
        ap.error(str(e))
    try:
        path = convert(args.zip, args.out_dir, args.game, args.role, opts, args.activation)
    except ValueError as e:
        ap.exit(2, f"error: {e}\n")
    print(f"wrote {path} and {path.with_name('policy.npz')}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
