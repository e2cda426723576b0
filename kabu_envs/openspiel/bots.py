"""OpenSpiel's search bots as agents of the duplicate evaluation: IS-MCTS, and PIMC built on OpenSpiel's MCTS.

An evaluated agent normally sees ``act(observation, action_mask)`` only. A search bot needs a state to
search from, so it declares the *table* capability (``kabu_envs.agents.base.Capabilities``): the
evaluation hands it the raw env at its decision (``act_at_table(env)``), and the bot

1. rebuilds the OpenSpiel history of the episode from the env's state API (``history_from_env``: the
   generator's state when the deal began and the actions since, replayed with the shuffles recorded as
   chance outcomes);
2. never searches that true state: every world it searches is a **resample** (``Resampler``): the
   cards the seat cannot see are re-dealt, and a world counts only when the seat's OpenSpiel
   information state in it is the true one (rejection: a world in which some seat could not have
   acted as it did, or the seat would have seen something else, is drawn again).

This is OpenSpiel's own convention (a C++ game's ``ResampleFromInfostate`` reads the true state and
re-deals what the player does not know); a Python game cannot supply that method, so the resampler is
handed to the bots (``ISMCTSBot.set_resampler``). A test swaps hidden cards in the true state and checks
that the resampled worlds do not change.

Which cards are re-dealt, and how: the game's hook ``resample.RESAMPLER`` in its package (found through
the registry, ``GameSpec.hook``), an object with ``resample_deck(raw_env, seat, deck, rng) -> deck``:
the deck in play (the last shuffle's order) with the cards the seat cannot see re-dealt from what it
knows (Oicho-Kabu: every place but the dealt cards it sees where they lie; Kakeya: the other hands by
the consistent-deal sampler, ``kakeya/sampler.py``; Toy Card: a card of the seat's value in
its place). No hook (``ViewResampler``): the cards of the deck in play that the game's viewer does not
show the seat, permuted uniformly (right when every card the view shows was dealt from the deck in
play). Only the last shuffle is re-dealt: earlier decks (dealer selection, finished rounds or deals)
stay as they were.

Bots (``make_bot``; agent names ``openspiel:<bot>[:key=value,...]``: this module registers the family
``openspiel`` with ``kabu_envs.agents.registry`` through the ``kabu_envs.agents`` entry point):

* ``ismcts``: OpenSpiel's IS-MCTS (``open_spiel.python.algorithms.ismcts``, the Python one: it takes a
  resampler; the C++ ``pyspiel.ISMCTSBot`` calls the game's ``ResampleFromInfostate``, which a Python
  game cannot provide) with random roll-outs; ``simulations``, ``worlds`` (root worlds, resampled
  once per decision and reused), ``uct_c``, ``rollouts``.
* ``pimc``: Perfect-Information Monte Carlo: ``worlds`` resampled worlds, each searched by OpenSpiel's
  MCTS (``mcts.MCTSBot``, random roll-outs, ``simulations`` each); the action with the most root visits
  summed over the worlds. OpenSpiel's own ``PIMCBot`` is C++ only, not in the Python bindings, and
  calls ``ResampleFromInfostate`` and alpha-beta (two-player, deterministic games): it does not apply.

Every decision draws from the agent's own generator (``BaseAgent.rng``, re-seeded per deal by the
evaluation), so a seed fixes every decision.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from types import SimpleNamespace
from typing import Any, Protocol

import numpy as np
import pyspiel
from open_spiel.python.algorithms import ismcts, mcts

from kabu_envs import registry
from kabu_envs.agents.base import BaseAgent, Capabilities
from kabu_envs.agents.registry import parse_params
from kabu_envs.core import env_state
from kabu_envs.core.rng import legacy_random_state, make_rng
from kabu_envs.openspiel import register
from kabu_envs.openspiel.game import KabuGame, KabuState, _param, game_class

# A world is drawn again when it does not give the seat its information state; after this many draws the
# resampler gives up with an error (a resampler that cannot find the seat's worlds is a bug, not bad luck).
MAX_TRIES = 200


class DeckResampler(Protocol):
    """A game's resampling hook (``<package>/resample.py: RESAMPLER``)."""

    def resample_deck(
        self, raw_env: Any, seat: int, deck: Sequence[int], rng: np.random.Generator
    ) -> list[int]:
        """``deck`` (the deck in play, the last shuffle's order) with the cards ``seat`` cannot see
        re-dealt from what the seat knows; read from ``raw_env`` only what the seat may see, and from
        ``deck`` only the positions of the cards it sees."""
        ...


