"""Cross-check of the project's exact best response by an outside computation on the OpenSpiel game.

The project's yardstick for an agent is its gap to a best response (``kabu_envs.eval.best_response``;
for Oicho-Kabu ``oicho_kabu/agents/best_response.py``): in the dealer's seat it is exact, the expected
chips of STAND and DRAW given everything the dealer sees, from an analytic posterior over the hidden
second cards (the deciders' two-card draw rule read as a table) and settlement tables. This module
computes the same values another way, from the OpenSpiel game that drives the engine itself:

* at each decision of the seat (every other seat the game's reference agent, ``scripted``, as in the
  gap), the seat's information state is taken from the OpenSpiel state of the episode;
* worlds are drawn from the exact posterior by rejection: the deck in play re-dealt where the seat does
  not see it (``bots.Resampler``: the seat's information state must be the true one) and kept only
  when the reference agents, asked in that world, make exactly the moves of the history (their policy
  is deterministic: the likelihood of a world is 0 or 1);
* each legal action is applied in every world and the episode played out by the reference agents; the
  seat's returns are the action's value in that world (OpenSpiel ``State.returns``).

So an action's value is a Monte Carlo mean over the posterior, computed by the engine's own rules and
none of the best response's tables. Per decision, ``delta`` (the value of each action minus the first's)
is compared with the project's exact numbers (``br.regret``), and the gap of the reference agent
(the chips a best response gains over it) is estimated both ways: the project's exact per-decision
regret, and the OpenSpiel one (the best action chosen on half of the worlds, valued on the other half,
so the noise does not inflate it). ``python -m kabu_envs.training.crosscheck`` prints both
(docs/openspiel.md has the numbers).

Why not OpenSpiel's ``exploitability`` / ``best_response`` tree walk: see docs/openspiel.md (the Oicho
engine deals all four spreads' face-down cards, so even lazy, value-level dealing would leave about 10^9
histories per fixed table of a two-player deal; the adapter draws the whole 40-card shuffle up front).
"""

from __future__ import annotations

import argparse
import json
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from kabu_envs.core.rng import make_rng
from kabu_envs.eval.best_response import agent_seed, br_table, deal_plan
from kabu_envs.eval.stats import summarize
from kabu_envs.openspiel.bots import History, Resampler, history_from_env, load_game, replay
from kabu_envs.openspiel.game import KabuGame, KabuState

# Draws per kept world after which a decision gives up (the measured acceptance is 5-40%).
MAX_DRAWS_PER_WORLD = 200


def _mask(state: KabuState, num_actions: int) -> np.ndarray:
    mask = np.zeros(num_actions, dtype=np.int8)
    mask[state.legal_actions()] = 1
    return mask


def consistent(game: KabuGame, history: History, seat: int, reference: Any) -> KabuState | None:
    """The state of ``history`` when the reference agent, asked at every other seat's decision, makes the
    history's moves (else None, as soon as one differs): the world's likelihood under the other seats'
    deterministic policy. A history that does not replay (a move the rules refuse) is None too."""
    shuffles, moves = history
    outcomes = [c for order in shuffles for c in order[:-1]]
    state = game.new_initial_state()
    i = j = 0
    n = game.num_distinct_actions()
    while not state.is_terminal() and (i < len(outcomes) or j < len(moves)):
        if state.is_chance_node():
            state.apply_action(outcomes[i])
            i += 1
            continue
        if j == len(moves):
            return None
        p = state.current_player()
        if p != seat:
            obs = np.asarray(state.information_state_tensor(p), dtype=np.float32)
            if int(reference.act(obs, _mask(state, n))) != moves[j]:
                return None
        elif moves[j] not in state.legal_actions():
            return None
        state.apply_action(moves[j])
        j += 1
    return state if (i, j) == (len(outcomes), len(moves)) else None


def play_out(state: KabuState, reference: Any) -> KabuState:
    """The episode from ``state`` to its end, every decision the reference agent's, chance by the
    state's own deck (a world's deck is fixed; a later shuffle would draw its first outcome)."""
    n = state.get_game().num_distinct_actions()
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(state.chance_outcomes()[0][0])
        else:
            p = state.current_player()
            obs = np.asarray(state.information_state_tensor(p), dtype=np.float32)
            state.apply_action(int(reference.act(obs, _mask(state, n))))
    return state


@dataclass
class Decision:
    """One decision of the seat: the project's exact values and the OpenSpiel worlds' values."""

    deal: int
    legal: list[int]
    played: int  # the reference agent's action
    exact: list[float]  # the project: value of each legal action minus the best one's (<= 0)
    worlds: np.ndarray  # (worlds, len(legal)) the seat's returns of each action in each kept world
    draws: int  # worlds drawn to keep them

    @property
    def delta_exact(self) -> np.ndarray:
        """The project's value of each action minus the first's."""
        v = np.asarray(self.exact)
        return v - v[0]

    @property
    def delta_worlds(self) -> tuple[np.ndarray, np.ndarray]:
        """The worlds' mean of each action minus the first's, and its standard error (paired)."""
        d = self.worlds - self.worlds[:, :1]
        return d.mean(axis=0), d.std(axis=0, ddof=1) / np.sqrt(len(d))

    def regret_exact(self) -> float:
        return -self.exact[self.legal.index(self.played)]

    def regret_worlds(self) -> float:
        """Best action on the even worlds, valued against the played one on the odd ones."""
        choose, value = self.worlds[0::2], self.worlds[1::2]
        best = int(np.argmax(choose.mean(axis=0)))
        return float(value[:, best].mean() - value[:, self.legal.index(self.played)].mean())


