"""``python -m training <config.yaml | preset> [--seed N] [--timesteps N] [--out DIR]``.

Presets are the files in training/configs/ (``python -m training --list``).
"""

from __future__ import annotations

import argparse
import json
import os

os.environ.setdefault("OMP_NUM_THREADS", "1")


def main(argv: list[str] | None = None) -> int:
    from training.config import load_config, presets

    ap = argparse.ArgumentParser(prog="python -m training", description=__doc__)
    ap.add_argument("config", nargs="?", help="a YAML config path or a preset name")
    ap.add_argument("--seed", type=int)
    ap.add_argument("--timesteps", type=int)
    ap.add_argument("--n-envs", type=int)
    ap.add_argument("--eval-deals", type=int)
    ap.add_argument("--out", help="output dir (default models/<name>)")
    ap.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    ap.add_argument("--list", action="store_true", help="list the presets and exit")
    args = ap.parse_args(argv)
    if args.list or not args.config:
        print("presets:", ", ".join(presets()))
        return 0 if args.list else 2
    cfg = load_config(
        args.config,
        seed=args.seed,
        timesteps=args.timesteps,
        n_envs=args.n_envs,
        eval_deals=args.eval_deals,
    )
    from training.run import train

    record = train(cfg, out=args.out, progress_bar=not args.no_progress)
    print(json.dumps({k: record[k] for k in ("name", "timesteps", "train_seconds", "seed")}, indent=1))
    if "eval" in record:
        print("duplicate eval:", json.dumps(record["eval"]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
