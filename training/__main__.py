"""``python -m kabu_envs.training <config.yaml | preset> [--seed N] [--timesteps N] [--out DIR] [--publish]``.

``kabu-train exploit ...``: the exploitability yardstick (training/exploit.py; ``--help``).

``--batch-envs N`` trains on N games stepped together by the batch engine (training/batch_vec_env.py)
instead of ``n_envs`` copies of the single-agent view (the same views, several times faster).

Presets are the YAML files each game ships in its own package, ``kabu_envs/<game>/presets/``
(``python -m kabu_envs.training --list``).
A run writes to ``runs/<name>/`` (``model/`` = the result, ``work/`` = checkpoints and logs);
``--publish`` also copies the result to the shipped models (``kabu_envs/models/<name>/``, or
``$KABU_MODELS_DIR``). Ctrl-C saves a checkpoint; ``--resume`` continues from it. Training needs the
``train`` extra (torch, stable-baselines3, sb3-contrib, pyyaml): ``pip install "kabu-envs[train]"``.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import sys

os.environ.setdefault("OMP_NUM_THREADS", "1")


# what training imports beyond the runtime (the 'train' extra); module name -> distribution name
TRAIN_MODULES = {
    "yaml": "pyyaml",
    "torch": "torch",
    "stable_baselines3": "stable-baselines3",
    "sb3_contrib": "sb3-contrib",
}


def missing_train_packages() -> list[str]:
    """The 'train' extra's packages that are not installed (the runtime install has none of them)."""
    return [dist for mod, dist in TRAIN_MODULES.items() if importlib.util.find_spec(mod) is None]


def main(argv: list[str] | None = None) -> int:
    args_in = sys.argv[1:] if argv is None else list(argv)
    if args_in[:1] == ["exploit"]:  # the exploitability yardstick (training/exploit.py; it checks torch)
        from kabu_envs.training.exploit import main as exploit_main

        return exploit_main(args_in[1:])
    missing = missing_train_packages()
    if missing:
        print(
            f"kabu-train needs the 'train' extra; missing: {', '.join(missing)}. Install it with "
            '`pip install "kabu-envs[train]"` (torch: see the README, "About torch", for the CPU build).',
            file=sys.stderr,
        )
        return 2
    from kabu_envs.training.config import load_config, presets

    ap = argparse.ArgumentParser(prog="kabu-train", description=__doc__)
    ap.add_argument("config", nargs="?", help="a YAML config path or a preset name")
    ap.add_argument("--seed", type=int)
    ap.add_argument("--timesteps", type=int, help="PPO steps (after the behaviour-cloning warm start)")
    ap.add_argument("--bc-steps", type=int, help="teacher decisions of the behaviour-cloning warm start")
    ap.add_argument("--n-envs", type=int)
    ap.add_argument(
        "--batch-envs",
        type=int,
        metavar="N",
        help="step N games in one batch engine (training/batch_vec_env.py) instead of n_envs view copies",
    )
    ap.add_argument("--eval-deals", type=int)
    ap.add_argument(
        "--curve-every",
        type=int,
        metavar="N",
        help="evaluate the learning curve every N samples (0: off); may change on --resume",
    )
    ap.add_argument("--out", help="the run folder (default runs/<name>/; the result is in its model/)")
    ap.add_argument(
        "--publish",
        action="store_true",
        help="also copy the result to the shipped models (models_dir()/<name>/)",
    )
    ap.add_argument(
        "--resume", action="store_true", help="continue an interrupted run from its last checkpoint"
    )
    ap.add_argument("--no-progress", action="store_true", help="hide the progress bars")
    ap.add_argument("--list", action="store_true", help="list the presets and exit")
    args = ap.parse_args(argv)
    if args.list or not args.config:
        print("presets:", ", ".join(presets()))
        return 0 if args.list else 2
    try:
        cfg = load_config(
            args.config,
            seed=args.seed,
            timesteps=args.timesteps,
            n_envs=args.n_envs,
            batch_envs=args.batch_envs,
            eval_deals=args.eval_deals,
            bc=None if args.bc_steps is None else {"steps": args.bc_steps},
            curve=None if args.curve_every is None else {"every": args.curve_every},
        )
    except ValueError as exc:
        ap.error(str(exc))
    from kabu_envs.agents.registry import models_dir
    from kabu_envs.training.run import TrainingInterrupted, run_paths, train

    try:
        record = train(
            cfg,
            out=args.out,
            # quiet when not on a terminal (logs, CI), as the evaluation's bars
            progress_bar=not args.no_progress and sys.stderr.isatty(),
            resume=args.resume,
            publish=args.publish,
        )
    except TrainingInterrupted as exc:
        print(f"\n{exc}", file=sys.stderr)
        return 130
    print(json.dumps({k: record[k] for k in ("name", "timesteps", "train_seconds", "seed")}, indent=1))
    if "eval" in record:
        print("duplicate eval:", json.dumps(record["eval"]))
    print(
        f"result: {run_paths(cfg, args.out).model}"
        + (f" (published to {models_dir() / cfg.name}/)" if args.publish else "")
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
