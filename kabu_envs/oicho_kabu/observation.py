"""What one seat may see, as one flat float32 vector built from named pieces (spec §3, §7).

``obs_spec(cfg)`` is the single source of the layout: the Box space, the encoder's offsets and the
docs table all come from it. ``Encoder(cfg).encode(game, seat)`` is the only code that reads game
state for observations, and it reads only what ``seat`` may see at that moment:

- a spread's first card and any drawn third card: everyone; its face-down second card: only the
  seats with a stake on that spread (nobody else until the showdown);
- the dealer's first two cards: nobody until step 10; then everyone when
  ``dealer_second_card_face_up`` is on, else only the dealer; everything at the showdown;
- an info card: only its owner (it is dead and never shown).

Seats are relative: ``dealer_position`` and ``chips`` start at the observing seat, so one policy can
play every seat. Every value lies in [0, 1] (chips are clipped: a seat in debt shows 0).
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from kabu_envs.core.obs_spec import ObsPiece, ObsSpec
from kabu_envs.oicho_kabu.config import OichoConfig
from kabu_envs.oicho_kabu.game import NUM_SPREADS, Game, Phase

NUM_VALUES = 10
LIGHT_CARDS = frozenset({0, 8, 28})  # hanafuda: copy 0 of months 1, 3 and 8


@lru_cache(maxsize=64)
def obs_spec(cfg: OichoConfig) -> ObsSpec:
    """The observation layout for this rule set (depends on ``num_players`` and the deck)."""
    n = cfg.num_players
    pieces = [
        ObsPiece("dealer_position", n, "one-hot: seats from this seat to the dealer (0 = this seat deals)"),
        ObsPiece("phase", len(Phase), "one-hot: MINSO, BET, DEALER_CHOICE, DECIDE, DEALER_DRAW, OVER"),
        ObsPiece("to_act", 1, "1 when this seat must act now"),
        ObsPiece("active_spread", NUM_SPREADS, "one-hot: the spread being bet on (BET) or decided (DECIDE)"),
        ObsPiece("choice_slot", 2, "one-hot: DEALER_CHOICE is for the dealer's first / second card"),
        ObsPiece("spread_cards", NUM_SPREADS * 3 * NUM_VALUES, "spread s, card k: value one-hot if seen"),
        ObsPiece("spread_hidden", NUM_SPREADS * 3, "spread s, card k: dealt but not visible to this seat"),
        ObsPiece("dealer_cards", 3 * NUM_VALUES, "dealer card k: value one-hot if seen"),
        ObsPiece("dealer_hidden", 3, "dealer card k: dealt but not visible to this seat"),
        ObsPiece("info_card", NUM_VALUES, "value one-hot of this seat's info card (info_cards)"),
        ObsPiece("spread_status", NUM_SPREADS * 3, "spread s: stood / drew / escaped (one-hot, 0 = open)"),
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
        pieces.append(ObsPiece("spread_lights", NUM_SPREADS * 3, "spread s, card k: a seen light card"))
        pieces.append(ObsPiece("dealer_lights", 3, "dealer card k: a seen light card"))
    return ObsSpec(tuple(pieces))


class Encoder:
    """Fast encoder for one config: offsets resolved once, one ``np.zeros`` and two writes per call."""

    def __init__(self, cfg: OichoConfig) -> None:
        self.cfg = cfg
        self.spec = spec = obs_spec(cfg)
        self.size = spec.size
        self.n = cfg.num_players
        o = spec.offsets
        self.o = o
        self._inv_domae = 1.0 / cfg.domae
        self._inv_bettors = 1.0 / max(1, self.n - 1)
        self._inv_total = 1.0 / max(1, self.n * cfg.bankroll)
        self._face_up = cfg.dealer_second_card_face_up
        self._lights = cfg.deck == "hanafuda"
        self._minso_limit = cfg.minso_limit if cfg.minso else 0
        # the encoder writes two contiguous float blocks; the layout above must keep them together
        blocks = (
            ("own_stakes", "total_stakes", "backers", "domae_left", "stake_room"),
            ("chips", "own_chips", "round", "dealer_deals", "minso_left"),
        )
        for block in blocks:
            for a, b in zip(block[:-1], block[1:], strict=True):
                if spec.slices[a].stop != o[b]:
                    raise RuntimeError(f"observation pieces {a!r} and {b!r} must be adjacent")

    def encode(self, game: Game, seat: int) -> np.ndarray:
        o = self.o
        n = self.n
        out = np.zeros(self.size, dtype=np.float32)
        ones = [o["dealer_position"] + (game.dealer - seat) % n, o["phase"] + game.phase]
        if game.current_player == seat:
            ones.append(o["to_act"])
        s_act = game.active_spread
        if s_act >= 0:
            ones.append(o["active_spread"] + s_act)
        if game.phase == Phase.DEALER_CHOICE:
            ones.append(o["choice_slot"] + game.choice_slot)
        showdown = game.showdown
        lights = self._lights
        o_sc, o_sh, o_st, o_dec = o["spread_cards"], o["spread_hidden"], o["spread_status"], o["is_decider"]
        stakes = game.stakes
        own = [0.0] * 12
        inv_d = self._inv_domae
        for s in range(NUM_SPREADS):
            cards = game.spreads[s]
            stake_s = stakes[s]
            mine = stake_s[seat]
            see2 = showdown or mine > 0
            base = o_sc + s * 30
            for k, c in enumerate(cards):
                if k == 1 and not see2:
                    ones.append(o_sh + s * 3 + 1)
                else:
                    ones.append(base + k * 10 + (c >> 2))
                    if lights and c in LIGHT_CARDS:
                        ones.append(o["spread_lights"] + s * 3 + k)
            st = game.spread_state[s]
            if st:
                ones.append(o_st + s * 3 + st - 1)
            if game.decider[s] == seat:
                ones.append(o_dec + s)
            total = game.spread_total[s]
            if total:
                own[s] = mine * inv_d
                own[4 + s] = total * inv_d
                own[8 + s] = (n - stake_s.count(0)) * self._inv_bettors
        see_d = showdown or (game.dealer_revealed and (self._face_up or seat == game.dealer))
        o_dc = o["dealer_cards"]
        for k, c in enumerate(game.dealer_cards):
            if k < 2 and not see_d:
                ones.append(o["dealer_hidden"] + k)
            else:
                ones.append(o_dc + k * 10 + (c >> 2))
                if lights and c in LIGHT_CARDS:
                    ones.append(o["dealer_lights"] + k)
        info = game.info_cards[seat]
        if info >= 0:
            ones.append(o["info_card"] + (info >> 2))
        out[ones] = 1.0
        cfg = self.cfg
        chips = game.chips
        left = cfg.domae - game.round_total
        own.append(left * inv_d)
        own.append(max(0, min(left, chips[seat] - game.seat_total[seat])) * inv_d)
        out[o["own_stakes"] : o["own_stakes"] + 14] = own
        inv_t = self._inv_total
        rel = chips[seat:] + chips[:seat]
        tail = [min(1.0, max(0.0, c * inv_t)) for c in rel]
        tail.append(min(1.0, max(0.0, chips[seat] * inv_d)))
        tail.append(game.round_index / cfg.max_rounds)
        tail.append(min(1.0, game.deals_by_dealer / cfg.dealer_max_deals))
        tail.append(
            (self._minso_limit - game.minso_redeals) / self._minso_limit if self._minso_limit else 0.0
        )
        out[o["chips"] : o["chips"] + n + 4] = tail
        return out


@lru_cache(maxsize=64)
def _encoder(cfg: OichoConfig) -> Encoder:
    return Encoder(cfg)


def encode(game: Game, seat: int) -> np.ndarray:
    """The observation of ``seat`` now (convenience wrapper; the env keeps its own ``Encoder``)."""
    return _encoder(game.cfg).encode(game, seat)
