"""The demo pipeline end to end in quick mode, and the eval CLI."""

import json
import os

import pytest

from kabu_envs.agents.registry import models_dir
from kabu_envs.eval import demo
from kabu_envs.eval.__main__ import main as eval_main
from kabu_envs.eval.plans import demo_games, demo_plan
from kabu_envs.training.config import load_run_config
from kabu_envs.training.specialist import is_specialist_record, load_specialist_config


def _check_schema(summary, deals):
    assert set(summary) == {"oicho_kabu", "kakeya"}
    for game, block in summary.items():
        assert block["matchups"], game
        for m in block["matchups"]:
            assert {"agent", "opponent", "role", "games", "mean", "ci95"} <= set(m)
            assert isinstance(m["agent"], str) and isinstance(m["opponent"], str)
            assert m["games"] == deals
            lo, hi = m["ci95"]
            assert lo <= m["mean"] <= hi
            assert m["role"] in (("bettor", "dealer") if game == "oicho_kabu" else ("partnership",))
        opponents = {m["opponent"] for m in block["matchups"]}
        assert "random" in opponents
    # gaps to a best response: Oicho-Kabu's plan asks for them, per role, for its agents and models
    rows = summary["oicho_kabu"]["best_response"]
    assert {(r["agent"], r["role"]) for r in rows} >= {
        (a, role) for a in ("random", "scripted", "expert") for role in ("bettor", "dealer")
    }
    for r in rows:
        assert {"agent", "role", "rules", "gap", "ci95", "deals"} <= set(r)
        assert r["ci95"][0] <= r["gap"] <= r["ci95"][1]
    # and each richer rule setting a shipped bettor was trained for: its model with the same agents
    richer = {
        m["rules"]: m["name"]
        for m in demo.shipped(models_dir())
        if m["rules"] != "standard" and m["game"] == "oicho_kabu"
    }
    assert set(richer) == {"kansai", "kabufuda_site"}
    assert {r["rules"] for r in rows} == {"standard", *richer}
    for rules, model in richer.items():
        assert [r["agent"] for r in rows if r["rules"] == rules] == ["random", "scripted", "expert", model]
        assert {r["role"] for r in rows if r["rules"] == rules} == {"bettor"}
    cpu = summary["oicho_kabu"]["best_response_cpu_ms_per_deal"]
    assert set(cpu) == {"bettor", "dealer"} | {f"bettor, {rules}" for rules in richer}
    assert "best_response" not in summary["kakeya"]


def test_demo_quick_writes_schema_valid_summary_and_plots(tmp_path, capsys, monkeypatch, tiny_exploit_table):
    monkeypatch.delenv("KABU_MODELS_DIR", raising=False)
    exploiters = tmp_path / "exploit"
    shipped = tiny_exploit_table(exploiters)
    args = ["--full", "--quick", "--deals", "4", "--best-response-deals", "6", "--out", str(tmp_path)]
    args += ["--workers", "1"]
    assert demo.main([*args, "--exploiters", str(exploiters)]) == 0
    # the jobs ran in this process (--workers 1): none may leave its models folder in the environment
    assert "KABU_MODELS_DIR" not in os.environ
    summary = json.loads((tmp_path / "summary.json").read_text())
    _check_schema(summary, 4)
    assert {r["deals"] for r in summary["oicho_kabu"]["best_response"]} == {6}
    # the shipped exploiter met its frozen agent again (quick: 20 held-out deals)
    (ex,) = summary["oicho_kabu"]["exploit"]
    assert (ex["agent"], ex["role"], ex["deals"]) == (shipped["agent"], shipped["role"], 20)
    assert "exploit" not in summary["kakeya"]
    for model in demo.shipped(models_dir()):  # every shipped model vs random, scripted (and expert)
        extra = set(
            demo_plan(model["game"]).reference_rows
        )  # (a model's own reference rows, e.g. ens5_kakeya's)
        rows = [
            m
            for m in summary[model["game"]]["matchups"]
            if m["agent"] == model["name"] and (m["agent"], m["opponent"]) not in extra
        ]
        assert {m["opponent"] for m in rows} == set(demo_plan(model["game"]).opponents)
        assert {"random", "scripted"} <= {m["opponent"] for m in rows}
        assert {m["role"] for m in rows} == {model["role"]}
        assert {m["rules"] for m in rows} == {model["rules"]}  # each model plays at its own table
    # the six-player (all play) table of the shipped six-player model gets the reference rows too
    six = {
        (m["agent"], m["opponent"])
        for m in summary["kakeya"]["matchups"]
        if m["rules"] == '{"num_players":6}'
    }
    assert {("ei6p_kakeya", "scripted"), ("expert", "scripted"), ("expert", "expert_0_2")} <= six
    for game, block in summary.items():  # in plan order, though the slow matchups ran first
        planned = [(j.agent, j.opponent, j.role) for j in demo.plan(models_dir()) if j.game == game]
        assert [(m["agent"], m["opponent"], m["role"]) for m in block["matchups"]] == planned
    assert (tmp_path / "heatmap_oicho_kabu.png").stat().st_size > 1000
    assert (tmp_path / "heatmap_kakeya.png").stat().st_size > 1000
    out = capsys.readouterr().out
    assert "Oicho-Kabu round" in out and "Kakeya deal" in out and "95% CI" in out


