"""``kabu-train <preset | config.yaml> [--seed N] [--timesteps N] [--out DIR] [--publish]``
(``python -m kabu_envs.training``).

A run goes through its stages in order: behaviour cloning of a teacher (``bc``), DAgger rounds
(``dagger``), then PPO (``ppo``); ``--timesteps`` is the PPO stage's steps only (the warm start's size
is ``--bc-steps``). ``--list`` shows every preset's game, stages, output folder and measured time on 2
cores; ``kakeya-quick`` and ``oicho-quick`` take a few minutes. Each stage prints plain progress lines
on stdout (``[bc] 12000/20000 decisions (60%) 34 s``), with or without a terminal.

``kabu-train exploit ...``: the exploitability yardstick (training/exploit.py; ``--help``).

``--batch-envs N`` trains on N games stepped together by the batch engine (training/batch_vec_env.py)
instead of ``n_envs`` copies of the single-agent view (the same views, several times faster).

Presets are the YAML files each game ships in its own package, ``kabu_envs/<game>/presets/``
(``python -m kabu_envs.training --list``).
A run writes to ``runs/<name>/`` (``model/`` = the result, ``work/`` = checkpoints and logs);
``--publish`` also copies the result to the shipped models (``kabu_envs/models/<name>/``, or
``$KABU_MODELS_DIR``). Ctrl-C or SIGTERM (``timeout``, a scheduler) during PPO saves a checkpoint
(one is also saved when the warm start ends); ``--resume`` continues from it. Training needs the
``train`` extra (torch, stable-baselines3, sb3-contrib, pyyaml); from a clone of this repository:
``pip install ".[train]"``.
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
            f"kabu-train needs the 'train' extra; missing: {', '.join(missing)}. Install it from the "
            'repository\'s folder with `pip install ".[train]"` (torch: see the README, "About torch", '
            "for the CPU build).",
            file=sys.stderr,
        )
        return 2
    from kabu_envs.training.config import load_config

    ap = argparse.ArgumentParser(prog="kabu-train", description=__doc__)
    ap.add_argument("config", nargs="?", help="a YAML config path or a preset name")
    ap.add_argument("--seed", type=int)
    ap.add_argument(
        "--timesteps",
        type=int,
        help="the PPO stage's steps only: the bc/dagger warm start runs first (see --list for the stages)",
    )
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
    if args.list:
        print(preset_table())
        return 0
    if not args.config:
        print(preset_table(), file=sys.stderr)
        ap.error("name a preset (above) or a YAML config")
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
    from kabu_envs.training.run import RunFolderError, TrainingInterrupted, run_paths, train

    try:
        record = train(
            cfg,
            out=args.out,
            # quiet when not on a terminal (logs, CI), as the evaluation's bars
            progress_bar=not args.no_progress and sys.stderr.isatty(),
            resume=args.resume,
            publish=args.publish,
        )
    except RunFolderError as exc:  # --resume with nothing to resume, or another config: one line
        print(f"kabu-train: error: {exc}", file=sys.stderr)
        return 2
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


def preset_table() -> str:
    """Every preset as a row: name, game and role, stages, output folder, measured time on 2 cores."""
    from kabu_envs.training.config import load_config, preset_estimate, presets, stage_plan

    rows = [("preset", "game / role", "stages", "output", "time (2 cores)")]
    for name in presets():
        cfg = load_config(name)
        est = preset_estimate(name)
        rows.append(
            (
                name,
                f"{cfg.game} / {cfg.role}",
                " -> ".join(stage_plan(cfg)),
                f"runs/{cfg.name}/",
                "?" if est is None else _duration(float(est["seconds"])),
            )
        )
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in rows]
    note = "times: measured on 2 cores (each preset's 'estimate'); --timesteps sets the ppo stage only"
    return "\n".join([*lines, "", note])


def _duration(seconds: float) -> str:
    if seconds < 120:
        return f"~{seconds:.0f} s"
    if seconds < 7200:
        return f"~{seconds / 60:.0f} min"
    return f"~{seconds / 3600:.1f} h"


if __name__ == "__main__":
    raise SystemExit(main())
