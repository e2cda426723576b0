"""Oicho-Kabu's compiled kernel (``kabu_envs.oicho_kabu.kernel``) against the AEC env, draw for draw.

The driver runs the kernel's functions directly over B rows (``reset_rows``, ``step``, ``encode``) and B
raw AEC envs whose ``Game`` shuffles with the kernel's generator (``KernelRng``: the same Fisher-Yates
on the same SplitMix64 stream, so every reshuffle, new round and selection redraw deals the same cards),
then checks at every step the current players, the masks, the float32 observations (and the compact
ones decoded), ``terminated`` and the rewards. The option sets are the numpy engine's lockstep cases
(``test_batch_oicho.CASES``), with its stacked decks and passive players. ``LOCKSTEP_GAMES=N`` plays N
games per case instead of 12. One small case runs again under ``NUMBA_DISABLE_JIT=1`` (plain Python).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from test_batch_oicho import _STACKED, CASES

from kabu_envs import registry
from kabu_envs.batch.feed import decode_compact
from kabu_envs.core import kernel as core
from kabu_envs.oicho_kabu import kernel as K
from kabu_envs.oicho_kabu.config import make_config
from kabu_envs.oicho_kabu.game import Game

GAMES = int(os.environ.get("LOCKSTEP_GAMES", "12"))


class KernelRng:
    """What ``Deck`` asks of a generator (``shuffle``, ``permutation``), drawn from the kernel's per-row
    generator seeded (seed, row, 0): a scalar game then deals exactly as the kernel's row does."""

    def __init__(self, seed: int, row: int) -> None:
        self.state = np.array([core.seed_state(np.uint64(seed), np.uint64(row), np.uint64(0))], np.uint64)

    def shuffle(self, items: np.ndarray) -> None:
        core.shuffle(self.state, 0, items, len(items))

    def permutation(self, n: int) -> np.ndarray:
        items = np.arange(n, dtype=np.int64)
        self.shuffle(items)
        return items


def _aec_state(env: Any, names: Sequence[str]) -> tuple[int, Any, Any]:
    if not env.agents or all(env.terminations[a] for a in env.agents):
        return -1, None, None
    obs = env.observe(env.agent_selection)
    return names.index(env.agent_selection), obs["action_mask"].astype(bool), obs["observation"]


def lockstep(
    options: dict[str, Any],
    B: int = GAMES,
    decks: Sequence[Sequence[int] | None] | None = None,
    act_seed: int = 3,
    p_lowest: float = 0.0,
) -> int:
    """Play the kernel and B AEC envs side by side with the same random legal actions to the end; with
    probability ``p_lowest`` a seat takes its lowest legal action id. Returns the steps played."""
    cfg = make_config(**options)
    ru, st = K.make_rules(cfg), K.make_state(B, cfg)
    n, A = cfg.num_players, int(ru[K.layout.O_ACTIONS])
    view = {  # the records' fields as the engine shows them: (B, n) rewards, (B, A) bool masks
        "current_player": st["current_player"],
        "terminated": st["terminated"],
        "rewards": st["rewards"][:, :n],
        "legal_action_mask": st["legal_action_mask"][:, :A].view(np.bool_),
    }
    seeds = [500 + 11 * b for b in range(B)]
    decks = decks if decks is not None else [None] * B
    stacked = np.zeros((B, 40), dtype=np.int64)
    lengths = np.zeros(B, dtype=np.int64)
    for b, d in enumerate(decks):
        if d:
            stacked[b, : len(d)] = d
            lengths[b] = len(d)
    rows = np.arange(B, dtype=np.int64)
    zero, unfed = np.zeros(B, np.uint64), np.zeros(B, np.bool_)  # (episode 0, the kernel's generator)
    waiting = K.reset_rows(
        st, ru, rows, np.array(seeds, np.uint64), rows.astype(np.uint64), zero, unfed, stacked, lengths
    )
    assert waiting == 0
    aecs = []
    for b, d in enumerate(decks):
        env = registry.get("oicho_kabu").make_raw_env(**options)
        feed = KernelRng(seeds[b], b)
        env._new_game = lambda _rng, deck, env=env, feed=feed: Game(env.config, feed, deck)
        env.reset(seed=0, options=None if d is None else {"deck": list(d)})
        aecs.append(env)
    names = aecs[0].possible_agents
    obs = np.zeros((B, int(ru[K.O_OBS])), dtype=np.float32)
    lo, hi, nbytes, width = K.compact_layout(ru)
    compact = np.zeros((B, width), dtype=np.uint8)
    rng = np.random.default_rng(act_seed)
    summed = np.zeros((B, len(names)))
    steps = 0
    while not view["terminated"].all():
        seats = view["current_player"].copy()
        K.encode(st, ru, rows, seats, obs)
        K.encode_compact(st, ru, rows, seats, compact, compact.view(np.float32), lo, hi)
        decoded = decode_compact(compact[:, :nbytes], compact[:, nbytes:].view(np.float32), lo, obs.shape[1])
        assert np.array_equal(decoded, obs)
        acts = np.zeros(B, dtype=np.int64)
        for b, a in enumerate(aecs):
            seat, mask, aec_obs = _aec_state(a, names)
            assert view["current_player"][b] == seat, (b, steps)
            if seat < 0:
                assert view["terminated"][b] and not view["legal_action_mask"][b].any() and not obs[b].any()
                continue
            assert np.array_equal(view["legal_action_mask"][b], mask), (b, steps)
            assert np.array_equal(obs[b], aec_obs), (b, steps, np.flatnonzero(obs[b] != aec_obs))
            legal = np.flatnonzero(mask)
            acts[b] = int(legal[0] if rng.random() < p_lowest else rng.choice(legal))
        live = view["current_player"] >= 0
        assert K.step(st, ru, acts, np.ones(B, dtype=bool), False) == 0
        summed -= view["rewards"]
        for k in np.flatnonzero(live):
            aecs[k].step(int(acts[k]))
            summed[k] += [aecs[k].rewards[n] for n in names]
        np.testing.assert_array_equal(summed, 0.0)
        assert np.array_equal(view["terminated"], view["current_player"] < 0)
        steps += 1
        assert steps < 5000
    for a in aecs:
        assert _aec_state(a, names)[0] < 0
    return steps