class _FullShuffles:
    """A real generator's shuffles recorded whole (order of every card, the forced last one too)."""

    def __init__(self, rng: np.random.Generator) -> None:
        self.rng = rng
        self.orders: list[list[int]] = []

    def permutation(self, n: int) -> np.ndarray:
        out = self.rng.permutation(n)
        self.orders.append([int(c) for c in out])
        return out

    def shuffle(self, x: np.ndarray) -> None:
        self.rng.shuffle(x)
        self.orders.append([int(c) for c in x])

    def __getattr__(self, name: str) -> Any:
        raise AttributeError(f"the OpenSpiel bots replay card shuffles only; the engine asked for {name!r}")


History = tuple[list[list[int]], list[int]]


def history_from_env(game_id: str, raw_env: Any) -> History:
    """The episode of a raw env of game ``game_id`` so far as OpenSpiel history: every shuffle's full
    card order, and the players' actions (read from the env's state API, ``state_dict``)."""
    data = raw_env.unwrapped.state_dict()
    if data["deck"] is not None:
        raise ValueError("the OpenSpiel bots replay seeded deals; this env's deck was stacked (reset deck=)")
    twin = registry.get(game_id).make_raw_env(**data["rules"])
    log = _FullShuffles(env_state.load_rng(data["rng"]))
    twin.np_random = log
    twin.reset()
    for a in data["actions"]:
        twin.step(a)
    return log.orders, [int(a) for a in data["actions"] if a is not None]


def replay(game: KabuGame, history: History) -> KabuState:
    """The OpenSpiel state of a history: chance nodes take the shuffles' cards in order, player nodes
    the moves (raises ``ValueError`` when the rules refuse a move or the history does not fit)."""
    shuffles, moves = history
    outcomes = [c for order in shuffles for c in order[:-1]]
    state = game.new_initial_state()
    i = j = 0
    while not state.is_terminal():
        if state.is_chance_node():
            if i == len(outcomes):
                break
            state.apply_action(outcomes[i])
            i += 1
        else:
            if j == len(moves):
                break
            try:
                state.apply_action(moves[j])
            except (ValueError, RuntimeError, pyspiel.SpielError) as exc:
                raise ValueError(f"move {j} ({moves[j]}) does not replay: {exc}") from None
            j += 1
    if i != len(outcomes) or j != len(moves):
        raise ValueError(f"the history does not replay: {i}/{len(outcomes)} outcomes, {j}/{len(moves)} moves")
    return state


def _view_card_ids(view: Any) -> set[int]:
    """Every card id a seat view shows (its zones, its hand: ``core.views``'s face cards)."""
    out: set[int] = set()
    stack = [view]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            if "kind" in item and isinstance(item.get("id"), int):
                out.add(item["id"])
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return out


class ViewResampler:
    """The generic hook: the cards of the deck in play that the game's viewer does not show the seat,
    dealt uniformly at random to their positions (every consistent world equally likely; the
    ``Resampler`` rejects the worlds the history rules out)."""

    def __init__(self, game_id: str) -> None:
        from kabu_envs.core.views import GenericViewer

        viewer = registry.get(game_id).hook("view", "VIEWER")
        self.viewer = viewer if viewer is not None else GenericViewer()

    def resample_deck(
        self, raw_env: Any, seat: int, deck: Sequence[int], rng: np.random.Generator
    ) -> list[int]:
        seen = _view_card_ids(self.viewer.seat_view(raw_env, seat))
        where = [i for i, c in enumerate(deck) if c not in seen]
        cards = sorted(deck[i] for i in where)  # a set: nothing of the hidden order is read
        out = list(deck)
        for i, k in zip(where, rng.permutation(len(cards)), strict=True):
            out[i] = cards[int(k)]
        return out


