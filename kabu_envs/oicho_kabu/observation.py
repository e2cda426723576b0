"""What one seat may see, as one flat float32 vector built from named pieces (docs/oicho_kabu.md#observation;
who sees which card: docs/oicho_kabu.md#a-round).

``obs_spec(cfg)`` is the single source of the layout: the Box space, the encoder's offsets and the
docs table all come from it. ``Encoder(cfg).encode(game, seat)`` is the only code that reads game
state for observations, and it reads only what ``seat`` may see at that moment:

- a spread's first card and any drawn third card: everyone; its face-down second card: only the
  seats with a stake on that spread (nobody else until the showdown), or everyone once an unbacked
  spread is turned up and dealt its card (``unbacked_spread_card``, ``Game.turned_up``);
- the dealer's first two cards: nobody until step 10; then everyone when
  ``dealer_second_card_face_up`` is on, else only the dealer; everything at the showdown;
- an info card: only its owner (it is dead and never shown).

Seats are relative: ``dealer_position``, ``chips`` and ``selection_cards`` start at the observing seat,
so one policy can play every seat. Every value lies in [0, 1] (chips are clipped: a seat in debt shows 0).
"""

from __future__ import annotations

from array import array
from functools import lru_cache

import numpy as np

from kabu_envs.core.obs_spec import ObsPiece, ObsSpec
from kabu_envs.oicho_kabu.config import Config
from kabu_envs.oicho_kabu.deck import LIGHT_CARDS, NUM_VALUES
from kabu_envs.oicho_kabu.game import DREW, ESCAPED, MAX_CARDS, NUM_SPREADS, STOOD, Game, Phase

_DEALER_CHOICE = Phase.DEALER_CHOICE

# ``spread_status`` has one bit per decided spread state: bit ``state - 1`` (UNDECIDED has none).
STOOD_BIT, DREW_BIT, ESCAPED_BIT = STOOD - 1, DREW - 1, ESCAPED - 1
NUM_STATUS = 3


@lru_cache(maxsize=64)
def obs_spec(cfg: Config) -> ObsSpec:
    """The observation layout for this rule set (depends on ``num_players`` and the deck)."""
    n = cfg.num_players
    slots = NUM_SPREADS * MAX_CARDS  # spread s, card k
    pieces = [
        ObsPiece("dealer_position", n, "one-hot: seats from this seat to the dealer (0 = this seat deals)"),
        ObsPiece("phase", len(Phase), "one-hot: " + ", ".join(p.name for p in Phase)),
        ObsPiece("to_act", 1, "1 when this seat must act now"),
        ObsPiece("active_spread", NUM_SPREADS, "one-hot: the spread being bet on (BET) or decided (DECIDE)"),
        ObsPiece("choice_slot", 2, "one-hot: DEALER_CHOICE is for the dealer's first / second card"),
        ObsPiece("spread_cards", slots * NUM_VALUES, "spread s, card k: value one-hot if seen"),
        ObsPiece("spread_hidden", slots, "spread s, card k: dealt but not visible to this seat"),
        ObsPiece("dealer_cards", MAX_CARDS * NUM_VALUES, "dealer card k: value one-hot if seen"),
        ObsPiece("dealer_hidden", MAX_CARDS, "dealer card k: dealt but not visible to this seat"),
        ObsPiece("info_card", NUM_VALUES, "value one-hot of this seat's info card (info_cards)"),
        ObsPiece(
            "spread_status", NUM_SPREADS * NUM_STATUS, "spread s: stood / drew / escaped (one-hot, 0 = open)"
        ),
        ObsPiece("is_decider", NUM_SPREADS, "1 if this seat decides spread s (its first backer)"),
        ObsPiece("own_stakes", NUM_SPREADS, "this seat's stake on spread s / domae"),
        ObsPiece("total_stakes", NUM_SPREADS, "all stakes on spread s / domae"),
        ObsPiece("backers", NUM_SPREADS, "number of seats backing spread s / (num_players - 1)"),
        ObsPiece("domae_left", 1, "(domae - stakes this round) / domae"),
        ObsPiece("stake_room", 1, "what this seat may still stake: min(domae left, own chips left) / domae"),
        ObsPiece("chips", n, "chips of each seat from this one on / (num_players * bankroll), clipped"),
        ObsPiece("own_chips", 1, "this seat's chips / domae, clipped to 1"),
        ObsPiece("round", 1, "rounds finished / max_rounds"),
        ObsPiece("dealer_deals", 1, "deals by the current dealer / dealer_max_deals, clipped"),
        ObsPiece("minso_left", 1, "minso redeals left this round / minso_limit (0 without minso)"),
    ]
    if cfg.deck == "hanafuda":
        pieces.append(ObsPiece("spread_lights", slots, "spread s, card k: a seen light card"))
        pieces.append(ObsPiece("dealer_lights", MAX_CARDS, "dealer card k: a seen light card"))
    if cfg.dealer_selection_each_deal:
        pieces.append(
            ObsPiece(
                "selection_cards",
                n * NUM_VALUES,
                "each seat's selection card of this deal (public), from this seat on: value one-hot "
                "(none for a seat without chips)",
            )
        )
    return ObsSpec(tuple(pieces))


