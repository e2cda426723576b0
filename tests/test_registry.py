"""The game registry: every game through one door, and no tool asks which game it is."""

from __future__ import annotations

import ast
import contextlib
import dataclasses
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import gymnasium
import numpy as np
import pytest

import kabu_envs
from kabu_envs import registry
from kabu_envs.agents.registry import make_agent
from kabu_envs.eval.__main__ import main as eval_main
from kabu_envs.eval.games import matchup
from kabu_envs.eval.plans import evaluation

ROOT = Path(__file__).resolve().parent.parent


def test_builtin_games_are_registered_with_complete_records():
    assert {"oicho_kabu", "kakeya", "toy_card"} <= set(registry.game_ids())
    for spec in registry.games():
        env = spec.make_env()
        env.reset(seed=0)
        assert env.agents, spec.id
        raw = spec.make_raw_env()
        raw.reset(seed=1)
        for role in spec.roles:
            groups = role.groups(raw)
            assert groups and all(0 <= s < len(raw.possible_agents) for g in groups for s in g)
        for name in spec.agent_names:
            agent = make_agent(spec.id, name, 0)
            assert hasattr(agent, "act") and hasattr(agent, "reset")
        assert spec.config() is not None
        assert set(evaluation(spec.id).opponents) <= set(spec.agent_names)
        assert spec.reference in spec.agent_names and spec.doc and spec.package == f"kabu_envs.{spec.id}"


def test_unknown_game_and_role_are_named():
    with pytest.raises(ValueError, match="unknown game 'chess'.*registered games"):
        registry.get("chess")
    with pytest.raises(ValueError, match="no role 'banker'.*bettor"):
        registry.get("oicho_kabu").role("banker")


def test_register_refuses_duplicates_and_bad_records():
    spec = registry.get("toy_card")
    with pytest.raises(ValueError, match="already registered"):
        registry.register(dataclasses.replace(spec, title="Other"))
    with pytest.raises(ValueError, match="duplicate must be one of"):
        registry.Role("x", registry.seats_each_seat, "pairs")
    with pytest.raises(ValueError, match="provided for every game"):
        dataclasses.replace(spec, id="toy_bad", agents={"random": "x:y"})
    with pytest.raises(TypeError):
        registry.register({"id": "toy"})  # type: ignore[arg-type]


def test_gym_and_pettingzoo_ids_come_from_the_records():
    from pettingzoo.env_registry.registration import aec_registry

    import kabu_envs.wrappers  # noqa: F401  (registers the Gymnasium ids)

    for gym_id, game, _ in registry.iter_gym_ids():
        assert gym_id in gymnasium.registry, (gym_id, game)
    for spec in registry.games():
        assert spec.pettingzoo_id in aec_registry


def test_players_are_the_counts_the_config_accepts():
    """The record's player counts are exactly those ``num_players`` accepts (1..12 tried)."""
    for spec in registry.games():
        accepted = []
        for n in range(1, 13):
            try:
                spec.config(num_players=n)
            except ValueError:
                continue
            accepted.append(n)
        assert tuple(accepted) == spec.players, spec.id
    with pytest.raises(ValueError, match="players must list"):
        dataclasses.replace(registry.get("toy_card"), id="toy_bad", players=())
    with pytest.raises(ValueError, match="not a dotted module name"):
        dataclasses.replace(registry.get("toy_card"), id="toy_bad", package="kabu_envs/toy_card")


def test_a_bad_seat_table_is_refused_naming_the_role():
    spec = registry.get("toy_card")
    raw = spec.make_raw_env()
    raw.reset(seed=0)
    flat = registry.Role("flat", lambda engine, rows: np.zeros((len(rows), 2), dtype=np.int64), "team")
    with pytest.raises(ValueError, match="role 'flat'.*shape \\(1, 2\\).*expected integers"):
        flat.groups(raw)
    floats = registry.Role("floats", lambda engine, rows: np.zeros((len(rows), 1, 1)), "team")
    with pytest.raises(ValueError, match="role 'floats': seats\\(\\) gave a float64 array"):
        floats.groups(raw)


def test_seat_tables_read_back_as_groups():
    games = [[[1], [2], [3]], [[0, 2], [1]], []]
    table = registry.groups_table(games)
    assert table.shape == (3, 3, 2) and table.dtype == np.int64
    assert registry.table_groups(table) == games
    assert table[1].tolist() == [[0, 2], [1, -1], [-1, -1]]


