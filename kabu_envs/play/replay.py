"""``kabu-replay FILE``: replay a game record in the terminal, move by move, and check it.

Every action is checked to be legal where it was played and a complete record's rewards must come
out again; any difference is an error (exit status 1). A file that is no valid record, or a seat that
may not be shown, is exit status 2 (one line naming the problem). ``--seat S`` shows the game as seat S
saw it (default: the seat a person played, else 0; a person's game in progress only as that person
saw it); ``--moves`` prints only the moves and the results. The table is printed at the start, before
each move of the seat and after each round.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Iterator
from typing import Any, TextIO

from kabu_envs.core.messages import Msg
from kabu_envs.play.godview import god_view
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
from kabu_envs.play.session import move_text, name_new_cards, viewer_for
from kabu_envs.play.terminal import format_frame, format_view


def iter_frames(
    record: GameRecord,
    seat: int,
    first: int = 0,
    stop: int | None = None,
    verify: bool = True,
    god: bool = False,
) -> Iterator[dict[str, Any]]:
    """The frames ``first .. stop - 1`` of a record as ``seat`` saw it (frame 0: the deal; frame i: after
    action i - 1), while the whole record is replayed and checked (``verify=False``: only up to
    ``stop``, for a record already checked).

    Only the frames asked for are drawn (a view is most of a frame's cost), so a page of a long record
    costs its actions' steps plus the page. ``RecordError`` when the record does not replay (an
    illegal action, other rewards) or ``seat`` may not be shown (``GameRecord.check_seat``). ``god``:
    every seat's cards (``godview``), only where every seat may be shown (a finished game, or one no
    person played).
    """
    if not 0 <= seat < len(record.seats):
        raise RecordError(f"seat {seat} is not a seat of this game (0..{len(record.seats) - 1})")
    for s in range(len(record.seats)) if god else (seat,):
        record.check_seat(s)
    viewer = viewer_for(record.game)
    env = new_env(record)
    n = len(record.seats)

    def see(env: Any, seat: int) -> dict[str, Any]:
        return god_view(viewer, env, n, seat) if god else viewer.seat_view(env, seat)

    end = len(record.actions) + 1 if stop is None else stop
    totals = step_rewards(env)
    shown = first <= 0 < end
    view = see(env, seat) if shown or first == 1 else None
    if shown:
        yield {"move": None, "actor": None, "view": view, "rewards": None, "round_over": False}
    text: list[Msg | None] = [None]
    plays = [False]

    def describe(env: Any, i: int, actor: int, action: int) -> None:
        if first <= i + 1 < end:
            text[0] = viewer.move_say(env, actor, action, seat)
            plays[0] = viewer.action_card(env, action) is not None

    for _, i, actor, _ in iter_replay(record, env, describe):
        paid = step_rewards(env)
        totals += paid
        k = i + 1  # this frame's index
        if first - 1 <= k < end:
            before, view = view, see(env, seat)
            if k >= first:
                assert before is not None and view is not None
                over = episode_over(env)
                picture = view
                if not over and view["round"] != before["round"]:  # the showdown, not the next deal
                    hook = getattr(viewer, "round_end_env", None)
                    stand_in = hook(env) if hook is not None else None
                    picture = see(stand_in, seat) if stand_in is not None else view
                said = name_new_cards(text[0], before, picture, plays[0])
                yield {
                    "move": move_text(viewer, said, seat),
                    "say": said,
                    "actor": actor,
                    "view": picture,
                    "rewards": paid.tolist() if paid.any() else None,
                    "round_over": over or view["round"] != before["round"],
                }
        elif k >= end and not verify:
            return
    check_end(record, env, totals)


def replay_frames(record: GameRecord, seat: int) -> list[dict[str, Any]]:
    """Every frame of a record as ``seat`` saw it (``iter_frames``)."""
    return list(iter_frames(record, seat))


def run(record: GameRecord, seat: int, out: TextIO, moves_only: bool = False) -> None:
    """Print the replay as it goes (a long record streams; ``| head`` stops it early)."""
    names = [f"player_{i} ({s['agent']})" for i, s in enumerate(record.seats)]
    seed = "" if record.private else f"seed {record.seed}, "
    out.write(f"{record.game}: {seed}{len(record.actions)} actions, seen by player_{seat}\n")
    frames = iter_frames(record, seat)
    last = next(frames)
    if not moves_only:
        out.write(format_view(last["view"]) + "\n")
    for i, f in enumerate(frames):
        if not moves_only and f["actor"] == seat and not last["round_over"] and i:
            out.write(format_view(last["view"]) + "\n")  # what the seat saw when it chose
        lines = format_frame(f, names)
        out.write("".join(f"{line}\n" for line in lines))
        if not moves_only and f["round_over"]:
            out.write(format_view(f["view"]) + "\n")
        last = f
    if not moves_only and not last["round_over"]:
        out.write(format_view(last["view"]) + "\n")
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
        if not 0 <= seat < len(record.seats):
            raise RecordError(f"seat {seat} is not a seat of this game (0..{len(record.seats) - 1})")
        record.check_seat(seat)
        new_env(record)  # the deal starts (a stacked deck is checked)
    except RecordError as exc:
        print(f"kabu-replay: {args.file}: {exc}", file=sys.stderr)
        return 2
    try:
        run(record, seat, sys.stdout, args.moves)
        sys.stdout.flush()
    except RecordError as exc:
        sys.stdout.flush()
        print(f"kabu-replay: {args.file}: {exc}", file=sys.stderr)
        return 1
    except BrokenPipeError:  # `kabu-replay FILE | head`: the reader left; no traceback at exit either
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        print("kabu-replay: the output was closed before the end (broken pipe)", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
