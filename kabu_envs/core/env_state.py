"""The state of an AEC env as JSON-able data: what ``state_dict`` writes and ``load_state_dict`` reads.

Why replay, not a dump of the engine's fields: the engines are the readable reference and keep their
state in whatever shape reads best (bit sets, per-round lists, typed event logs). A state is instead
what makes the episode happen again — the rule options, the generator's state when the deal began,
a stacked deck, the actions since — and loading replays those actions through the env's own ``step``,
so a state can never describe a position the rules could not reach. The seats' views (observation and
action mask), the agent to act and the cumulative rewards travel with it, and loading checks that the
replay reproduces them (a state edited by hand, or written by another version of the rules, is refused
rather than silently played differently). What no seat has seen yet (the generator's state, the
undealt cards of a stacked deck) the replay cannot check, so a state also carries a ``digest``: a
SHA-256 of everything else, which loading recomputes. It catches edits by hand and damage; it is no
secret (whoever recomputes it can change the unseen cards), so a state is not a sealed save.
A game record (``kabu_envs.play.records``) is the same idea
for a person's game: a seed instead of a generator state, the seats' agents, sealing.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

import numpy as np

from kabu_envs.core.rng import copy_rng, rng_from_state

FORMAT = "kabu-envs env state"
VERSION = 2  # 2: the digest (version 1 states had none: an edit of the unseen cards went unnoticed)
KEYS = frozenset(
    (
        "format",
        "version",
        "env",
        "rules",
        "rng",
        "deck",
        "actions",
        "agent_selection",
        "rewards",
        "views",
        "digest",
    )
)


class StateError(ValueError):
    """A state dict that cannot be loaded into this env; the message names the problem."""


def rng_state(rng: Any) -> dict[str, Any] | None:
    """The generator's state as plain data (numpy's own ``bit_generator.state``: ints and strings);
    None for a stand-in that is no numpy generator (e.g. OpenSpiel's chance outcomes feeding the env,
    ``kabu_envs.openspiel``): such an env's state is its driver's to save."""
    bit_generator = getattr(rng, "bit_generator", None)
    if bit_generator is None:
        return None
    # numpy builds a fresh dict of ints and strings on every read: JSON-able as it is, and no later draw
    # changes it (every env reset reads it, so no JSON round trip here)
    out: dict[str, Any] = bit_generator.state
    return out


def load_rng(state: Any) -> np.random.Generator:
    """The generator a state saved (``rng_state``); ``StateError`` for anything else."""
    try:
        return rng_from_state(state)
    except (ValueError, OverflowError) as exc:
        raise StateError(str(exc)) from None


def digest(data: dict[str, Any]) -> str:
    """SHA-256 (hex) of a state's canonical JSON without its own ``digest``: what loading recomputes
    to notice an edit the replay cannot (the generator's state, undealt stacked cards)."""
    rest = {k: v for k, v in data.items() if k != "digest"}
    text = json.dumps(rest, sort_keys=True, separators=(",", ":"), allow_nan=False)
    return hashlib.sha256(text.encode()).hexdigest()


__all__ = [
    "FORMAT",
    "VERSION",
    "StateError",
    "check_shape",
    "copy_rng",
    "digest",
    "load_rng",
    "rng_state",
    "views",
]


def check_shape(data: Any) -> dict[str, Any]:
    """``data`` as a state dict of the right format and keys (raises ``StateError`` naming the problem)."""
    if not isinstance(data, dict):
        raise StateError(f"a state is a dict (from env.state_dict()), got {type(data).__name__}")
    if data.get("format") != FORMAT or data.get("version") != VERSION:
        raise StateError(
            f"not a state of this version: format {data.get('format')!r} version {data.get('version')!r} "
            f"(expected {FORMAT!r} version {VERSION})"
        )
    missing, unknown = KEYS - set(data), set(data) - KEYS
    if missing or unknown:
        raise StateError(f"state keys: missing {sorted(missing)}, unknown {sorted(unknown)}")
    actions = data["actions"]
    if not isinstance(actions, list) or not all(a is None or (type(a) is int and a >= 0) for a in actions):
        raise StateError("'actions' must be a list of action ids (non-negative integers, or null)")
    deck = data["deck"]
    if deck is not None and not (isinstance(deck, list) and all(type(c) is int for c in deck)):
        raise StateError("'deck' must be null or a list of card ids")
    if not isinstance(data["rules"], dict):
        raise StateError("'rules' must be a dict of rule options")
    try:
        expected = digest(data)
    except (TypeError, ValueError) as exc:
        raise StateError(f"the state is not JSON data: {exc}") from None
    if data["digest"] != expected:
        raise StateError(
            "the state's 'digest' does not match its content: it was edited or damaged after "
            "state_dict() wrote it (an edit of what no seat has seen, the generator's state or undealt "
            "cards, would otherwise play another game)"
        )
    return data


def views(env: Any) -> dict[str, dict[str, list[float] | list[int]]]:
    """Every seat's observation and action mask, as lists (what a state carries and loading checks)."""
    out: dict[str, dict[str, list[float] | list[int]]] = {}
    for agent in env.possible_agents:
        obs = env.observe(agent)
        out[agent] = {
            "observation": obs["observation"].tolist(),
            "action_mask": obs["action_mask"].tolist(),
        }
    return out
