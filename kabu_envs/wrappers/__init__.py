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

A view whose default changes gets a new version, and the old id is retired rather than kept with
the old default, so that every registered id passes the checkers: ``gymnasium.make`` of a retired id
(``kabu_envs/ToyCard-v0``, 0.2.0's toy view that raised on an illegal action) fails with Gymnasium's
own "deprecated, use ``ToyCard-v1``" error; ``illegal_action="raise"`` gives the old behaviour.
"""

from __future__ import annotations

from gymnasium.envs.registration import register, registry

from kabu_envs import registry as games
from kabu_envs.wrappers.single_agent import OpponentPool, SingleAgentView, any_seat_of
from kabu_envs.wrappers.views import make_view


def register_envs() -> None:
    """Register every game's view ids (idempotent). No step limit: every episode ends by the rules."""
    for env_id, game, kwargs in games.iter_gym_ids():
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