def test_hooks_are_the_games_own_modules_and_absent_ones_are_none():
    spec = registry.get("toy_card")
    assert spec.hook("view", "VIEWER") is not None
    assert spec.hook("view", "NO_SUCH_ATTRIBUTE") is None
    assert spec.hook("no_such_module", "X") is None
    assert spec.hook("plans", "DEMO") is None  # Toy Card is not in the demo
    assert spec.folder("presets") is not None and spec.folder("no_such_folder") is None


def test_a_game_with_no_tool_hooks_gets_the_generic_tools(tmp_path, monkeypatch):
    """A record whose package holds none of the tools' modules: the reference batch loop, the generic
    viewer, the default quick evaluation, no presets, no demo, no pictures, no best response."""
    from kabu_envs import batch
    from kabu_envs.core.views import GenericViewer
    from kabu_envs.eval.best_response import refusal
    from kabu_envs.eval.plans import Evaluation, demo_games
    from kabu_envs.play.session import viewer_for
    from kabu_envs.render_screenshots import screenshots
    from kabu_envs.training.config import preset_dirs

    (tmp_path / "bare_game").mkdir()
    (tmp_path / "bare_game" / "__init__.py").write_text("")
    monkeypatch.syspath_prepend(str(tmp_path))
    spec = dataclasses.replace(
        registry.get("toy_card"), id="toy_bare_hooks", package="bare_game", gym_ids={}, pettingzoo_id=None
    )
    registry.register(spec)
    try:
        assert isinstance(batch.make("toy_bare_hooks", 2), batch.LoopBatchEnv)
        assert isinstance(viewer_for("toy_bare_hooks"), GenericViewer)
        assert evaluation("toy_bare_hooks") == Evaluation()
        assert spec.folder("presets") is None and len(preset_dirs()) == len(registry.games()) - 1
        assert "toy_bare_hooks" not in [g.id for g, _ in demo_games()]
        assert screenshots(spec) == ()
        with pytest.raises(ValueError, match="has no best response"):
            refusal("toy_bare_hooks", "seat", {})
    finally:
        registry.unregister("toy_bare_hooks")


def test_a_hook_of_the_wrong_type_is_refused(tmp_path, monkeypatch):
    from kabu_envs.eval.plans import demo_plan

    (tmp_path / "odd_game").mkdir()
    (tmp_path / "odd_game" / "__init__.py").write_text("")
    (tmp_path / "odd_game" / "plans.py").write_text("EVALUATION = {'deals': 5}\nDEMO = 3\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    spec = dataclasses.replace(
        registry.get("toy_card"), id="toy_odd", package="odd_game", gym_ids={}, pettingzoo_id=None
    )
    registry.register(spec)
    try:
        with pytest.raises(TypeError, match="plans.EVALUATION must be an Evaluation"):
            evaluation("toy_odd")
        with pytest.raises(TypeError, match="plans.DEMO must be a DemoPlan"):
            demo_plan("toy_odd")
    finally:
        registry.unregister("toy_odd")


def _fresh(code: str) -> str:
    """Run ``code`` in a fresh interpreter (this checkout first on the path); its stdout."""
    env = {"PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": "1", "PATH": "/usr/bin:/bin"}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_the_registry_is_cheap():
    """``import kabu_envs`` and ``registry.get``/``games()`` import no gymnasium, no pettingzoo, no
    tool (eval, training, play, wrappers, batch, the agents' registry)."""
    out = _fresh(
        "import sys, kabu_envs\n"
        "kabu_envs.registry.get('kakeya')\n"
        "print(' '.join(g.id for g in kabu_envs.registry.games()))\n"
        "tools = ('gymnasium', 'pettingzoo', 'torch', 'kabu_envs.eval', 'kabu_envs.training',\n"
        "         'kabu_envs.play', 'kabu_envs.wrappers', 'kabu_envs.batch', 'kabu_envs.agents')\n"
        "print(' '.join(sorted(m for m in sys.modules if m.startswith(tools))))\n"
    )
    ids, loaded = out.splitlines()
    assert ids.split() == ["kakeya", "oicho_kabu", "toy_card"]
    assert loaded == ""


def test_pettingzoo_learns_the_ids_when_its_side_is_used():
    """Importing a versioned module registers the AEC id; so does loading the registry after pettingzoo."""
    out = _fresh(
        "import kabu_envs.kakeya_v2\n"
        "from pettingzoo.env_registry.registration import make\n"
        "print(make('aec', 'kabu_envs/Kakeya-v2', num_players=6).unwrapped.config.num_players)\n"
    )
    assert out.split() == ["6"]
    out = _fresh(
        "import pettingzoo\n"
        "from kabu_envs import registry\n"
        "registry.games()\n"
        "from pettingzoo.env_registry.registration import aec_registry\n"
        "print(sorted(i for i in aec_registry if i.startswith('kabu_envs/')))\n"
    )
    assert out.strip() == "['kabu_envs/Kakeya-v2', 'kabu_envs/OichoKabu-v2', 'kabu_envs/toy_card-v0']"


