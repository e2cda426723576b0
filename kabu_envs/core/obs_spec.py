"""Observation layouts defined once, as named pieces.

The space size, the encoder's slices and the documentation table all come from one
``ObsSpec``, so the docs cannot drift from the code (RLCard's weak spot).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class ObsPiece:
    """One named block of the flat observation vector."""

    name: str
    size: int
    description: str
    low: float = 0.0
    high: float = 1.0


@dataclass(frozen=True)
class ObsSpec:
    """An ordered list of pieces; ``slices[name]`` is where a piece lives."""

    pieces: tuple[ObsPiece, ...]
    slices: dict[str, slice] = field(init=False, repr=False, compare=False)
    offsets: dict[str, int] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        slices: dict[str, slice] = {}
        offsets: dict[str, int] = {}
        at = 0
        for p in self.pieces:
            if p.name in slices:
                raise ValueError(f"observation piece {p.name!r} defined twice")
            if p.size <= 0:
                raise ValueError(f"observation piece {p.name!r} has size {p.size}")
            slices[p.name] = slice(at, at + p.size)
            offsets[p.name] = at
            at += p.size
        object.__setattr__(self, "slices", slices)
        object.__setattr__(self, "offsets", offsets)

    @property
    def size(self) -> int:
        return sum(p.size for p in self.pieces)

    @property
    def low(self) -> float:
        return min(p.low for p in self.pieces)

    @property
    def high(self) -> float:
        return max(p.high for p in self.pieces)

    def markdown_table(self) -> str:
        """The docs table: offset, size, name, range and meaning of every piece."""
        rows = ["| offset | size | name | range | meaning |", "|---|---|---|---|---|"]
        for p in self.pieces:
            rows.append(
                f"| {self.offsets[p.name]} | {p.size} | `{p.name}` | "
                f"{_num(p.low)}..{_num(p.high)} | {p.description} |"
            )
        rows.append(f"| | **{self.size}** | total | | |")
        return "\n".join(rows)

    def decode(self, vec: Any) -> dict[str, list[float]]:
        """Split a flat observation into its named pieces (for debugging and tests)."""
        return {p.name: list(vec[self.slices[p.name]]) for p in self.pieces}


def _num(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else f"{x:g}"
