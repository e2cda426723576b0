"""Batched duplicate evaluation: the same deals, decisions and results as the scalar path.

Every registered game and role, every agent the registry names and every shipped model that fits:
``matchup(..., batched=True)`` must return the scalar path's ``MatchResult`` exactly (the same
advantages and rewards, float for float). An agent that cannot act batched yet is skipped, with
the reason, where it is needed.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

import kabu_envs.eval.duplicate as duplicate
import kabu_envs.eval.games as games
from kabu_envs import registry
from kabu_envs.agents.base import Capabilities, RandomAgent
from kabu_envs.agents.ensemble import read_model
from kabu_envs.agents.registry import make_agent, model_path, shipped_models
from kabu_envs.batch import LoopBatchEnv
from kabu_envs.eval.games import matchup

DEALS = 200


def _models(game: str, role: str) -> dict[str, list[str]]:
    """Shipped models trained for this game and role, by the rule options of their table (JSON)."""
    out: dict[str, list[str]] = {}
    for name in shipped_models():
        t = read_model(model_path(name)).trained_for
        if (t["game"], t["role"]) == (game, role):
            out.setdefault(json.dumps(t["env_options"], sort_keys=True), []).append(name)
    return out


def _cases() -> list[tuple[str, str, str, str, str]]:
    """(game, role, agent, opponent, rule options as JSON): every name of a role's line-up at a table
    meets the next one (cyclically), so each plays once on each side; a table of a shipped model's
    rule setting has its own line-up (the game's agents and that setting's models)."""
    out = []
    for spec in registry.games():
        for role in spec.role_names:
            tables = {"{}": []} | _models(spec.id, role)
            for opts, models in tables.items():
                names = [*spec.agent_names, *models]
                out += [(spec.id, role, a, names[(i + 1) % len(names)], opts) for i, a in enumerate(names)]
    return out


def _both(game, role, agent, opponent, deals=DEALS, reference=None, **options):
    """(batched, scalar) results of one matchup, each on freshly built agents."""
    results = []
    for batched in (True, False):
        a = make_agent(game, agent, 1, role=role, **options)
        o = make_agent(game, opponent, 2, role=role, **options)
        ref = reference() if reference else None
        results.append(matchup(game, a, o, role, deals, 3, options, reference=ref, batched=batched))
    return results


@pytest.mark.parametrize(("game", "role", "agent", "opponent", "options"), _cases())
def test_batched_duplicate_equals_scalar(game, role, agent, opponent, options):
    spec = registry.get(game)
    needed = [agent, opponent] + ([spec.reference] if spec.role(role).duplicate == "seat" else [])
    opts = json.loads(options)
    for name in needed:
        if not make_agent(game, name, 0, role=role, **opts).capabilities.batch:
            pytest.skip(f"{game}: agent {name!r} is played one deal at a time (capabilities.batch)")
    batched, scalar = _both(game, role, agent, opponent, **opts)
    assert len(batched.advantages) == DEALS
    assert batched.advantages == scalar.advantages
    assert batched == scalar


@pytest.mark.parametrize(
    ("game", "role"), [(g.id, r.name) for g in registry.games() for r in g.roles if r.duplicate == "seat"]
)
def test_batched_role_duplicate_with_a_batched_reference(game, role, monkeypatch):
    """The seat format with a reference that acts batched today (random), a model and a sampling model;
    seats read from the batch engine, a deal's two plays split over two batches now and then."""
    monkeypatch.setattr(duplicate, "CHUNK", 101)
    models = _models(game, role).get("{}", [])  # the models of the standard table
    names = [*models, "random"]
    for agent, opponent in zip(names, names[1:] + names[:1], strict=True):
        batched, scalar = _both(game, role, agent, opponent, reference=lambda: RandomAgent(seed=17))
        assert batched == scalar and len(set(batched.advantages)) > 1
    for model in models:
        sampled = []
        for batched_ in (True, False):
            a = make_agent(game, model, 1, role=role)
            a.deterministic = False  # samples with the per-deal generators
            o = RandomAgent(seed=2)
            sampled.append(matchup(game, a, o, role, 200, 4, reference=RandomAgent(17), batched=batched_))
        assert sampled[0] == sampled[1]


def test_batched_team_duplicate_fractional_rewards_sum_as_the_scalar_path():
    """Kakeya's egara reward pays fractions every deal of a game: the sums must agree float for float."""
    batched, scalar = _both("kakeya", "partnership", "random", "random", deals=150, reward="egara")
    assert batched == scalar
    assert any(x != round(x) for x in batched.agent_rewards)


def test_chunks_and_the_reference_loop_give_the_same_results(monkeypatch):
    """Plays split over several batches, on the reference loop engine: still the scalar results."""
    monkeypatch.setattr(duplicate, "CHUNK", 37)
    made = []

    def loop_factory(game, env_options):
        def make(batch_size):
            made.append(batch_size)
            return LoopBatchEnv(game, batch_size=batch_size, **env_options)

        return make

    monkeypatch.setattr(games, "batch_factory", loop_factory)
    batched, scalar = _both("toy_card", "seat", "random", "scripted", deals=60, num_players=3)
    assert batched == scalar and made == [37] * 4 + [180 - 37 * 4]


def test_matchup_picks_the_batched_path_when_it_can(monkeypatch):
    calls = []
    real = duplicate.play_deals_batched

    def spy(*args, **kwargs):
        calls.append(args[1])
        return real(*args, **kwargs)

    monkeypatch.setattr(duplicate, "play_deals_batched", spy)
    random_pair = (RandomAgent(seed=1), RandomAgent(seed=2))
    matchup("kakeya", *random_pair, deals=3)
    assert len(calls) == 1 and len(calls[0]) == 6  # 3 deals x 2 partnerships, in one call
    matchup("kakeya", *random_pair, deals=3, batched=False)
    assert len(calls) == 1

    class ScalarOnly(RandomAgent):
        name = "scalar_only"
        capabilities = Capabilities(batch=False)

    matchup("kakeya", ScalarOnly(seed=1), RandomAgent(seed=2), deals=2)  # falls back to scalar
    assert len(calls) == 1
    with pytest.raises(ValueError, match="cannot act batched: \\['scalar_only'\\]"):
        matchup("kakeya", ScalarOnly(seed=1), RandomAgent(seed=2), deals=2, batched=True)


def test_no_deals_no_plays():
    res = matchup("kakeya", RandomAgent(seed=1), RandomAgent(seed=2), deals=0, batched=True)
    assert res.advantages == [] and np.isnan(res.mean_reward)


def test_eval_cli_scalar_flag_writes_the_same_results(tmp_path):
    from kabu_envs.eval.__main__ import main

    args = ["--game", "kakeya", "--agents", "ppo_kakeya", "random", "--opponents", "random", "--deals", "30"]
    outs = []
    for extra in ([], ["--scalar"]):
        out = tmp_path / f"out{len(outs)}.json"
        assert main([*args, *extra, "--json", str(out)]) == 0
        outs.append(out.read_text())
    assert outs[0] == outs[1] and '"ppo_kakeya"' in outs[0]


def test_match_deal_seeds_are_seed_sequence_hashes():
    """A match's deal seeds are numpy's ``SeedSequence`` of (match seed, deal): the public API, no copy
    of its hash; the seed's low 32 bits count (as every part of ``_seed``)."""
    seeds = duplicate.match_deal_seeds(2**40 + 7, 50)
    expected = [int(np.random.SeedSequence([7, d]).generate_state(1)[0]) for d in range(50)]
    assert seeds == expected and len(set(seeds)) == 50
    assert duplicate.match_deal_seeds(3, 0) == []