def test_toy_card_runs_through_eval_cli(tmp_path, capsys):
    out = tmp_path / "toy.json"
    argv = ["--game", "toy_card", "--agents", "random", "--opponents", "random", "--deals", "20"]
    assert eval_main([*argv, "--json", str(out)]) == 0
    [row] = json.loads(out.read_text())["matchups"]  # random vs random: a control matchup
    assert row["games"] == 20 and row["ci95"][0] <= 0 <= row["ci95"][1]
    assert (
        eval_main(["--game", "toy_card", "--agents", "scripted", "--opponents", "random", "--deals", "20"])
        == 0
    )
    assert "toy_card" in capsys.readouterr().out


def test_toy_card_trains_through_its_own_preset(tmp_path):
    from kabu_envs.training.config import load_config, presets
    from kabu_envs.training.run import train

    assert "ppo_toy_card" in presets()  # shipped in the game's own package
    cfg = load_config("ppo_toy_card", timesteps=512, eval_deals=30)
    record = train(cfg, out=tmp_path / "ppo_toy_card", progress_bar=False)
    assert record["config"]["game"] == "toy_card" and record["timesteps"] >= 512
    assert set(record["eval"]) == set(evaluation("toy_card").opponents) == {"random", "scripted"}


def test_a_game_registered_at_run_time_is_served_by_every_tool():
    """A new id through register() alone: views, agents, duplicate evaluation all work unchanged."""
    from kabu_envs.wrappers.views import make_view

    base = registry.get("toy_card")
    spec = dataclasses.replace(
        base, id="toy_card_copy", title="Toy Card (copy)", gym_ids={}, pettingzoo_id=None
    )
    registry.register(spec)
    try:
        res = matchup(
            "toy_card_copy",
            make_agent("toy_card_copy", "scripted", 0),
            make_agent("toy_card_copy", "random", 1),
            deals=200,
        )
        assert res.summary().lo > 0
        view = make_view("toy_card_copy", opponents="random", num_players=3)
        obs, _ = view.reset(seed=0)
        assert obs.shape == view.observation_space.shape and view.action_masks().any()
    finally:
        registry.unregister("toy_card_copy")


def test_seat_duplicate_rotates_over_the_role_groups():
    """Oicho-Kabu's bettor role: deal d is judged on bettor seat d % (number of bettors)."""
    from kabu_envs.eval.games import rotating_seat

    spec = registry.get("oicho_kabu")
    env = spec.make_raw_env(num_players=4)
    env.reset(seed=0)
    seat = rotating_seat(spec.role("bettor"))
    seats = [seat(env, d) for d in range(6)]
    dealer = env.unwrapped.game.dealer
    assert dealer not in seats and len(set(seats)) == 3 and seats[:3] == seats[3:]


# --- the rule of the house: no tool asks which game it is -------------------------------------------------
GAME_NAME_BRANCH = re.compile(
    r"""(==|!=|\bin\b|\bis\b)\s*[\(\[{]?\s*["'](oicho_kabu|kakeya|toy_card)["']"""
    r"""|["'](oicho_kabu|kakeya|toy_card)["']\s*(==|!=|\bin\b)"""
)
GENERIC = ["agents", "eval", "training", "kabu_envs/wrappers", "kabu_envs/core", "kabu_envs/play"]


def _generic_files() -> list[Path]:
    files = [p for d in GENERIC for p in (ROOT / d).rglob("*.py")]
    return files + list((ROOT / "kabu_envs").glob("*.py"))


def test_no_game_name_branches_outside_the_games_packages():
    offenders = []
    for path in _generic_files():
        for i, line in enumerate(path.read_text().splitlines(), 1):
            if GAME_NAME_BRANCH.search(line):
                offenders.append(f"{path.relative_to(ROOT)}:{i}: {line.strip()}")
    assert not offenders, "game-name branches:\n" + "\n".join(offenders)


def test_the_branch_detector_detects_branches():
    for line in [
        'if game == "kakeya":',
        "x = 1 if cfg['game'] != 'oicho_kabu' else 2",
        'if g in ("kakeya", "x"):',
    ]:
        assert GAME_NAME_BRANCH.search(line), line
    assert not GAME_NAME_BRANCH.search('spec = registry.get("kakeya")')