class Encoder:
    """Fast encoder for one config: every write goes to a named piece of ``obs_spec(cfg)``, whose offsets
    are resolved once here (plain attributes: no dict look-ups or numpy item writes on the hot path).

    Inside a piece the layout is the one its description gives: ``spread_cards`` is spread s, card k,
    value one-hot (``MAX_CARDS * NUM_VALUES`` per spread), ``spread_hidden`` and the lights are spread s,
    card k, ``spread_status`` is spread s, ``NUM_STATUS`` bits, ``dealer_cards`` is card k, value one-hot.
    A card id's value index is ``id >> 2`` (``deck.COPIES`` = 4 ids per value).
    """

    def __init__(self, cfg: Config) -> None:
        self.cfg = cfg
        self.spec = spec = obs_spec(cfg)
        self.size = spec.size
        self.n = cfg.num_players
        o = spec.offsets
        self._inv_domae = 1.0 / cfg.domae
        self._inv_bettors = 1.0 / max(1, self.n - 1)
        self._inv_total = 1.0 / max(1, self.n * cfg.bankroll)
        self._face_up = cfg.dealer_second_card_face_up
        self._lights = cfg.deck == "hanafuda"
        self._minso_limit = cfg.minso_limit if cfg.minso else 0
        self._domae = cfg.domae
        self._inv_rounds = 1.0 / cfg.max_rounds
        self._inv_deals = 1.0 / cfg.dealer_max_deals
        # piece offsets as plain attributes: the hot path does no dict look-ups
        self._o_dealer, self._o_phase, self._o_to_act = o["dealer_position"], o["phase"], o["to_act"]
        self._o_active, self._o_slot = o["active_spread"], o["choice_slot"]
        self._o_status = o["spread_status"]
        self._o_dcards, self._o_dhidden, self._o_info = o["dealer_cards"], o["dealer_hidden"], o["info_card"]
        self._o_decider, self._o_own, self._o_total = o["is_decider"], o["own_stakes"], o["total_stakes"]
        self._o_backers, self._o_left, self._o_room = o["backers"], o["domae_left"], o["stake_room"]
        self._o_chips, self._o_own_chips, self._o_round = o["chips"], o["own_chips"], o["round"]
        self._o_deals, self._o_minso = o["dealer_deals"], o["minso_left"]
        if self._lights:
            self._o_slights, self._o_dlights = o["spread_lights"], o["dealer_lights"]
        self._o_select = o["selection_cards"] if cfg.dealer_selection_each_deal else -1
        # where card k of each spread starts (its value one-hot), and each spread's hidden second card
        hand = MAX_CARDS * NUM_VALUES
        self._sc_base = tuple(o["spread_cards"] + hand * s for s in range(NUM_SPREADS))
        self._hid2 = tuple(o["spread_hidden"] + MAX_CARDS * s + 1 for s in range(NUM_SPREADS))
        self._template = array("f", bytes(4 * self.size))
        self._cache: list[tuple[Game, int, array[float]] | None] = [None] * self.n

    def encode(self, game: Game, seat: int) -> np.ndarray:
        """The observation of ``seat``: the cached part (cards, chips, ...) plus what moves every step.

        Writes go item by item into an ``array('f')`` (cheaper than numpy item writes), which is then
        wrapped as a float32 ndarray without a copy. From one BET turn to the next only the stakes
        move (``game.version`` stays), so the rest is reused from a per-seat cache.
        """
        cached = self._cache[seat]
        if cached is not None and cached[0] is game and cached[1] == game.version:
            a = cached[2][:]
        else:
            base = self._static(game, seat)
            self._cache[seat] = (game, game.version, base)
            a = base[:]
        phase = game.phase
        a[self._o_phase + phase] = 1.0
        if game.current_player == seat:
            a[self._o_to_act] = 1.0
        s_act = game.active_spread
        if s_act >= 0:
            a[self._o_active + s_act] = 1.0
        if phase == _DEALER_CHOICE:
            a[self._o_slot + game.choice_slot] = 1.0
        inv_d = self._inv_domae
        total = game.round_total
        if total:
            n = self.n
            o_own, o_total, o_backers, o_dec = self._o_own, self._o_total, self._o_backers, self._o_decider
            inv_b = self._inv_bettors
            tot = game.spread_total
            decider = game.decider
            for s, st in enumerate(game.stakes):
                if st[seat]:
                    a[o_own + s] = st[seat] * inv_d
                if tot[s]:
                    a[o_total + s] = tot[s] * inv_d
                    a[o_backers + s] = (n - st.count(0)) * inv_b
                    if decider[s] == seat:
                        a[o_dec + s] = 1.0
        left = self._domae - total
        room = game.chips[seat] - game.seat_total[seat]
        a[self._o_left] = left * inv_d
        if room > 0:
            a[self._o_room] = (room if room < left else left) * inv_d
        return np.frombuffer(a, dtype=np.float32)

    def _static(self, game: Game, seat: int) -> array[float]:
        """Everything that stays put while only stakes change: seat, cards, chips, round counters."""
        a = self._template[:]
        a[self._o_dealer + (game.dealer - seat) % self.n] = 1.0
        showdown = game.showdown
        stakes = game.stakes
        sc_base, hid2 = self._sc_base, self._hid2
        card1, card2 = NUM_VALUES, 2 * NUM_VALUES  # where cards 1 and 2 of a hand start
        for s, cards in enumerate(game.spreads):
            base = sc_base[s]
            a[base + (cards[0] >> 2)] = 1.0
            if len(cards) > 1:
                # (the last test is ``game.turned_up(s)``, inlined on the hot path)
                if showdown or stakes[s][seat] or (len(cards) > 2 and not game.spread_total[s]):
                    a[base + card1 + (cards[1] >> 2)] = 1.0
                else:
                    a[hid2[s]] = 1.0
                if len(cards) > 2:
                    a[base + card2 + (cards[2] >> 2)] = 1.0
        o_st = self._o_status
        for s, st in enumerate(game.spread_state):
            if st:
                a[o_st + NUM_STATUS * s + st - 1] = 1.0  # bit state - 1 (STOOD_BIT, DREW_BIT, ESCAPED_BIT)
        dcards = game.dealer_cards
        if dcards:
            if showdown or (game.dealer_revealed and (self._face_up or seat == game.dealer)):
                o_dc = self._o_dcards
                for k, c in enumerate(dcards):
                    a[o_dc + NUM_VALUES * k + (c >> 2)] = 1.0
            else:
                a[self._o_dhidden] = 1.0
                if len(dcards) > 1:
                    a[self._o_dhidden + 1] = 1.0
                if len(dcards) > 2:  # a drawn third card is face up (only ever seen at the showdown)
                    a[self._o_dcards + card2 + (dcards[2] >> 2)] = 1.0
        info = game.info_cards[seat]
        if info >= 0:
            a[self._o_info + (info >> 2)] = 1.0
        if self._lights:
            self._add_lights(game, seat, a)
        if self._o_select >= 0:  # public: every seat sees every selection card
            at = self._o_select
            sel = game.selection_cards
            for c in sel[seat:] + sel[:seat]:
                if c >= 0:
                    a[at + (c >> 2)] = 1.0
                at += NUM_VALUES
        chips = game.chips
        at = self._o_chips
        inv_t = self._inv_total
        for c in chips[seat:] + chips[:seat]:
            if c > 0:
                x = c * inv_t
                a[at] = x if x < 1.0 else 1.0
            at += 1
        mine = chips[seat]
        if mine > 0:
            x = mine * self._inv_domae
            a[self._o_own_chips] = x if x < 1.0 else 1.0
        a[self._o_round] = game.round_index * self._inv_rounds
        x = game.deals_by_dealer * self._inv_deals
        a[self._o_deals] = x if x < 1.0 else 1.0
        limit = self._minso_limit
        if limit:
            a[self._o_minso] = (limit - game.minso_redeals) / limit
        return a

    def _add_lights(self, game: Game, seat: int, a: array[float]) -> None:
        """Hanafuda only: which seen cards are lights (same visibility as the card values)."""
        o_sl, o_dl = self._o_slights, self._o_dlights
        for s, cards in enumerate(game.spreads):
            for k, c in enumerate(cards):
                if c in LIGHT_CARDS and (
                    k != 1 or game.showdown or game.stakes[s][seat] or game.turned_up(s)
                ):
                    a[o_sl + MAX_CARDS * s + k] = 1.0
        see_d = game.showdown or (game.dealer_revealed and (self._face_up or seat == game.dealer))
        for k, c in enumerate(game.dealer_cards):
            if c in LIGHT_CARDS and (see_d or k == 2):
                a[o_dl + k] = 1.0


@lru_cache(maxsize=64)
def _encoder(cfg: Config) -> Encoder:
    return Encoder(cfg)


def encode(game: Game, seat: int) -> np.ndarray:
    """The observation of ``seat`` now (convenience wrapper; the env keeps its own ``Encoder``)."""
    return _encoder(game.cfg).encode(game, seat)