def test_the_short_demo_plays_every_model_against_random_and_scripted_and_the_headline_rows(
    tmp_path, capsys, monkeypatch
):
    """``make demo``: each shipped model meets the short opponents at its own table, plus the headline
    rows at the standard rules; no best response, no exploiters; written under the given folder."""
    monkeypatch.delenv("KABU_MODELS_DIR", raising=False)
    jobs = demo.plan(models_dir(), full=False)
    for model in demo.shipped(models_dir()):
        headline = set(demo_plan(model["game"]).headline_rows)
        rows = [j for j in jobs if j.agent == model["name"] and j.game == model["game"]]
        rows = [j for j in rows if (j.agent, j.opponent) not in headline]
        assert {j.opponent for j in rows} == {"random", "scripted"}, model["name"]
    for spec, plan_ in demo_games():
        headline = {(j.agent, j.opponent) for j in jobs if j.game == spec.id} - {
            (m["name"], o) for m in demo.shipped(models_dir()) for o in plan_.short_opponents
        }
        assert headline == set(plan_.headline_rows), spec.id
    assert len(jobs) < len(demo.plan(models_dir(), full=True))
    for spec, plan_ in demo_games():  # headline rows at a richer setting: only where the plan asks
        mine = [m for m in demo.shipped(models_dir()) if m["game"] == spec.id]
        richer = {
            (json.dumps(m["env_options"], sort_keys=True), m["role"])
            for m in mine
            if m["rules"] != "standard"
        }
        at_settings = {
            (j.options, j.role)
            for j in jobs
            if j.game == spec.id and j.options != "{}" and (j.agent, j.opponent) in plan_.headline_rows
        }
        assert at_settings == (richer if plan_.headline_settings else set()), spec.id
    assert any(j.options == '{"rules": "kabufuda_site"}' and j.agent == "expert" for j in jobs)
    assert demo.main(["--quick", "--deals", "3", "--out", str(tmp_path), "--workers", "1"]) == 0
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert "best_response" not in summary["oicho_kabu"] and "exploit" not in summary["oicho_kabu"]
    assert len([m for block in summary.values() for m in block["matchups"]]) == len(jobs)
    assert "95% CI" in capsys.readouterr().out


def test_eval_cli_writes_json(tmp_path, capsys):
    path = tmp_path / "t.json"
    eval_main(
        [
            "--game",
            "toy_card",
            "--agents",
            "scripted",
            "--opponents",
            "random",
            "--deals",
            "50",
            "--json",
            str(path),
        ]
    )
    out = json.loads(path.read_text())
    assert out["matchups"][0]["mean"] > 0 and "scripted" in out["ratings"]
    with pytest.raises(SystemExit):
        eval_main(["--game", "toy_card", "--agents", "nobody", "--deals", "5"])
    assert "unknown agent 'nobody'" in capsys.readouterr().err


