"""The thin PettingZoo AEC adapter shared by every game.

A game engine (pure Python, see ``GameEngine``) owns the rules; this class only maps
seats to agent names, builds the observation dict and the int8 action mask,
accumulates rewards and handles the AEC termination dance. Game modules subclass it
with an observation encoder and a renderer.
"""

from __future__ import annotations

from typing import Any, ClassVar, Protocol

import gymnasium
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from kabu_envs.core.obs_spec import ObsSpec
from kabu_envs.core.seats import agent_names


class GameEngine(Protocol):
    """What the adapter needs from a rules engine."""

    num_players: int
    num_actions: int
    current_player: int  # -1 once the episode is over
    terminal: bool

    def legal_actions(self) -> list[int]: ...

    def apply_action(self, action: int) -> None: ...

    def pop_rewards(self) -> np.ndarray:
        """Rewards paid since the last call, one float per seat (then cleared)."""
        ...


class _FastDiscrete(spaces.Discrete):
    """``Discrete`` with a fast path for plain ints in ``contains``.

    ``AssertOutOfBoundsWrapper`` calls ``contains`` on every step, and gymnasium's version builds
    ``np.iinfo`` each time; for a Python int the answer is just the range check (same result).
    """

    def contains(self, x: Any) -> bool:
        if type(x) is int:
            return self._lo <= x < self._hi
        return super().contains(x)

    def __init__(self, n: int) -> None:
        super().__init__(n)
        self._lo, self._hi = int(self.start), int(self.start) + int(self.n)


class CardGameAECEnv(AECEnv):
    """Base AEC env: subclasses set ``metadata`` and implement the hooks below."""

    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["ansi", "human"], "is_parallelizable": False}

    # --- hooks -----------------------------------------------------------------
    def _new_game(self, rng: np.random.Generator, deck: list[int] | None) -> GameEngine:
        raise NotImplementedError

    def _encode(self, seat: int) -> np.ndarray:
        """The flat float32 observation of ``seat`` (only what it may see)."""
        raise NotImplementedError

    def _render_text(self) -> str:
        raise NotImplementedError

    # --- construction ------------------------------------------------------------
    def __init__(
        self,
        num_players: int,
        num_actions: int,
        obs_spec: ObsSpec,
        render_mode: str | None = None,
    ) -> None:
        super().__init__()
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(
                f"render_mode={render_mode!r} is not supported; use one of "
                f"{self.metadata['render_modes']} or None"
            )
        self.render_mode = render_mode
        self.obs_spec = obs_spec
        self.num_actions = num_actions
        self.possible_agents = list(agent_names(num_players))
        self._seat_index = {a: i for i, a in enumerate(self.possible_agents)}
        obs_space = spaces.Dict(
            {
                "observation": spaces.Box(
                    low=obs_spec.low, high=obs_spec.high, shape=(obs_spec.size,), dtype=np.float32
                ),
                "action_mask": spaces.Box(0, 1, shape=(num_actions,), dtype=np.int8),
            }
        )
        act_space = _FastDiscrete(num_actions)
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: act_space for a in self.possible_agents}
        self.game: GameEngine | None = None
        self.np_random: np.random.Generator | None = None
        self._no_mask = np.zeros(num_actions, dtype=np.int8)
        self._mask_cache: dict[tuple[int, ...], np.ndarray] = {}

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    # --- AEC API -------------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        deck = None
        if options:
            unknown = set(options) - {"deck"}
            if unknown:
                # PettingZoo's api_test resets with options={"options": 1}, so an unknown key cannot
                # raise; it is named in a warning instead of being dropped silently.
                gymnasium.logger.warn(
                    f"reset(): unknown option(s) {sorted(unknown)} ignored; the only one is 'deck'"
                )
            deck = options.get("deck")
            if deck is not None and (isinstance(deck, (str, bytes)) or not hasattr(deck, "__iter__")):
                raise ValueError(f"reset(): the deck must be a sequence of card ids, got {deck!r}")
        if seed is not None or self.np_random is None:
            self.np_random = np.random.Generator(np.random.PCG64(seed))
        self.game = self._new_game(self.np_random, None if deck is None else list(deck))
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {} for a in self.agents}
        self._settle_step()
        if self.render_mode == "human":
            self.render()

    def step(self, action: int) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self._cumulative_rewards[agent] = 0.0
        self.game.apply_action(int(action))
        self._settle_step()
        if self.render_mode == "human":
            self.render()

    def _settle_step(self) -> None:
        """Copy the engine's rewards and turn into the AEC dicts."""
        game = self.game
        paid = game.pop_rewards().tolist()
        agents = self.possible_agents
        if any(paid):
            self.rewards = dict(zip(agents, paid, strict=True))
            self._accumulate_rewards()
        else:  # most steps pay nothing: skip the per-agent float conversions and additions
            self.rewards = dict.fromkeys(agents, 0.0)
        if game.terminal:
            self.terminations = dict.fromkeys(self.agents, True)
        else:
            self.agent_selection = agents[game.current_player]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        seat = self._seat_index[agent]
        game = self.game
        if not game.terminal and game.current_player == seat:
            legal = tuple(game.legal_actions())
            mask = self._mask_cache.get(legal)
            if mask is None:  # few distinct legal sets exist: build each mask once
                mask = self._no_mask.copy()
                mask[list(legal)] = 1
                self._mask_cache[legal] = mask
            mask = mask.copy()
        else:
            mask = self._no_mask.copy()
        return {"observation": self._encode(seat), "action_mask": mask}

    def action_mask(self, agent: str | None = None) -> np.ndarray:
        """The int8 legal-action mask of ``agent`` (default: the one to act)."""
        return self.observe(agent or self.agent_selection)["action_mask"]

    def render(self) -> str | None:
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode; pass render_mode='ansi'.")
            return None
        text = self._render_text()
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        pass
