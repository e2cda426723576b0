"""``python -m kabu_envs.training.ensemble NAME MEMBER... [--views NAME] [--stages SPLIT --plays
MEMBER=STAGE[+STAGE]...] [--out DIR] [--publish]``: trained policy files made into one model that plays
the mean of their masked log-probabilities (``agents/ensemble.py``), over the game's policy symmetries
too with ``--views`` (agents/symmetry.py), each decision with the members of its stage only with
``--stages`` (agents/stages.py; ``--plays`` names a member's stages, a member without it plays all).

Why a step of its own: the members are ordinary training runs (each reproducible from its preset and
seed); the ensemble adds no training, only the choice of members. A MEMBER is a model name, a model
directory or a run folder (its ``model/``); it is named in the ensemble by its policy's
``training.name`` (else its folder). The result, ``<out>/model/`` (default ``runs/NAME/model/``), holds
the ensemble's ``policy.json``, each member's policy file with its ``run.json`` and ``curve.csv`` when it
has them (``members/<name>/``: each member's resolved config, seed and versions travel with it) --
except a member given by the name of a model: the ensemble names it (name and checksum) and finds it
among the models when read, so a shipped ensemble stores no second copy of a shipped model -- and
``recipe.json`` (this command, the members' sources and checksums, the package versions). It is written
by staging and swap, as a training run's ``model/`` is; ``--publish`` copies it to the shipped models.
Needs numpy only (no torch).
"""

from __future__ import annotations

import argparse
import shutil
import sys
from collections.abc import Sequence
from pathlib import Path

from kabu_envs.agents.ensemble import COMBINE_RULES, MEMBERS_DIR, write_ensemble
from kabu_envs.agents.policy_file import RECORD_FILE, read_policy, read_record
from kabu_envs.agents.ppo_agent import find_policy
from kabu_envs.agents.registry import models_dir
from kabu_envs.training.outputs import (
    RunPaths,
    check_name,
    copy_published,
    inside,
    swap_into_place,
    versions,
    write_json,
)

SIDE_FILES = ("run.json", "curve.csv")  # a member's record and curve, copied beside its policy file


def member_record(spec: str) -> Path:
    """The ``policy.json`` of a member given as a model name, a model directory or a run folder."""
    p = Path(spec)
    if p.is_dir() and not (p / RECORD_FILE).is_file() and (p / "model" / RECORD_FILE).is_file():
        p = p / "model"
    return find_policy(str(p), models_dir())


def member_name(record: Path) -> str:
    """A member's name in the ensemble: its policy's ``training.name``, else its folder's name."""
    return check_name(read_policy(record).training.get("name") or record.parent.name)


def shipped_members(members: Sequence[str], names: Sequence[str]) -> set[str]:
    """The members given by a model name (not a path) that is their name in the ensemble: the ensemble
    names them, and finds them among the models when read, instead of carrying a copy."""
    return {
        n
        for spec, n in zip(members, names, strict=True)
        if spec == n and not Path(spec).exists() and (models_dir() / spec / RECORD_FILE).is_file()
    }


def parse_plays(plays: Sequence[str], members: Sequence[str], names: Sequence[str]) -> dict[str, list[str]]:
    """``MEMBER=STAGE[+STAGE]`` options as {member name: stages}; MEMBER is a member as given on the
    command line or its name in the ensemble."""
    by = {**dict(zip(members, names, strict=True)), **{n: n for n in names}}
    out: dict[str, list[str]] = {}
    for item in plays:
        member, eq, stages = item.partition("=")
        if not eq or not stages or member not in by:
            raise ValueError(
                f"--plays {item!r}: expected MEMBER=STAGE[+STAGE] with MEMBER one of {list(names)}"
            )
        if by[member] in out:
            raise ValueError(f"--plays names member {by[member]!r} twice")
        out[by[member]] = stages.split("+")
    return out


