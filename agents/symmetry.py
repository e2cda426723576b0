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

from collections.abc import Mapping
from typing import Any

import numpy as np

from kabu_envs.agents.declared import declared, pick
from kabu_envs.core.declared import SYMMETRY_HOOK, PolicySymmetries


def known_symmetries(game: str) -> dict[str, PolicySymmetries]:
    """The policy symmetries ``game`` declares (name -> record), none when it declares none."""
    return declared(game, SYMMETRY_HOOK)


def get_symmetries(game: str, name: str) -> PolicySymmetries:
    """The record of ``name``; an unknown name raises naming the game's symmetries."""
    return pick(known_symmetries(game), "policy symmetries", game, name)


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
        self.obs_source = np.argsort(self.obs_image, axis=1)
        self.action_source = np.argsort(self.action_image, axis=1)

    @property
    def size(self) -> int:
        """The number of relabelings (the group's order as declared, the identity included)."""
        return int(self.obs_image.shape[0])

    def select(self, observations: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(row, element)``: one entry per (decision, relabeling that applies to it), ordered by
        element then decision (so a decision's views come in element order, whatever the batch)."""
        obs = np.asarray(observations, dtype=np.float32)
        applies = np.asarray(self.record.applies(obs, self.env_options), dtype=bool)
        if applies.shape != (obs.shape[0], self.size) or not applies[:, 0].all():
            raise ValueError(
                f"policy symmetries {self.name!r}: applies() gave {applies.shape} (expected "
                f"{(obs.shape[0], self.size)}, identity true on every row)"
            )
        element, row = np.nonzero(applies.T)
        return row, element

    @staticmethod
    def gather(values: np.ndarray, row: np.ndarray, element: np.ndarray, source: np.ndarray) -> np.ndarray:
        """The views of per-decision rows ``values`` (observations, masks or network inputs), given
        the gather indices ``source`` of that kind (``obs_source``, ``action_source``, ``input_source``)."""
        return values[row[:, None], source[element]]  # fancy indexing: half take_along_axis's overhead

    def views(
        self, observations: np.ndarray, action_masks: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """``(row, element, view observations, view masks)`` (``select``'s order)."""
        obs = np.asarray(observations, dtype=np.float32)
        row, element = self.select(obs)
        masks = np.asarray(action_masks, dtype=bool)
        return (
            row,
            element,
            self.gather(obs, row, element, self.obs_source),
            self.gather(masks, row, element, self.action_source),
        )

    def input_source(self, features: str | None, obs_size: int) -> np.ndarray | None:
        """``(G, obs_size + features' size)``: the gather indices that turn a decision's network input
        (observation, then features ``features``) into each view's, or None when the features' images
        are not declared (the views' features must then be computed from the views)."""
        if features is None:
            return self.obs_source
        images = self.record.feature_maps(features, self.env_options)
        if images is None:
            return None
        images = np.asarray(images, dtype=np.int64)
        full = np.concatenate([self.obs_image, obs_size + images], axis=1)
        return np.argsort(full, axis=1)

    def back(self, values: np.ndarray, element: np.ndarray) -> np.ndarray:
        """Per-action values of views ``(N, num_actions)`` in the original actions' order."""
        return values[np.arange(len(values))[:, None], self.action_image[element]]


def symmetric_views(game: str, name: str | None, env_options: Mapping[str, Any]) -> SymmetricViews | None:
    """``SymmetricViews`` of ``name``, None for none."""
    return None if name is None else SymmetricViews(game, name, env_options)
