"""The one Agent protocol every policy follows: ``act(observation, action_mask) -> int``.

Each agent owns a seeded ``np.random.Generator`` so that tournaments are reproducible
and no agent ever touches the global RNG.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import numpy as np


def legal_from_mask(action_mask: np.ndarray) -> np.ndarray:
    """Legal action ids of an int8 mask; raises when the seat is not to act."""
    legal = np.flatnonzero(action_mask)
    if legal.size == 0:
        raise ValueError("action_mask is all zeros: this seat is not to act")
    return legal


@runtime_checkable
class Agent(Protocol):
    name: str

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int: ...

    def reset(self, seed: int | None = None) -> None: ...


class BaseAgent:
    """Common plumbing: a name, an own RNG, JSON save/load of the parameters."""

    name = "base"

    def __init__(self, seed: int | None = None, **params: Any) -> None:
        self.params = params
        self.rng = np.random.Generator(np.random.PCG64(seed))

    def reset(self, seed: int | None = None) -> None:
        """Re-seed the agent's own generator (tournaments call this per deal)."""
        self.rng = np.random.Generator(np.random.PCG64(seed))

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        raise NotImplementedError

    def config(self) -> dict[str, Any]:
        return {"class": f"{type(self).__module__}.{type(self).__qualname__}", "params": self.params}

    def save(self, path: str | Path) -> None:
        Path(path).write_text(json.dumps(self.config(), indent=2, sort_keys=True))

    @staticmethod
    def load(path: str | Path, seed: int | None = None) -> BaseAgent:
        """Rebuild an agent saved by ``save`` (class path + parameters)."""
        import importlib

        cfg = json.loads(Path(path).read_text())
        module, _, qual = cfg["class"].rpartition(".")
        cls = getattr(importlib.import_module(module), qual)
        return cls(seed=seed, **cfg["params"])


class RandomAgent(BaseAgent):
    """Uniform over the legal actions: the floor every baseline must beat."""

    name = "random"

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        legal = legal_from_mask(action_mask)
        return int(legal[self.rng.integers(legal.size)])
