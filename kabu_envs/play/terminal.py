"""``kabu-play`` in the terminal: a person against agents, one numbered choice at a time.

The person sees their seat's view (``kabu_envs.core.views``) and the other seats' moves as far as the
seat sees them; legal moves are numbered and named; any other input asks again. A round's result is
shown when it ends, the match summary at the end; ``--record FILE`` writes the game record (also when
the person quits, with ``q``, end of input or Ctrl-C: an incomplete record is a saved game, its seed
and deck sealed, which ``--resume FILE`` continues).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any, TextIO

from kabu_envs.core.views import Card, View
from kabu_envs.play.records import write_record
from kabu_envs.play.seal import SealError
from kabu_envs.play.session import Match


def card_text(card: Card) -> str:
    """A card in a few characters: ``A♠``, ``7``, ``3*`` (a hanafuda light), ``[##]`` face down."""
    if card.get("hidden"):
        return "[##]"
    return f"{card['rank']}{card['suit'] if card['kind'] == 'western' else ''}" + (
        "*" if card.get("light") else ""
    )


def format_view(view: View) -> str:
    """The view as lines of text (what the seat sees, nothing more)."""
    lines = [f"== {view['title']} ==", *view["status"]]
    for z in view["zones"]:
        cards = " ".join(card_text(c) for c in z["cards"]) or "-"
        mark = ">" if z["active"] else " "
        lines.append(f"{mark} {z['label']}: {cards}" + (f"   ({z['note']})" if z["note"] else ""))
    hand = view.get("hand")
    if hand is not None:
        lines.append(f"  {hand['label']}: " + (" ".join(card_text(c) for c in hand["cards"]) or "-"))
    return "\n".join(lines)


def format_frame(frame: dict[str, Any], names: list[str]) -> list[str]:
    """A move's line, and the round's result when the move ended a round."""
    out = []
    if frame["move"]:
        out.append(f"  * {frame['move']}")
    if frame["round_over"]:
        out.append("--- round over ---")
        out.extend(f"  {line}" for line in frame["view"]["result"])
        if frame["rewards"] is not None:
            out.append(
                "  rewards: " + ", ".join(f"{n} {r:+g}" for n, r in zip(names, frame["rewards"], strict=True))
            )
    return out


def seat_names(match: Match) -> list[str]:
    return [
        "you" if i == match.seat else f"player_{i} ({s['agent']})" for i, s in enumerate(match.record().seats)
    ]


def summary(match: Match) -> list[str]:
    """The match summary: each seat's agent and total reward."""
    lines = ["=== match summary ===" if match.over else "=== game stopped (not finished) ==="]
    for name, total in zip(seat_names(match), match.totals.tolist(), strict=True):
        lines.append(f"  {name}: {total:+g}")
    return lines


def choose(moves: list[dict[str, Any]], read: Callable[[], str | None], out: TextIO) -> int | None:
    """Ask for one of ``moves`` by number (or by name); re-asks on bad input; None = quit (q or EOF)."""
    for i, m in enumerate(moves, 1):
        out.write(f"  {i}) {m['label']}\n")
    while True:
        out.write(f"your move [1-{len(moves)}, q to quit]: ")
        out.flush()
        text = read()
        if text is None:
            out.write("\n")
            return None
        text = text.strip()
        if text.lower() in ("q", "quit", "exit"):
            return None
        if text.isascii() and text.isdigit() and 1 <= int(text) <= len(moves):  # not "²": int() fails
            return int(moves[int(text) - 1]["action"])
        by_name = [m for m in moves if m["label"].lower() == text.lower()]
        if by_name:
            return int(by_name[0]["action"])
        out.write(f"not a choice: {text!r}; type a number from 1 to {len(moves)} (or a move's name, or q)\n")


INTERRUPTED = 130  # the exit status of a game stopped by Ctrl-C (128 + SIGINT), saved like a quit


def run(match: Match, stdin: TextIO, out: TextIO, record: str | None = None) -> int:
    """Play ``match`` to its end (or until the person quits); 0 when finished, 1 when quit, 130 when
    interrupted (Ctrl-C). A quit or an interrupted game is saved to ``record`` like a finished one."""

    def read() -> str | None:
        line = stdin.readline()
        return line if line else None

    names = seat_names(match)

    def show(frame: dict[str, Any]) -> None:
        """A move; at the end of a round that is not the last, its showdown table (the game's final
        table is printed once, below)."""
        out.write("\n".join(format_frame(frame, names)) + "\n")
        if frame["round_over"] and not frame["over"]:
            out.write(format_view(frame["view"]) + "\n")

    seed = f"; seed {match.seed}" if match.seed_given else ""  # a fresh seed would show every hand
    out.write(f"{match.spec.title}: you are player_{match.seat}{seed}\n")
    for i, s in enumerate(match.record().seats):
        out.write(f"  player_{i}: {'you' if i == match.seat else s['agent']}\n")
    status = 0
    try:
        while not match.over:
            for frame in match.advance():
                show(frame)
            if match.over:
                break
            out.write("\n" + format_view(match.view()) + "\n")
            action = choose(match.legal_moves(), read, out)
            if action is None:
                status = 1
                break
            show(match.play(action))
    except KeyboardInterrupt:
        status = INTERRUPTED
        out.write("\n(interrupted)\n")
    if match.over:
        out.write("\n" + format_view(match.view()) + "\n")
    out.write("\n".join(summary(match)) + "\n")
    if match.over and not match.seed_given:
        out.write(f"  (the deal's seed was {match.seed})\n")
    if record:
        try:
            path = write_record(match.record(), record)
        except SealError as exc:  # a damaged, unsafe or unwritable key: say so (no traceback, no file)
            out.write(f"the game could not be saved: {exc}\n")
            out.flush()
            return 1
        except OSError as exc:
            out.write(f"the game record could not be written to {record}: {exc.strerror or exc}\n")
            out.flush()
            return 1
        saved = " (a saved game: --resume it)" if not match.over else ""
        out.write(f"game record written to {path}{saved}\n")
    elif not match.over:
        out.write("not saved (no --record FILE given)\n")
    out.flush()
    return 0 if match.over else status


def main_terminal(match: Match, record: str | None) -> int:
    return run(match, sys.stdin, sys.stdout, record)
