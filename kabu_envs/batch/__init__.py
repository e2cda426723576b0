"""Batched games: ``batch.make(game, batch_size=B, **rule_options)`` steps B games per call.

The contract (every registered game)::

    env = batch.make("kakeya", batch_size=B, **rule_options)
    env.reset(seed=0)                # or reset(seeds=[s0, ..., sB-1]) / reset(decks=[deck0, ...])
    env.current_player               # (B,) int64, -1 where that game is over
    env.legal_action_mask            # (B, A) bool
    env.observation                  # (B, obs_size) float32: the current player's observation
    env.rewards                      # (B, num_players) float64: paid by the last step
    env.terminated                   # (B,) bool
    env.step(actions)                # (B,) ints; ignored where terminated
    env.step(actions, active=held)   # only the games where held[b] (the others keep their state)
    env.reset(rows=[b, ...], seeds=[s, ...])   # deal only those games anew

A finished game's ``observation`` row is zeros. An engine may encode observations lazily
(``KernelBatchEnv(lazy=True)``, the Oicho-Kabu engine): a step writes the mask and marks the moved
games stale, and reading ``observation`` encodes them, so read the attribute after each step rather
than keep the array across steps. An agent may act from an engine's state instead of its observation
(``act_engine``, see ``agents.base.Capabilities.engine``), through the typed decision view the game
offers (Oicho-Kabu's ``engine.decision_view()``): the training VecEnv's opponents do, so their turns
encode nothing.

Every game with a rules kernel (Kakeya, Toy Card, Oicho-Kabu) serves the contract through one base
class, ``kernel_env.KernelBatchEnv`` (docs/batch.md#one-kernel-protocol).

``step(active=...)`` and ``reset(rows=...)`` let a caller move the games at its own pace (the
training VecEnv steps only the games whose opponents are to act, and restarts a finished game with
the seed its view would draw); a held game reports ``rewards`` 0 and ``terminated`` = over.
``reset(seeds=[...])`` gives game b exactly the deal the AEC env's ``reset(seed=seeds[b])`` gives;
``reset(decks=[...])`` the stacked decks of ``reset(options={"deck": ...})``. ``reset(seed=s)``: an
engine on a rules kernel (Kakeya, Toy Card, Oicho-Kabu) deals from its own per-row streams seeded from
(s, row, episode), the others use ``seeds = derive_seeds(s, B)`` (docs/batch.md#seeding).
``autoreset=True``
restarts a finished game at the next ``step`` (its new deal continues the batch's seed stream), for
training loops. Seeds are checked as the
AEC env checks its seed (``1.7``, ``"5"``, ``True`` are refused) and stacked decks as the game checks
them, all before anything changes: a refused ``reset`` leaves every game and the seed stream as they
were.

A game offers a vectorised engine by a function ``make_batch(batch_size, autoreset=False,
**rule_options) -> BatchEnv`` in its package's module ``batch.py`` (``GameSpec.hook("batch",
"make_batch")``); a game without one is served by ``LoopBatchEnv``, the reference implementation over B
AEC envs (exact, not fast).

``env.seat_table(role, rows)`` gives a role's seat groups (``registry.Role``) in the games ``rows`` as
one array ``(len(rows), G, S)``, -1 padded: the role's own seat function on a vectorised engine, the AEC
envs' groups on the reference loop.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kabu_envs import registry
from kabu_envs.batch.base import BatchEnv, LoopBatchEnv, derive_seeds

__all__ = ["BatchEnv", "LoopBatchEnv", "derive_seeds", "engine_factory", "make"]

# Where a game's vectorised engine is found: ``<package>.batch:make_batch``.
ENGINE_HOOK = ("batch", "make_batch")


def engine_factory(game: str) -> Callable[..., BatchEnv] | None:
    """The game's own batch-engine factory (``batch.py:make_batch`` in its package), None without one."""
    factory: Callable[..., BatchEnv] | None = registry.get(game).hook(*ENGINE_HOOK)
    return factory


def make(game: str, batch_size: int, autoreset: bool = False, **rule_options: Any) -> BatchEnv:
    """The batch engine of ``game`` (its own vectorised one, or the reference loop)."""
    factory = engine_factory(game)
    if factory is not None:
        return factory(batch_size=batch_size, autoreset=autoreset, **rule_options)
    return LoopBatchEnv(game, batch_size=batch_size, autoreset=autoreset, **rule_options)