@dataclass
class CrossCheck:
    decisions: list[Decision] = field(default_factory=list)
    deals: int = 0
    cpu_seconds: float = 0.0

    def summary(self) -> dict[str, Any]:
        """The comparison (docs/openspiel.md): per decision, the worlds' deltas against the exact ones
        in standard errors; over the deals, the two gap estimates with their 95% intervals."""
        z = []
        for d in self.decisions:
            mean, se = d.delta_worlds
            for k in range(1, len(d.legal)):
                z.append((mean[k] - d.delta_exact[k]) / max(se[k], 1e-12))
        per_deal_exact = np.zeros(self.deals)
        per_deal_worlds = np.zeros(self.deals)
        for d in self.decisions:
            per_deal_exact[d.deal] += d.regret_exact()
            per_deal_worlds[d.deal] += d.regret_worlds()
        ex, os_ = summarize(per_deal_exact.tolist()), summarize(per_deal_worlds.tolist())
        diff = summarize((per_deal_worlds - per_deal_exact).tolist())
        zs = np.asarray(z)
        return {
            "deals": self.deals,
            "decisions": len(self.decisions),
            "worlds_per_decision": int(np.mean([len(d.worlds) for d in self.decisions])) if z else 0,
            "acceptance": float(
                sum(len(d.worlds) for d in self.decisions) / max(1, sum(d.draws for d in self.decisions))
            ),
            "delta_z_mean": float(zs.mean()) if z else 0.0,
            "delta_z_rms": float(np.sqrt((zs**2).mean())) if z else 0.0,
            "delta_z_max_abs": float(np.abs(zs).max()) if z else 0.0,
            "gap_exact": [ex.mean, ex.lo, ex.hi],
            "gap_openspiel": [os_.mean, os_.lo, os_.hi],
            "gap_difference": [diff.mean, diff.lo, diff.hi],
            "cpu_seconds": self.cpu_seconds,
        }


def crosscheck(
    game: str = "oicho_kabu",
    role: str = "dealer",
    env_options: dict[str, Any] | None = None,
    deals: int = 100,
    worlds: int = 200,
    seed: int = 0,
) -> CrossCheck:
    """Play ``deals`` deals of the evaluation (the reference agent everywhere) and compare, at each of
    the role's seat's decisions with a choice, the project's best-response values with the worlds'."""
    opts = dict(env_options or {})
    _, br, reference, env = br_table(game, role, seed, opts, {})
    os_game = load_game(game, opts)
    resampler = Resampler(os_game)
    seeds, seats = deal_plan(game, role, seed, deals, opts)
    names = env.possible_agents
    rng = make_rng(seed)
    out = CrossCheck(deals=deals)
    t0 = time.process_time()
    for d, (deal_seed, seat) in enumerate(zip(seeds, seats, strict=True)):
        reference.reset(agent_seed(deal_seed, 0 if seat != 0 else 1))
        env.reset(seed=deal_seed)
        br.begin(env.game, seat, [reference] * len(names), deal=int(deal_seed))
        while env.agents:
            who = env.agent_selection
            if env.terminations[who] or env.truncations[who]:
                env.step(None)
                continue
            obs = env.observe(who)
            action = int(reference.act(obs["observation"], obs["action_mask"]))
            legal = [int(a) for a in np.flatnonzero(obs["action_mask"])]
            if names.index(who) == seat and len(legal) > 1:
                regrets = [
                    br.regret(env.game, seat, obs["observation"], obs["action_mask"], a) for a in legal
                ]
                out.decisions.append(
                    _decision(
                        d, legal, action, regrets, env, game, os_game, resampler, seat, reference, worlds, rng
                    )
                )
            env.step(action)
    out.cpu_seconds = time.process_time() - t0
    return out


def _decision(
    d: int,
    legal: list[int],
    action: int,
    regrets: list[float],
    env: Any,
    game: str,
    os_game: KabuGame,
    resampler: Resampler,
    seat: int,
    reference: Any,
    worlds: int,
    rng: np.random.Generator,
) -> Decision:
    history = history_from_env(game, env)
    truth = replay(os_game, history)
    key = truth.information_state_string(seat)
    shuffles, moves = history
    values: list[list[float]] = []
    draws = 0
    while len(values) < worlds:
        if draws >= MAX_DRAWS_PER_WORLD * worlds:
            raise RuntimeError(
                f"deal {d}: {len(values)} worlds kept in {draws} draws; the posterior is out of the "
                "resampler's reach (a resampler that keeps a card the seat does not see in place?)"
            )
        draws += 1
        deck = resampler.hook.resample_deck(truth.env, seat, shuffles[-1], rng)
        world = consistent(os_game, ([*shuffles[:-1], deck], moves), seat, reference)
        if world is None or world.information_state_string(seat) != key:
            continue
        row = []
        for a in legal:
            s = world.clone()
            s.apply_action(a)
            row.append(play_out(s, reference).returns()[seat])
        values.append(row)
    return Decision(d, legal, action, [-r for r in regrets], np.asarray(values), draws)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m kabu_envs.training.crosscheck", description=__doc__)
    ap.add_argument("--game", default="oicho_kabu")
    ap.add_argument("--role", default="dealer")
    ap.add_argument("--deals", type=int, default=100)
    ap.add_argument("--worlds", type=int, default=200)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--options", default='{"num_players": 2}', help="rule options as JSON")
    ap.add_argument("--json", help="write the summary here")
    args = ap.parse_args(argv)
    result = crosscheck(args.game, args.role, json.loads(args.options), args.deals, args.worlds, args.seed)
    summary = result.summary()
    print(json.dumps(summary, indent=2))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(summary, f, indent=2)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