def test_demo_defaults_meet_the_bar_and_models_record_their_warm_start():
    # the bar: at least 1000 duplicate deals per matchup in every game the demo evaluates
    assert [g.id for g, _ in demo_games()] == ["oicho_kabu", "kakeya"]  # the plans' order
    assert all(p.deals >= 1000 for _, p in demo_games())
    records = []  # each shipped training run: a model's run.json, an ensemble's members' (agents/ensemble.py)
    for model in demo.shipped(models_dir()):
        runs = [model["dir"] / "run.json"] if (model["dir"] / "run.json").is_file() else []
        runs = runs or sorted(model["dir"].glob("members/*/run.json"))
        if not runs:  # an ensemble of shipped models only: each member's run is checked as its own model
            from kabu_envs.agents.ensemble import member_records

            # (or as a member another shipped ensemble carries: ens5_kakeya's endgame specialist is
            # ens_kakeya's)
            members = member_records(model["dir"]).values()
            shipped_dirs = {p.parent.parent for p in members} | {p.parents[3] for p in members}
            assert members and all(models_dir() in (p.parent.parent, p.parents[3]) for p in members), (
                model["name"],
                shipped_dirs,
            )
            continue
        records += [(model | {"name": f"{model['name']}: {r.parent.name}"}, r) for r in runs]
    for model, path in records:
        run = json.loads(path.read_text())
        if is_specialist_record(run):  # a stage specialist (training/specialist.py): labelled by the expert
            spec = load_specialist_config(path)
            assert spec.teacher == "expert" and (models_dir() / spec.init / "policy.json").is_file()
            assert run["bc"]["decisions"] == sum(run["bc"]["decisions_per_worker"]) > 0
            continue
        cfg = load_run_config(path)
        # every shipped model starts from its game's expert (Kakeya's through DAgger rounds), or from the
        # Kakeya search with network play-outs (ei5_kakeya: not yet a registry name, given as its class;
        # ens5_kakeya's ei6_kakeya: the registry's expert with its parameters, `expert:samples=320`)
        searches = {"expert", "kabu_envs.kakeya.agents.net_expert:KakeyaNetExpertAgent"}
        teacher = cfg.bc.teacher
        assert teacher in searches or teacher.startswith("expert:"), model["name"]
        assert run["bc"]["decisions"] >= cfg.bc.steps
        rounds = run["bc"].get("dagger")
        if rounds is None:  # a clone of a deterministic expert: near-perfect agreement
            assert run["bc"]["accuracy"] >= 0.95, model["name"]
        else:  # a sampling expert's labels are noisy (docs/studies/distillation.md): the rounds must add up
            # a continued run (init_from) has no cloning round; its aggregate starts with the earlier run's
            assert len(rounds) == cfg.dagger.iterations + (0 if cfg.init_from else 1)
            earlier = sum(a["decisions"] for a in run["bc"].get("aggregate", []))
            assert (
                rounds[-1]["aggregate"]
                == run["bc"]["decisions"]
                == earlier + sum(r["decisions"] for r in rounds)
            )
            # the learner agrees more with the teacher round after round on the states of one table
            # (ei_kakeya's rounds 2-3 play at another table, the expert opponents': a new sequence)
            tables: dict[str, list[float]] = {}
            for r in rounds[1:]:
                key = json.dumps(r.get("opponents"), sort_keys=True)
                tables.setdefault(key, []).append(r["agreement_before_fit"])
            for agreement in tables.values():
                assert agreement == sorted(agreement), (model["name"], tables)
            # (the network search's labels are noisier and fitted as soft targets: ei5_kakeya 0.58)
            assert run["bc"]["accuracy"] >= (0.6 if cfg.bc.teacher == "expert" else 0.55), model["name"]
        # the shipped models were trained before 0.2.0 moved the package to kabu_envs.training
        assert run["command"].startswith(("python -m training ", "python -m kabu_envs.training ")), run[
            "command"
        ]


def _fake_model(models, name, role, env_options):
    (models / name).mkdir(parents=True)
    trained = {"game": "oicho_kabu", "role": role, "num_players": 4, "env_options": env_options}
    (models / name / "policy.json").write_text(json.dumps({"trained_for": trained}))  # demo.shipped reads it
    cfg = {"name": name, "game": "oicho_kabu", "role": role, "env_options": env_options}
    (models / name / "run.json").write_text(json.dumps({"config": cfg}))


