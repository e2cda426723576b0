"""The small records a game declares for the tools: data in the game's own modules, typed here.

Why one module under ``core``: a game package depends on nothing above the library's base, yet the
tools (evaluation, the docs' pictures, policy files, ensembles) each read some record the game declares.
The records' types live here, below both, so a game's ``plans.py``, ``features.py``, ``symmetry.py`` and
``stages.py`` import only this module, and each tool reads them through the game's registry record
(``GameSpec.hook(module, attribute)``; the hooks below). Cheap to import: numpy-free dataclasses.

* ``plans.EVALUATION`` (``Evaluation``), ``plans.DEMO`` (``DemoPlan``), ``plans.EXPLOIT``
  (``ExploitPlan``), ``plans.BEST_RESPONSE`` (a ``"module:attribute"`` string): read by
  ``kabu_envs.eval.plans``; ``plans.SCREENSHOTS`` (``Screenshot`` records): by
  ``kabu_envs.render_screenshots``.
* ``features.POLICY_FEATURES`` (``PolicyFeatures``), ``symmetry.POLICY_SYMMETRIES``
  (``PolicySymmetries``), ``stages.POLICY_STAGES`` (``PolicyStages``): name -> record mappings read by
  ``kabu_envs.agents.{features,symmetry,stages}``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np

PLANS = "plans"  # the game's module the evaluation tools and the pictures read
FEATURES_HOOK = ("features", "POLICY_FEATURES")
SYMMETRY_HOOK = ("symmetry", "POLICY_SYMMETRIES")
STAGES_HOOK = ("stages", "POLICY_STAGES")


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
    of ``roles`` (a row may name a shipped model: it is played at that model's own table only).
    ``deals`` duplicate deals per matchup; ``sample_title`` heads the rendered sample;
    ``order`` places the game among the others in the reports. ``agent_deals`` names agents too slow for
    ``deals`` (a search player deciding one move at a time): a matchup with one of them plays that many
    deals instead (the smallest, if both are listed), and the demo starts those matchups first.

    That is the full demo (``make demo-full``). The short one (``make demo``, minutes) plays each model
    against ``short_opponents`` only and, of the reference rows, the ``headline_rows`` (standard rules;
    with ``headline_settings`` also at each richer rule setting a shipped model was trained for, so that
    the short demo shows the reference player of that table too), with the same deal counts, and leaves
    out the best-response gaps and the exploiters.
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
    short_opponents: tuple[str, ...] = ("random", "scripted")
    headline_rows: tuple[tuple[str, str], ...] = ()
    headline_settings: bool = False

    def deals_for(self, agent: str, opponent: str) -> int:
        """Duplicate deals of the ``agent`` vs ``opponent`` matchup."""
        return min([self.deals] + [self.agent_deals[a] for a in (agent, opponent) if a in self.agent_deals])


@dataclass(frozen=True)
class ExploitPlan:
    """The exploitability yardstick of a game (``kabu_envs.training.exploit``): data, not code.

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


@dataclass(frozen=True)
class BenchPlan:
    """The benchmark protocol of a game (``kabu-eval bench``): data, not code, and versioned.

    An agent under test meets, in each of the game's roles, the reference field ``field[role]`` (agent
    names: random, the hand-written players, the strongest shipped network) on held-out duplicate deals:
    row k's match seed is ``bench_seed(seed, role, opponent)`` (keyed by the row, not by the agent, so
    every agent meets an opponent on the same deals and rows of different agents compare). ``deals`` per
    row unless the caller asks for fewer or more. The seeds, the field and the deal count are part of
    ``version``: changing any of them is a new version (``"v2"``), and old cards say which they ran.
    """

    version: str
    field: Mapping[str, tuple[str, ...]]
    deals: int
    seed: int

    def __post_init__(self) -> None:
        if not self.field or not all(self.field.values()):
            raise ValueError("BenchPlan: every role needs at least one opponent in its field")
        if isinstance(self.deals, bool) or not isinstance(self.deals, int) or self.deals < 1:
            raise ValueError(f"BenchPlan: deals must be a positive integer, got {self.deals!r}")


@dataclass(frozen=True)
class Screenshot:
    """A picture of the game for the docs.

    The game is reset with ``seed`` and ``rule_options``, the seats are played by ``agents`` (names,
    seat i by ``agents[i % len(agents)]``; default: the game's ``reference`` agent) for ``steps``
    actions (fewer if the episode ends), and the table is drawn as ``seat`` sees it (None: the god
    view) to ``<name>.png``. ``caption`` is the picture's alt text.
    """

    name: str
    steps: int
    seed: int = 0
    seat: int | None = None
    rule_options: Mapping[str, Any] = field(default_factory=dict)
    agents: tuple[str, ...] = ()
    caption: str = ""


@dataclass(frozen=True)
class PolicyFeatures:
    """One named set of derived inputs: ``size(env_options)`` columns, ``compute(observations (B,
    obs_size), env_options) -> (B, size)`` float32, each row a function of that row only.

    ``extends``: the name of a set whose columns are this one's first columns, value for value (so a
    caller holding this set's inputs has that set's as a prefix: an ensemble computes them once)."""

    size: Callable[[Mapping[str, Any]], int]
    compute: Callable[[np.ndarray, Mapping[str, Any]], np.ndarray]
    doc: str
    extends: str | None = None


