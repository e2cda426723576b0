"""The games a web server holds, by token: least recently used first out, idle ones expired.

Why: the old table dropped the *oldest created* game beyond 64, so a game someone was
playing vanished after 64 new games elsewhere. Here:

* a request for a game makes it the most recently used;
* a game untouched for ``idle_seconds`` is dropped (the page is told its game is gone);
* when the table is full, a finished game goes first (least recently used first), then a game idle
  for ``protect_seconds``; if every game was used more recently than that, a new game is refused
  (``StoreFull``: the server answers 429) rather than dropping one in use.

The memory is bounded by ``capacity`` games (a game with three model opponents holds well under 5 MB:
the models' weights are shared by every game, ``session.make_seat_agent``).
"""

from __future__ import annotations

import math
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


class StoreFull(Exception):
    """Every game held is in use: a new one is refused; ``retry_after``: seconds until one may go."""

    def __init__(self, message: str, retry_after: float) -> None:
        super().__init__(message)
        self.retry_after = retry_after


@dataclass
class Entry:
    """One game: the ``Match``, the lock its requests take, when it was last used, whether it is over
    (set by the request that ended it, under ``lock``) and its record file."""

    match: Any
    lock: threading.Lock = field(default_factory=threading.Lock)
    used: float = 0.0
    finished: bool = False
    record_file: str | None = None


class GameStore:
    """Tokens -> ``Entry`` (see the module docstring); every method is thread-safe."""

    def __init__(
        self,
        capacity: int = 64,
        idle_seconds: float = 2 * 3600.0,
        protect_seconds: float = 600.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if capacity < 1:
            raise ValueError(f"capacity={capacity}: at least one game")
        self.capacity = capacity
        self.idle_seconds = idle_seconds
        self.protect_seconds = protect_seconds
        self.clock = clock
        self._entries: OrderedDict[str, Entry] = OrderedDict()  # least recently used first
        self._lock = threading.Lock()
        self.dropped = 0  # games dropped to make room or expired (the load test reads it)

    def __len__(self) -> int:
        with self._lock:
            return len(self._entries)

    def add(self, token: str, match: Any) -> Entry:
        """Hold a new game (``StoreFull`` when no game may go)."""
        with self._lock:
            now = self.clock()
            self._expire(now)
            if len(self._entries) >= self.capacity:
                self._make_room(now)
            entry = Entry(match, used=now)
            self._entries[token] = entry
            return entry

    def get(self, token: str) -> Entry | None:
        """The game of ``token`` (now the most recently used), None when unknown or expired."""
        with self._lock:
            now = self.clock()
            self._expire(now)
            entry = self._entries.get(token)
            if entry is not None:
                entry.used = now
                self._entries.move_to_end(token)
            return entry

    def _expire(self, now: float) -> None:
        while self._entries:
            token, entry = next(iter(self._entries.items()))
            if now - entry.used < self.idle_seconds:
                return
            del self._entries[token]
            self.dropped += 1

    def _make_room(self, now: float) -> None:
        victim = next((t for t, e in self._entries.items() if e.finished), None)  # the LRU finished game
        if victim is None:
            victim, oldest = next(iter(self._entries.items()))
            if now - oldest.used < self.protect_seconds:
                wait = self.protect_seconds - (now - oldest.used)
                raise StoreFull(
                    f"the server holds {self.capacity} games in progress, all played within the last "
                    f"{self.protect_seconds / 60:g} minutes: a new game can start in about "
                    f"{max(1, math.ceil(wait / 60))} minute(s), or as soon as one of them is finished (or "
                    "the server is restarted, which drops them all)",
                    wait,
                )
        del self._entries[victim]
        self.dropped += 1
