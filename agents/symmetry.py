"""Policy symmetries: relabelings of a game's observation and actions that leave a decision the same.

Why: in a card game some suits can be interchangeable for a given decision (in Kakeya, every suit that
is neither trump nor Rensho's), so the decision seen with those suits renamed is the same decision with
its moves renamed. A network that imitates a search makes partly different errors on each relabeled
view; averaging its masked log-probabilities over the views (test-time averaging, as an ensemble does
over networks) cancels some of them at the cost of more forward passes, with no training.

Protocol: a game's module ``symmetry.py`` holds ``POLICY_SYMMETRIES``, a mapping of names to
``PolicySymmetries`` (``GameSpec.hook("symmetry", "POLICY_SYMMETRIES")``); a game without it has none.
A symmetry ``g`` is a pair of index arrays: ``obs_image[g][i]`` is where observation entry ``i`` goes
in the relabeled view and ``action_image[g][a]`` the relabeled action ``a``. Which ``g`` apply depends
on the decision (``applies``); the identity is element 0 and applies to every decision.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

SYMMETRY_HOOK = ("symmetry", "POLICY_SYMMETRIES")


@dataclass(frozen=True)
class PolicySymmetries:
    """A game's group of relabelings for one table: ``maps(env_options) -> (obs_image (G, obs_size),
    action_image (G, num_actions))``, int64, row 0 the identity; ``applies(observations (B, obs_size),
    env_options) -> (B, G)`` bool, which relabelings leave each row's decision the same (column 0 all
    true), a function of that row only."""

    maps: Callable[[Mapping[str, Any]], tuple[np.ndarray, np.ndarray]]
    applies: Callable[[np.ndarray, Mapping[str, Any]], np.ndarray]
    doc: str


def known_symmetries(game: str) -> dict[str, PolicySymmetries]:
    """The policy symmetries ``game`` declares (name -> record), none when it declares none."""
    from kabu_envs import registry

    found = registry.get(game).hook(*SYMMETRY_HOOK)
    return dict(found or {})


def get_symmetries(game: str, name: str) -> PolicySymmetries:
    """The record of ``name``; an unknown name raises naming the game's symmetries."""
    known = known_symmetries(game)
    if name not in known:
        raise ValueError(f"unknown policy symmetries {name!r} for {game}; known: {sorted(known) or 'none'}")
    return known[name]


class SymmetricViews:
    """The relabeled views of a batch of decisions under symmetries ``name`` of ``game``'s table."""

    def __init__(self, game: str, name: str, env_options: Mapping[str, Any]) -> None:
        self.name = name
        self.record = get_symmetries(game, name)
        self.env_options = dict(env_options)
        obs_image, action_image = self.record.maps(self.env_options)
        self.obs_image = np.asarray(obs_image, dtype=np.int64)
        self.action_image = np.asarray(action_image, dtype=np.int64)
        g, n = self.obs_image.shape
        if self.action_image.shape[0] != g or not g:
            raise ValueError(
                f"policy symmetries {name!r}: {g} observation maps, {self.action_image.shape[0]} action maps"
            )
        for what, image in (("observation", self.obs_image), ("action", self.action_image)):
            if not (np.sort(image, axis=1) == np.arange(image.shape[1])).all():
                raise ValueError(f"policy symmetries {name!r}: an {what} map is not a permutation")
            if not (image[0] == np.arange(image.shape[1])).all():
                raise ValueError(f"policy symmetries {name!r}: element 0 is not the identity")
        # a view is gathered: view[i] = observation[source[i]]
        self._obs_source = np.argsort(self.obs_image, axis=1)
        self._action_source = np.argsort(self.action_image, axis=1)

    @property
    def size(self) -> int:
        """The number of relabelings (the group's order as declared, the identity included)."""
        return int(self.obs_image.shape[0])

    def views(
        self, observations: np.ndarray, action_masks: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """``(row, element, view observations, view masks)``: one row per (decision, relabeling that
        applies to it), ordered by element then decision (so a decision's views come in element
        order, whatever the batch)."""
        obs = np.asarray(observations, dtype=np.float32)
        applies = np.asarray(self.record.applies(obs, self.env_options), dtype=bool)
        if applies.shape != (obs.shape[0], self.size) or not applies[:, 0].all():
            raise ValueError(
                f"policy symmetries {self.name!r}: applies() gave {applies.shape} (expected "
                f"{(obs.shape[0], self.size)}, identity true on every row)"
            )
        element, row = np.nonzero(applies.T)
        view_obs = np.take_along_axis(obs[row], self._obs_source[element], axis=1)
        view_masks = np.take_along_axis(
            np.asarray(action_masks, dtype=bool)[row], self._action_source[element], axis=1
        )
        return row, element, view_obs, view_masks

    def back(self, values: np.ndarray, element: np.ndarray) -> np.ndarray:
        """Per-action values of views ``(N, num_actions)`` in the original actions' order."""
        return np.take_along_axis(values, self.action_image[element], axis=1)


def symmetric_views(game: str, name: str | None, env_options: Mapping[str, Any]) -> SymmetricViews | None:
    """``SymmetricViews`` of ``name``, None for none."""
    return None if name is None else SymmetricViews(game, name, env_options)
