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
- Legality comes only from the action mask (the engine's rules, e.g. ``rensho_follow``), and
  the agent assumes no follow rule of its own: a seat that has "shown out" of a suit (the
  ``voids`` piece) may, with ``rensho_follow="free"``, still hold Rensho of that suit, so the
  agent never reads a void as "no Rensho there"; it counts an egara as a master only once
  Rensho is played or in its own hand. With "free" it keeps its Rensho back on a lead of
  Rensho's suit unless the trick is worth it, as on any other lead.
- Trump choice (made before any card is seen, so no suit is better on information): keep
  the current trump. Lead choice: LEAD_SELF when my hand holds at least
  ``lead_self_strength`` winners (Rensho, trump A/K, plain aces), else LEAD_PARTNER.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from agents.base import BaseAgent, legal_from_mask, loadable
from kabu_envs.kakeya.actions import LEAD_PARTNER, LEAD_SELF, TRUMP_BASE
from kabu_envs.kakeya.cards import (
    ACE,
    ACE_OF_CLUBS,
    ACE_OF_SPADES,
    KING,
    NUM_CARDS,
    NUM_SUITS,
    is_egara,
    make_card,
    rank_of,
    suit_of,
)
from kabu_envs.kakeya.config import OPTIONS, make_config
from kabu_envs.kakeya.game import Phase, partnership_seats
from kabu_envs.kakeya.observation import obs_spec
from kabu_envs.kakeya.tricks import trick_winner

DEFAULT_PARAMS: dict[str, Any] = {"rensho_min_egara": 2, "lead_self_strength": 2}


@loadable
class KakeyaScriptedAgent(BaseAgent):
    """Plays any Kakeya decision; ``options`` are the env's rule options plus the params above."""

    name = "kakeya_scripted"

    def __init__(self, seed: int | None = None, **options: Any) -> None:
        unknown = set(options) - set(OPTIONS.names) - set(DEFAULT_PARAMS)
        if unknown:
            raise ValueError(f"KakeyaScriptedAgent: unknown option(s) {sorted(unknown)}")
        super().__init__(seed=seed, **options)
        rules = {k: v for k, v in options.items() if k in OPTIONS}
        self.cfg = make_config(**rules)
        self.params = {**DEFAULT_PARAMS, **{k: v for k, v in options.items() if k in DEFAULT_PARAMS}}
        self.slices = obs_spec(self.cfg).slices
        # the observation's seats are relative (0 = me): my partnership is relative seats [0, n // 2]
        n = self.cfg.num_players
        self._partner = partnership_seats(0, n)[1]
        self._opponents = [k for k in range(n) if k not in partnership_seats(0, n)]

    # --- decoding ---------------------------------------------------------------
    def _piece(self, obs: np.ndarray, name: str) -> np.ndarray:
        return obs[self.slices[name]]

    def _rensho(self, obs: np.ndarray) -> int:
        """The card id of Rensho (the ``rensho`` piece: ace of clubs, ace of spades)."""
        return ACE_OF_SPADES if self._piece(obs, "rensho")[1] else ACE_OF_CLUBS

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        phase = Phase(int(np.argmax(self._piece(observation, "phase"))))
        if phase is Phase.TRUMP:
            current = int(np.argmax(self._piece(observation, "trump")))
            return TRUMP_BASE + current
        if phase is Phase.LEAD:
            strong = self._strength(observation) >= self.params["lead_self_strength"]
            return LEAD_SELF if strong else LEAD_PARTNER
        return self._play(observation, [int(a) for a in legal_from_mask(action_mask)])

    def _strength(self, obs: np.ndarray) -> int:
        """Sure winners in my hand: Rensho, the trump A and K, aces."""
        hand = [int(c) for c in np.flatnonzero(self._piece(obs, "hand"))]
        trump = int(np.argmax(self._piece(obs, "trump")))
        rensho = self._rensho(obs)
        return sum(
            c == rensho or (suit_of(c) == trump and rank_of(c) >= KING) or rank_of(c) == ACE for c in hand
        )

    # --- card play --------------------------------------------------------------------
    def _play(self, obs: np.ndarray, legal: list[int]) -> int:
        n = self.cfg.num_players
        trump = int(np.argmax(self._piece(obs, "trump")))
        rensho = self._rensho(obs)
        trick = self._piece(obs, "trick").reshape(n, NUM_CARDS)
        played = {k: int(np.argmax(trick[k])) for k in range(n) if trick[k].any()}
        if not played:
            return self._lead(obs, legal, trump, rensho)
        led = int(np.argmax(self._piece(obs, "led_suit")))
        leader = int(np.argmax(self._piece(obs, "leader")))
        # the winning card so far: the seats that played, in play order from the leader
        order = [k for k in ((leader + i) % n for i in range(n)) if k in played]
        win_seat = order[trick_winner([played[k] for k in order], led, trump, rensho)]
        win_card = played[win_seat]
        counts = self._piece(obs, "hand_counts")
        still = [k for k in range(1, n) if k not in played and counts[k] > 0]
        last = not still
        partner_winning = win_seat == self._partner
        egara_in_trick = sum(1 for c in played.values() if is_egara(c))
        if partner_winning and (last or win_card == rensho):
            gifts = [c for c in legal if is_egara(c) and c != rensho and suit_of(c) != trump]
            return min(gifts, key=rank_of) if gifts else self._low(legal, trump, rensho)
        winners = [c for c in legal if trick_winner([win_card, c], led, trump, rensho) == 1]
        if not partner_winning and winners:
            worth = egara_in_trick > 0 or any(is_egara(c) for c in winners)
            if worth:
                cheap = sorted(winners, key=lambda c: self._cost(c, trump, rensho))
                for c in cheap:
                    if c != rensho or egara_in_trick >= self.params["rensho_min_egara"] or last:
                        return c
        return self._low(legal, trump, rensho)

    def _lead(self, obs: np.ndarray, legal: list[int], trump: int, rensho: int) -> int:
        gone = self._piece(obs, "gone")
        voids = self._piece(obs, "voids").reshape(-1, NUM_SUITS)
        opp_void = [any(voids[k][s] for k in self._opponents) for s in range(NUM_SUITS)]
        # Rensho may be played at any time, and with rensho_follow="free" a seat shown out of its suit may
        # still hold it: an egara is a master only when Rensho is out or mine
        rensho_safe = bool(gone[rensho])
        masters = []
        for c in legal:
            s = suit_of(c)
            if not is_egara(c) or not (c == rensho or rensho_safe):
                continue
            if all(gone[h] for h in range(c + 1, make_card(s, ACE) + 1)) and (s == trump or not opp_void[s]):
                masters.append(c)
        if masters:
            return max(masters, key=rank_of)
        plain = [c for c in legal if suit_of(c) != trump and c != rensho]
        if plain:
            by_suit: dict[int, list[int]] = {}
            for c in plain:
                by_suit.setdefault(suit_of(c), []).append(c)
            longest = max(by_suit.values(), key=lambda cs: (len(cs), -min(cs)))
            non_egara = [c for c in longest if not is_egara(c)]
            return min(non_egara or longest)
        return self._low(legal, trump, rensho)

    @staticmethod
    def _cost(c: int, trump: int, rensho: int) -> int:
        """Cheapest winner first: plain cards, then trumps, then Rensho."""
        if c == rensho:
            return 100
        return rank_of(c) + (50 if suit_of(c) == trump else 0)

    @staticmethod
    def _low(legal: list[int], trump: int, rensho: int) -> int:
        """The card I least mind losing: no egara, no trump, low rank."""

        def waste(c: int) -> tuple[int, int]:
            if c == rensho:
                return (4, 0)
            return (2 * is_egara(c) + (suit_of(c) == trump), rank_of(c))

        return min(legal, key=waste)
