"""A single-agent Gymnasium view of a multi-seat AEC card game.

One *learner* (one seat, or several seats such as a Kakeya partnership) acts through
``step()``; every other seat is played inside ``step()`` by agents drawn from an
``OpponentPool``. Why a dedicated wrapper rather than PettingZoo's SB3 tutorial: the
tutorial returned the reward of the *next* agent (PettingZoo issue #1147). Here the
reward of a ``step()`` is the learner's OWN reward summed over every AEC step since its
last action, including the terminal payout when the episode ends on another seat's
move. With several learner seats the reward is their mean (Kakeya partners are paid
equally, so it equals each seat's reward).

Illegal actions (since 0.3.0, the views ``-v2``/``ToyCard-v1``): ``illegal_action="penalty"`` (default)
ends the episode with reward ``illegal_reward`` (-1.0), ``info["illegal_action"]`` set and a warning
(once per env) naming the action and the legal ones: the action is never remapped. So Gymnasium's and
SB3's ``check_env``, which step with unmasked random actions, pass with the defaults, as PettingZoo's
classic envs tolerate an illegal move. ``illegal_action="raise"`` raises ``IllegalActionError`` instead
(the AEC env's message: the action's name and the legal ones); training uses it, since a masked policy
that picks an illegal action is a bug. The AEC envs take the same two names (``illegal_penalty``, the
views' old name, still works with a ``DeprecationWarning``).

``info["action_mask"]`` (from ``reset`` and every ``step``) holds the legal actions of the learner's
next decision, as Gymnasium's Taxi: vector envs with next-step autoreset (Gymnasium 1.x) call
``action_masks()`` on a finished sub-env (all False) but hand over the reset's ``info``.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from kabu_envs.aec_base import RESET_OPTIONS, known_reset_options
from kabu_envs.aec_wrappers import illegal_mode
from kabu_envs.agents.base import BaseAgent, as_agent
from kabu_envs.core.errors import (
    ActionTypeError,
    IllegalActionError,
    action_id,
    action_type_reason,
    check_seed,
)
from kabu_envs.core.seats import seat_of

LearnerSeats = Callable[[Any, np.random.Generator], Sequence[int]]


class OpponentPool:
    """Weighted agents; each non-learner seat draws one per episode.

    ``members`` are ``(agent, weight)`` pairs; the pool is mutable so that training
    can add frozen snapshots while the env runs (``add``), keeping at most
    ``max_members`` of the members added later (oldest dropped first).
    """

    def __init__(self, members: Sequence[tuple[Any, float]], max_added: int = 8) -> None:
        if not members:
            raise ValueError("an OpponentPool needs at least one agent")
        for agent, w in members:
            if not w >= 0:
                raise ValueError(f"pool member {agent!r} has weight {w}: weights must be >= 0")
        # every member as an agent of the protocol (a user's act-only object adapted once, here)
        self.fixed: list[tuple[BaseAgent, float]] = [(as_agent(a), float(w)) for a, w in members]
        self.added: list[BaseAgent] = []
        self.added_weight = 0.0
        self.max_added = max_added

    @classmethod
    def of(cls, opponents: Any) -> OpponentPool:
        """Coerce an agent, a list of agents (uniform) or a pool into a pool."""
        if isinstance(opponents, OpponentPool):
            return opponents
        if isinstance(opponents, (list, tuple)):
            return cls([(a, 1.0) for a in opponents])
        return cls([(opponents, 1.0)])

    def add(self, agent: Any, total_weight: float) -> None:
        """Add a snapshot; all added members share ``total_weight`` equally."""
        self.added.append(as_agent(agent))
        if len(self.added) > self.max_added:
            self.added.pop(0)
        self.added_weight = float(total_weight)

    def members(self) -> tuple[list[BaseAgent], np.ndarray]:
        agents = [a for a, _ in self.fixed] + self.added
        weights = [w for _, w in self.fixed]
        if self.added:
            weights += [self.added_weight / len(self.added)] * len(self.added)
        w = np.asarray(weights, dtype=float)
        if w.sum() <= 0:
            raise ValueError("opponent pool weights sum to zero")
        return agents, w / w.sum()

    def passive_reasons(self) -> list[str]:
        """When every member that can be drawn says why it never makes a move that hands another seat
        a turn (every agent's ``passive_reason()`` hook, e.g. a bettor whose stakes are all below the
        smallest bet size), those reasons, one per kind of agent; else []."""
        agents, p = self.members()
        reasons: list[str] = []
        for agent, weight in zip(agents, p, strict=True):
            if weight <= 0:
                continue
            reason = agent.passive_reason()
            if not reason:
                return []
            if reason not in reasons:
                reasons.append(str(reason))
        return reasons

    def sample(self, rng: np.random.Generator) -> Any:
        agents, p = self.members()
        return agents[int(rng.choice(len(agents), p=p))]


def deprecated_penalty(illegal_penalty: float | None, illegal_reward: float | None) -> float | None:
    """``illegal_reward``, or the deprecated ``illegal_penalty`` (0.2's name in the views) with a
    ``DeprecationWarning``; both at once raise."""
    if illegal_penalty is None:
        return illegal_reward
    if illegal_reward is not None:
        raise ValueError("illegal_penalty is the deprecated name of illegal_reward: give only illegal_reward")
    warnings.warn(
        "illegal_penalty is deprecated (0.3.0): use illegal_reward, the name the AEC envs take",
        DeprecationWarning,
        stacklevel=3,
    )
    return float(illegal_penalty)


def any_seat_of(seats: Sequence[int]) -> LearnerSeats:
    """Learner plays one seat drawn uniformly from ``seats`` each episode."""
    seats = [int(s) for s in seats]
    if not seats:
        raise ValueError("no learner seats given")
    return lambda env, rng: (seats[int(rng.integers(len(seats)))],)


class SingleAgentView(gymnasium.Env):
    """Gymnasium env: the learner's seats act via ``step``, the rest via the pool.

    ``aec_factory(render_mode)`` builds the AEC env; ``learner_seats(aec, rng)`` picks
    the seats the learner controls after each deal is reset (so it may depend on the
    deal, e.g. which seat was drawn to deal).

    ``reset(seed, options)``: the seed is checked like the AEC env's (a non-negative int or
    NumPy integer, or None); ``options={"deck": [...]}`` is passed to the AEC env, any other key
    is ignored with the same warning the AEC env gives (PettingZoo's and Gymnasium's checkers
    pass unknown keys). ``step(action)`` takes an int action id or a NumPy integer (0-d integer
    arrays too); a float or bool raises ``ActionTypeError`` whatever ``illegal_action`` says.

    Rendering: ``render_mode="ansi"`` returns the AEC env's text. ``render_mode="rgb_array"`` (what
    SB3's ``make_vec_env`` passes to ``gymnasium.make``) returns the AEC env's picture of the table
    (uint8, H x W x 3) as ``render_seat`` sees it: ``"learner"`` (default) is the learner's seat that
    acts now (its first seat between its turns), so the frame shows no more than the policy sees;
    ``None`` is the god view; an int is that seat. A game whose AEC env draws no frames (no
    ``"rgb_array"`` in its ``metadata["render_modes"]``) still constructs with that mode, and
    ``render()`` raises ``NotImplementedError`` saying so (a clear error rather than a silent
    ``None`` that would break a video recorder later). Training never calls ``render()``, and
    ``step()`` does no rendering work in any mode.
    """

    metadata = {"render_modes": ["ansi"], "render_fps": 2}
    # the spaces are set in __init__ (narrower than gymnasium.Env's ``Space`` declarations)
    observation_space: spaces.Box
    action_space: spaces.Discrete

    def __init__(
        self,
        aec_factory: Callable[[str | None], Any],
        learner_seats: LearnerSeats | Sequence[int],
        opponents: Any,
        illegal_action: str = "penalty",
        illegal_reward: float | None = None,
        render_mode: str | None = None,
        max_redeals: int = 1000,
        render_seat: int | str | None = "learner",
        illegal_penalty: float | None = None,
    ) -> None:
        illegal_reward = deprecated_penalty(illegal_penalty, illegal_reward)
        # the AEC envs' vocabulary and checks ("raise" with a reward is refused)
        illegal_action, reward = illegal_mode(illegal_action, illegal_reward)
        if render_mode not in (None, "ansi", "rgb_array"):
            raise ValueError(
                f"render_mode={render_mode!r} is not supported; use 'ansi', 'rgb_array' "
                "(frames only where the game draws them) or None"
            )
        if not (
            render_seat is None or render_seat == "learner" or isinstance(render_seat, (int, np.integer))
        ):
            raise ValueError(f"render_seat={render_seat!r}: 'learner', None (the god view) or a seat number")
        self.render_mode = render_mode
        self.render_seat = render_seat
        self._frames = False  # does the AEC env draw rgb_array frames?
        if render_mode == "rgb_array":
            self.aec = aec_factory(None)
            if "rgb_array" in self.aec.metadata.get("render_modes", ()):
                self.aec = aec_factory("rgb_array")
                self._frames = True
                self.metadata = {**type(self).metadata, "render_modes": ["ansi", "rgb_array"]}
                if isinstance(render_seat, (int, np.integer)):
                    self.aec.unwrapped._check_render_seat(render_seat, "render_seat")
        else:
            self.aec = aec_factory(render_mode)
        self.aec.reset(seed=0)
        self.learner_fn: LearnerSeats = (
            learner_seats if callable(learner_seats) else any_seat_of(list(learner_seats))
        )
        self.pool = OpponentPool.of(opponents)
        self.illegal_action = illegal_action
        self.illegal_reward = reward
        self._warned_illegal = False
        self.max_redeals = max_redeals
        first = self.aec.possible_agents[0]
        box = self.aec.observation_space(first)["observation"]
        # plain Gymnasium spaces: saved models must not pickle a game module's space classes
        self.observation_space = spaces.Box(box.low, box.high, box.shape, np.float32)
        self.action_space = spaces.Discrete(int(self.aec.action_space(first).n))
        self._learners: tuple[str, ...] = ()
        self._seat_agents: dict[str, Any] = {}
        self._pending = 0.0
        self._done = True

    # --- helpers -----------------------------------------------------------------
    def _learner_reward(self) -> float:
        rewards = self.aec.rewards
        return float(np.mean([rewards.get(a, 0.0) for a in self._learners]))

    def _learner_over(self) -> tuple[bool, bool]:
        aec = self.aec
        term = any(aec.terminations.get(a, True) for a in self._learners)
        trunc = any(aec.truncations.get(a, False) for a in self._learners)
        return term, trunc

    def _advance(self) -> float:
        """Play the other seats until a learner seat is to act or the learner is done."""
        aec = self.aec
        total = 0.0
        while True:
            term, trunc = self._learner_over()
            if term or trunc:
                return total
            agent = aec.agent_selection
            if agent in self._learners:
                return total
            if aec.terminations[agent] or aec.truncations[agent]:
                aec.step(None)
            elif (player := self._seat_agents[agent]).capabilities.table:  # a search bot reads the table
                aec.step(player.act_at_table(aec))
            else:
                obs = aec.observe(agent)
                # no int(): the AEC env takes NumPy integers and refuses a float instead of truncating it
                aec.step(player.act(obs["observation"], obs["action_mask"]))
            total += self._learner_reward()

    def _obs(self) -> np.ndarray:
        agent = self.aec.agent_selection
        if agent not in self._learners:
            agent = self._learners[0]
        return np.asarray(self.aec.observe(agent)["observation"], dtype=np.float32)

    def _info(self) -> dict[str, Any]:
        return {
            "learner_seats": self._learners,
            "acting": self.aec.agent_selection,
            "action_mask": self.action_masks(),
        }

    @property
    def illegal_penalty(self) -> float:
        """Deprecated name of ``illegal_reward``."""
        warnings.warn(
            "SingleAgentView.illegal_penalty is deprecated; use illegal_reward",
            DeprecationWarning,
            stacklevel=2,
        )
        return self.illegal_reward

    def _illegal_error(self, action: int, mask: np.ndarray) -> IllegalActionError:
        """The AEC env's error for ``action`` (its name, the seat, the legal actions by name)."""
        unwrapped = self.aec.unwrapped
        if hasattr(unwrapped, "_action_error"):
            err: IllegalActionError = unwrapped._action_error(action, "")
            return err
        return IllegalActionError(
            action, np.flatnonzero(mask).tolist(), seat=seat_of(self.aec.agent_selection)
        )

    # --- Gymnasium API ---------------------------------------------------------------
    def reset(
        self, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        super().reset(seed=None if seed is None else check_seed(seed))
        rng = self.np_random
        known = getattr(self.aec.unwrapped, "reset_options", RESET_OPTIONS)
        aec_options = known_reset_options(options, known) or None
        for _ in range(self.max_redeals):
            self.aec.reset(seed=int(rng.integers(2**63 - 1)), options=aec_options)
            names = self.aec.possible_agents
            self._learners = tuple(names[int(s)] for s in self.learner_fn(self.aec, rng))
            self._seat_agents = {}
            reset_done: set[int] = set()
            for a in names:
                if a in self._learners:
                    continue
                agent = self.pool.sample(rng)
                self._seat_agents[a] = agent
                if id(agent) not in reset_done:
                    reset_done.add(id(agent))
                    agent.reset(int(rng.integers(2**63 - 1)))
            self._pending = self._advance()
            term, trunc = self._learner_over()
            if not (term or trunc):
                self._done = False
                return self._obs(), self._info()
            passive = self.pool.passive_reasons()
            if passive:  # no later deal can differ: say why now, not after max_redeals deals
                raise RuntimeError(
                    "the learner got no turn, and no deal will give it one: " + "; ".join(passive)
                )
        raise RuntimeError(f"the learner got no turn in {self.max_redeals} deals; check learner_seats")

    def action_masks(self) -> np.ndarray:
        """Legal actions of the learner's current decision (bool, for MaskablePPO)."""
        if self._done:
            return np.zeros(self.action_space.n, dtype=bool)
        return np.asarray(self.aec.observe(self.aec.agent_selection)["action_mask"], dtype=bool)

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        if self._done:
            raise RuntimeError("step() called on a finished episode; call reset() first")
        mask = self.action_masks()
        as_int = action_id(action)
        if as_int is None:
            raise ActionTypeError(
                action,
                np.flatnonzero(mask).tolist(),
                seat=seat_of(self.aec.agent_selection),
                reason=action_type_reason(action, mask.size),
            )
        action = as_int
        if not (0 <= action < mask.size and mask[action]):
            error = self._illegal_error(action, mask)
            if self.illegal_action == "raise":
                raise error
            if not self._warned_illegal:  # once per env: a random-action checker steps illegally often
                self._warned_illegal = True
                warnings.warn(
                    f"{error}: the episode ends with reward {self.illegal_reward} (illegal_action='penalty'; "
                    "'raise' raises instead); warned once per env",
                    RuntimeWarning,
                    stacklevel=2,
                )
            self._done = True
            info = self._info() | {"illegal_action": action}
            return self._obs(), self.illegal_reward, True, False, info
        reward = self._pending
        self._pending = 0.0
        self.aec.step(action)
        reward += self._learner_reward()
        reward += self._advance()
        term, trunc = self._learner_over()
        self._done = term or trunc
        return self._obs(), float(reward), term, trunc and not term, self._info()

    def render(self) -> Any:
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode; pass render_mode='ansi'.")
            return None
        if self.render_mode == "rgb_array" and not self._frames:
            raise NotImplementedError(
                f"render_mode='rgb_array': {type(self.aec.unwrapped).__name__} does not draw frames yet "
                "(its render modes are "
                f"{self.aec.metadata.get('render_modes')}); the view accepts the mode so that "
                "construction (e.g. SB3's make_vec_env) works, but render() has no frame to return. "
                "Use render_mode='ansi' for text."
            )
        if self.render_mode == "rgb_array":
            return self.aec.unwrapped.render_frame(self._frame_seat())
        return self.aec.render()

    def _frame_seat(self) -> int | None:
        """The seat whose view ``render()`` draws (see ``render_seat``)."""
        if self.render_seat != "learner":
            return None if self.render_seat is None else int(self.render_seat)
        if not self._learners:
            raise RuntimeError("render(): call reset() first (the learner's seat is chosen by reset)")
        agent = self.aec.agent_selection
        return seat_of(agent if agent in self._learners else self._learners[0])

    def close(self) -> None:
        self.aec.close()