@dataclass(frozen=True)
class PolicySymmetries:
    """A game's group of relabelings for one table: ``maps(env_options) -> (obs_image (G, obs_size),
    action_image (G, num_actions))``, int64, row 0 the identity; ``applies(observations (B, obs_size),
    env_options) -> (B, G)`` bool, which relabelings leave each row's decision the same (column 0 all
    true), a function of that row only; ``feature_maps(features name, env_options) -> (G, size)`` or
    None: the images of a policy-feature set's columns (agents/features.py) when the features of a view
    are its decision's features relabeled, value for value (a policy then computes them once a
    decision)."""

    maps: Callable[[Mapping[str, Any]], tuple[np.ndarray, np.ndarray]]
    applies: Callable[[np.ndarray, Mapping[str, Any]], np.ndarray]
    feature_maps: Callable[[str, Mapping[str, Any]], np.ndarray | None]
    doc: str


@dataclass(frozen=True)
class PolicyStages:
    """One split: ``names`` of its stages (at least two), ``of(observations (B, obs_size), env_options) ->
    (B,)`` int64, each row's stage as an index into ``names`` (a function of that row only)."""

    names: tuple[str, ...]
    of: Callable[[np.ndarray, Mapping[str, Any]], np.ndarray]
    doc: str


@dataclass(frozen=True)
class Hook:
    """One hook a tool reads from a game's package: ``module``'s ``attribute`` (``GameSpec.hook``), or
    the folder ``module`` itself when ``attribute`` is empty (``GameSpec.folder``); what the tool is,
    what the attribute must be (``protocol``), and what the tool does without it."""

    tool: str
    module: str
    attribute: str
    protocol: str
    without: str

    @property
    def where(self) -> str:
        """How the docs name it: ``module.py``: ``ATTRIBUTE``, or the folder ``name/``."""
        return (
            f"the folder `{self.module}/`"
            if not self.attribute
            else f"`{self.module}.py`: `{self.attribute}`"
        )


