"""Single-agent Gymnasium views of the AEC games, registered as Gymnasium ids.

Importing this package registers the ids every game declares in its registry record
(``GameSpec.gym_ids``), e.g. ``kabu_envs/OichoKabuBettor-v2``, ``kabu_envs/OichoKabuDealer-v2``,
``kabu_envs/Kakeya-v2`` and ``kabu_envs/ToyCard-v1``:
``gymnasium.make("kabu_envs/Kakeya-v2", opponents="random", **rule_options)``; without importing
first, use ``gymnasium.make("kabu_envs.wrappers:kabu_envs/Kakeya-v2")``. The observation is the AEC
env's flat "observation" Box; the legal actions come from ``env.unwrapped.action_masks()`` (what
MaskablePPO calls) and ``info["action_mask"]``. ``make_view(game, role=...)`` builds the same views
directly. An illegal action ends the episode with a penalty and a warning (``illegal_action="raise"``
raises), so Gymnasium's and SB3's ``check_env`` pass with the defaults.

``LEGACY_IDS`` stay registered with the defaults they were released with: ``kabu_envs/ToyCard-v0``
(0.2.0) raised on an illegal action; ``ToyCard-v1`` is the same game with the new default.
"""

from __future__ import annotations

from typing import Any

from gymnasium.envs.registration import register, registry

from kabu_envs import registry as games
from kabu_envs.wrappers.single_agent import OpponentPool, SingleAgentView, any_seat_of
from kabu_envs.wrappers.views import make_view

# ids of released views whose defaults changed since: id -> (game id, the view kwargs they had)
LEGACY_IDS: dict[str, tuple[str, dict[str, Any]]] = {
    "kabu_envs/ToyCard-v0": ("toy_card", {"role": "seat", "illegal_action": "raise"}),
}


def register_envs() -> None:
    """Register every game's view ids (idempotent). No step limit: every episode ends by the rules."""
    legacy = [(env_id, game, kwargs) for env_id, (game, kwargs) in LEGACY_IDS.items()]
    for env_id, game, kwargs in [*games.iter_gym_ids(), *legacy]:
        if env_id not in registry:
            register(
                id=env_id,
                entry_point="kabu_envs.wrappers.views:make_view",
                kwargs={"game": game, **kwargs},
                disable_env_checker=True,
                order_enforce=False,
            )


register_envs()
games.register_pettingzoo()  # the PettingZoo side is in use here: the AEC ids too

__all__ = ["OpponentPool", "SingleAgentView", "any_seat_of", "make_view", "register_envs"]
