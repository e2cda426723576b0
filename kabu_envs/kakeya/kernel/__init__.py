"""The Kakeya rules kernel (numba): B matches as arrays, stepped by per-row loops.

The scalar engine (``game.py``, ``tricks.py``, ``scoring.py``, ``observation.py``) is the reference;
every function here names the one it mirrors, and the lockstep suites (tests/test_batch.py,
tests/kernel/test_batch_kernels.py) hold the two equal on stacked decks and random legal actions:
same masks, observations, rewards and ends, for every rule option.

The package: ``spec.py`` (the state's columns, the option indices, the observation pieces),
``rules.py`` (deal, play and scoring of one row: what the search builds on), ``batch.py`` (reset rows,
step every live row, masks and observations), ``search.py`` (the expert's play-outs and end-game
solver on rows of the same state), ``sample.py`` and ``decide.py`` (the kernel expert's sampler and
its whole card decision in one call), ``netplay.py`` (a learned play-out policy for it) and, here,
the Python side (``make_state``, ``options``, ``layout``, ``outputs``, the cache's ``stamp`` and
``prepare``).

State (one row per match, ``spec.State``: a named tuple of arrays, read by name: ``st.hands``): ``g``
(B, NG) int64 holds the per-match numbers by column (``PHASE``, ``TRUMP``, ...: ``spec.py``); per-seat
numbers are (B, n) arrays; hands, the trick's cards and the captured cards are uint64 52-bit card sets
(bit ``card``), as in the scalar engine's ints. The rule options are one int64 array (``options``), the
observation layout another (``layout``, the offsets of ``obs_spec``): both are read at run time, so one
compiled kernel serves every rule set.

Deals: a row either has a **deck feed** (``g[b, FEED] = 1``: Python put the next deal's card order in
``decks[b]`` and set ``READY``; the kernel takes it and clears ``READY``; the batch engine,
``KernelBatchEnv``'s deck buffer, draws the next one after the call) or deals from its own generator
(``core.kernel``: ``rng[b]``, seeded from (seed, row, episode)), a stacked prefix of ``PREFIX`` cards
first. docs/batch.md#seeding says why.

Nothing here runs on ``import kabu_envs``: the batch engine imports this module on first use.
"""

from __future__ import annotations

import io
import sys
from types import ModuleType
from typing import Any

import numpy as np

from kabu_envs.core import kernel as core
from kabu_envs.kakeya.actions import NUM_ACTIONS
from kabu_envs.kakeya.cards import NUM_CARDS
from kabu_envs.kakeya.config import Config
from kabu_envs.kakeya.kernel import batch, decide, netplay, rules, sample, search, spec
from kabu_envs.kakeya.kernel.batch import (
    encode_row,
    encode_rows,
    encode_rows_parallel,
    legal_bits,
    reset_rows,
    step,
    step_parallel,
)
from kabu_envs.kakeya.kernel.rules import legal_plays, trick_winner
from kabu_envs.kakeya.kernel.spec import (
    EPISODE,
    FEED,
    L_COUNTS,
    NG,
    NUM_OPTIONS,
    O_ALL_PLAY,
    O_AUTORESET,
    O_CHOOSE_TRUMP,
    O_DEFAULT_TRUMP,
    O_MAX_DEALS,
    O_MUST_FOLLOW,
    O_N,
    O_P,
    O_RENSHO_SEED,
    O_REWARD_EGARA,
    O_SHARED,
    O_SIT_OUT,
    O_STONES,
    OVER_PHASE,
    PHASE,
    PIECES,
    PREFIX,
    READY,
    WORDS,
    Arrays,
    Outputs,
    State,
)
from kabu_envs.kakeya.observation import obs_spec
from kabu_envs.kakeya.scoring import STONES_TABLE

__all__ = [  # what the batch engine and the search use
    "EPISODE",
    "FEED",
    "L_COUNTS",
    "PREFIX",
    "READY",
    "Arrays",
    "Outputs",
    "State",
    "core",
    "decide",
    "encode_row",
    "encode_rows",
    "encode_rows_parallel",
    "layout",
    "legal_bits",
    "legal_plays",
    "make_state",
    "netplay",
    "options",
    "outputs",
    "prepare",
    "reset_rows",
    "sample",
    "search",
    "spec",
    "stamp",
    "step",
    "step_parallel",
    "trick_winner",
]


# ==================================================================================================
# Python side: the options, the layout, the state arrays and the cache
# ==================================================================================================
def options(cfg: Config, autoreset: bool = False) -> np.ndarray:
    """The rule set as the kernel's int64 option array."""
    out = np.zeros(NUM_OPTIONS, dtype=np.int64)
    out[O_N], out[O_P] = cfg.num_players, cfg.num_partnerships
    out[O_ALL_PLAY], out[O_SIT_OUT] = cfg.all_play, cfg.dealers_sit_out
    out[O_MUST_FOLLOW] = cfg.rensho_follow == "must_follow"
    out[O_DEFAULT_TRUMP], out[O_CHOOSE_TRUMP] = cfg.default_trump_suit, cfg.dealers_choose_trump
    out[O_RENSHO_SEED] = cfg.rensho_rule == "seed"
    out[O_MAX_DEALS], out[O_STONES] = cfg.max_deals, cfg.stones_per_player
    out[O_REWARD_EGARA], out[O_AUTORESET] = cfg.reward == "egara", autoreset
    out[O_SHARED] = cfg.all_play and cfg.all_play_payment == "shared"
    return out


