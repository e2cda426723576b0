"""The house's one template: a game is one package, and nothing outside it imports it; and the
library's imports run one way, down the layers of ``LAYERS`` (run this file to print the graph).

Every registered game lives in ``kabu_envs/<game>/`` with its agents (``agents/``) and training presets
(``presets/``); the tools (``agents/``, ``eval/``, ``training/``, ``play/``, ``batch/``, ...) reach a
game only through the registry (``registry.get(id)``, ``registry.resolve("module:attr")``). The one
exception is the versioned PettingZoo modules (``kabu_envs/<game>_v<N>.py``), which are a game's public
names, as PettingZoo's ``classic/leduc_holdem_v4.py``.
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Iterable
from pathlib import Path

import pytest

import kabu_envs
from kabu_envs import registry

PACKAGE = Path(kabu_envs.__file__).resolve().parent
GAME_PACKAGES = sorted(p.parent.name for p in PACKAGE.glob("*/registration.py"))
REPO = PACKAGE.parent
MAPPED = {"kabu_envs.agents": "agents", "kabu_envs.eval": "eval", "kabu_envs.training": "training"}
VERSIONED = re.compile(r"^(?P<game>[a-z_]+)_v\d+\.py$")


def _library_files() -> list[Path]:
    """Every module of the installed package: kabu_envs/ and the folders pyproject maps into it
    (agents/, eval/, training/ are kabu_envs.agents, ...)."""
    files = sorted(PACKAGE.rglob("*.py"))
    for folder in MAPPED.values():
        files += sorted((REPO / folder).rglob("*.py"))
    return files


def _imported_modules(path: Path) -> list[tuple[int, str]]:
    """``(line, module)`` of every import in ``path``, including those inside functions."""
    out: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            out += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            out.append((node.lineno, node.module))
            if node.module == "kabu_envs":  # from kabu_envs import kakeya_v1, oicho_kabu
                out += [(node.lineno, f"kabu_envs.{a.name}") for a in node.names]
    return out


def _owner(path: Path) -> str | None:
    """The game package a file belongs to (its folder, or its versioned module), else None."""
    rel = path.resolve().relative_to(PACKAGE.resolve()) if path.resolve().is_relative_to(PACKAGE) else None
    if rel is None:
        return None
    if rel.parts[0] in GAME_PACKAGES:
        return rel.parts[0]
    m = VERSIONED.match(rel.name) if len(rel.parts) == 1 else None
    return m.group("game") if m else None


def offenders(files: list[Path]) -> list[str]:
    out = []
    for path in files:
        owner = _owner(path)
        for line, module in _imported_modules(path):
            parts = module.split(".")
            if len(parts) < 2 or parts[0] != "kabu_envs":
                continue
            versioned = re.match(r"^([a-z_]+)_v\d+$", parts[1])
            game = versioned.group(1) if versioned else parts[1]
            if game in GAME_PACKAGES and game != owner:
                out.append(f"{path}:{line}: imports {module}")
    return out


# --- one direction: the layers -----------------------------------------------------------------------
# A unit is a module or package of kabu_envs (a game's package is one unit, its agents/ subfolder
# another: ``<game>/agents``), or benchmarks/ (not installed). A unit imports only units of a LOWER layer,
# in-function imports included; a game's units only their own game's (the check above). The table:
#   core           the pieces every game shares (no gymnasium, no pettingzoo; the declared records)
#   base           the game registry and the AEC base every game's env builds on
#   batch          the batch engines' base, and the package module (kabu_envs/__init__.py)
#   game           a game's rules, env, kernel, batch engine, view, plans (kabu_envs/<game>/, <game>_vN.py)
#   agents         kabu_envs.agents: the agent protocol and what PLAYS a shipped model (policy files,
#                  ensembles over views and stages, in numpy)
#   game agents    a game's hand-written agents (kabu_envs/<game>/agents/): the agent protocol, their game
#   tools          the single-agent views (wrappers), play, the OpenSpiel adapter (its bots register as an
#                  agent family), the docs' pictures and environment cards
#   eval           duplicate evaluation, reports, the demo, best responses, replaying shipped exploiters
#   training       the lab: training, exploiters, ensembles, specialists, DAgger/BC, curves, cross-check
#   benchmarks     strength benches and timings (not installed)
LAYERS: tuple[tuple[str, frozenset[str]], ...] = (
    ("core", frozenset({"core"})),
    ("base", frozenset({"registry", "aec_base", "aec_wrappers"})),
    ("batch", frozenset({"batch", "__init__"})),
    ("game", frozenset(GAME_PACKAGES)),
    ("agents", frozenset({"agents"})),
    ("game agents", frozenset(f"{g}/agents" for g in GAME_PACKAGES)),
    ("tools", frozenset({"wrappers", "play", "openspiel", "render_screenshots", "env_card"})),
    ("eval", frozenset({"eval"})),
    ("training", frozenset({"training"})),
    ("benchmarks", frozenset({"benchmarks"})),
)
RANK = {unit: k for k, (_, units) in enumerate(LAYERS) for unit in units}


def unit_of_file(path: Path) -> str:
    """The unit a file of the repository belongs to (see ``LAYERS``)."""
    path = path.resolve()
    for folder in (*MAPPED.values(), "benchmarks"):
        if path.is_relative_to(REPO / folder):
            return folder
    parts = path.relative_to(PACKAGE).parts
    if len(parts) == 1:
        name = parts[0].removesuffix(".py")
        versioned = re.match(r"^([a-z_]+)_v\d+$", name)
        return versioned.group(1) if versioned else name
    if parts[0] in GAME_PACKAGES and parts[1] == "agents":
        return f"{parts[0]}/agents"
    return parts[0]


def unit_of_module(module: str) -> str | None:
    """The unit of an imported ``kabu_envs...`` module (None: not the library's); a name imported from
    the package module itself (``from kabu_envs import __version__``) is the package module's."""
    parts = module.split(".")
    if parts[0] != "kabu_envs":
        return None
    if len(parts) == 1:  # ``from kabu_envs import x`` (x is listed on its own) or ``import kabu_envs``
        return None
    versioned = re.match(r"^([a-z_]+)_v\d+$", parts[1])
    if versioned:
        return versioned.group(1)
    if parts[1] in GAME_PACKAGES:
        return f"{parts[1]}/agents" if parts[2:3] == ["agents"] else parts[1]
    known = f"kabu_envs.{parts[1]}" in MAPPED or (PACKAGE / parts[1]).is_dir()
    return parts[1] if known or (PACKAGE / f"{parts[1]}.py").is_file() else "__init__"


def import_edges(files: Iterable[tuple[str, Path]]) -> list[tuple[str, str, str]]:
    """``(unit, imported unit, "file:line")`` of every import of another unit, in-function ones too."""
    out = []
    for unit, path in files:
        for line, module in _imported_modules(path):
            other = unit_of_module(module)
            if other is not None and other != unit:
                out.append((unit, other, f"{path}:{line}: imports {module}"))
    return out


def upward_imports(files: Iterable[tuple[str, Path]]) -> list[str]:
    """The imports of a unit of the same or a higher layer (or of a unit the table does not place)."""
    return [
        f"{where} ({unit}: {LAYERS[RANK[unit]][0] if unit in RANK else 'unplaced'} -> {other}: "
        f"{LAYERS[RANK[other]][0] if other in RANK else 'unplaced'})"
        for unit, other, where in import_edges(files)
        if unit not in RANK or other not in RANK or RANK[other] >= RANK[unit]
    ]


def repository_units() -> list[tuple[str, Path]]:
    """Every module of the package and of benchmarks/ with its unit."""
    files = _library_files() + sorted((REPO / "benchmarks").rglob("*.py"))
    return [(unit_of_file(f), f) for f in files]


def import_graph() -> dict[str, set[str]]:
    """unit -> the units it imports (the package import graph)."""
    graph: dict[str, set[str]] = {unit: set() for unit, _ in repository_units()}
    for unit, other, _ in import_edges(repository_units()):
        graph[unit].add(other)
    return graph


def test_imports_run_down_the_layers():
    """Nothing imports a unit of its own or a higher layer: no game (outside its agents/) imports agents,
    eval, training, openspiel or play, no game's agents/ eval, training, openspiel or play, eval no
    training, agents no openspiel; and every unit is placed in the table."""
    units = {unit for unit, _ in repository_units()}
    assert units - {"models"} <= set(RANK), f"units the layer table does not place: {units - set(RANK)}"
    bad = upward_imports(repository_units())
    assert not bad, "imports against the layers (tests/test_layout.py LAYERS):\n" + "\n".join(bad)


def test_the_layer_check_finds_an_upward_import_even_inside_a_function(tmp_path: Path):
    planted = {
        "kakeya": "def f():\n    from kabu_envs.eval.plans import Evaluation\n",
        "kakeya/agents": "from kabu_envs.agents.base import BaseAgent\nimport kabu_envs.play.records\n",
        "eval": "def g():\n    import kabu_envs.training.config\n",
        "agents": "def h():\n    from kabu_envs.openspiel.bots import make_bot\n",
        "toy_card": "from kabu_envs import __version__\nfrom kabu_envs.core.declared import Evaluation\n",
        "play": "from kabu_envs import wrappers\n",  # the same layer: not below
    }
    files = []
    for k, (unit, code) in enumerate(planted.items()):
        path = tmp_path / f"m{k}.py"
        path.write_text(code)
        files.append((unit, path))
    found = upward_imports(files)
    assert [f.split(": imports ")[1].split(" ")[0] for f in found] == [
        "kabu_envs.eval.plans",
        "kabu_envs.play.records",
        "kabu_envs.training.config",
        "kabu_envs.openspiel.bots",
        "kabu_envs.wrappers",
    ]
    assert "(toy_card: game -> __init__: batch)" not in " ".join(found)  # the package module is below
    assert upward_imports([("nowhere", files[0][1])])  # an unplaced unit is refused


def format_graph(graph: dict[str, set[str]]) -> str:
    """The graph as text, by layer: ``unit -> imported units``."""
    order = sorted(graph, key=lambda u: (RANK.get(u, len(LAYERS)), u))
    return "\n".join(
        f"{u:18} -> {', '.join(sorted(graph[u], key=lambda v: (RANK.get(v, 99), v)))}" for u in order
    )


# What each layer holds, in words: the README's layout block is printed from this and ``LAYERS``
# (``python tests/test_layout.py --write``), so the page cannot drift from the enforced layering.
LAYER_TEXT = {
    "core": (
        "shared by every game: errors, option records, seeded decks, observation specs, seat views, "
        "the numba kernels' base (kernel.py), the drawing kit (picture.py, pillow), the docs' "
        "generated blocks, and the records a game declares (declared.py: plans, pictures, policy "
        "features, symmetries, stages)"
    ),
    "base": (
        "the game registry (one GameSpec per game, read by every tool), the PettingZoo AEC base and "
        "its wrappers"
    ),
    "batch": (
        "the batch-engine contract (B games per call), its exact reference loop and the kernel-backed"
        " engine; the package module"
    ),
    "game": (
        "one package per game: config and rule presets, rules, game state machine, observation, env, "
        "the numba rules kernel (kernel/), batch engine, renderers, the seat view, the records it "
        "declares (plans.py, features.py, symmetry.py, stages.py) and its training presets "
        "(presets/); the versioned PettingZoo modules"
    ),
    "agents": (
        "kabu_envs.agents: the Agent protocol, random, batching, agent names (agent families register"
        " through entry points), and what plays a shipped model in numpy: policy files, ensembles "
        "over views and stages"
    ),
    "game agents": (
        "each game's hand-written agents (scripted, expert, Kakeya's search, Oicho-Kabu's best response)"
    ),
    "tools": (
        "single-agent Gymnasium views for SB3 (wrappers/), kabu-play and kabu-replay (play/), every "
        "game as an OpenSpiel game with OpenSpiel's bots as the agent family openspiel: (openspiel/),"
        " the docs' pictures (render_screenshots.py) and environment cards (env_card.py)"
    ),
    "eval": (
        "kabu_envs.eval: duplicate-deal tournaments, CIs, ratings, plots, best-response gaps, the "
        "shipped exploiters replayed, the demo (kabu-eval)"
    ),
    "training": (
        "kabu_envs.training, the lab: MaskablePPO with self-play (kabu-train <preset>), the "
        "exploitability yardstick (kabu-train exploit), DAgger and behaviour cloning, ensembles and "
        "stage specialists, curves, the OpenSpiel cross-check, RLlib"
    ),
    "benchmarks": ("speed beside PettingZoo's and Pgx's envs, strength benches (not installed)"),
}


def unit_paths(unit: str) -> list[str]:
    """Where a unit lives in the repository."""
    if unit in (*MAPPED.values(), "benchmarks"):
        return [f"{unit}/"]
    if unit == "__init__":
        return ["kabu_envs/__init__.py"]
    if unit in GAME_PACKAGES:
        return [f"kabu_envs/{unit}/"]
    return [f"kabu_envs/{unit}/" if (PACKAGE / unit).is_dir() else f"kabu_envs/{unit}.py"]


def layout_block() -> str:
    """The README's layout block: each layer (lowest first) with its folders and what it holds."""
    import textwrap

    lines = [
        "```text",
        "Lowest layer first: each imports only the layers above it (tests/test_layout.py checks it).",
    ]
    for name, units in LAYERS:
        paths = [p for u in sorted(units, key=lambda u: (u.count("/"), u)) for p in unit_paths(u)]
        if name == "game":
            paths.append("kabu_envs/<game>_vN.py")
        lines += textwrap.wrap(", ".join(paths), 106, initial_indent=f"{name:13}", subsequent_indent=" " * 13)
        lines += textwrap.wrap(LAYER_TEXT[name], 106, initial_indent=" " * 13, subsequent_indent=" " * 13)
    lines += [
        "data         kabu_envs/models/: the shipped models (policy files + run records; package data; an "
        "ensemble",
        "             names the models it plays by checksum)",
        "```",
    ]
    return "\n".join(lines)


def test_the_readme_layout_block_is_the_layer_table():
    from kabu_envs.core.doc_blocks import read_blocks

    text = (REPO / "README.md").read_text()
    assert read_blocks(text, ["layout"])["layout"] == layout_block(), (
        "run: python tests/test_layout.py --write"
    )


def test_every_builtin_game_has_the_template_layout():
    assert set(GAME_PACKAGES) >= {"oicho_kabu", "kakeya", "toy_card"}
    for game in GAME_PACKAGES:
        root = PACKAGE / game
        assert (root / "agents" / "__init__.py").is_file(), game
        assert list((root / "presets").glob("*.yaml")), game
        spec = registry.get(game)
        for ref in spec.agents.values():
            assert isinstance(ref, str) and ref.startswith(f"kabu_envs.{game}.agents."), (game, ref)


def test_no_module_outside_a_game_package_imports_it():
    bad = offenders(_library_files())
    assert not bad, "game modules imported outside their package:\n" + "\n".join(bad)


def test_the_import_check_finds_a_game_import(tmp_path: Path):
    tool = tmp_path / "tool.py"
    tool.write_text("def f():\n    from kabu_envs.kakeya.game import Game\n    import kabu_envs.toy_card\n")
    found = offenders([tool])
    assert len(found) == 2 and "kabu_envs.kakeya.game" in found[0]
    tool.write_text("from kabu_envs import kakeya_v1, registry\n")
    assert offenders([tool]) == [f"{tool}:1: imports kabu_envs.kakeya_v1"]


@pytest.mark.parametrize("game", ["kakeya", "oicho_kabu"])
def test_agent_files_saved_before_the_move_still_load(tmp_path: Path, game: str):
    from kabu_envs.agents.base import BaseAgent

    old = {
        "kakeya": "kabu_envs.agents.kakeya_scripted.KakeyaScriptedAgent",
        "oicho_kabu": "kabu_envs.agents.oicho_scripted.OichoScriptedAgent",
    }[game]
    path = tmp_path / "agent.json"
    path.write_text(json.dumps({"class": old, "params": {}}))
    agent = BaseAgent.load(path, seed=0)
    assert type(agent).__module__ == f"kabu_envs.{game}.agents.scripted"


if __name__ == "__main__":  # python tests/test_layout.py [--write]: the import graph [README's layout]
    import sys

    from kabu_envs.core.doc_blocks import replace_blocks

    if sys.argv[1:] == ["--write"]:
        readme = REPO / "README.md"
        readme.write_text(replace_blocks(readme.read_text(), {"layout": layout_block()}, where=str(readme)))
    else:
        print(format_graph(import_graph()))
