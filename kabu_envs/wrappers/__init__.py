"""Single-agent Gymnasium views of the AEC games, registered as Gymnasium ids.

Importing this package registers:

* ``kabu_envs/OichoKabuBettor-v0`` — Oicho-Kabu from a bettor's seat;
* ``kabu_envs/OichoKabuDealer-v0`` — Oicho-Kabu from the dealer's seat;
* ``kabu_envs/Kakeya-v0`` — Kakeya from one partnership;
* ``kabu_envs/ToyCard-v0`` — the toy test game.

``gymnasium.make("kabu_envs/Kakeya-v0", opponents="random", **rule_options)``; without
importing first, use ``gymnasium.make("kabu_envs.wrappers:kabu_envs/Kakeya-v0")``.
The observation is the AEC env's flat "observation" Box; the legal actions come from
``env.unwrapped.action_masks()`` (what MaskablePPO calls).
"""

from __future__ import annotations

from gymnasium.envs.registration import register, registry

from kabu_envs.wrappers.single_agent import OpponentPool, SingleAgentView, any_seat_of

ENV_IDS = {
    "kabu_envs/OichoKabuBettor-v0": "kabu_envs.wrappers.games:oicho_bettor_view",
    "kabu_envs/OichoKabuDealer-v0": "kabu_envs.wrappers.games:oicho_dealer_view",
    "kabu_envs/Kakeya-v0": "kabu_envs.wrappers.games:kakeya_view",
    "kabu_envs/ToyCard-v0": "kabu_envs.wrappers.games:toy_view",
}


def register_envs() -> None:
    """Register the ids (idempotent). No step limit: every episode ends by the rules."""
    for env_id, entry in ENV_IDS.items():
        if env_id not in registry:
            register(id=env_id, entry_point=entry, disable_env_checker=True, order_enforce=False)


register_envs()

__all__ = ["ENV_IDS", "OpponentPool", "SingleAgentView", "any_seat_of", "register_envs"]
