"""The agent protocol (agents/base.py): one required ``act_batch``, declared capabilities, and a user's
object with only ``act`` playing everywhere through the one adapter (``as_agent``)."""

from __future__ import annotations

import numpy as np
import pytest

from kabu_envs import batch
from kabu_envs.agents.base import ActAgent, BaseAgent, Capabilities, RandomAgent, as_agent
from kabu_envs.agents.batching import act_row_by_row
from kabu_envs.eval.games import duplicate_plan, matchup, rotating_seat
from kabu_envs.eval.tournament import Lineup, round_robin
from kabu_envs.oicho_kabu.agents.expert import OichoExpertAgent
from kabu_envs.registry import get
from kabu_envs.wrappers.views import make_view


class FirstLegal:
    """A user's agent: only ``act`` (and a seed it keeps to itself), no BaseAgent, no act_batch."""

    def __init__(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)
        self.calls = 0

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        self.calls += 1
        legal = np.flatnonzero(action_mask)
        return int(legal[self.rng.integers(legal.size)])


GAMES = [("kakeya", "partnership"), ("oicho_kabu", "bettor"), ("oicho_kabu", "dealer")]


@pytest.mark.parametrize(("game", "role"), GAMES)
def test_an_act_only_agent_plays_a_duplicate_match_a_tournament_and_a_view(game, role):
    mine = FirstLegal(seed=1)
    res = matchup(game, mine, RandomAgent(seed=2), role, deals=3, seed=4)
    assert res.summary().n == 3 and mine.calls > 0
    # a tournament's line-up adapts it once (Lineup), every matchup then plays the adapted agent
    out = round_robin(
        game,
        ["mine"],
        ["random"],
        role,
        deals=2,
        lineup=Lineup({"mine": FirstLegal(0)}, {"random": RandomAgent(0)}),
    )
    assert [r["agent"] for r in out["matchups"]] == ["mine"] and out["matchups"][0]["games"] == 2
    view = make_view(game, role=role, opponents=FirstLegal(seed=3))
    assert isinstance(view.pool.members()[0][0], ActAgent)
    obs, _ = view.reset(seed=0)
    for _ in range(40):
        obs, _, done, _, _ = view.step(int(np.flatnonzero(view.action_masks())[0]))
        if done:
            obs, _ = view.reset()


def test_an_act_only_agent_is_played_one_deal_at_a_time_and_matches_its_base_agent_twin():
    """Adapted, ``FirstLegal`` plays the scalar path (``capabilities.batch`` False); a BaseAgent whose
    act draws the same way from ``self.rng`` gives the same match, batched or not."""

    class Twin(BaseAgent):
        def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
            legal = np.flatnonzero(action_mask)
            return int(legal[self.rng.integers(legal.size)])

        def act_batch(self, observations, action_masks, rngs=None):  # type: ignore[no-untyped-def]
            return act_row_by_row(self, np.asarray(observations), np.asarray(action_masks), rngs)

    assert not as_agent(FirstLegal()).capabilities.batch
    with pytest.raises(ValueError, match=r"cannot act batched: \['FirstLegal'\]"):
        matchup("kakeya", FirstLegal(), RandomAgent(seed=2), deals=2, batched=True)
    twin = [matchup("kakeya", Twin(seed=0), RandomAgent(seed=2), deals=5, seed=9, batched=b) for b in (1, 0)]
    assert twin[0] == twin[1] and len(set(twin[0].agent_rewards)) > 1


def test_bad_agents_and_capabilities_are_refused():
    with pytest.raises(TypeError, match="is not an agent"):
        as_agent(object())
    with pytest.raises(ValueError, match=r"Capabilities\(table=True\) needs batch=False"):
        Capabilities(table=True)
    agent = RandomAgent(seed=0)
    assert as_agent(agent) is agent  # a BaseAgent is its own adapter

    class NoOwnAct(BaseAgent):
        def act_batch(self, observations, action_masks, rngs=None):  # type: ignore[no-untyped-def]
            return act_row_by_row(self, observations, action_masks, rngs)

    with pytest.raises(TypeError, match="needs the agent's own act"):
        NoOwnAct().act(np.zeros(3), np.ones(2, np.int8))
    with pytest.raises(NotImplementedError, match="must implement act_batch"):
        BaseAgent().act(np.zeros(3), np.ones(2, np.int8))

    class FloatActs(FirstLegal):
        def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
            return 0.5  # type: ignore[return-value]

    with pytest.raises(TypeError, match="not an integer action id"):
        as_agent(FloatActs()).act_batch(np.zeros((1, 3)), np.ones((1, 2), bool))
    with pytest.raises(TypeError, match="does not value its actions"):
        agent.act_with_values(np.zeros(3), np.ones(2, np.int8))


