"""Plain progress lines for the stages of a training run, on stdout, with or without a terminal.

Why not only tqdm bars: a bar draws on a terminal only, so a run under ``nohup``, ``timeout`` or a
cluster scheduler printed nothing for the minutes of behaviour cloning and DAgger before PPO. These
lines are ordinary prints, one every ``every`` seconds at most (and at the start and end of a stage),
so a log file shows what the run is doing and how far it is::

    [bc] 12000/150000 decisions (8%) 34 s
    [ppo] 65536/400000 steps (16%) 120 s
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import TextIO

# at most one progress line per stage this often (seconds); starts and ends are always printed
EVERY = 15.0


def say(stage: str, text: str, out: TextIO | None = None) -> None:
    """One line ``[stage] text`` on stdout, flushed (a log file sees it at once)."""
    print(f"[{stage}] {text}", file=out or sys.stdout, flush=True)


class StageProgress:
    """``[stage] done/total unit (pct%) elapsed s`` lines, at most one per ``every`` seconds."""

    def __init__(
        self,
        stage: str,
        total: int,
        unit: str,
        every: float = EVERY,
        out: TextIO | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.stage, self.total, self.unit = stage, max(int(total), 1), unit
        self.every, self.out, self.clock = every, out, clock
        self.start = self.last = clock()
        self.done = 0

    def line(self, done: int) -> str:
        pct = min(100, 100 * done // self.total)
        return f"{done}/{self.total} {self.unit} ({pct}%) {self.clock() - self.start:.0f} s"

    def update(self, done: int) -> None:
        """Record ``done`` units so far; print a line when ``every`` seconds passed since the last."""
        self.done = int(done)
        if self.clock() - self.last >= self.every:
            self.last = self.clock()
            say(self.stage, self.line(self.done), self.out)

    def finish(self, note: str = "") -> None:
        """The stage's last line (always printed)."""
        say(self.stage, self.line(self.done) + (f"; {note}" if note else ""), self.out)
