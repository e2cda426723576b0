"""Toy Card, batched: B games stepped by the compiled kernel (``kernel.py``; the batch contract of
``kabu_envs.batch``). The template of a game's batch engine: ``KernelBatchEnv`` does the rest.

A game reset with its own seed deals from that seed's numpy generator (the deck feed: the AEC env's
deal); ``reset(seed=s)``, ``reset()`` and autoreset deal from the kernel's row streams
(docs/batch.md#seeding).
"""

from __future__ import annotations

from typing import Any

from kabu_envs.batch.base import BatchEnv
from kabu_envs.batch.kernel_env import KernelBatchEnv
from kabu_envs.core.rng import validate_deck_prefix
from kabu_envs.toy_card.config import make_config
from kabu_envs.toy_card.game import DECK_SIZE, NUM_ACTIONS
from kabu_envs.toy_card.observation import obs_spec


def make_batch(
    batch_size: int, autoreset: bool = False, observation: str = "float32", **rule_options: Any
) -> BatchEnv:
    """The Toy Card batch engine (``kabu_envs.batch`` finds a game's engine as ``batch.py:make_batch``)."""
    return ToyCardBatch(batch_size, autoreset=autoreset, observation=observation, **rule_options)


def _check_deck(deck: Any) -> list[int]:
    return validate_deck_prefix(deck, DECK_SIZE)


class ToyCardBatch(KernelBatchEnv):
    """B Toy Card games on the kernel: ``state.values`` / ``state.stakes`` (B, n), the seat to act."""

    def __init__(
        self, batch_size: int, autoreset: bool = False, observation: str = "float32", **rule_options: Any
    ) -> None:
        from kabu_envs.toy_card import kernel  # numba: only when a batch engine is made

        cfg = make_config(**rule_options)
        size = obs_spec(cfg).size
        super().__init__(
            kernel,
            cfg,
            batch_size,
            num_actions=NUM_ACTIONS,
            obs_size=size,
            real_columns=(size, size),  # every entry is 0/1
            deck_size=DECK_SIZE,
            check_deck=_check_deck,
            autoreset=autoreset,
            observation=observation,
        )
