"""``kabu-eval bench``: the benchmark protocol's report card for any agent, and the leaderboard page."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from kabu_envs.eval import bench
from kabu_envs.eval.plans import bench_plan

FIRST_LEGAL = '''
import numpy as np


class FirstLegal:
    """Only act: the first legal action."""

    def act(self, observation, action_mask):
        return int(np.flatnonzero(action_mask)[0])


class Seeded:
    def __init__(self, seed=None):
        self.rng = np.random.default_rng(seed)

    def act(self, observation, action_mask):
        legal = np.flatnonzero(action_mask)
        return int(legal[self.rng.integers(legal.size)])
'''


@pytest.fixture()
def user_file(tmp_path: Path) -> Path:
    path = tmp_path / "my_agent.py"
    path.write_text(FIRST_LEGAL)
    return path


def test_a_class_with_only_act_gets_a_card_from_the_command_line(user_file: Path, tmp_path: Path):
    """The issue's own command: a file with an act-only class, 50 deals, a JSON card with >= 3 rows."""
    card_path = tmp_path / "card.json"
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    args = [
        "--game",
        "kakeya",
        "--agent",
        f"{user_file}:FirstLegal",
        "--deals",
        "50",
        "--json",
        str(card_path),
    ]
    out = subprocess.run(
        [sys.executable, "-m", "kabu_envs.eval", "bench", *args], capture_output=True, text=True, env=env
    )
    assert out.returncode == 0, out.stderr
    card = json.loads(card_path.read_text())
    plan = bench_plan("kakeya")
    assert plan is not None and card["game"] == "kakeya"
    assert card["bench"] == f"kabu-eval bench {plan.version}"
    rows = card["rows"]
    assert len(rows) >= 3 and {r["opponent"] for r in rows} >= {"random", "scripted", "expert"}
    for r in rows:
        assert r["deals"] == 50 and r["ci95"][0] <= r["mean"] <= r["ci95"][1]
        assert r["ms_per_decision"] is not None and r["ms_per_decision"] >= 0
    # first-legal play loses to the hand-written players: the card is about the agent, not a constant
    assert next(r for r in rows if r["opponent"] == "scripted")["mean"] < 0
    assert "vs scripted" in out.stdout


def test_oicho_kabu_benches_every_role_with_a_seeded_user_class(user_file: Path):
    card = bench.run_bench("oicho_kabu", f"{user_file}:Seeded", deals=40)
    roles = {(r["role"], r["opponent"]) for r in card["rows"]}
    assert roles == {
        (role, o)
        for role, field in bench_plan("oicho_kabu").field.items()
        for o in field  # type: ignore[union-attr]
    }
    assert all(r["deals"] == 40 for r in card["rows"])


def test_the_rows_are_the_protocols_deals_whoever_is_benched():
    """Row k of every card plays the same deals (its seed is keyed by the row, not by the agent), so a
    scripted player's row against random is the same match as kabu-eval's with that seed."""
    from kabu_envs.eval.games import matchup

    card = bench.run_bench("toy_card", "scripted", deals=60)
    plan = bench_plan("toy_card")
    assert plan is not None
    row = next(r for r in card["rows"] if r["opponent"] == "random")
    assert row["seed"] == bench.bench_seed(plan, "toy_card", "seat", "random")
    from kabu_envs.agents.registry import make_agent

    again = matchup(
        "toy_card",
        make_agent("toy_card", "scripted", 0),
        make_agent("toy_card", "random", 1),
        "seat",
        60,
        row["seed"],
    )
    assert np.isclose(again.summary().mean, row["mean"])
    other = bench.run_bench("toy_card", "random", deals=60)
    assert next(r for r in other["rows"] if r["opponent"] == "scripted")["seed"] == bench.bench_seed(
        plan, "toy_card", "seat", "scripted"
    )
    assert bench.bench_seed(plan, "toy_card", "seat", "random") != bench.bench_seed(
        plan, "toy_card", "seat", "scripted"
    )


def test_a_model_is_benched_in_its_own_role_only():
    card = bench.run_bench("oicho_kabu", "ppo_oicho_dealer", deals=30)
    assert {r["role"] for r in card["rows"]} == {"dealer"}
    assert "ppo_oicho_dealer" not in {r["opponent"] for r in card["rows"]}  # not against itself


def test_bad_input_is_refused_with_what_was_wrong(user_file: Path, capsys: pytest.CaptureFixture[str]):
    assert bench.main(["--game", "kakeya", "--agent", f"{user_file}:Missing", "--deals", "5"]) == 2
    err = capsys.readouterr().err
    assert "no class 'Missing'" in err and "FirstLegal" in err
    assert bench.main(["--game", "kakeya", "--agent", "nobody_knows", "--deals", "5"]) == 2
    assert "unknown agent" in capsys.readouterr().err
    with pytest.raises(ValueError, match="trained for the rules"):
        bench.run_bench("oicho_kabu", "ppo_oicho_bettor_kansai", deals=5)


def test_exploit_needs_torch_and_says_how_to_install(monkeypatch: pytest.MonkeyPatch):
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "torch" else real(name, *a)
    )
    with pytest.raises(SystemExit):
        bench.main(["--game", "toy_card", "--agent", "random", "--exploit"])


def test_the_exploit_row_is_the_agents_loss_to_a_learned_best_response(tmp_path: Path):
    pytest.importorskip("torch")
    rows = bench.exploit_row("toy_card", "random", tmp_path, ["--timesteps", "512", "--deals", "40"])
    found = json.loads((tmp_path / "exploit.json").read_text())["rows"][0]
    assert rows[0]["mean"] == -found["advantage"] and rows[0]["deals"] == 40


def test_the_leaderboard_page_is_the_shipped_cards():
    cards = bench.read_cards()
    assert cards, "no shipped cards under reports/bench/"
    assert bench.check_leaderboard(), "run: python -m kabu_envs.eval.bench leaderboard --write"
    games = {c["game"] for c in cards}
    assert {"kakeya", "oicho_kabu"} <= games


def test_the_leaderboard_ranks_by_the_mean_and_bolds_what_is_above_zero():
    def card(name: str, means: list[float]) -> dict[str, object]:
        rows = [
            {
                "role": "seat",
                "opponent": o,
                "deals": 10,
                "mean": m,
                "ci95": [m - 0.1, m + 0.1],
                "ms_per_decision": 0.5,
            }
            for o, m in zip(("random", "scripted"), means, strict=True)
        ]
        return {"bench": "kabu-eval bench v1", "game": "toy_card", "name": name, "rows": rows}

    page = bench.leaderboard([card("weak", [-0.5, -0.9]), card("strong", [0.4, 0.05])])
    table = page[page.index("| agent |") :]
    assert table.index("`strong`") < table.index("`weak`")
    assert "**+0.400 [+0.300, +0.500] (10)**" in page and "**+0.050" not in page


def test_the_benchmark_page_states_the_protocol_the_code_plays():
    from kabu_envs.core.doc_blocks import read_blocks

    text = bench.BENCH_PAGE.read_text()
    assert read_blocks(text, ["bench_protocol"])["bench_protocol"] == bench.protocol_table()
    for game in ("kakeya", "oicho_kabu"):
        plan = bench_plan(game)
        assert plan is not None
        for role, field in plan.field.items():
            assert all(str(bench.bench_seed(plan, game, role, o)) in text for o in field)