def test_rule_options_reach_the_named_agents():
    agent = make_agent("oicho_kabu", "expert", 0, rules="kansai")
    assert agent.cfg.free_draw
    obs = np.zeros(3, dtype=np.float32)
    assert make_agent("toy_card", "scripted", 0).act(obs, np.array([1, 1, 1], dtype=np.int8)) == 2


def test_v0_modules_say_what_changed():
    """v1 of both envs: Kakeya's v0 stays reproducible (its old rule); Oicho-Kabu's v0 says why not."""
    import importlib
    import sys

    sys.modules.pop("kabu_envs.kakeya_v0", None)
    with pytest.warns(DeprecationWarning, match="kakeya_v2"):
        kakeya_v0 = importlib.import_module("kabu_envs.kakeya_v0")
    assert kakeya_v0.raw_env().config.rensho_follow == "must_follow"
    assert kakeya_v0.env(rensho_follow="free").unwrapped.config.rensho_follow == "free"
    assert registry.get("kakeya").make_raw_env().config.rensho_follow == "free"
    with pytest.raises(ImportError, match="replaced by kabu_envs.oicho_kabu_v1"):
        importlib.import_module("kabu_envs.oicho_kabu_v0")


# --- the tools' hooks: docs/adding_a_game.md's table is kabu_envs.core.declared.HOOKS -------------------
def _library_sources() -> list[Path]:
    root = Path(kabu_envs.__file__).resolve().parent
    return sorted(root.rglob("*.py")) + [
        p for d in ("agents", "eval", "training") for p in (root.parent / d).rglob("*.py")
    ]


def hooks_read(files: list[Path]) -> set[tuple[str, str]]:
    """``(module, attribute)`` of every hook the code reads from a game's package: ``GameSpec.hook``
    and ``folder`` calls (``attribute`` "" for a folder), whether written out or through a module-level
    constant (``ENGINE_HOOK``, ``PLANS``, ...), every ``*_HOOK`` constant, and the plans read through
    ``eval/plans.py``'s ``_typed_plan``."""
    trees = [ast.parse(p.read_text(), str(p)) for p in files]
    consts: dict[str, Any] = {}
    for tree in trees:
        for node in tree.body:
            if (
                isinstance(node, ast.Assign)
                and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name)
            ):
                with contextlib.suppress(ValueError):
                    consts[node.targets[0].id] = ast.literal_eval(node.value)

    def value(node: ast.expr) -> Any:
        if isinstance(node, ast.Constant):
            return node.value
        return consts.get(node.id) if isinstance(node, ast.Name) else None

    found: set[tuple[str, str]] = set()
    for name, v in consts.items():
        if name.endswith("_HOOK") and isinstance(v, tuple):
            found.add(v)
    for tree in trees:
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            func = node.func
            attr = (
                func.attr
                if isinstance(func, ast.Attribute)
                else func.id
                if isinstance(func, ast.Name)
                else ""
            )
            if attr in ("hook", "folder") and node.args:
                if isinstance(node.args[0], ast.Starred):
                    pair = value(node.args[0].value)
                    if isinstance(pair, tuple):
                        found.add(pair)
                    continue
                module = value(node.args[0])
                what = "" if attr == "folder" else value(node.args[1]) if len(node.args) > 1 else None
                if isinstance(module, str) and isinstance(what, str):
                    found.add((module, what))
            elif attr == "_typed_plan" and len(node.args) > 1 and isinstance(value(node.args[1]), str):
                found.add(("plans", value(node.args[1])))
    return found


def test_the_hooks_table_is_every_hook_the_tools_read():
    """Each hook a tool reads is a row of ``HOOKS`` and each row is read: the docs' table cannot lack a
    hook (as it once lacked symmetry and stages) nor keep a stale one."""
    from kabu_envs.core.declared import HOOKS

    assert hooks_read(_library_sources()) == {(h.module, h.attribute) for h in HOOKS}


def test_the_hook_check_finds_an_unlisted_hook(tmp_path: Path):
    tool = tmp_path / "tool.py"
    tool.write_text(
        'X_HOOK = ("x", "X")\nP = "p"\n\ndef f(spec):\n    return spec.hook(P, "Q"), spec.folder("data")\n'
    )
    assert hooks_read([tool]) == {("x", "X"), ("p", "Q"), ("data", "")}


def test_the_docs_hooks_table_is_generated():
    from kabu_envs.core.declared import hooks_table
    from kabu_envs.core.doc_blocks import read_blocks

    page = Path(kabu_envs.__file__).resolve().parent.parent / "docs" / "adding_a_game.md"
    assert read_blocks(page.read_text(), ["hooks"])["hooks"] == hooks_table(), (
        "docs/adding_a_game.md: run python -m kabu_envs.core.declared --write"
    )
