"""The one Agent protocol every policy follows: ``act(observation, action_mask) -> int``.

Each agent owns a seeded ``np.random.Generator`` so that tournaments are reproducible
and no agent ever touches the global RNG.

``BaseAgent.save`` writes an agent's class name and parameters as JSON; ``BaseAgent.load``
rebuilds only the classes registered with ``@loadable`` (an allow-list), never a class or function
a file names: a JSON file must not be able to import or call arbitrary code.
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol, TypeVar, runtime_checkable

import numpy as np

from kabu_envs.core.rng import make_rng

_T = TypeVar("_T", bound=type)
# class name (module.qualname) -> class, filled by @loadable
LOADABLE: dict[str, type] = {}


def loadable_modules() -> list[str]:
    """The modules whose classes may be ``@loadable``: the named agents of every registered game (their
    registry references), never a module a file names. ``BaseAgent.load`` imports them on demand."""
    from kabu_envs import registry

    refs = [ref for spec in registry.games() for ref in spec.agents.values()]
    return sorted({ref.partition(":")[0] for ref in refs if isinstance(ref, str)})


def loadable(cls: _T) -> _T:
    """Allow ``BaseAgent.load`` to rebuild ``cls`` (a ``BaseAgent`` subclass) from saved parameters.

    A class that moved keeps loading files saved under its old name: it lists those names in
    ``former_names`` (module.qualname strings). Only the class's own list counts: a subclass inherits
    the attribute, not the old files (they load as the class that wrote them).
    """
    if not (isinstance(cls, type) and issubclass(cls, BaseAgent)):
        raise TypeError(f"@loadable is for BaseAgent subclasses, not {cls!r}")
    for name in (f"{cls.__module__}.{cls.__qualname__}", *vars(cls).get("former_names", ())):
        LOADABLE[name] = cls
    return cls


def legal_from_mask(action_mask: np.ndarray) -> np.ndarray:
    """Legal action ids of an int8 mask; raises when the seat is not to act."""
    legal = np.flatnonzero(action_mask)
    if legal.size == 0:
        raise ValueError("action_mask is all zeros: this seat is not to act")
    return legal


def batch_masks(action_masks: np.ndarray, rngs: Sequence[np.random.Generator] | None = None) -> np.ndarray:
    """``(B, A)`` bool masks of an ``act_batch`` call, checked: a legal action in every row, one
    generator per row when ``rngs`` is given."""
    masks = np.asarray(action_masks).astype(bool)
    if masks.ndim != 2 or not masks.any(axis=1).all():
        raise ValueError("act_batch needs (B, A) masks with a legal action in every row")
    if rngs is not None and len(rngs) != len(masks):
        raise ValueError(f"act_batch: {len(rngs)} generators for {len(masks)} rows (one per row)")
    return masks


def can_act_batched(agent: Any) -> bool:
    """True when ``agent.act_batch`` plays a batch of decisions exactly as ``act`` plays them one by one.

    The batched-agent protocol: ``act_batch(observations (B, obs), action_masks (B, A), rngs=None)
    -> (B,) int64``, row i being what ``act`` returns with ``self.rng`` = ``rngs[i]`` (which it leaves
    in the same state). An agent whose ``act_batch`` exists but cannot serve its current configuration
    says so with ``batched = False``.
    """
    return callable(getattr(agent, "act_batch", None)) and bool(getattr(agent, "batched", True))


def can_act_on_engine(agent: Any, engine: Any) -> bool:
    """True when ``agent.act_engine(engine, rows, rngs)`` may stand for ``act_batch`` on ``engine``.

    The engine-acting protocol (optional, on top of the batched one): ``act_engine(engine, rows,
    rngs=None) -> (len(rows),) int64`` is exactly ``act_batch(engine.observation[rows],
    engine.legal_action_mask[rows], rngs)`` (the same actions, draws and ``fallbacks``) for the games
    ``rows`` of a batch engine, each at its current player's decision, but read from the engine's state
    arrays: no observation is encoded. ``acts_on_engine(engine)`` says which engines (a class, a rule
    set) an agent reads; callers fall back to ``act_batch`` for the others.
    """
    if not can_act_batched(agent) or not callable(getattr(agent, "act_engine", None)):
        return False
    supports = getattr(agent, "acts_on_engine", None)
    return callable(supports) and bool(supports(engine))


def acts_at_table(agent: Any) -> bool:
    """True for an agent that searches from the game's state (``kabu_envs.openspiel.bots``).

    The table protocol: ``act_at_table(raw_env) -> int`` is asked instead of ``act`` when the seat to act
    (``raw_env.agent_selection``) is the agent's. The agent reads the env only through what its seat may
    see (a bot re-deals the hidden cards before it searches; its tests check that swapping them changes
    nothing). ``play_deal`` honours it; such an agent has no ``act_batch`` and plays the scalar path.
    """
    return callable(getattr(agent, "act_at_table", None))


def acts_with_values(agent: Any) -> bool:
    """True for an agent that can say what each legal action is worth: a teacher for soft targets.

    The protocol: ``act_with_values(observation, action_mask) -> (action, values)``, ``action`` what
    ``act`` would play from the same state of the agent's generator, ``values`` a float64 array over
    the action space with the agent's estimate of each action's value for its seat (in the game's
    reward units) and NaN where it has none (illegal actions, actions it did not consider). The
    behaviour-cloning fit turns them into a soft target (training/bc.py ``soft_targets``).
    """
    return callable(getattr(agent, "act_with_values", None))


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
        self.rng = make_rng(seed)

    def reset(self, seed: int | None = None) -> None:
        """Re-seed the agent's own generator (tournaments call this per deal)."""
        self.rng = make_rng(seed)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        raise NotImplementedError

    def config(self) -> dict[str, Any]:
        return {"class": f"{type(self).__module__}.{type(self).__qualname__}", "params": self.params}

    def save(self, path: str | Path) -> None:
        Path(path).write_text(json.dumps(self.config(), indent=2, sort_keys=True))

    @staticmethod
    def load(path: str | Path, seed: int | None = None) -> BaseAgent:
        """Rebuild an agent saved by ``save``; only ``@loadable`` classes (``LOADABLE``) are built."""
        cfg = json.loads(Path(path).read_text())
        if not isinstance(cfg, dict) or set(cfg) != {"class", "params"}:
            raise ValueError(f"{path}: an agent file is a JSON object with keys 'class' and 'params'")
        name, params = cfg["class"], cfg["params"]
        if not isinstance(params, dict) or not all(isinstance(k, str) for k in params):
            raise ValueError(f"{path}: 'params' must be a JSON object of named parameters")
        if isinstance(name, str) and name not in LOADABLE:
            for module in loadable_modules():  # fixed modules of the registered games, never the file's
                importlib.import_module(module)
        cls = LOADABLE.get(name) if isinstance(name, str) else None
        if cls is None:
            raise ValueError(
                f"{path}: class {name!r} is not an agent class that can be loaded; loadable: "
                f"{sorted(LOADABLE)} (register a BaseAgent subclass with @agents.base.loadable)"
            )
        return cls(seed=seed, **params)


