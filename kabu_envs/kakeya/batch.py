"""Kakeya, batched: B matches stepped by the compiled kernel (``kernel/``; the batch contract of
``kabu_envs.batch``).

``make_batch(batch_size, autoreset=False, observation="float32", **rule_options)`` is the factory
``kabu_envs.batch`` finds; every rule option runs on the kernel, through ``KernelBatchEnv`` (its deck
buffer: a fed match's next deal is drawn one deal ahead). The kernel module (and numba) is
imported on the first engine made, and compiles once (one line says so; cached after that).

Per step the kernel applies the actions of the live games row by row, settles tricks and deals, and
writes each moved game's mask and its current player's observation (bit for bit the AEC env's). With
``observation="compact"`` it writes the 0/1 entries bit-packed and the real ones as float32 instead
(``observation_packed``, ``observation_real``, 91 bytes a game with four players instead of 1,788);
``observation`` then decodes them (``batch.feed.decode_compact``).

Deals (docs/batch.md#seeding): a game reset with its own seed deals from that seed's numpy generator
through the deck feed (the AEC env's deals); ``reset(seed=s)``, ``reset()`` and autoreset deal from the
kernel's per-row generators seeded from (s, row, episode).
"""

from __future__ import annotations

from typing import Any

from kabu_envs.batch.base import BatchEnv
from kabu_envs.batch.kernel_env import KernelBatchEnv
from kabu_envs.core.rng import validate_deck_prefix
from kabu_envs.kakeya.actions import NUM_ACTIONS
from kabu_envs.kakeya.cards import NUM_CARDS
from kabu_envs.kakeya.config import make_config
from kabu_envs.kakeya.observation import obs_spec


def _check_deck(deck: Any) -> list[int]:
    return validate_deck_prefix(deck, NUM_CARDS)


def make_batch(
    batch_size: int, autoreset: bool = False, observation: str = "float32", **rule_options: Any
) -> BatchEnv:
    """The Kakeya batch engine for ``rule_options`` (every rule set runs on the kernel)."""
    return KakeyaBatch(batch_size, autoreset=autoreset, observation=observation, **rule_options)


class KakeyaBatch(KernelBatchEnv):
    """B Kakeya matches on the kernel (see the module docstring); the state is ``self.state``."""

    def __init__(
        self, batch_size: int, autoreset: bool = False, observation: str = "float32", **rule_options: Any
    ) -> None:
        from kabu_envs.kakeya import kernel  # numba: only when a batch engine is made

        cfg = make_config(**rule_options)
        spec = obs_spec(cfg)
        super().__init__(
            kernel,
            cfg,
            batch_size,
            num_actions=NUM_ACTIONS,
            obs_size=spec.size,
            real_columns=(spec.offsets["hand_counts"], spec.size),  # the real-valued pieces come last
            deck_size=NUM_CARDS,
            check_deck=_check_deck,
            autoreset=autoreset,
            observation=observation,
        )
        self.num_partnerships = cfg.num_partnerships
        self._off, self._sl = spec.offsets, spec.slices
