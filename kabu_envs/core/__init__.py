"""Pieces shared by every game: errors, seeded decks, seat names, observation specs.

Python and numpy at import: the rules engines import this package, so it must never import
gymnasium, pettingzoo or torch; ``core.kernel`` (numba) is imported by the kernels only, on first use.
``core.picture`` (pillow) is not imported here: only the games' picture modules load it, when a
``render_mode="rgb_array"`` frame is drawn.
"""

from kabu_envs.core.errors import IllegalActionError, RuleConfigError
from kabu_envs.core.obs_spec import ObsPiece, ObsSpec
from kabu_envs.core.rng import make_rng, ordered_deck, validate_deck_prefix
from kabu_envs.core.seats import agent_name, agent_names, seat_of

__all__ = [
    "IllegalActionError",
    "RuleConfigError",
    "ObsPiece",
    "ObsSpec",
    "make_rng",
    "ordered_deck",
    "validate_deck_prefix",
    "agent_name",
    "agent_names",
    "seat_of",
]
