"""The god view of watch mode: every card of the table, built from the seats' own views.

Only for a game no person plays (``Match`` refuses it otherwise): a person must never be shown a card
their seat may not see. Game-generic: it reads seat views, nothing of the game. The view of seat
``eye`` is the base; a face-down card of one of its zones is turned up when another seat's view has
that zone (same place, same number of cards) with the card face up; each other seat's own hand
(``view["hand"]``) becomes a zone in front of that seat, in place of its card backs.
"""

from __future__ import annotations

import copy
from typing import Any

from kabu_envs.core.messages import CORE, render, say
from kabu_envs.core.views import View, Viewer, zone


def god_view(viewer: Viewer, raw_env: Any, n: int, eye: int = 0) -> View:
    """Every seat's knowledge merged into seat ``eye``'s view (the module docstring)."""
    views = [viewer.seat_view(raw_env, q) for q in range(n)]
    out = copy.deepcopy(views[eye])
    for q, other in enumerate(views):
        if q == eye:
            continue
        for i, z in enumerate(out["zones"]):
            if i >= len(other["zones"]) or len(other["zones"][i]["cards"]) != len(z["cards"]):
                continue
            for j, c in enumerate(z["cards"]):
                seen = other["zones"][i]["cards"][j]
                if c.get("hidden") and not seen.get("hidden"):
                    z["cards"][j] = dict(seen)
        hand = other.get("hand")
        if hand and hand["cards"]:
            for z in out["zones"]:
                if z.get("seat") == q:
                    z["backs"] = 0
            label = say("core.hand_of", p=q)
            z = zone(label, [dict(c) for c in hand["cards"]], seat=q)
            z["label"] = render(label, CORE, me=eye)
            out["zones"].append(z)
    god = say("core.god")
    out["status"] = [render(god, CORE), *out["status"][1:]]
    out["say"]["status"] = [god, *out["say"]["status"][1:]]
    return out
