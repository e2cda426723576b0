"""The gap to a best response (kabu_envs.eval.best_response) on Oicho-Kabu, its CLI and its refusals."""

from __future__ import annotations

import json

import numpy as np
import pytest

from kabu_envs.agents.registry import make_agent
from kabu_envs.eval import best_response as ebr


def _gaps(role, deals, names=("random", "scripted", "expert"), env_options=None):
    rows, cpu, decisions = ebr.gaps("oicho_kabu", role, names, deals, seed=3, env_options=env_options)
    assert cpu > 0 and sum(decisions.values()) > 0
    return {r["agent"]: r for r in rows}


def test_gaps_order_random_scripted_expert_as_bettor():
    rows = _gaps("bettor", 30)
    assert rows["random"]["gap"] > rows["scripted"]["gap"] > rows["expert"]["gap"]
    assert rows["scripted"]["ci95"][0] > rows["expert"]["ci95"][1]  # separated, not just ordered
    assert rows["expert"]["ci95"][1] >= 0  # >= 0 up to noise
    for r in rows.values():
        assert (
            r["role"] == "bettor"
            and r["rules"] == "standard"
            and r["deals"] == 30
            and r["method"] == "regret"
        )


def test_gaps_order_random_scripted_expert_as_dealer():
    rows = _gaps("dealer", 300)
    assert rows["random"]["gap"] > rows["scripted"]["gap"] > rows["expert"]["gap"] >= 0
    assert rows["scripted"]["ci95"][0] > 0


@pytest.mark.parametrize(
    ("rules", "role", "deals"),
    [
        ("kansai", "bettor", 40),
        ("kabufuda_site", "bettor", 40),
        ("kansai", "dealer", 80),
        ("kabufuda_site", "dealer", 300),
    ],
)
def test_gaps_order_random_scripted_expert_on_the_richer_presets(rules, role, deals):
    rows = _gaps(role, deals, env_options={"rules": rules})
    assert rows["random"]["gap"] > rows["scripted"]["gap"] > rows["expert"]["gap"]
    assert rows["scripted"]["ci95"][0] > 0 and rows["expert"]["ci95"][1] >= 0  # >= 0 up to noise
    for r in rows.values():
        assert (r["role"], r["rules"], r["deals"], r["method"]) == (role, rules, deals, "regret")


def test_dealer_card_choice_regret_is_zero_and_the_takes_are_worth_the_same():
    """The site's dealer takes each card top, bottom or 4th: the deck's order is unknown to it, so the
    three are the same draw (the best response's regret is 0 for each). Checked in the engine: the
    dealer's chips over many deals, each take from the same information states, agree within noise."""
    from kabu_envs import registry
    from kabu_envs.oicho_kabu.actions import CHOICE_ACTIONS
    from kabu_envs.oicho_kabu.agents.best_response import OichoBestResponse
    from kabu_envs.oicho_kabu.game import Phase

    env = registry.get("oicho_kabu").make_raw_env(rules="kabufuda_site")
    scripted = make_agent("oicho_kabu", "scripted", 0, rules="kabufuda_site")
    br = OichoBestResponse("dealer", rules="kabufuda_site")
    chips = {a: [] for a in CHOICE_ACTIONS}
    for seed in range(600):
        for take in CHOICE_ACTIONS:
            env.reset(seed=seed)
            br.begin(env.game, env.game.dealer, [scripted] * 4)
            while env.agents:
                who = env.agent_selection
                if env.terminations[who]:
                    env.step(None)
                    continue
                obs = env.observe(who)
                a = int(scripted.act(obs["observation"], obs["action_mask"]))
                if env.game.phase == Phase.DEALER_CHOICE:
                    o, m = obs["observation"], obs["action_mask"]
                    assert br.act(env.game, env.game.dealer, o, m) in CHOICE_ACTIONS
                    assert all(br.regret(env.game, env.game.dealer, o, m, x) == 0.0 for x in CHOICE_ACTIONS)
                    a = take
                env.step(a)
            chips[take].append(env.game.round_rewards[env.game.dealer])
    top = np.asarray(chips[CHOICE_ACTIONS[0]], dtype=float)
    for take in CHOICE_ACTIONS[1:]:
        diff = np.asarray(chips[take], dtype=float) - top
        assert abs(diff.mean()) < 3 * diff.std() / np.sqrt(diff.size) + 1e-9
        assert diff.any()  # the takes do deal other cards


def test_regret_is_zero_for_the_best_responses_own_choice_and_never_negative_for_the_dealer():
    from kabu_envs import registry
    from kabu_envs.oicho_kabu.agents.best_response import OichoBestResponse
    from kabu_envs.oicho_kabu.game import Phase

    env = registry.get("oicho_kabu").make_raw_env()
    scripted = make_agent("oicho_kabu", "scripted", 0)
    br = OichoBestResponse("dealer")
    checked = 0
    for seed in range(120):
        env.reset(seed=seed)
        br.begin(env.game, 0, [scripted] * 4)
        while env.agents:
            who = env.agent_selection
            if env.terminations[who]:
                env.step(None)
                continue
            obs = env.observe(who)
            o, m = obs["observation"], obs["action_mask"]
            if env.game.phase == Phase.DEALER_DRAW and m.sum() == 2:
                best = br.act(env.game, 0, o, m)
                assert br.regret(env.game, 0, o, m, best) == 0.0
                assert br.regret(env.game, 0, o, m, 1 - best) >= 0.0
                checked += 1
            env.step(int(scripted.act(o, m)))
    assert checked > 20


def test_realized_estimator_runs_on_the_same_deals():
    rows, _, decisions = ebr.gaps("oicho_kabu", "dealer", ["expert"], 50, seed=1, realized=True)
    assert rows[0]["method"] == "realized" and rows[0]["deals"] == 50
    assert decisions["dealer_exact"] > 0


def test_games_without_a_best_response_and_team_roles_are_refused():
    with pytest.raises(ValueError, match="no best response"):
        ebr.gaps("toy_card", None, ["random"], 5)
    with pytest.raises(ValueError, match="no role"):
        ebr.gaps("oicho_kabu", "partnership", ["random"], 5)


def test_cli_prints_and_writes_rows(tmp_path, capsys):
    path = tmp_path / "br.json"
    assert ebr.main(["--role", "dealer", "--deals", "30", "--agents", "scripted", "--json", str(path)]) == 0
    out = json.loads(path.read_text())
    assert out["rows"][0]["agent"] == "scripted" and out["cpu_per_deal"] > 0
    assert "| dealer | scripted | standard | 30 |" in capsys.readouterr().out
    assert np.isfinite(out["rows"][0]["gap"])