class Resampler:
    """Worlds consistent with one seat's information state, drawn from the true history (module
    docstring): the game's hook re-deals the deck in play, the world is replayed, and kept when the
    seat's information state in it is the true one."""

    def __init__(self, game: KabuGame) -> None:
        self.game = game
        hook = registry.get(game.game_id).hook("resample", "RESAMPLER")
        self.hook: DeckResampler = hook if hook is not None else ViewResampler(game.game_id)
        self.draws = 0  # worlds drawn, and kept (the rejection rate, for the docs)
        self.kept = 0

    def sample(self, history: History, state: KabuState, player: int, rng: np.random.Generator) -> KabuState:
        """A world of ``player``'s information at ``state`` (the state of ``history``)."""
        return self.draw(history, state, player, rng)[1]

    def draw(
        self, history: History, state: KabuState, player: int, rng: np.random.Generator
    ) -> tuple[History, KabuState]:
        """``sample``'s world with its history."""
        shuffles, moves = history
        if not shuffles:
            return history, replay(self.game, history)
        key = state.information_state_string(player)
        for _ in range(MAX_TRIES):
            self.draws += 1
            deck = self.hook.resample_deck(state.env, player, shuffles[-1], rng)
            if sorted(deck) != sorted(shuffles[-1]):
                raise ValueError(f"{self.game.game_id}: the resampler changed the deck's cards")
            drawn = ([*shuffles[:-1], deck], moves)
            try:
                world = replay(self.game, drawn)
            except ValueError:  # a move the rules refuse in this world: not a world of this history
                continue
            if world.information_state_string(player) == key:
                self.kept += 1
                return drawn, world
        raise RuntimeError(
            f"{self.game.game_id}: no world fits player {player}'s information in {MAX_TRIES} draws"
        )


def load_game(game_id: str, rule_options: Mapping[str, Any]) -> KabuGame:
    """The OpenSpiel game of a registry game with these rule options (what the env plays)."""
    register()
    game: KabuGame = game_class(game_id)({k: _param(v) for k, v in rule_options.items()})
    return game


class OpenSpielBot(BaseAgent):
    """An OpenSpiel bot playing one seat of the evaluation's env (the table protocol)."""

    name = "openspiel"
    capabilities = Capabilities(batch=False, table=True)
    PARAMS: dict[str, Any] = {}

    def __init__(self, game: str, seed: int | None = None, **options: Any) -> None:
        unknown = sorted(set(options) - set(self.PARAMS) - set(_rule_names(game)))
        if unknown:
            raise ValueError(f"{self.name}: unknown option(s) {unknown}; parameters: {sorted(self.PARAMS)}")
        params = {**self.PARAMS, **{k: v for k, v in options.items() if k in self.PARAMS}}
        for key, value in params.items():
            if type(value) is not type(self.PARAMS[key]) or value < (0.0 if key == "uct_c" else 1):
                raise ValueError(f"{self.name}: {key} must be a positive {type(self.PARAMS[key]).__name__}")
        super().__init__(seed=seed, **params)
        self.game_id = game
        self.game = load_game(game, {k: v for k, v in options.items() if k not in self.PARAMS})
        self.resampler = Resampler(self.game)
        self.decisions = 0
        self.seconds = 0.0

    def act_batch(
        self,
        observations: np.ndarray,
        action_masks: np.ndarray,
        rngs: Sequence[np.random.Generator] | None = None,
    ) -> np.ndarray:
        raise TypeError(
            f"{self.name} searches from the game's state: play it through the duplicate evaluation, which "
            "hands it the env (capabilities.table: act_at_table); observations alone are not enough"
        )

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        return int(self.act_batch(np.asarray(observation)[None], np.asarray(action_mask)[None])[0])

    def act_at_table(self, raw_env: Any) -> int:
        """The bot's action for the seat to act in ``raw_env`` (read only through the resampler)."""
        start = time.process_time()
        history = history_from_env(self.game_id, raw_env)
        state = replay(self.game, history)
        legal = state.legal_actions()
        action = legal[0] if len(legal) == 1 else self._search(history, state)
        self.decisions += 1
        self.seconds += time.process_time() - start
        return int(action)

    def _random_state(self) -> np.random.RandomState:
        """OpenSpiel's bots draw from a RandomState: one per decision, seeded from the agent's generator."""
        return legacy_random_state(int(self.rng.integers(2**31)))

    def _search(self, history: History, state: KabuState) -> int:
        """The bot's choice at ``state`` (a player node with several legal actions)."""
        raise NotImplementedError


def _rule_names(game: str) -> list[str]:
    import dataclasses

    return [f.name for f in dataclasses.fields(registry.get(game).config()) if f.init]


