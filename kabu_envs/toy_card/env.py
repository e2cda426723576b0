"""Toy Card as a PettingZoo AEC environment (``toy_card_v0``).

Environment card
- Agents: ``player_0 .. player_{n-1}`` (``num_players`` 2..8, default 2).
- Actions: ``Discrete(3)``: PASS=0, PLAY=1, RAISE=2 (RAISE only with a card of value >= 5).
- Observations: ``{"observation": float32[18], "action_mask": int8[3]}``: own card value, own seat.
- Rewards: paid when the last seat acts; score minus the table's mean score (zero-sum).
- Render: ``"ansi"``/``"human"`` text; ``"rgb_array"`` a 320 x 640 x 3 picture (``render_seat=i``:
  only seat i's card face up).
- Version history: v0 - first release.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from kabu_envs.aec_base import CardGameAECEnv
from kabu_envs.aec_wrappers import wrap
from kabu_envs.toy_card.config import make_config
from kabu_envs.toy_card.game import NUM_ACTIONS, Game
from kabu_envs.toy_card.observation import Encoder, obs_spec


class raw_env(CardGameAECEnv):  # noqa: N801 - PettingZoo's naming convention
    """The unwrapped Toy Card AEC env; ``options`` are the rule options of ``make_config``."""

    metadata: ClassVar[dict[str, Any]] = {
        "name": "toy_card_v0",
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
            self.config.num_players, NUM_ACTIONS, obs_spec(self.config), render_mode, render_seat
        )

    def _new_game(self, rng: np.random.Generator, deck: list[int] | None) -> Game:
        return Game(self.config, rng, deck)

    def _encode(self, seat: int) -> np.ndarray:
        return self._encoder.encode(self.game, seat)

    def _render_text(self) -> str:
        g = self.game
        if g is None:
            return "Toy Card: call reset() first"
        return " | ".join(f"p{i}: card {g.values[i]} stake {g.stakes[i]}" for i in range(g.num_players))

    def _render_frame(self, seat: int | None) -> np.ndarray:
        from kabu_envs.toy_card.picture import draw_table  # pillow only when a frame is asked for

        return draw_table(self.game, seat)


def env(
    render_mode: str | None = None,
    illegal_reward: float | None = None,
    render_seat: int | None = None,
    illegal_action: str | None = None,
    **options: Any,
) -> Any:
    """The wrapped env (the standard PettingZoo wrappers, see ``kabu_envs.aec_wrappers``)."""
    return wrap(
        raw_env(render_mode=render_mode, render_seat=render_seat, **options), illegal_reward, illegal_action
    )
