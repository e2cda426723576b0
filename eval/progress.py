"""Progress bars for the long evaluation jobs, shown on a terminal only.

Why: ``make demo`` and a large ``python -m kabu_envs.eval`` run for a minute or more; a person at a terminal
wants to see they move, while logs and CI (no TTY) must stay free of bar noise. tqdm's
``disable=None`` does exactly that: the bar is drawn only when stderr is a terminal.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any, TypeVar

T = TypeVar("T")


def progress(items: Iterable[T], total: int | None = None, desc: str = "") -> Iterator[T]:
    """``items``, with a bar on stderr when it is a terminal (quiet otherwise)."""
    from tqdm.auto import tqdm

    yield from tqdm(items, total=total, desc=desc, disable=None, leave=False)


def bar(total: int, desc: str = "") -> Any:
    """A bar to ``update`` by hand (work done in other processes), drawn as ``progress`` draws it."""
    from tqdm.auto import tqdm

    return tqdm(total=total, desc=desc, disable=None, leave=False)
