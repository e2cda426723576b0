"""The Kakeya expert (the registry's ``expert``, ``KakeyaNetExpertAgent``): the kernel search with
learned play-outs.

The kernel search (``kernel_expert.py``, pinned as ``expert_0_3``) evaluates each candidate card on
sampled deals by play-outs in which every seat follows the scripted rules of thumb. Here a small network
plays the first ``net_plies`` cards of each play-out instead, every seat from its own view in the
sampled deal (its hand, the cards gone, the trick, the voids, the egara counts: ``kernel/netplay.py``),
then the rules of thumb finish the deal; 320 deals a card decision by default (``SEARCH_PARAMS``: about
7x ``expert_0_3``'s CPU per decision). Everything else is the kernel search's: the sampler, the race,
the exact end-game over the last ``dd_tricks`` tricks, the lead and trump choices (those play out with
the rules of thumb), the batched path over numba's threads, the ``max_ms`` cap; a seed fixes every
decision.

The network is a shipped model folder (``models/<net>/playout.npz``: plain arrays, loaded without
pickle; ``playout.json``: its architecture, training data, config and provenance), trained in the lab
(``kabu_envs.training.netplay``, on data recorded by ``kabu_envs.kakeya.agents.netplay_data``) by
behaviour cloning of ``expert_0_3``'s card plays.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import numpy as np

from kabu_envs.agents.base import loadable
from kabu_envs.kakeya.agents.kernel_expert import KakeyaKernelExpertAgent
from kabu_envs.kakeya.cards import NUM_CARDS

NET_PARAMS: dict[str, Any] = {
    "net": "playout_kakeya",  # the play-out network: a shipped model folder's name, or a folder
    "net_plies": 52,  # the cards of each play-out the network plays (then the rules of thumb); 0: none
}
# the search's own default budget: 320 deals a card decision (the strength-per-time curve against
# expert_0_3, docs/studies/kakeya_expert.md: about 7x its CPU per decision)
SEARCH_PARAMS: dict[str, Any] = {"samples": 320}
FORMAT = "kabu-envs playout net"  # (written by the lab: kabu_envs.training.netplay)


def net_folder(net: str) -> Path:
    """The folder of the play-out network ``net`` (a shipped model's name, or a path)."""
    from kabu_envs.agents.registry import SHIPPED_MODELS

    here = SHIPPED_MODELS / net
    folder = here if "/" not in net and here.is_dir() else Path(net)
    if not (folder / "playout.npz").is_file() or not (folder / "playout.json").is_file():
        shipped = sorted(p.parent.name for p in SHIPPED_MODELS.glob("*/playout.json"))
        raise ValueError(f"no play-out network {net!r} (playout.npz and playout.json); shipped: {shipped}")
    return folder


def load_net(net: str) -> tuple[tuple[np.ndarray, ...], dict[str, Any]]:
    """The network as ``kernel/netplay.py`` takes it (``w1, b1, w2, b2, gone_sum``, then the scratch
    ``hidden, idx, hand_acc, gone_acc``) and its
    record; the arrays are read without pickle and checked against the record (shapes, checksum)."""
    from kabu_envs.kakeya.kernel import netplay

    folder = net_folder(net)
    record = json.loads((folder / "playout.json").read_text())
    if record.get("format") != FORMAT or record.get("trained_for", {}).get("game") != "kakeya":
        raise ValueError(f"{folder}/playout.json: not a {FORMAT!r} record of a Kakeya network")
    data = (folder / "playout.npz").read_bytes()
    if hashlib.sha256(data).hexdigest() != record.get("weights_sha256"):
        raise ValueError(f"{folder}/playout.npz: its SHA-256 is not the record's weights_sha256")
    with np.load(folder / "playout.npz", allow_pickle=False) as f:
        w1, b1, w2, b2 = (np.ascontiguousarray(f[k], dtype=np.float32) for k in ("w1", "b1", "w2", "b2"))
    h = int(record["architecture"]["hidden"])
    want = {"w1": (netplay.NUM_FEATURES, h), "b1": (h,), "w2": (NUM_CARDS, h), "b2": (NUM_CARDS,)}
    for name, arr in zip(want, (w1, b1, w2, b2), strict=True):
        if arr.shape != want[name]:
            raise ValueError(f"{folder}/playout.npz: {name} has shape {arr.shape}, expected {want[name]}")
    gone_sum = w1[netplay.F_GONE : netplay.F_GONE + NUM_CARDS].sum(axis=0, dtype=np.float32)
    return (w1, b1, w2, b2, gone_sum, *netplay.scratch(h)), record


@loadable
class KakeyaNetExpertAgent(KakeyaKernelExpertAgent):
    """The kernel expert whose play-outs the network plays (module docstring);
    ``options`` are the expert's plus ``NET_PARAMS``."""

    name = "kakeya_expert_net"

    def __init__(self, seed: int | None = None, **options: Any) -> None:
        own = {k: options.pop(k) for k in NET_PARAMS if k in options}
        super().__init__(seed=seed, **{**SEARCH_PARAMS, **options})
        self.params.update({**NET_PARAMS, **own})
        plies = self.params["net_plies"]
        if isinstance(plies, bool) or not isinstance(plies, int) or plies < 0:
            raise ValueError(f"KakeyaNetExpertAgent: net_plies must be an int >= 0, got {plies!r}")
        if not isinstance(self.params["net"], str):
            raise ValueError(
                f"KakeyaNetExpertAgent: net must be a model name or folder, got {self.params['net']!r}"
            )
        self._net, self.net_record = load_net(self.params["net"])

    def _playouts(self) -> dict[str, Any]:
        """The network and its plies: the searches' card decisions (``decide.decide_cards``, and the
        batched ``decide.decide_rows`` on numba's threads) play out with it."""
        return {"net": self._net, "plies": self.params["net_plies"]}
