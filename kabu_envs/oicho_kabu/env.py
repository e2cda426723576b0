"""Oicho-Kabu as a PettingZoo AEC environment (``oicho_kabu_v2``).

Environment card
----------------
- Agents: ``player_0 .. player_{n-1}`` (``num_players`` 2..8, default 4); one seat deals, the others bet.
  Roles, the dealer's position and the phase are in the observation, never in the agent name.
- Actions: ``Discrete(8 + len(bet_sizes) + 1)``: ``STAND=0, DRAW=1, ESCAPE=2, KEEP=3, REDEAL=4,
  TAKE_TOP=5, TAKE_BOTTOM=6, TAKE_FOURTH=7`` and ``BET(k) = 8 + k`` (``k = 0`` stakes nothing,
  ``k >= 1`` stakes ``bet_sizes[k-1]``); see ``kabu_envs.oicho_kabu.Action``.
- Observations: ``{"observation": Box(0, 1, (obs_spec(cfg).size,), float32), "action_mask":
  Box(0, 1, (num_actions,), int8)}``; the layout is ``observation.obs_spec(cfg)`` (named pieces,
  documented in docs/oicho_kabu.md#observation). The mask is all zeros for every seat that is not
  to act.
- Rewards: chips won or lost in the round, paid to every seat when the round ends; they sum to zero.
  ``env.unwrapped.chips`` holds each seat's chips.
- Episode: ``max_rounds`` rounds (default 1), or fewer if fewer than two seats have chips left.
- Options: every rule option of docs/oicho_kabu.md#options (``rules=`` preset plus overrides);
  unknown or invalid options raise ``RuleConfigError`` (a ``ValueError``) naming them.
  ``reset(seed=s, options={"deck": [ids...]})`` stacks the deck (those ids are drawn first, in order).
- Render: ``"ansi"`` returns, ``"human"`` prints, a text table; ``"rgb_array"`` returns a picture
  (uint8, 560 x 900 x 3, 652 x 900 x 3 with five to eight players; pillow, ``picture.py``). The god
  view by default; ``render_seat=i`` shows only what seat i may see (``render.visibility``), and
  ``env.unwrapped.render_frame(seat)`` draws any view.
- Illegal actions raise ``IllegalActionError`` (a ``ValueError`` listing the legal actions).
  ``env(illegal_reward=x)`` instead adds PettingZoo's ``TerminateIllegalWrapper``: an illegal action
  ends the episode, the offender gets ``x`` and everyone else 0.

Version history:

- v0 — first release.
- v1 — (``oicho_kabu_v1``; ``oicho_kabu_v0`` is gone and its import says so) the ``standard``
  rules play bit for bit as before (same golden playthrough, same evaluations); ``kansai`` and
  ``kabufuda_site`` do not, and any rule set with ``pin_basami`` scores 1-1-1 differently.

  * ``free_draw`` (on in ``kansai``) is the bettors' permission to draw on 7, 8, 9; a value <= 3
    must still draw (it used to allow STAND there too), and it no longer applies to the dealer:
    ``kansai`` sets ``dealer_draw_rule="free"``, so the Kansai dealer's masks are unchanged.
  * A hand that qualifies for several yaku takes the one that pays its holder most (multiplier before
    rank): 1-1-1 with ``pin_basami`` is an arashi x3, no longer a pin-basami x1.
  * New option ``dealer_selection_each_deal`` (on in ``kabufuda_site``): selection draws before every
    deal, the others bet and decide in the order of their selection cards, and the observation gains
    the public ``selection_cards`` piece (``num_players * 10`` values): the ``kabufuda_site``
    observation is larger, so policies trained on it do not fit any more.
  * ``Game.log`` holds the events of the current deal only (bounded memory in long episodes).
- v2 — (``oicho_kabu_v2``, ids ``kabu_envs/OichoKabu-v2``, ``kabu_envs/OichoKabuBettor-v2``,
  ``kabu_envs/OichoKabuDealer-v2``) the presets follow their sources.
  ``oicho_kabu_v1`` is v2 with v1's values (deprecated, kept for one release).

  * ``standard``: the dealer is chosen by the draw closest to 9 (``dealer_selection="fixed"`` keeps
    player_0 dealing) and the deal passes on all four of the encyclopedia's conditions
    (``dealer_change=("deals", "bust", "doubled", "low_hand")``); the dealer holds ``shippin`` too
    (the arashi sentence names "the dealer's shippin"; the Kansai section removes it as a change).
  * ``kansai``: the main game's dealer selection and dealer changes, as ``standard`` (the Kansai
    section changes neither).
  * ``standard`` and ``kansai``: an unbacked spread is turned up and dealt one face-up card after the
    draws, seen by every seat, never settled (new option ``unbacked_spread_card``; the observation
    keeps its size).
  * ``kabufuda_site``: no third card on 7 or more for anyone (``pair_may_draw=False``), two 0s go by
    ``tie_rule`` (``zero_zero="tie"``), decisions in asking order (new option ``decision_order``),
    ``bet_sizes=(1, 5, 10, 25)`` so that one bettor reaches the domae (same number of actions).
  * Every preset: ``yaku_choice="showdown"``: a hand holding several yaku takes the one best for its
    holder against the opposing hand (1-1-1 with ``pin_basami`` wins x1 against the dealer's 2-2-2).
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from kabu_envs.aec_base import CardGameAECEnv
from kabu_envs.aec_wrappers import wrap
from kabu_envs.oicho_kabu.actions import num_actions
from kabu_envs.oicho_kabu.config import Config, make_config
from kabu_envs.oicho_kabu.game import Game
from kabu_envs.oicho_kabu.observation import Encoder, obs_spec
from kabu_envs.oicho_kabu.render import render_text


class raw_env(CardGameAECEnv):  # noqa: N801 - PettingZoo's naming convention
    """The unwrapped Oicho-Kabu AEC env; ``options`` are the rule options (see ``make_config``)."""

    metadata: ClassVar[dict[str, Any]] = {
        "name": "oicho_kabu_v2",
        "render_modes": ["ansi", "human", "rgb_array"],
        "render_fps": 2,
        "is_parallelizable": False,
    }

    def __init__(
        self, render_mode: str | None = None, render_seat: int | None = None, **options: Any
    ) -> None:
        self.config: Config = make_config(**options)
        self._encoder = Encoder(self.config)
        super().__init__(
            num_players=self.config.num_players,
            num_actions=num_actions(len(self.config.bet_sizes)),
            obs_spec=obs_spec(self.config),
            render_mode=render_mode,
            render_seat=render_seat,
        )

    def _new_game(self, rng: np.random.Generator, deck: list[int] | None) -> Game:
        return Game(self.config, rng, deck)

    def _encode(self, seat: int) -> np.ndarray:
        return self._encoder.encode(self.game, seat)

    def _render_text(self) -> str:
        if self.game is None:
            return "Oicho-Kabu: call reset() first"
        return render_text(self.game, self.render_seat)

    def _render_frame(self, seat: int | None) -> np.ndarray:
        from kabu_envs.oicho_kabu.picture import draw_table  # pillow only when a frame is asked for

        return draw_table(self.game, seat)

    @property
    def chips(self) -> dict[str, int]:
        """Each seat's chips now (they carry over between the rounds of an episode)."""
        if self.game is None:
            return dict.fromkeys(self.possible_agents, self.config.bankroll)
        return dict(zip(self.possible_agents, self.game.chips, strict=True))


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
    instead of raising (the views' option names, ``kabu_envs.aec_wrappers.illegal_mode``). The two
    standard wrappers are the subclasses of ``kabu_envs.aec_wrappers`` that read the per-step AEC
    attributes directly (same behaviour, a third of the per-step cost).
    """
    return wrap(
        raw_env(render_mode=render_mode, render_seat=render_seat, **options), illegal_reward, illegal_action
    )
