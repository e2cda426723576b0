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

``act_batch`` plays a batch of decisions with the same rules on ``(rows, 52)`` card arrays: each
"cheapest / lowest / highest card by some order" choice becomes an argmin or argmax of one integer key
per card whose ties fall to the lowest card id, as the scalar ``min``/``max``/``sorted`` over the
ascending legal cards break them. The agent draws no random numbers, so ``rngs`` is not used.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from kabu_envs.agents.base import BaseAgent, legal_from_mask, loadable
from kabu_envs.agents.batching import check_batch, check_rngs, require_legal
from kabu_envs.kakeya.actions import LEAD_PARTNER, LEAD_SELF, TRUMP_BASE
from kabu_envs.kakeya.cards import (
    ACE,
    ACE_OF_CLUBS,
    ACE_OF_SPADES,
    JACK,
    KING,
    NUM_CARDS,
    NUM_RANKS,
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

# per card id, for act_batch
_CARDS = np.arange(NUM_CARDS)
_SUIT, _RANK = _CARDS // NUM_RANKS, _CARDS % NUM_RANKS
_EGARA = _RANK >= JACK
_NONE = 1 << 20  # a key above every card's: argmin never picks a card that is not a candidate


@loadable
class KakeyaScriptedAgent(BaseAgent):
    """Plays any Kakeya decision; ``options`` are the env's rule options plus the params above."""

    # saved agent files (BaseAgent.save) written before the class moved into the game's package
    former_names = ("kabu_envs.agents.kakeya_scripted.KakeyaScriptedAgent",)

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

    # --- batched (the protocol of agents/batching.py) ---------------------------------------------
    def act_batch(
        self,
        observations: np.ndarray,
        action_masks: np.ndarray,
        rngs: Sequence[np.random.Generator] | None = None,
    ) -> np.ndarray:
        """``act`` on every row of ``(B, obs)``, ``(B, A)``: ``(B,)`` int64 (deterministic: ``rngs``, one
        generator per row or None, is not drawn from)."""
        obs, masks = check_batch(observations, action_masks, obs_spec(self.cfg).size)
        check_rngs(rngs, obs.shape[0])
        phase = obs[:, self.slices["phase"]].argmax(axis=1)
        trump = obs[:, self.slices["trump"]].argmax(axis=1)
        rensho = np.where(obs[:, self.slices["rensho"]][:, 1] != 0, ACE_OF_SPADES, ACE_OF_CLUBS)
        actions = TRUMP_BASE + trump
        lead = phase == Phase.LEAD
        hand = obs[:, self.slices["hand"]] != 0
        sure = (rensho[:, None] == _CARDS) | ((trump[:, None] == _SUIT) & (_RANK >= KING)) | (_RANK == ACE)
        strong = (hand & sure).sum(axis=1) >= self.params["lead_self_strength"]
        actions[lead] = np.where(strong[lead], LEAD_SELF, LEAD_PARTNER)
        play = (phase != Phase.TRUMP) & ~lead
        require_legal(masks, play)
        rows = np.flatnonzero(play)
        if rows.size:
            actions[rows] = self._play_batch(obs[rows], masks[rows], trump[rows], rensho[rows])
        return actions.astype(np.int64)

    def _play_batch(
        self, obs: np.ndarray, masks: np.ndarray, trump: np.ndarray, rensho: np.ndarray
    ) -> np.ndarray:
        """``_play`` per row. Rows the arrays do not model (an action id beyond the cards in the mask,
        a trick no card of which could win) are played by ``act``, which returns or raises for them."""
        n, r = self.cfg.num_players, np.arange(obs.shape[0])
        legal = masks[:, :NUM_CARDS]
        is_rensho = rensho[:, None] == _CARDS
        is_trump = trump[:, None] == _SUIT
        waste = np.where(is_rensho, 4 * NUM_RANKS, (2 * _EGARA + is_trump) * NUM_RANKS + _RANK)
        low = np.where(legal, waste * NUM_CARDS + _CARDS, _NONE).argmin(axis=1)
        trick = obs[:, self.slices["trick"]].reshape(-1, n, NUM_CARDS)
        played = np.asarray(trick.any(axis=2))
        leading = np.asarray(~played.any(axis=1))
        out = np.where(leading, self._lead_batch(obs, legal, trump, rensho, low), low)

        # following: the winning card so far, in play order from the leader
        card = trick.argmax(axis=2)  # (rows, seats)
        led = obs[:, self.slices["led_suit"]].argmax(axis=1)
        leader = obs[:, self.slices["leader"]].argmax(axis=1)
        # trick_winner's keys: a trump beats the led suit; another suit cannot win
        rank_key = np.where(is_trump, 100 + _RANK, np.where(led[:, None] == _SUIT, _RANK, -1))
        seat_key = np.where(card == rensho[:, None], 1000, rank_key[r[:, None], card])
        seat_key = np.where(played, seat_key, -2)
        order = (leader[:, None] + np.arange(n)) % n
        in_order = np.take_along_axis(seat_key, order, axis=1)
        win_seat = order[r, in_order.argmax(axis=1)]
        win_card = card[r, win_seat]
        counts = obs[:, self.slices["hand_counts"]]
        last = np.asarray(~(~played[:, 1:] & (counts[:, 1:] > 0)).any(axis=1))
        partner_winning = win_seat == self._partner
        egara_in_trick = (played & _EGARA[card]).sum(axis=1)

        gifts = legal & _EGARA & ~is_rensho & ~is_trump
        gift = np.where(gifts, _RANK * NUM_CARDS + _CARDS, _NONE).argmin(axis=1)
        beats = is_rensho | (rank_key > rank_key[r, win_card][:, None])
        winners = legal & beats & (win_card != rensho)[:, None]
        worth = (egara_in_trick > 0) | (winners & _EGARA).any(axis=1)
        cheap_ok = winners & ~is_rensho
        cheap = np.where(cheap_ok, (_RANK + 50 * is_trump) * NUM_CARDS + _CARDS, _NONE).argmin(axis=1)
        rensho_ok = winners[r, rensho] & ((egara_in_trick >= self.params["rensho_min_egara"]) | last)
        attack = ~partner_winning & worth
        follow = low
        follow = np.where(attack & ~cheap_ok.any(axis=1) & rensho_ok, rensho, follow)
        follow = np.where(attack & cheap_ok.any(axis=1), cheap, follow)
        sure = partner_winning & (last | (win_card == rensho))
        follow = np.where(sure, np.where(gifts.any(axis=1), gift, low), follow)
        out = np.where(leading, out, follow)

        odd = masks[:, NUM_CARDS:].any(axis=1) | (~leading & (in_order.max(axis=1) < 0))
        for i in np.flatnonzero(odd).tolist():
            out[i] = self.act(obs[i], masks[i])
        return out

    def _lead_batch(
        self, obs: np.ndarray, legal: np.ndarray, trump: np.ndarray, rensho: np.ndarray, low: np.ndarray
    ) -> np.ndarray:
        """``_lead`` per row: a master egara, else the lowest card of my longest plain suit, else ``low``."""
        r = np.arange(obs.shape[0])
        gone = obs[:, self.slices["gone"]] != 0
        voids = obs[:, self.slices["voids"]].reshape(obs.shape[0], -1, NUM_SUITS) != 0
        opp_void = voids[:, self._opponents].any(axis=1)  # (rows, suits)
        is_rensho = rensho[:, None] == _CARDS
        is_trump = trump[:, None] == _SUIT
        # every higher card of the suit gone: the suffix of gone from the next rank on
        by_suit = gone.reshape(-1, NUM_SUITS, NUM_RANKS)
        from_rank = np.logical_and.accumulate(by_suit[:, :, ::-1], axis=2)[:, :, ::-1]
        above = np.concatenate([from_rank[:, :, 1:], np.ones_like(from_rank[:, :, :1])], axis=2)
        masters = legal & _EGARA & (is_rensho | gone[r, rensho][:, None]) & above.reshape(-1, NUM_CARDS)
        masters &= is_trump | ~opp_void[:, _SUIT]
        master = np.where(masters, _RANK * 64 + (63 - _CARDS), -1).argmax(axis=1)
        plain = legal & ~is_trump & ~is_rensho
        longest = plain.reshape(-1, NUM_SUITS, NUM_RANKS).sum(axis=2).argmax(axis=1)
        in_suit = plain & (longest[:, None] == _SUIT)
        low_plain = in_suit & ~_EGARA
        pick = np.where(low_plain.any(axis=1), low_plain.argmax(axis=1), in_suit.argmax(axis=1))
        return np.where(masters.any(axis=1), master, np.where(plain.any(axis=1), pick, low))