# Every hook the tools read from a game's package (docs/adding_a_game.md "The tools' hooks" is this table,
# generated; tests/test_registry.py checks that each ``GameSpec.hook``/``folder`` call of the tools reads
# one of these).
HOOKS: tuple[Hook, ...] = (
    Hook(
        "`kabu_envs.batch`",
        "batch",
        "make_batch",
        "`(batch_size, autoreset=False, **rule_options) -> BatchEnv` (`kabu_envs.batch` contract: B games"
        " per numpy call, with `step(actions, active=...)`, `reset(rows=..., seeds=...)`, which the "
        "training VecEnv uses); Toy Card's `kernel.py` and `batch.py` (a `KernelBatchEnv`, docs/batch.md)"
        " are the template and `tests/test_batch.py` runs every engine in lockstep with the AEC envs",
        "`LoopBatchEnv`, the exact reference over B AEC envs",
    ),
    Hook(
        "`kabu-play`, `kabu-replay`, the OpenSpiel adapter",
        "view",
        "VIEWER",
        "a `kabu_envs.core.views.Viewer`: `seat_view(raw_env, seat)`, `action_say(raw_env, action)`, "
        "`move_say(raw_env, actor, action, viewer)`, `action_card(raw_env, action)`, `rules_say(raw_env)` "
        "(the web page's rules panel) and `messages`, the templates of its lines in English and Japanese "
        "(`kabu_envs.core.messages`; 7. below)",
        "the raw observation and the engine's action names",
    ),
    Hook(
        "`python -m kabu_envs.training`",
        "presets",
        "",
        "YAML training presets, found by name (`python -m kabu_envs.training <preset>`)",
        "no presets",
    ),
    Hook(
        "`python -m kabu_envs.eval`, training's quick evaluation",
        PLANS,
        "EVALUATION",
        "`kabu_envs.core.declared.Evaluation(opponents, deals)`: whom a freshly trained model meets at "
        "the end of its run; the default `--deals`",
        "`Evaluation()`: random and scripted, 1000 deals",
    ),
    Hook(
        "`make demo`",
        PLANS,
        "DEMO",
        "`kabu_envs.core.declared.DemoPlan` (roles, opponents, reference rows, deals, sample title, "
        "order; `best_response_agents` / `best_response_deals` for the gaps to a best response, "
        "`best_response_setting_deals` for each richer rule setting of a shipped model; `agent_deals` for"
        " slow agents)",
        "not in the demo",
    ),
    Hook(
        "`python -m kabu_envs.eval.best_response`, the demo's gaps",
        PLANS,
        "BEST_RESPONSE",
        'a `"module:attribute"` reference to a factory `(role, seed, **options) -> player` of a best '
        "response to the `reference` seats (the player's methods: `eval/best_response.py`); optionally "
        "`factory.check_rules(role, **options)` raising a ValueError for what it does not model. "
        "Oicho-Kabu's is `kabu_envs/oicho_kabu/agents/best_response.py`",
        "no gap to a best response",
    ),
    Hook(
        "`kabu-train exploit` (the exploitability yardstick), `make demo`'s exploiters",
        PLANS,
        "EXPLOIT",
        "`kabu_envs.core.declared.ExploitPlan`: the yardstick's budget, seeds, training settings, warm "
        "start and held-out deals (docs/evaluation.md#exploitability)",
        "`ExploitPlan()`",
    ),
    Hook(
        "`kabu-eval bench` (the benchmark protocol), the leaderboard",
        PLANS,
        "BENCH",
        "`kabu_envs.core.declared.BenchPlan(version, field, deals, seed)`: each role's reference field, "
        "the held-out deals per row and the protocol's seed (docs/benchmark.md)",
        "no benchmark for the game",
    ),
    Hook(
        "the OpenSpiel adapter (`kabu_envs.openspiel`)",
        "config",
        "utility_bound",
        "`(config) -> float`: the largest total reward a seat can get under the rule set (OpenSpiel's "
        "declared utility bounds)",
        "`MAX_UTILITY` (2**31)",
    ),
    Hook(
        "the OpenSpiel adapter (`kabu_envs.openspiel`)",
        "config",
        "length_bound",
        "`(config, deck_size) -> int`: the moves of a whole episode (decisions and chance outcomes), "
        "OpenSpiel's `max_game_length`",
        "`MAX_GAME_LENGTH` (100,000)",
    ),
    Hook(
        "`openspiel:ismcts`, `openspiel:pimc` (`kabu_envs.openspiel.bots`)",
        "resample",
        "RESAMPLER",
        "`resample_deck(raw_env, seat, deck, rng) -> deck`: the deck in play (the last shuffle's order) "
        "with the cards the seat cannot see re-dealt from what it knows, reading nothing hidden "
        "(docs/openspiel.md; `tests/openspiel/test_openspiel_bots.py` swaps unseen cards and compares the"
        " worlds). Toy Card's `resample.py` is the template",
        "`ViewResampler`: the cards the viewer does not show, permuted uniformly",
    ),
    Hook(
        "policy files, training (`policy_kwargs.features`)",
        *FEATURES_HOOK,
        "a mapping of names to `kabu_envs.core.declared.PolicyFeatures(size, compute, doc)`: "
        "`size(rule_options) -> int`, `compute(observations (B, obs_size), rule_options) -> (B, size)` "
        "float32, each row from that row alone (derived network inputs; Kakeya's `cards`, "
        "docs/kakeya.md#policy-features; test them against the engine, as "
        "`tests/kakeya/test_kakeya_features.py` does)",
        "no features: a policy naming one is refused",
    ),
    Hook(
        "ensembles over views (`python -m kabu_envs.training.ensemble --views`)",
        *SYMMETRY_HOOK,
        "a mapping of names to `kabu_envs.core.declared.PolicySymmetries(maps, applies, feature_maps, "
        "doc)`: relabelings of the observation and the actions that leave a decision the same (Kakeya's "
        "suits renamed; `tests/kakeya/test_kakeya_symmetry.py` checks them against the engine)",
        "no views: an ensemble naming some is refused",
    ),
    Hook(
        "staged ensembles, stage specialists (`--stages`)",
        *STAGES_HOOK,
        "a mapping of names to `kabu_envs.core.declared.PolicyStages(names, of, doc)`: a split of the "
        "decisions into named stages, `of(observations (B, obs_size), rule_options) -> (B,)` stage "
        "indices, each row from that row alone (Kakeya's `endgame`: the last four tricks)",
        "no stages: an ensemble naming a split is refused",
    ),
    Hook(
        "`python -m kabu_envs.render_screenshots`",
        PLANS,
        "SCREENSHOTS",
        "a tuple of `kabu_envs.core.declared.Screenshot` (name, steps, seed, seat, rule options, agents, "
        "caption): the docs' pictures, written by `python -m kabu_envs.render_screenshots --out docs/img`",
        "no pictures",
    ),
)


def hooks_table(hooks: tuple[Hook, ...] = HOOKS) -> str:
    """The Markdown table of ``hooks`` (docs/adding_a_game.md's generated block ``hooks``)."""
    rows = ["| tool | hook in the game's package | protocol | without it |", "|---|---|---|---|"]
    rows += [f"| {h.tool} | {h.where} | {h.protocol} | {h.without} |" for h in hooks]
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> int:
    """``python -m kabu_envs.core.declared --write``: rewrite the hooks table of docs/adding_a_game.md
    (run from the repository's root); without ``--write``, print it."""
    import sys
    from pathlib import Path

    from kabu_envs.core.doc_blocks import replace_blocks

    args = sys.argv[1:] if argv is None else argv
    if args != ["--write"]:
        print(hooks_table())
        return 0
    page = Path("docs/adding_a_game.md")
    page.write_text(replace_blocks(page.read_text(), {"hooks": hooks_table()}, where=str(page)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