def test_best_response_plan_adds_each_richer_setting_it_models(tmp_path, capsys):
    _fake_model(tmp_path, "ppo_a", "bettor", {})
    _fake_model(tmp_path, "ppo_b", "bettor", {"rules": "kansai"})
    _fake_model(tmp_path, "ppo_c", "dealer", {"rules": "kansai", "max_rounds": 2})  # refused
    _fake_model(tmp_path, "ppo_d", "dealer", {"rules": "kabufuda_site"})
    spec = demo_plan("oicho_kabu")
    entries = demo.best_response_plan(tmp_path, 5, None)
    got = [(e["role"], e["rules"], e["agents"], e["deals"]) for e in entries if e["game"] == "oicho_kabu"]
    refs = list(spec.best_response_agents)
    assert got == [
        ("bettor", "standard", [*refs, "ppo_a"], spec.best_response_deals),
        ("dealer", "standard", refs, spec.best_response_deals),
        ("bettor", "kansai", [*refs, "ppo_b"], spec.best_response_setting_deals),
        ("dealer", "kabufuda_site", [*refs, "ppo_d"], spec.best_response_setting_deals),
    ]
    out = capsys.readouterr().out
    assert 'no best-response gaps for oicho_kabu dealer ({"max_rounds":2,"rules":"kansai"}): ' in out
    assert "max_rounds=2" in out
    assert [e["seed"] for e in entries] == [5 + 7919 * (1000 + k) for k in range(len(entries))]
    assert entries[2]["env_options"] == {"rules": "kansai"} and entries[0]["env_options"] == {}
    assert {e["deals"] for e in demo.best_response_plan(tmp_path, 5, 7)} == {7}
    # the rows of a richer setting carry its name, its CPU time is keyed "role, rules"
    chunks = [[{"regrets": {a: [0.5, 0.1] for a in e["agents"]}, "cpu": 0.2}] for e in entries]
    for e in entries:
        e["deals"] = 2
    block = demo.best_response_rows(entries, chunks)["oicho_kabu"]
    assert {(r["role"], r["rules"]) for r in block["rows"]} == {(role, rules) for role, rules, _, _ in got}
    assert set(block["cpu_ms_per_deal"]) == {"bettor", "dealer", "bettor, kansai", "dealer, kabufuda_site"}
    assert block["cpu_ms_per_deal"]["bettor, kansai"] == pytest.approx(100.0)


def test_slow_agents_play_their_own_deal_count_and_start_first():
    """Kakeya's searches (``expert``, the fixed references ``expert_0_2`` and ``expert_0_3``) decide one
    move at a time: their matchups play DemoPlan.agent_deals (1000, the bar) while the batched ones keep
    the plan's deals; --deals and --quick override both."""
    plan_ = demo_plan("kakeya")
    assert plan_.deals_for("expert", "scripted") == plan_.deals_for("ppo_kakeya", "expert") == 1000
    assert plan_.deals_for("expert", "expert_0_2") == plan_.deals_for("ppo_kakeya", "expert_0_2") == 1000
    assert plan_.deals_for("ppo_kakeya", "scripted") == plan_.deals == 2000
    jobs = [j for j in demo.plan(models_dir()) if j.game == "kakeya"]
    pairs = {(j.agent, j.opponent) for j in jobs}
    assert {("expert", "random"), ("expert", "scripted"), ("scripted", "random")} <= pairs
    # issue #27: the expert against the fixed reference, the learned agent against both
    assert {("expert", "expert_0_2"), ("ppo_kakeya", "expert"), ("ppo_kakeya", "expert_0_2")} <= pairs
    # the fixed reference of 0.3 (the scripted-play-out search, pinned): the expert meets it
    assert ("expert", "expert_0_3") in pairs and plan_.deals_for("expert", "expert_0_3") == 1000
    slow = [j for j in jobs if demo.slow(j)]
    searches = {"expert", "expert_0_2", "expert_0_3"}
    assert {(j.agent, j.opponent) for j in slow} == {p for p in pairs if searches & set(p)}
    assert all(demo.job_deals(j) == 1000 and demo.job_deals(j, 50) == 50 for j in slow)
    assert all(demo.job_deals(j, quick=True) == 30 for j in jobs)
    assert not demo.slow(next(j for j in demo.plan(models_dir()) if j.game == "oicho_kabu"))


