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
  settings and held-out deals for the game (``kabu_envs.eval.exploit``). Absent: ``ExploitPlan()``.

(The docs' pictures are ``SCREENSHOTS`` in the same module, read by ``kabu_envs.render_screenshots``.)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

from kabu_envs import registry

PLANS = "plans"  # the game's module the evaluation tools read


@dataclass(frozen=True)
class Evaluation:
    """The quick evaluation of a game: ``opponents`` (agent names) and duplicate ``deals``."""

    opponents: tuple[str, ...] = ("random", "scripted")
    deals: int = 1000

    def __post_init__(self) -> None:
        if not self.opponents:
            raise ValueError("Evaluation: no opponent to evaluate against")
        if isinstance(self.deals, bool) or not isinstance(self.deals, int) or self.deals < 1:
            raise ValueError(f"Evaluation: deals must be a positive integer, got {self.deals!r}")


@dataclass(frozen=True)
class DemoPlan:
    """What ``make demo`` evaluates for a game: data, not code.

    Every shipped model of the game (its role read from its run record) meets each of ``opponents``;
    ``reference_rows`` are extra ``(agent, opponent)`` rows between the hand-written players, in each
    of ``roles``. ``deals`` duplicate deals per matchup; ``sample_title`` heads the rendered sample;
    ``order`` places the game among the others in the reports. ``agent_deals`` names agents too slow for
    ``deals`` (a search player deciding one move at a time): a matchup with one of them plays that many
    deals instead (the smallest, if both are listed), and the demo starts those matchups first.
    """

    roles: tuple[str, ...]
    opponents: tuple[str, ...]
    reference_rows: tuple[tuple[str, str], ...]
    deals: int
    sample_title: str
    order: int = 0  # position of the game in the demo's reports (lower first)
    # gap to a best response (``BEST_RESPONSE``): these agents (plus the shipped models of the game) in
    # each of ``roles``, on ``best_response_deals`` deals per role (0: not in the demo)
    best_response_agents: tuple[str, ...] = ()
    best_response_deals: int = 0
    # the same for each richer rule setting a shipped model of the role was trained for (its models
    # and ``best_response_agents`` at that table; fewer deals: those best responses cost more)
    best_response_setting_deals: int = 0
    agent_deals: Mapping[str, int] = field(default_factory=dict)

    def deals_for(self, agent: str, opponent: str) -> int:
        """Duplicate deals of the ``agent`` vs ``opponent`` matchup."""
        return min([self.deals] + [self.agent_deals[a] for a in (agent, opponent) if a in self.agent_deals])


@dataclass(frozen=True)
class ExploitPlan:
    """The exploitability yardstick of a game (``kabu_envs.eval.exploit``): data, not code.

    A PPO exploiter trains for ``timesteps`` from ``seed`` with the training config ``config`` (keys of
    ``kabu_envs.training.config.TrainConfig``: ``batch_envs``, ``ppo``, ``policy_kwargs``, ...) laid
    over the defaults, warm-started from ``init_from[role]`` when that model fits the table's rules (a
    fixed starting point, so a small budget still measures exploitation rather than learning from
    nothing; else ``scratch_config`` on top, e.g. a behaviour clone of a named agent). The better of it
    and its warm start on ``select_deals`` validation deals is kept and meets the frozen agent on
    ``deals`` duplicate deals of the match seed ``eval_seed`` (deal seeds below 2**32, never the
    63-bit seeds training deals from).
    ``demo_deals``: deals per shipped exploiter in ``make demo`` (0: not in the demo).
    ``observation_roles``: a ``"module:attribute"`` function ``(observations (B, obs), **rule_options)
    -> (B,)`` indices into the game's roles, telling which role each observing seat holds; needed only
    for a frozen agent that plays some roles and not others (a model trained for one role: the game's
    reference fills the other roles' seats).
    """

    timesteps: int = 100_000
    seed: int = 0
    deals: int = 2000
    eval_seed: int = 20_270
    config: Mapping[str, Any] = field(default_factory=dict)
    init_from: Mapping[str, str] = field(default_factory=dict)
    demo_deals: int = 0
    observation_roles: str | None = None
    # training settings laid over ``config`` when no warm start fits (e.g. a behaviour-cloning warm start
    # from a named agent, ``{"bc": {"teacher": "expert"}}``: its clone is then the warm start)
    scratch_config: Mapping[str, Any] = field(default_factory=dict)
    # the exploiter is the better of the fine-tuned policy and its warm start on this many validation
    # deals (match seed ``eval_seed + 1``, not the held-out ones): fine-tuning that made the policy
    # worse against the frozen agent is not held against the yardstick (0: always the fine-tuned one)
    select_deals: int = 0

    def __post_init__(self) -> None:
        for key in ("timesteps", "deals"):
            value = getattr(self, key)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"ExploitPlan: {key} must be a positive integer, got {value!r}")
        for key in ("demo_deals", "select_deals"):
            value = getattr(self, key)
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ValueError(f"ExploitPlan: {key} must be an integer >= 0, got {value!r}")


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


def best_response_ref(game: str) -> registry.Ref | None:
    """The game's best-response factory reference (its ``BEST_RESPONSE``; None: it has none)."""
    found = registry.get(game).hook(PLANS, "BEST_RESPONSE")
    if found is not None and not isinstance(found, str):
        raise TypeError(f"{game}: plans.BEST_RESPONSE must be a 'module:attribute' string")
    return found