def test_the_derived_act_draws_as_one_row_of_act_batch():
    mask = np.array([0, 1, 1, 0, 1], np.int8)
    a, b = RandomAgent(seed=5), RandomAgent(seed=5)
    gens = [np.random.default_rng(5)]
    picks = [a.act(None, mask) for _ in range(30)]
    assert picks == [int(b.act_batch(None, mask[None], rngs=gens)[0]) for _ in range(30)]


def test_an_agent_without_engine_reading_acts_on_any_engine_through_its_observation():
    eng = batch.make("oicho_kabu", batch_size=16)
    eng.reset(seed=3)
    rows = np.flatnonzero(eng.current_player >= 0)
    agent = OichoExpertAgent(seed=0)
    assert not agent.capabilities.engine and not agent.acts_on_engine(eng)
    want = agent.act_batch(eng.observation[rows], eng.legal_action_mask[rows])
    assert np.array_equal(agent.act_engine(eng, rows), want)


@pytest.mark.parametrize(
    ("game", "role", "players"), [("oicho_kabu", "bettor", 4), ("oicho_kabu", "dealer", 3)]
)
def test_the_plan_seats_what_the_aec_env_seats(game, role, players):
    """The plan reads the seats from the batch engine's seat table; the AEC env reset to each deal
    (what the scalar path did per deal) gives the same ones."""
    plan = duplicate_plan(game, role, deals=12, seed=7, env_options={"num_players": players})
    env = get(game).make_raw_env(num_players=players)
    seat = rotating_seat(get(game).role(role))
    for d, deal_seed in enumerate(plan.deal_seeds):
        env.reset(seed=deal_seed)
        mine, theirs = plan.plays[2 * d], plan.plays[2 * d + 1]
        assert mine.scored == theirs.scored == (seat(env, d),)
        s = mine.scored[0]
        assert (mine.seats[s], theirs.seats[s]) == ("agent", "opponent")
        assert {x for i, x in enumerate(mine.seats) if i != s} == {"reference"}
    text = plan.describe(limit=2)
    assert "seat format" in text and "R = reference (scripted)" in text and "(10 more deals)" in text
    assert text.count("\ndeal ") == 4 and str(plan) == plan.describe()


def test_a_plan_is_checked():
    plan = duplicate_plan("kakeya", None, deals=2, seed=0, sides={"agent": "a", "opponent": "o"})
    assert [p.scored for p in plan.plays] == [(0, 2), (1, 3)] * 2 and plan.needed_sides() == [
        "agent",
        "opponent",
    ]
    from dataclasses import replace

    from kabu_envs.eval.duplicate import Play, play_plan, score

    with pytest.raises(ValueError, match="sides must be in"):
        replace(plan, plays=(Play(0, ("agent", "me", "agent", "opponent"), (0,)),))
    with pytest.raises(ValueError, match="plays each deal twice"):
        replace(plan, format="seat", plays=plan.plays[:3])
    with pytest.raises(ValueError, match="play 1 of a seat plan must score seats held by the opponent"):
        replace(plan, format="seat")
    with pytest.raises(ValueError, match="play 0 of a team plan must score seats held by the agent"):
        replace(plan, plays=(Play(0, ("agent", "opponent", "agent", "opponent"), (1,)),))
    with pytest.raises(ValueError, match=r"needs a player for side\(s\) \['opponent'\]"):
        play_plan(plan, {"agent": RandomAgent(0)}, env=get("kakeya").make_raw_env())
    with pytest.raises(ValueError, match="3 plays' rewards for a plan of 4 plays"):
        score(plan, np.zeros((3, 4)))