def outputs(
    layout: np.ndarray,
    mask: np.ndarray,
    obs: np.ndarray,
    packed: np.ndarray,
    real: np.ndarray,
    legal: np.ndarray,
) -> Outputs:
    """The kernel's output tuple: the layout, the mask (its bool rows padded to whole 8-byte words,
    ``KernelBatchEnv``, seen as uint64 words: ``batch.encode_row`` writes eight entries at once), the
    observation (float32, or packed and real), the compact encoder's bitsets (one per row: rows
    are encoded at once on several threads) and each row's legal set as one word (``legal``, what the
    legality check reads)."""
    width = -(-NUM_ACTIONS // 8) * 8
    if mask.dtype != np.bool_ or mask.shape[1:] != (width,) or not mask.flags.c_contiguous:
        raise ValueError(f"the mask must be C-contiguous bool rows of {width} entries, got {mask.shape}")
    words = np.zeros((1 if obs.shape[1] else mask.shape[0], WORDS), dtype=np.uint64)  # (compact: a row's own)
    return (layout, mask.view(np.uint64), obs, packed, real, words, core.legal_words(legal, mask.shape[0]))


def layout(cfg: Config) -> np.ndarray:
    """The offsets of ``obs_spec(cfg)``'s pieces, in ``PIECES`` order; the 0/1 pieces must come before
    the real-valued ones (the compact observation packs the former as bits), the small ones (up to the
    egara) must fit one 64-bit word, and the whole bytes ``batch.put_bits`` writes must stay in the row."""
    spec = obs_spec(cfg)
    offsets = spec.offsets
    if [p.name for p in spec.pieces] != list(PIECES):
        raise ValueError(f"the kernel encodes the pieces {PIECES}, in this order")
    if offsets["hand_counts"] > 64 * WORDS - 64:
        raise ValueError(f"the 0/1 entries must fit the kernel's bitset of {64 * WORDS - 64} bits")
    if offsets["egara"] > 64:
        raise ValueError(f"the pieces before 'egara' ({offsets['egara']} entries) must fit a 64-bit word")
    if offsets["hand_counts"] + 7 > spec.size:
        raise ValueError("the real-valued pieces must hold the 7 entries a last whole byte may write")
    return np.array([offsets[name] for name in PIECES], dtype=np.int64)


def make_state(batch_size: int, cfg: Config) -> State:
    """The arrays of ``batch_size`` matches of ``cfg``, every match over (``batch.reset_rows`` deals)."""
    B, n, P = batch_size, cfg.num_players, cfg.num_partnerships
    g = np.zeros((B, NG), dtype=np.int64)
    g[:, PHASE] = OVER_PHASE
    return State(
        g=g,
        current_player=np.full(B, -1, dtype=np.int64),
        stones=np.zeros((B, n), dtype=np.int64),
        counts=np.zeros((B, n), dtype=np.int64),
        voids=np.zeros((B, n), dtype=np.int64),
        t_card=np.full((B, n), -1, dtype=np.int64),
        hands=np.zeros((B, n), dtype=np.uint64),
        t_bits=np.zeros((B, n), dtype=np.uint64),
        played=np.zeros(B, dtype=np.uint64),
        captured=np.zeros((B, P), dtype=np.uint64),
        decks=np.zeros((B, NUM_CARDS), dtype=np.int8),
        rng=np.zeros(B, dtype=np.uint64),
        scratch=np.zeros((B, 3, 8), dtype=np.int64),
    )


def _dispatchers(module: ModuleType) -> list[Any]:
    """The cached compiled functions of one kernel module (each module keeps its own cache files)."""
    mine = [f for f in vars(module).values() if hasattr(f, "py_func") and f.__module__ == module.__name__]
    return [f for f in mine if core.is_cached(f)]


def stamp() -> str:
    """The cache stamp (``core.kernel.fingerprint``): the kernel's modules, the shared generator and every
    module its constants come from (cards, actions, phases, tricks, the stones table, the observation
    layout)."""
    import kabu_envs.kakeya.actions as actions_mod
    import kabu_envs.kakeya.cards as cards_mod
    import kabu_envs.kakeya.game as game_mod
    import kabu_envs.kakeya.observation as observation_mod
    import kabu_envs.kakeya.scoring as scoring_mod
    import kabu_envs.kakeya.tricks as tricks_mod

    here = sys.modules[__name__]
    modules = [here, spec, rules, batch, search, sample, decide, netplay, core]
    modules += [cards_mod, actions_mod, game_mod, observation_mod, scoring_mod, tricks_mod]
    return core.fingerprint(modules, (PIECES, NG, NUM_OPTIONS, STONES_TABLE))


def prepare(parts: tuple[ModuleType, ...] = (rules, batch)) -> bool:
    """Ready the caches of the kernel modules a caller uses (``core.kernel.prepare``, one per module:
    the batch engine ``rules`` and ``batch``, the search ``rules`` and ``search``) before the first
    call: one line when it compiles. (A module the caller never calls keeps no cache files: asking for
    it would print the line on every start.)"""
    sink = io.StringIO()
    signed = stamp()
    compiling = [m for m in parts if core.prepare(f"Kakeya {m.__name__}", _dispatchers(m), signed, out=sink)]
    if compiling:  # one line naming the parts that compile now (each part at most once a process)
        names = ", ".join(m.__name__.rpartition(".")[2] for m in compiling)
        print(core.compiling_line("Kakeya", _dispatchers(rules)[0], names), file=sys.stderr, flush=True)
    return bool(compiling)