def test_demo_plan_gives_every_rule_setting_its_reference_rows(tmp_path):
    _fake_model(tmp_path, "ppo_a", "bettor", {})
    _fake_model(tmp_path, "ppo_b", "bettor", {"rules": "kansai"})
    _fake_model(tmp_path, "ppo_c", "dealer", {"rules": "kansai", "num_players": 3})
    spec = demo_plan("oicho_kabu")
    jobs = [j for j in demo.plan(tmp_path) if j.game == "oicho_kabu"]
    by_rules = {}
    for _, agent, opp, role, opts in jobs:
        by_rules.setdefault(demo.rules_label(json.loads(opts)), []).append((agent, opp, role))
    assert list(by_rules) == ["standard", "kansai", '{"num_players":3,"rules":"kansai"}']
    refs = set(spec.reference_rows)
    # the standard rules: every role's reference rows; a richer setting: those of its models' roles
    assert {(a, o) for a, o, r in by_rules["standard"] if r == "dealer"} == refs
    assert {(a, o, r) for a, o, r in by_rules["kansai"]} == {
        ("ppo_b", o, "bettor") for o in spec.opponents
    } | {(a, o, "bettor") for a, o in refs}
    assert {r for _, _, r in by_rules['{"num_players":3,"rules":"kansai"}']} == {"dealer"}
    assert [m["rules"] for m in demo.shipped(tmp_path)] == [
        "standard",
        "kansai",
        '{"num_players":3,"rules":"kansai"}',
    ]


def test_a_rows_deals_are_keyed_by_what_it_meets_and_replay_with_kabu_eval(tmp_path):
    """``matchup_seed``: the same deals for every agent against one opponent, role and rule set;
    another opponent, role or rule set, other deals; a new shipped model moves no other row; and a
    row's recorded seed is what ``kabu-eval --seed`` replays."""
    _fake_model(tmp_path, "ppo_a", "bettor", {})
    before = {j: demo.matchup_seed(2024, j) for j in demo.plan(tmp_path)}
    _fake_model(tmp_path, "ppo_aa", "bettor", {})  # sorts before ppo_b: a positional seed would shift
    _fake_model(tmp_path, "ppo_b", "bettor", {"rules": "kansai"})
    after = {j: demo.matchup_seed(2024, j) for j in demo.plan(tmp_path)}
    assert set(before) < set(after) and all(after[j] == s for j, s in before.items())
    by_meeting: dict[tuple, set[int]] = {}
    for j, s in after.items():
        by_meeting.setdefault((j.game, j.role, j.opponent, j.options), set()).add(s)
    assert all(len(s) == 1 for s in by_meeting.values())  # one deal set per (game, role, opponent, rules)
    assert len({next(iter(s)) for s in by_meeting.values()}) == len(by_meeting)  # and no two alike
    br = {e["seed"] for e in demo.best_response_plan(tmp_path, 2024, None)}
    assert not br & set(after.values())
    # the row records its seed; kabu-eval with that seed plays the same deals to the same result
    job = demo.Job("kakeya", "scripted", "random", "partnership", "{}")
    seed = demo.matchup_seed(2024, job)
    row = demo._run(job, 6, seed, str(tmp_path)).row
    assert row["seed"] == seed
    path = tmp_path / "replay.json"
    eval_main(
        ["--game", "kakeya", "--agents", "scripted", "--opponents", "random", "--deals", "6"]
        + ["--seed", str(seed), "--json", str(path)]
    )
    (again,) = json.loads(path.read_text())["matchups"]
    assert (again["mean"], again["ci95"], again["games"]) == (row["mean"], row["ci95"], row["games"])


def test_the_demo_of_one_game_replaces_its_section_and_keeps_the_others(tmp_path, capsys, monkeypatch):
    """``--game``: after one game's models are retrained, only its rows are played again."""
    monkeypatch.delenv("KABU_MODELS_DIR", raising=False)
    before = {"kakeya": {"matchups": ["kept as it was"]}, "oicho_kabu": {"matchups": ["stale"]}}
    (tmp_path / "summary.json").write_text(json.dumps(before))
    args = ["--quick", "--deals", "3", "--out", str(tmp_path), "--workers", "1"]
    assert demo.main([*args, "--game", "oicho_kabu"]) == 0
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert list(summary) == ["oicho_kabu", "kakeya"] and summary["kakeya"] == before["kakeya"]
    planned = [
        (j.agent, j.opponent, j.role) for j in demo.plan(models_dir(), full=False) if j.game == "oicho_kabu"
    ]
    assert [(m["agent"], m["opponent"], m["role"]) for m in summary["oicho_kabu"]["matchups"]] == planned
    capsys.readouterr()
    with pytest.raises(SystemExit):
        demo.main([*args, "--game", "chess"])
    assert "--game chess" in capsys.readouterr().err
