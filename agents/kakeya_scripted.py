"""A rule-based Kakeya player that decodes the flat observation through the obs spec.

Card play (the heart of the game is capturing egara, the 16 J/Q/K/A):
- Following: when the trick carries egara (or I can win it with an egara of mine) and an
  opponent is winning, win it with the CHEAPEST card that beats the current winner
  (plain cards before trumps, low trumps before high ones, Rensho only for a trick with
  at least ``rensho_min_egara`` egara or when I am last). When my partner's card is sure
  to win (I am last, or it is Rensho), I add my cheapest egara to the trick. Otherwise I
  throw my lowest card that is no egara and no trump.
- Leading: lead from strength: a "master" egara (no unseen higher card of its suit) in
  a suit no opponent has shown out of, else the lowest card of my longest plain suit.
- Trump choice (made before any card is seen, so no suit is better on information): keep
  the current trump. Lead choice: LEAD_SELF when my hand holds at least
  ``lead_self_strength`` winners (Rensho, trump A/K, plain aces), else LEAD_PARTNER.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from agents.base import BaseAgent, legal_from_mask
from kabu_envs.kakeya.actions import LEAD_PARTNER, LEAD_SELF, TRUMP_BASE
from kabu_envs.kakeya.config import OPTIONS, make_config
from kabu_envs.kakeya.game import Phase
from kabu_envs.kakeya.observation import obs_spec

_RULE_NAMES = {o.name for o in OPTIONS}
DEFAULT_PARAMS: dict[str, Any] = {"rensho_min_egara": 2, "lead_self_strength": 2}


def _is_egara(card: int) -> bool:
    return card % 13 >= 9


class KakeyaScriptedAgent(BaseAgent):
    """Plays any Kakeya decision; ``options`` are the env's rule options plus the params above."""

    name = "kakeya_scripted"

    def __init__(self, seed: int | None = None, **options: Any) -> None:
        unknown = set(options) - _RULE_NAMES - set(DEFAULT_PARAMS)
        if unknown:
            raise ValueError(f"KakeyaScriptedAgent: unknown option(s) {sorted(unknown)}")
        super().__init__(seed=seed, **options)
        rules = {k: v for k, v in options.items() if k in _RULE_NAMES}
        self.cfg = make_config(**rules)
        self.p = {**DEFAULT_PARAMS, **{k: v for k, v in options.items() if k in DEFAULT_PARAMS}}
        self.slices = obs_spec(self.cfg).slices

    # --- decoding ---------------------------------------------------------------
    def _piece(self, obs: np.ndarray, name: str) -> np.ndarray:
        return obs[self.slices[name]]

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        phase = Phase(int(np.argmax(self._piece(observation, "phase"))))
        if phase is Phase.TRUMP:
            current = int(np.argmax(self._piece(observation, "trump")))
            return TRUMP_BASE + current
        if phase is Phase.LEAD:
            return LEAD_SELF if self._strength(observation) >= self.p["lead_self_strength"] else LEAD_PARTNER
        return self._play(observation, [int(a) for a in legal_from_mask(action_mask)])

    def _strength(self, obs: np.ndarray) -> int:
        hand = np.flatnonzero(self._piece(obs, "hand"))
        trump = int(np.argmax(self._piece(obs, "trump")))
        rensho = 51 if self._piece(obs, "rensho")[1] else 12
        return sum(1 for c in hand if c == rensho or (c // 13 == trump and c % 13 >= 11) or c % 13 == 12)

    # --- card play --------------------------------------------------------------------
    def _play(self, obs: np.ndarray, legal: list[int]) -> int:
        n = self.cfg.num_players
        trump = int(np.argmax(self._piece(obs, "trump")))
        rensho = 51 if self._piece(obs, "rensho")[1] else 12
        trick = self._piece(obs, "trick").reshape(n, 52)
        played = {k: int(np.argmax(trick[k])) for k in range(n) if trick[k].any()}
        led_piece = self._piece(obs, "led_suit")
        if not played:
            return self._lead(obs, legal, trump, rensho)
        led = int(np.argmax(led_piece))
        leader = int(np.argmax(self._piece(obs, "leader")))
        # the winning card so far, in play order from the leader
        order = [(leader + i) % n for i in range(n) if (leader + i) % n in played]
        win_seat = order[0]
        for k in order[1:]:
            if self._beats(played[k], played[win_seat], led, trump, rensho):
                win_seat = k
        win_card = played[win_seat]
        counts = self._piece(obs, "hand_counts")
        still = [k for k in range(1, n) if k not in played and counts[k] > 0]
        last = not still
        partner_winning = win_seat == n // 2
        egara_in_trick = sum(1 for c in played.values() if _is_egara(c))
        if partner_winning and (last or win_card == rensho):
            gifts = [c for c in legal if _is_egara(c) and c != rensho and c // 13 != trump]
            return min(gifts, key=lambda c: c % 13) if gifts else self._low(legal, trump, rensho)
        winners = [c for c in legal if self._beats(c, win_card, led, trump, rensho)]
        if not partner_winning and winners:
            worth = egara_in_trick > 0 or any(_is_egara(c) for c in winners)
            if worth:
                cheap = sorted(winners, key=lambda c: self._cost(c, trump, rensho))
                for c in cheap:
                    if c != rensho or egara_in_trick >= self.p["rensho_min_egara"] or last:
                        return c
        return self._low(legal, trump, rensho)

    def _lead(self, obs: np.ndarray, legal: list[int], trump: int, rensho: int) -> int:
        gone = self._piece(obs, "gone")
        voids = self._piece(obs, "voids").reshape(-1, 4)
        n = self.cfg.num_players
        opp_void = [any(voids[k][s] for k in range(1, n) if k != n // 2) for s in range(4)]
        rensho_safe = bool(gone[rensho])  # Rensho may be played at any time, so it must be out or mine
        masters = []
        for c in legal:
            s, r = divmod(c, 13)
            if not _is_egara(c) or not (c == rensho or rensho_safe):
                continue
            if all(gone[h] for h in range(s * 13 + r + 1, s * 13 + 13)) and (s == trump or not opp_void[s]):
                masters.append(c)
        if masters:
            return max(masters, key=lambda c: c % 13)
        plain = [c for c in legal if c // 13 != trump and c != rensho]
        if plain:
            by_suit: dict[int, list[int]] = {}
            for c in plain:
                by_suit.setdefault(c // 13, []).append(c)
            longest = max(by_suit.values(), key=lambda cs: (len(cs), -min(cs)))
            non_egara = [c for c in longest if not _is_egara(c)]
            return min(non_egara or longest)
        return self._low(legal, trump, rensho)

    @staticmethod
    def _beats(c: int, w: int, led: int, trump: int, rensho: int) -> bool:
        if c == rensho:
            return True
        if w == rensho:
            return False
        cs, ws = c // 13, w // 13
        if cs == trump:
            return ws != trump or c % 13 > w % 13
        return ws != trump and cs == led and ws == led and c % 13 > w % 13

    @staticmethod
    def _cost(c: int, trump: int, rensho: int) -> int:
        """Cheapest winner first: plain cards, then trumps, then Rensho."""
        if c == rensho:
            return 100
        return c % 13 + (50 if c // 13 == trump else 0)

    @staticmethod
    def _low(legal: list[int], trump: int, rensho: int) -> int:
        """The card I least mind losing: no egara, no trump, low rank."""

        def waste(c: int) -> tuple[int, int]:
            if c == rensho:
                return (4, 0)
            return (2 * _is_egara(c) + (c // 13 == trump), c % 13)

        return min(legal, key=waste)
