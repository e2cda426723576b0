"""The one agent protocol: ``act_batch(observations (B, obs), action_masks (B, A), rngs=None) -> (B,)``.

Every agent is a ``BaseAgent``: a ``name``, ``reset(seed)``, the required ``act_batch`` (row i is what the
agent plays for that row with generator ``rngs[i]``: agents/batching.py), and ``act(observation,
action_mask) -> int`` derived from it (one row, ``self.rng`` its generator: the same draws). What an
agent can do beyond that is declared in its ``capabilities`` (``Capabilities``: played many deals at
once, acting from a batch engine's state, valuing its actions, searching at the table), never probed.
``passive_reason()`` is an informational hook every agent has (None unless it says why it never moves).

A user's object with only ``act(observation, action_mask)`` plays everywhere through ``as_agent``, the
one adapter (``ActAgent``), which every entry point that receives agents applies once.

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
from dataclasses import dataclass
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
    if masks.ndim != 2:
        raise ValueError(f"act_batch needs (B, A) action masks, got shape {masks.shape}")
    if not masks.any(axis=1).all():
        bad = np.flatnonzero(~masks.any(axis=1))[:10].tolist()
        raise ValueError(f"action_mask is all zeros: this seat is not to act (batch rows {bad})")
    if rngs is not None and len(rngs) != len(masks):
        raise ValueError(f"act_batch: {len(rngs)} generators for {len(masks)} rows (one per row)")
    return masks


@dataclass(frozen=True)
class Capabilities:
    """What an agent can do beyond the one required method (``act_batch``), declared by its class (or,
    when it depends on how the agent was built, by the instance in ``__init__``): callers read
    ``agent.capabilities``, they never probe for methods.

    * ``batch``: the rows of ``act_batch`` are independent decisions (row i depends only on its
      observation, mask and ``rngs[i]``), so an evaluation may play many deals at once and interleave
      them (the batched path). False: the agent is played one deal at a time (the scalar path), e.g. a
      search under a CPU-time cap, or a wrapped user agent that may remember the deal it is in.
    * ``engine``: ``act_engine(engine, rows, rngs)`` reads a batch engine's own state instead of the
      encoded observation, for the engines ``acts_on_engine(engine)`` accepts (e.g. Oicho-Kabu's scripted
      player: the vectorised engine of its own rule set only). The result is exactly ``act_batch`` on
      that engine's observation; it only saves the encoding.
    * ``values``: ``act_with_values(observation, action_mask) -> (action, values)`` (a teacher for soft
      targets; ``values`` float64 over the action space, NaN where it has no estimate).
    * ``table``: the agent searches from the game's state: ``act_at_table(raw_env) -> int`` is asked
      instead of ``act`` (it reads the env only through what its seat may see). Such an agent has no
      observation-only decision, so it is played on the scalar path only (``batch`` must be False).
    """

    batch: bool = True
    engine: bool = False
    values: bool = False
    table: bool = False

    def __post_init__(self) -> None:
        if self.table and self.batch:
            raise ValueError("Capabilities(table=True) needs batch=False: a table agent acts from the env")


@runtime_checkable
class Agent(Protocol):
    """The protocol every caller relies on (``BaseAgent`` provides it; ``as_agent`` adapts the rest)."""

    name: str
    capabilities: Capabilities

    def reset(self, seed: int | None = None) -> None: ...

    def act_batch(
        self,
        observations: np.ndarray,
        action_masks: np.ndarray,
        rngs: Sequence[np.random.Generator] | None = None,
    ) -> np.ndarray: ...

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int: ...


class BaseAgent:
    """Common plumbing: a name, an own RNG, the declared capabilities, JSON save/load of the parameters.

    A subclass implements ``act_batch`` (the one required method). ``act`` is derived from it (one row
    with ``self.rng`` as its generator); an agent may override ``act`` with its natural scalar form when
    that is the reference its ``act_batch`` is tested against bit for bit, and an agent that decides one
    row at a time (a search) implements ``act`` and lets ``act_batch`` call ``act_row_by_row``.
    """

    name = "base"
    capabilities: Capabilities = Capabilities()
    # a search bot counts its decisions and their CPU time (kabu-eval reports ms per decision)
    decisions: int = 0
    seconds: float = 0.0

    def __init__(self, seed: int | None = None, **params: Any) -> None:
        self.params = params
        self.rng = make_rng(seed)

    def reset(self, seed: int | None = None) -> None:
        """Re-seed the agent's own generator (tournaments call this per deal)."""
        self.rng = make_rng(seed)

    def act_batch(
        self,
        observations: np.ndarray,
        action_masks: np.ndarray,
        rngs: Sequence[np.random.Generator] | None = None,
    ) -> np.ndarray:
        """``(B,)`` int64 actions of ``(B, obs)`` observations and ``(B, A)`` masks: row i is what the
        agent plays for that row with ``rngs[i]`` as its generator (left in the state that play leaves
        it in); ``rngs=None``: its own ``rng``, row after row (agents/batching.py)."""
        raise NotImplementedError(f"{type(self).__name__} must implement act_batch (the agent protocol)")

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        """One decision: ``act_batch`` on one row with ``self.rng`` as its generator (the same draws)."""
        obs = np.asarray(observation)[None]
        mask = np.asarray(action_mask)[None]
        return int(self.act_batch(obs, mask, rngs=[self.rng])[0])

    def acts_on_engine(self, engine: Any) -> bool:
        """Whether ``act_engine`` reads this batch engine's state (``Capabilities.engine``); an agent
        whose reading depends on the engine's rule set narrows it."""
        return self.capabilities.engine

    def act_engine(
        self, engine: Any, rows: np.ndarray, rngs: Sequence[np.random.Generator] | None = None
    ) -> np.ndarray:
        """``act_batch`` on the games ``rows`` of a batch engine, each at its current player's turn.
        This default encodes their observations; an agent with ``Capabilities.engine`` reads the
        engine's state instead for the engines ``acts_on_engine`` accepts (the same actions and draws)."""
        return self.act_batch(engine.observation[rows], engine.legal_action_mask[rows], rngs)

    def act_with_values(self, observation: np.ndarray, action_mask: np.ndarray) -> tuple[int, np.ndarray]:
        """``(action, values)`` for an agent with ``Capabilities.values`` (see there)."""
        raise TypeError(f"agent {self.name!r} does not value its actions (capabilities.values is False)")

    def act_at_table(self, raw_env: Any) -> int:
        """The action of the seat to act in ``raw_env``, for an agent with ``Capabilities.table``."""
        raise TypeError(f"agent {self.name!r} does not act at the table (capabilities.table is False)")

    def passive_reason(self) -> str | None:
        """Why this agent never makes a move that hands another seat a turn (e.g. a bettor whose stakes
        are all below the smallest bet), else None: an informational hook, asked by the single-agent
        views before they give a learner a table where it would never act (``OpponentPool``)."""
        return None

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


