"""What the evaluation tools read of a game: their own small protocols, data in the game's package.

A game that wants more than the generic treatment puts the data in its module ``<package>/plans.py``
(``GameSpec.hook("plans", ...)``), typed by the classes here; an attribute left out means the generic
thing. Cheap to import (no env, no gymnasium): the game's ``plans.py`` imports it.

* ``EVALUATION``: an ``Evaluation`` — the opponents a freshly trained model meets in its run's quick
  evaluation (``python -m kabu_envs.training``) and the default ``--deals`` of ``python -m
  kabu_envs.eval``. Absent: ``Evaluation()``.
* ``DEMO``: a ``DemoPlan`` — what ``make demo`` evaluates for the game (``kabu_envs.eval.demo``).
  Absent: the demo leaves the game out.
* ``BEST_RESPONSE``: a ``"module:attribute"`` reference to a factory ``(role, seed, **options) ->
  player`` of a best response to the ``reference`` seats (``kabu_envs.eval.best_response`` says what
  the player does). Absent: the game has no gap to a best response.

* ``EXPLOIT``: an ``ExploitPlan`` — the exploitability yardstick's fixed budget, seeds, training
  settings and held-out deals for the game (``kabu_envs.training.exploit``). Absent: ``ExploitPlan()``.

(The docs' pictures are ``SCREENSHOTS`` in the same module, read by ``kabu_envs.render_screenshots``.)
"""

from __future__ import annotations

from typing import TypeVar

from kabu_envs import registry
from kabu_envs.core.declared import PLANS, BenchPlan, DemoPlan, Evaluation, ExploitPlan

_P = TypeVar("_P")


def _typed_plan(game: str, name: str, cls: type[_P], article: str) -> _P | None:
    """The game's ``plans.<name>`` (None when absent), checked to be a ``cls``."""
    found = registry.get(game).hook(PLANS, name)
    if found is not None and not isinstance(found, cls):
        raise TypeError(f"{game}: plans.{name} must be {article} {cls.__name__}, got {type(found).__name__}")
    return found


def exploit_plan(game: str) -> ExploitPlan:
    """The game's exploitability plan (its ``EXPLOIT``, else the defaults)."""
    return _typed_plan(game, "EXPLOIT", ExploitPlan, "an") or ExploitPlan()


def evaluation(game: str) -> Evaluation:
    """The game's quick evaluation (its ``EVALUATION``, else the defaults)."""
    return _typed_plan(game, "EVALUATION", Evaluation, "an") or Evaluation()


def demo_plan(game: str) -> DemoPlan | None:
    """The game's demo plan (its ``DEMO``; None: the demo leaves the game out). Its roles are checked
    against the game's."""
    spec = registry.get(game)
    found = _typed_plan(game, "DEMO", DemoPlan, "a")
    if found is None:
        return None
    bad = [r for r in found.roles if r not in spec.role_names]
    if bad:
        raise ValueError(f"game {game!r}: demo roles {bad} are not roles {list(spec.role_names)}")
    return found


def demo_games() -> list[tuple[registry.GameSpec, DemoPlan]]:
    """The games ``make demo`` evaluates with their plans, ordered by the plan's ``order`` (then id)."""
    planned = [(plan, spec) for spec in registry.games() if (plan := demo_plan(spec.id)) is not None]
    return [(spec, plan) for plan, spec in sorted(planned, key=lambda t: (t[0].order, t[1].id))]


def bench_plan(game: str) -> BenchPlan | None:
    """The game's benchmark protocol (its ``BENCH``; None: no benchmark). Its roles are checked against
    the game's."""
    spec = registry.get(game)
    found = _typed_plan(game, "BENCH", BenchPlan, "a")
    if found is not None:
        bad = [r for r in found.field if r not in spec.role_names]
        if bad:
            raise ValueError(f"game {game!r}: bench roles {bad} are not roles {list(spec.role_names)}")
    return found


def best_response_ref(game: str) -> registry.Ref | None:
    """The game's best-response factory reference (its ``BEST_RESPONSE``; None: it has none)."""
    found = registry.get(game).hook(PLANS, "BEST_RESPONSE")
    if found is not None and not isinstance(found, str):
        raise TypeError(f"{game}: plans.BEST_RESPONSE must be a 'module:attribute' string")
    return found
