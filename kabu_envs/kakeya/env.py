"""The Kakeya PettingZoo AEC environment: a thin adapter over ``Game``.

Environment card
- Agents: ``player_0 .. player_{n-1}`` (n = 4 or 6); partnerships ``seat % (n // 2)``.
- Actions: ``Discrete(58)``: PLAY(card)=0..51, TRUMP(suit)=52..55, LEAD_SELF=56,
  LEAD_PARTNER=57; always pass the ``action_mask``.
- Observations: ``{"observation": float32[obs_spec(cfg).size], "action_mask": int8[58]}``;
  the layout is ``kabu_envs.kakeya.observation.obs_spec`` (docs/kakeya.md#observation).
- Rewards: paid at the end of each deal: partnership stone change (``reward="stones"``)
  or normalised egara difference (``reward="egara"``); sitting-out seats get 0.
- Render: ``"ansi"`` returns, ``"human"`` prints, a god view (all hands shown); ``"rgb_array"``
  returns a picture (uint8, 640 x 1090 x 3 with four players, 720 x 1250 x 3 with six; pillow,
  ``picture.py``). With ``render_seat=i`` only seat i's own hand is shown (the others as card counts
  or card backs); ``env.unwrapped.render_frame(seat)`` draws any view.
- Version history: v0 - first release (Rensho had to follow suit when it was its holder's only
  card of the led suit); v1 - option ``rensho_follow``, default ``"free"``: Rensho is never forced
  out to follow suit (the Kakeya text), so default-option masks, play and returns can differ from v0
  (``rensho_follow="must_follow"`` plays as v0 did; ``kakeya_v0`` is that alias, deprecated);
  ``game.results`` keeps the latest 16 deals; v2 - the Kakeya text's defaults: ``rensho_rule="seed"``
  (the ace of clubs is Rensho under clubs trumps) and, with six players, ``six_player_mode="all_play"``
  (``kakeya_v1`` is v2 with v1's defaults, deprecated) (docs/kakeya.md#version-history).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from kabu_envs.aec_base import CardGameAECEnv
from kabu_envs.aec_wrappers import wrap
from kabu_envs.kakeya.actions import NUM_ACTIONS
from kabu_envs.kakeya.config import make_config
from kabu_envs.kakeya.game import Game
from kabu_envs.kakeya.observation import Encoder, obs_spec
from kabu_envs.kakeya.render import render_text


class raw_env(CardGameAECEnv):  # noqa: N801 - PettingZoo's naming convention
    """Kakeya as a PettingZoo AECEnv; ``options`` are the rule options of ``make_config``."""

    metadata = {
        "name": "kakeya_v2",
        "render_modes": ["ansi", "human", "rgb_array"],
        "render_fps": 2,
        "is_parallelizable": False,
    }

    def __init__(
        self, render_mode: str | None = None, render_seat: int | None = None, **options: Any
    ) -> None:
        self.config = make_config(**options)
        self._encoder = Encoder(self.config)
        super().__init__(
            self.config.num_players,
            NUM_ACTIONS,
            obs_spec(self.config),
            render_mode=render_mode,
            render_seat=render_seat,
        )
        self._rewards_dirty = True  # the rewards dict may hold non-zero values

    def _new_game(self, rng: np.random.Generator, deck: list[int] | None) -> Game:
        return Game(self.config, rng, deck)

    def _encode(self, seat: int) -> np.ndarray:
        return self._encoder.encode(self.game, seat)

    def _render_text(self) -> str:
        if self.game is None:
            return "Kakeya: call reset() first"
        return render_text(self.game, self.render_seat)

    def _render_frame(self, seat: int | None) -> np.ndarray:
        from kabu_envs.kakeya.picture import draw_table  # pillow only when a frame is asked for

        return draw_table(self.game, seat)

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """Same result as the base class; the mask is unpacked from the engine's legal-action
        bits together with the observation (one numpy unpack per call)."""
        seat = self._seat_index[agent]
        game = self.game
        legal = game.legal_bits() if game.current_player == seat and not game.terminal else 0
        obs, mask = self._encoder.encode_with_mask(game, seat, legal)
        return {"observation": obs, "action_mask": mask}

    def _settle_step(self) -> None:
        """The base class's settle, skipping the reward dicts on the (most) steps that pay nothing."""
        game = self.game
        paid = game.pop_rewards()
        agents = self.possible_agents
        if paid is game.zero_rewards and not self._rewards_dirty and not game.terminal:
            self.agent_selection = agents[game.current_player]
            return
        self.rewards = {a: float(paid[i]) for i, a in enumerate(agents)}
        self._rewards_dirty = paid is not game.zero_rewards
        if game.terminal:
            self.terminations = dict.fromkeys(self.agents, True)
        else:
            self.agent_selection = agents[game.current_player]
        self._accumulate_rewards()

    @property
    def stones(self) -> list[int]:
        """Stones of every seat now."""
        return list(self.game.stones)


def env(
    render_mode: str | None = None,
    illegal_reward: float | None = None,
    render_seat: int | None = None,
    illegal_action: str | None = None,
    **options: Any,
) -> Any:
    """The wrapped env: ``raw_env`` + ``AssertOutOfBoundsWrapper`` + ``OrderEnforcingWrapper``.

    With ``illegal_action="penalty"`` (or ``illegal_reward`` set), ``TerminateIllegalWrapper`` is added
    first: an illegal action ends the episode with ``illegal_reward`` (default -1.0) for the offender
    instead of raising (the views' option names, ``kabu_envs.aec_wrappers.illegal_mode``). The standard
    wrappers are the lean subclasses of ``kabu_envs.aec_wrappers`` (same checks, no ``__getattr__`` chains).
    """
    return wrap(
        raw_env(render_mode=render_mode, render_seat=render_seat, **options), illegal_reward, illegal_action
    )