@loadable
class RandomAgent(BaseAgent):
    """Uniform over the legal actions: the floor every baseline must beat."""

    name = "random"

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        legal = legal_from_mask(action_mask)
        return int(legal[self.rng.integers(legal.size)])

    def act_batch(
        self,
        observations: np.ndarray | None,
        action_masks: np.ndarray,
        rngs: Sequence[np.random.Generator] | None = None,
    ) -> np.ndarray:
        """A uniformly random legal action per row of ``(B, A)`` masks, ``(B,)`` int64.

        With ``rngs``, row i draws from ``rngs[i]`` exactly as ``act`` draws from ``self.rng`` (so a
        batched evaluation replays the scalar one); without, one vectorised draw from ``self.rng``.
        """
        masks = batch_masks(action_masks, rngs)
        if rngs is None:
            keys = self.rng.random(masks.shape)
            return np.where(masks, keys, -1.0).argmax(axis=1).astype(np.int64)
        # legal ids of every row, in order: row i's k-th legal action is ids[starts[i] + k]
        rows, ids = np.nonzero(masks)
        counts = np.bincount(rows, minlength=len(masks))
        starts = np.cumsum(counts) - counts
        picks = [rng.integers(c) for rng, c in zip(rngs, counts.tolist(), strict=True)]
        return ids[starts + np.asarray(picks, dtype=np.int64)].astype(np.int64)

    def acts_on_engine(self, engine: Any) -> bool:
        """Any batch engine: a random move needs only the mask."""
        return True

    def act_engine(
        self, engine: Any, rows: np.ndarray, rngs: Sequence[np.random.Generator] | None = None
    ) -> np.ndarray:
        """``act_batch`` on the masks of the games ``rows`` of a batch engine (the observation unread)."""
        return self.act_batch(None, engine.legal_action_mask[rows], rngs)