class ActAgent(BaseAgent):
    """A user's object with only ``act(observation, action_mask) -> int`` (and maybe ``reset``, ``name``,
    ``rng``), as an agent: ``act_batch`` asks it row by row (its ``rng``, when it has one, swapped for
    each row's generator). It may remember the deal it is in, so it is played one deal at a time
    (``batch=False``). Made by ``as_agent``, the one place such objects are adapted."""

    capabilities = Capabilities(batch=False)

    def __init__(self, inner: Any) -> None:
        super().__init__(seed=None)
        self.inner = inner
        self.name = str(getattr(inner, "name", type(inner).__name__))
        self._reset = getattr(inner, "reset", None)

    def reset(self, seed: int | None = None) -> None:
        """The object's own ``reset`` when it has one (its generator is its own business)."""
        if callable(self._reset):
            self._reset(seed)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        action: int = self.inner.act(observation, action_mask)  # as given: the env refuses a float
        return action

    def act_batch(
        self,
        observations: np.ndarray,
        action_masks: np.ndarray,
        rngs: Sequence[np.random.Generator] | None = None,
    ) -> np.ndarray:
        from kabu_envs.agents.batching import act_row_by_row

        # a copy per row: the object may keep an observation it was shown
        return act_row_by_row(self.inner, np.array(observations), np.array(action_masks), rngs)


def as_agent(obj: Any) -> BaseAgent:
    """``obj`` as an agent of the protocol: a ``BaseAgent`` as it is, any other object with an
    ``act(observation, action_mask)`` method wrapped in ``ActAgent``. Every entry point that receives
    agents (evaluations, views' opponents, the training VecEnv) calls this once per agent."""
    if isinstance(obj, BaseAgent):
        return obj
    if not callable(getattr(obj, "act", None)):  # the one place an object's methods are looked up
        raise TypeError(
            f"{obj!r} is not an agent: give a BaseAgent subclass (act_batch) or an object with "
            "act(observation, action_mask) -> int"
        )
    return ActAgent(obj)


@loadable
class RandomAgent(BaseAgent):
    """Uniform over the legal actions: the floor every baseline must beat."""

    name = "random"

    capabilities = Capabilities(engine=True)  # a random move needs only the mask

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

    def act_engine(
        self, engine: Any, rows: np.ndarray, rngs: Sequence[np.random.Generator] | None = None
    ) -> np.ndarray:
        """``act_batch`` on the masks of the games ``rows`` of any batch engine (the observation unread)."""
        return self.act_batch(None, engine.legal_action_mask[rows], rngs)
