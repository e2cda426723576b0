"""Toy Card's rule options, declared once as records (they drive validation and the docs table)."""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

from kabu_envs.core.options import Option, OptionSet, integer

OPTIONS = OptionSet(
    "Toy Card",
    (
        Option("num_players", 2, integer(2, 8), "toy game", "seats; each acts once, in seat order"),
        Option(
            "raise_threshold",
            5,
            integer(1, 9),
            "toy game",
            "lowest card value that may RAISE, and that wins its stake",
        ),
    ),
)


@dataclass(frozen=True)
class Config:
    """One validated rule set; build it with ``make_config(**options)``."""

    num_players: int = 2
    raise_threshold: int = 5

    def __post_init__(self) -> None:
        for f in fields(self):
            object.__setattr__(self, f.name, OPTIONS.check(f.name, getattr(self, f.name)))

    def as_dict(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self)}


def make_config(**options: Any) -> Config:
    """Validate ``options`` (unknown names and bad values raise ``RuleConfigError``)."""
    OPTIONS.check_known(options)
    return Config(**{**OPTIONS.defaults(), **options})