@pytest.mark.parametrize("options", [c[1] for c in CASES], ids=[c[0] for c in CASES])
def test_kernel_lockstep_with_aec_envs(options: dict[str, Any]) -> None:
    lockstep(options)


@pytest.mark.parametrize(
    "options",
    [{}, {"rules": "kansai", "max_rounds": 3}, {"rules": "kabufuda_site", "max_rounds": 3}],
    ids=["standard", "kansai", "site"],
)
def test_kernel_lockstep_with_stacked_decks(options: dict[str, Any]) -> None:
    lockstep(options, B=len(_STACKED), decks=_STACKED)


def test_kernel_lockstep_with_long_stacked_prefixes() -> None:
    """The dealer's bottom/4th card taken from inside a stacked prefix, the rest kept at the next round."""
    rng = np.random.default_rng(9)
    decks = [rng.permutation(40)[:30].tolist() for _ in range(8)]
    for options in (
        {"rules": "kabufuda_site", "max_rounds": 3},
        {"dealer_card_choice": True, "max_rounds": 3},
    ):
        lockstep(options, B=8, decks=decks, act_seed=2)


@pytest.mark.parametrize(
    "options",
    [
        {"max_rounds": 10, "dealer_change": ("low_hand", "lost_all"), "num_players": 3},
        {"rules": "kansai", "max_rounds": 4, "minso_limit": 4},
        {"rules": "kabufuda_site", "max_rounds": 4},
    ],
    ids=["rounds-low-hand", "kansai", "site"],
)
def test_kernel_lockstep_with_passive_players(options: dict[str, Any]) -> None:
    """Seats that mostly pass: rounds nobody stakes on (no final hand for ``low_hand``), minso kept."""
    lockstep(options, p_lowest=0.9, act_seed=5)


def test_kernel_lockstep_as_plain_python(plain_python: Callable[..., str]) -> None:
    """``NUMBA_DISABLE_JIT=1``: the same functions as plain Python (coverage, debugging), a small case."""
    here = Path(__file__).resolve().parent
    code = (
        "import numba; assert numba.config.DISABLE_JIT\n"
        "from test_kernel_oicho import lockstep\n"
        "lockstep({'rules': 'kabufuda_site', 'max_rounds': 2, 'dealer_card_choice': True}, B=3)\n"
        "lockstep({'minso': True, 'redeal_on_triple_table': True, 'deck': 'hanafuda'}, B=3)\n"
    )
    plain_python(code, here)
