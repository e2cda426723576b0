"""Oicho-Kabu's compiled rules kernel (numba): B games as arrays, stepped by per-row loops.

The kernel is the scalar engine (``game.py``, ``session.py``, ``deck.py``, ``observation.Encoder``)
written again as plain loops over rows, so that numba compiles one step of B games into one call. Each
function's docstring names the scalar function it mirrors; ``tests/oicho_kabu/test_kernel_oicho.py`` holds
the two equal (masks, observations, rewards, terminations) on stacked decks and random legal actions
for every rule option.

Modules: ``layout`` (the arrays and the options, plain numpy), ``flow`` (the rules, compiled), ``observe``
(the observation, compiled); the batch engine on it is ``kabu_envs/oicho_kabu/batch.py`` (a
``KernelBatchEnv``, as every kernel game's).

- ``State`` (``make_state``): one record per game, read by name (``chips``, ``spreads``,
  ``stakes[game, seat, spread]``, ...), plus each row's generator
  (``rng``: SplitMix64, ``core.kernel``) and the (seed, row key, episode) it was seeded from.
- ``Rules`` (``make_rules(cfg)``): the options as one int64 array (``O_*`` indices), the bet sizes, the
  rule answers per hand class (``batch_tables.hand_tables``: built by calling ``rules`` itself, so the
  kernel cannot drift from the yaku and settlement rules) and the observation offsets (``obs_spec``).
- ``reset_rows`` deals new episodes (a stacked prefix first, the rest shuffled), ``resume_rows`` plays
  fed games on after Python's shuffle,
  ``step`` applies one action per moving game and writes the masks, rewards and ``terminated``
  (with ``autoreset`` a finished game starts its next episode at once), ``encode`` writes a seat's
  float32 observation bit for bit as ``Encoder.encode``, ``encode_compact`` the same as bits plus the
  numbers (``batch.feed.decode_compact`` turns it back into the float32 observation).

Randomness: a shuffle leaves the game at a resume point (``flow.R_*``, the deck arranged as the scalar
``Deck`` arranges it before shuffling); ``flow._run`` shuffles with the row's own generator and plays on,
or, for a fed game (``feed``: seeded by Python, the AEC env's deals), stops and returns to Python, which
draws the shuffle from the game's numpy generator and calls ``resume_rows``. The scalar engine equals
the kernel's own generator draw for draw when its ``Deck`` shuffles as ``core.kernel.shuffle`` does
(``KernelRng``, the tests' bridge).
Nothing here runs on ``import kabu_envs``: the batch engine imports this module on first use.
"""

from __future__ import annotations

import io
import sys

from kabu_envs.core import kernel as core
from kabu_envs.oicho_kabu import actions as _actions
from kabu_envs.oicho_kabu import deck as _deck
from kabu_envs.oicho_kabu import game as _game
from kabu_envs.oicho_kabu import observation as _observation
from kabu_envs.oicho_kabu.kernel import flow as _flow
from kabu_envs.oicho_kabu.kernel import layout as _layout
from kabu_envs.oicho_kabu.kernel import observe as _observe
from kabu_envs.oicho_kabu.kernel.flow import reset_rows, resume_rows, step, step_parallel
from kabu_envs.oicho_kabu.kernel.layout import (
    O_OBS,
    Rules,
    State,
    compact_layout,
    make_rules,
    make_state,
)
from kabu_envs.oicho_kabu.kernel.observe import (
    encode,
    encode_compact,
    encode_compact_parallel,
    encode_parallel,
    step_encode_parallel,
)

__all__ = [
    "O_OBS",
    "Rules",
    "State",
    "compact_layout",
    "encode",
    "encode_compact",
    "encode_compact_parallel",
    "encode_parallel",
    "make_rules",
    "make_state",
    "prepare",
    "reset_rows",
    "resume_rows",
    "step",
    "step_encode_parallel",
    "step_parallel",
]


def stamp() -> str:
    """The cache stamp: the kernel's modules, the scalar modules whose constants they read, the names."""
    modules = [_layout, _flow, _observe, _actions, _deck, _game, _observation, core]
    return core.fingerprint(modules, (_layout.PIECES, _layout.SELECTIONS, _layout.CHANGES))


def prepare() -> bool:
    """Ready both compiled modules' caches before the first call (``core.kernel.prepare``): one line
    says so when the kernel compiles. True when it will.

    Only the entry points (``reset_rows``, ``resume_rows``, ``step``, ``encode``, ``encode_compact``
    and the parallel ``step_parallel``, ``encode_parallel``, ``encode_compact_parallel``,
    ``step_encode_parallel``) are cached, each with the callees compiled into it, and each is called
    with the same types whatever the rule set (``layout.state_dtype``): numba's cache index then holds
    one version of each, so processes that compile at once (test or training workers) write the same
    code. (With several versions, two processes adding different ones at once can pair an index entry
    with the other's machine code.)"""
    mark = stamp()
    flow = [_flow.reset_rows, _flow.resume_rows, _flow.step, _flow.step_parallel]
    compiling = core.prepare("Oicho-Kabu", flow, mark)
    quiet = io.StringIO() if compiling else sys.stderr  # (one line for the whole kernel)
    observe = [_observe.encode, _observe.encode_compact]
    observe += [_observe.encode_parallel, _observe.encode_compact_parallel, _observe.step_encode_parallel]
    return core.prepare("Oicho-Kabu observation", observe, mark, out=quiet) or compiling