class ISMCTSAgent(OpenSpielBot):
    """OpenSpiel's IS-MCTS (Python), random roll-outs, our resampler."""

    name = "openspiel:ismcts"
    PARAMS: dict[str, Any] = {"simulations": 100, "worlds": 8, "uct_c": 2.0, "rollouts": 1}

    def _search(self, history: History, state: KabuState) -> int:
        p = self.params
        rs = self._random_state()
        player = state.current_player()
        resampler = self.resampler
        gen = make_rng(int(rs.randint(2**31)))
        evaluator = mcts.RandomRolloutEvaluator(n_rollouts=p["rollouts"], random_state=rs)
        bot = ismcts.ISMCTSBot(
            self.game,
            evaluator,
            p["uct_c"],
            p["simulations"],
            max_world_samples=p["worlds"],
            random_state=rs,
            final_policy_type=ismcts.ISMCTSFinalPolicyType.MAX_VISIT_COUNT,
        )
        bot.set_resampler(lambda root, _p: resampler.sample(history, root, player, gen))
        return int(bot.step(state))


class PIMCAgent(OpenSpielBot):
    """PIMC: resampled worlds, each searched by OpenSpiel's MCTS as a perfect-information game."""

    name = "openspiel:pimc"
    PARAMS: dict[str, Any] = {"simulations": 25, "worlds": 8, "uct_c": 2.0, "rollouts": 1}

    def _search(self, history: History, state: KabuState) -> int:
        p = self.params
        rs = self._random_state()
        player = state.current_player()
        gen = make_rng(int(rs.randint(2**31)))
        visits: dict[int, int] = {}
        evaluator = mcts.RandomRolloutEvaluator(n_rollouts=p["rollouts"], random_state=rs)
        bot = mcts.MCTSBot(
            _ReturnsOnly(self.game), p["uct_c"], p["simulations"], evaluator, solve=False, random_state=rs
        )
        for _ in range(p["worlds"]):
            world = self.resampler.sample(history, state, player, gen)
            root = bot.mcts_search(world)
            for child in root.children:
                visits[child.action] = visits.get(child.action, 0) + child.explore_count
        best = max(visits.values())
        return min(a for a, v in visits.items() if v == best)


class _ReturnsOnly:
    """The game as OpenSpiel's MCTS sees it: it refuses a game with a REWARDS model, but reads only the
    returns of terminal states (the rewards summed), which our states give: so it is shown a TERMINAL one."""

    def __init__(self, game: KabuGame) -> None:
        self.game = game

    def get_type(self) -> Any:
        kind = self.game.get_type()
        return SimpleNamespace(reward_model=pyspiel.GameType.RewardModel.TERMINAL, dynamics=kind.dynamics)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.game, name)


OPENSPIEL_PREFIX = "openspiel:"
BOTS: dict[str, Callable[..., OpenSpielBot]] = {"ismcts": ISMCTSAgent, "pimc": PIMCAgent}


def make_named_bot(game: str, name: str, seed: int | None = None, **rule_options: Any) -> OpenSpielBot:
    """The agent family ``openspiel`` (the ``kabu_envs.agents`` entry point, pyproject.toml): the bot an
    agent name ``openspiel:<bot>[:key=value,...]`` names, for ``game`` at ``rule_options``."""
    bot, params = parse_openspiel_name(name)
    return make_bot(game, bot, seed, **params, **rule_options)


def parse_openspiel_name(name: str) -> tuple[str, dict[str, Any]]:
    """``openspiel:<bot>[:key=value,...]`` -> (bot, parameters); each value is JSON (``100``, ``1.5``)."""
    bot, _, rest = name.removeprefix(OPENSPIEL_PREFIX).partition(":")
    if not name.startswith(OPENSPIEL_PREFIX) or not bot:
        raise ValueError(f"agent {name!r}: name the bot, e.g. 'openspiel:ismcts'")
    return bot, parse_params(name, rest)


def make_bot(game: str, bot: str, seed: int | None = None, **options: Any) -> OpenSpielBot:
    """The OpenSpiel bot ``bot`` (``ismcts``, ``pimc``) for ``game``; ``options``: the env's rule options
    and the bot's parameters."""
    if bot not in BOTS:
        raise ValueError(f"unknown OpenSpiel bot {bot!r}; bots: {sorted(BOTS)}")
    return BOTS[bot](game, seed=seed, **options)


__all__ = [
    "BOTS",
    "ISMCTSAgent",
    "PIMCAgent",
    "Resampler",
    "history_from_env",
    "make_bot",
    "make_named_bot",
    "parse_openspiel_name",
    "replay",
]
