"""``kabu-replay FILE``: replay a game record in the terminal, move by move, and check it.

Every action is checked to be legal where it was played and a complete record's rewards must come
out again; any difference is an error (exit status 1). ``--seat S`` shows the game as seat S saw it
(default: the seat a person played, else 0); ``--moves`` prints only the moves and the results.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any, TextIO

from kabu_envs.play.records import (
    GameRecord,
    RecordError,
    check_end,
    episode_over,
    iter_replay,
    new_env,
    read_record,
    step_rewards,
)
from kabu_envs.play.session import viewer_for
from kabu_envs.play.terminal import format_view


def replay_frames(record: GameRecord, seat: int) -> list[dict[str, Any]]:
    """The frames of a record as ``seat`` saw them (the web viewer's data): the start, then every move.

    Raises ``RecordError`` when the record does not replay (an illegal action, other rewards).
    """
    viewer = viewer_for(record.game)
    env = new_env(record)
    if not 0 <= seat < len(env.possible_agents):
        raise RecordError(f"seat {seat} is not a seat of this game (0..{len(env.possible_agents) - 1})")
    totals = step_rewards(env)
    view = viewer.seat_view(env, seat)
    frames: list[dict[str, Any]] = [
        {"move": None, "actor": None, "view": view, "rewards": None, "round_over": False}
    ]
    texts: list[str | None] = []

    def describe(env: Any, i: int, actor: int, action: int) -> None:
        texts.append(viewer.move_text(env, actor, action, seat))

    for _, _, actor, _ in iter_replay(record, env, describe):
        paid = step_rewards(env)
        totals += paid
        view = viewer.seat_view(env, seat)
        over = episode_over(env)
        frames.append(
            {
                "move": texts[-1],
                "actor": actor,
                "view": view,
                "rewards": paid.tolist() if paid.any() else None,
                "round_over": over or view["round"] != frames[-1]["view"]["round"],
            }
        )
    check_end(record, env, totals)
    return frames


def run(record: GameRecord, seat: int, out: TextIO, moves_only: bool = False) -> None:
    frames = replay_frames(record, seat)
    names = [f"player_{i} ({s['agent']})" for i, s in enumerate(record.seats)]
    out.write(f"{record.game}: seed {record.seed}, {len(record.actions)} actions, seen by player_{seat}\n")
    if not moves_only:
        out.write(format_view(frames[0]["view"]) + "\n")
    for f in frames[1:]:
        if f["move"]:
            out.write(f"  * {f['move']}\n")
        if f["round_over"]:
            out.write("--- round over ---\n" + "".join(f"  {line}\n" for line in f["view"]["result"]))
            if f["rewards"] is not None:
                out.write(
                    "  rewards: "
                    + ", ".join(f"{n} {r:+g}" for n, r in zip(names, f["rewards"], strict=True))
                    + "\n"
                )
    if not moves_only:
        out.write(format_view(frames[-1]["view"]) + "\n")
    done = "complete; rewards match the record" if record.complete else "incomplete (a saved game)"
    out.write(f"replayed exactly: {len(record.actions)} legal actions, {done}\n")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="kabu-replay", description=__doc__)
    ap.add_argument("file", help="a game record (JSON) written by kabu-play or kabu-eval --record-dir")
    ap.add_argument("--seat", type=int, help="whose view to show (default: the recorded person's, else 0)")
    ap.add_argument("--moves", action="store_true", help="only the moves and the results")
    args = ap.parse_args(argv)
    try:
        record = read_record(args.file)
        seat = args.seat if args.seat is not None else (record.viewer if record.viewer is not None else 0)
        run(record, seat, sys.stdout, args.moves)
    except RecordError as exc:
        print(f"kabu-replay: {args.file}: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