def make_ensemble(
    name: str,
    members: Sequence[str],
    out: Path,
    views: str | None = None,
    stages: str | None = None,
    plays: Sequence[str] = (),
) -> Path:
    """Write the ensemble of ``members`` as ``out/model/`` (staging and swap); returns that folder.
    ``views``: the game's policy symmetries to average over as well (agents/symmetry.py); ``stages``: the
    game's stage split, ``plays`` the ``MEMBER=STAGE[+STAGE]`` of the members that play some stages only."""
    check_name(name)
    records = [member_record(m) for m in members]
    names = [member_name(r) for r in records]
    if len(set(names)) != len(names):
        raise ValueError(f"two members have the same name {names}: give each a distinct training.name")
    if plays and stages is None:
        raise ValueError("--plays needs --stages (the split whose stages it names)")
    member_stages = parse_plays(plays, members, names)
    from kabu_envs.training.provenance import provenance

    table = read_policy(records[0]).trained_for  # write_ensemble holds every member to it
    paths = RunPaths(out)
    stage = paths.staging()
    named = shipped_members(members, names)
    write_ensemble(
        dict(zip(names, records, strict=True)),
        stage,
        {"name": name, **provenance(table["game"], table["role"], table["env_options"])},
        views=views,
        stages=stages,
        member_stages=member_stages or None,
        named=named,
    )
    for member, rec in zip(names, records, strict=True):
        if member in named:  # its record and curve are the model's own, beside it
            continue
        for side in SIDE_FILES:
            if (rec.parent / side).is_file():
                shutil.copyfile(rec.parent / side, stage / MEMBERS_DIR / member / side)
    write_json(
        stage / "recipe.json",
        {
            "name": name,
            "command": f"python -m kabu_envs.training.ensemble {name} "
            + " ".join(members)
            + (f" --views {views}" if views else "")
            + (f" --stages {stages}" if stages else "")
            + "".join(f" --plays {p}" for p in plays),
            "combine": COMBINE_RULES[0],
            "views": views,
            "stages": stages,
            "member_stages": member_stages,
            "members": [
                {
                    "name": member,
                    "from": str(spec),
                    "weights_sha256": read_record(rec)[1]["weights_sha256"],  # checked by write_ensemble
                }
                for member, spec, rec in zip(names, members, records, strict=True)
            ],
            "versions": versions(["kabu-envs", "numpy"]),
        },
    )
    return swap_into_place(stage, paths.model)


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m kabu_envs.training.ensemble",
        description="Several trained policy files as one model (the mean of their masked log-probabilities).",
    )
    ap.add_argument(
        "name", help="the ensemble's model name (folder under runs/ and, with --publish, models/)"
    )
    ap.add_argument(
        "members", nargs="+", help="model names, model directories or run folders (2 or more; 1 with --views)"
    )
    ap.add_argument(
        "--views",
        default=None,
        help="also average over the game's policy symmetries of that name (its symmetry.py; an unknown name "
        "is refused with the known ones)",
    )
    ap.add_argument(
        "--stages",
        default=None,
        help="give stages of the game's stage split of that name their own members (its stages.py; an "
        "unknown name is refused with the known ones)",
    )
    ap.add_argument(
        "--plays",
        action="append",
        default=[],
        metavar="MEMBER=STAGE[+STAGE]",
        help="the stages a member plays (with --stages; a member without it plays every stage)",
    )
    ap.add_argument("--out", type=Path, default=None, help="the run folder (default runs/NAME)")
    ap.add_argument("--publish", action="store_true", help="also copy the model to the shipped models")
    args = ap.parse_args(argv)
    if len(args.members) < (1 if args.views else 2):
        ap.error("an ensemble needs at least 2 members (1 with --views)")
    try:
        out = args.out or Path("runs") / check_name(args.name)
        model = make_ensemble(args.name, args.members, out, args.views, args.stages, args.plays)
        if args.publish:
            copy_published(model, inside(models_dir(), args.name))
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    print(f"wrote {model}" + (f" (published to {models_dir() / args.name}/)" if args.publish else ""))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
