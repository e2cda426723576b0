"""Kakeya's policy features (``kabu_envs.agents.features``): card-play facts computed from the
observation, for networks that imitate the search (docs/kakeya.md#policy-features).

Why these: the search expert's edge over its clone is in the middle and end of a deal, where a move
depends on which cards are still out and whether a card wins the trick
(docs/studies/kakeya_models.md). A network
can in principle learn "the highest card still out in its suit" from the ``gone`` bits, but it learns
it slowly and noisily from a search's labels; given the counts directly, a clone agrees with the
search more often and loses less value per decision (measured there). Two sets: ``cards``
(``CARD_FEATURES``) and ``cards_seats`` (then ``SEAT_FEATURES``: the same facts resolved by seat, who may
hold what given the voids shown and who is still to play; measured there too, it did not make a
stronger clone than ``cards``, so no shipped model uses it).

Every feature is a function of the observation alone (the seat's hand and public cards), vectorised
over a batch with plain numpy; a row's features depend on that row only, so a batch and one
observation at a time give the same numbers.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any

import numpy as np

from kabu_envs.core.declared import PolicyFeatures
from kabu_envs.kakeya.cards import (
    ACE_OF_CLUBS,
    ACE_OF_SPADES,
    JACK,
    NUM_CARDS,
    NUM_EGARA,
    NUM_RANKS,
    NUM_SUITS,
)
from kabu_envs.kakeya.config import make_config
from kabu_envs.kakeya.observation import obs_spec

_SUIT = np.arange(NUM_CARDS) // NUM_RANKS
_RANK = np.arange(NUM_CARDS) % NUM_RANKS
_EGARA = (_RANK >= JACK).astype(np.float32)
# trick keys, as kabu_envs/kakeya/tricks.py ranks cards: Rensho, then trumps, then the led suit
_RENSHO_KEY, _TRUMP_KEY = 200, 100

# (name, size per player count, meaning): the layout, in order (docs/kakeya.md#policy-features)
CARD_FEATURES: tuple[tuple[str, str, str], ...] = (
    ("above", "52", "per card: cards of its suit ranked above it that another seat may hold / 12"),
    (
        "threats",
        "52",
        "per card: cards another seat may hold that would beat it in the current trick "
        "(leading: a trick led with it) / 13",
    ),
    ("beats", "52", "per card in my hand: it would beat every card already in the trick (leading: 1)"),
    ("safe", "52", "per card: `beats` and no card another seat may hold beats it (`threats` = 0)"),
    ("winning", "n", "relative seat whose card wins the current trick so far (all 0 before the lead)"),
    ("partner_winning", "1", "my partner's card wins the current trick so far"),
    ("stake", "1", "egara in the current trick / 4"),
    ("suit_out", "4", "per suit: cards another seat may hold / 13"),
    ("suit_mine", "4", "per suit: cards in my hand / 13"),
)


# `cards_seats`: `CARD_FEATURES`, then these (the seats resolved: who may hold what, who is still to play)
SEAT_FEATURES: tuple[tuple[str, str, str], ...] = (
    (
        "may_hold",
        "(n-1)*52",
        "block k-1 = relative seat k may hold the card: it is out, the seat has cards and has not shown "
        "out of its suit",
    ),
    ("to_play", "n-1", "relative seats 1..n-1 still to play in the current trick (leading: all with cards)"),
    (
        "opp_threats",
        "52",
        "per card: cards that would beat it in the current trick (leading: a trick led with it) and that "
        "an opponent still to play may hold / 13",
    ),
    ("opp_safe", "52", "per card in my hand: `beats` and `opp_threats` = 0 (only my partner could take it)"),
    ("egara_mine", "1", "egara my partnership has taken / 16"),
    ("egara_theirs", "1", "egara the best opposing partnership has taken / 16"),
    ("egara_left", "1", "egara nobody has taken yet (in hands or the current trick) / 16"),
    ("egara_hand", "1", "egara in my hand / 16"),
)

_SIZES = {
    "52": lambda n: NUM_CARDS,
    "n": lambda n: n,
    "1": lambda n: 1,
    "4": lambda n: NUM_SUITS,
    "(n-1)*52": lambda n: (n - 1) * NUM_CARDS,
    "n-1": lambda n: n - 1,
}


def layout_size(layout: tuple[tuple[str, str, str], ...], n: int) -> list[int]:
    """The sizes of a layout's pieces at ``n`` players."""
    return [_SIZES[size](n) for _, size, _ in layout]


def features_table() -> str:
    """The docs table of ``cards`` (``CARD_FEATURES``) and ``cards_seats`` (``CARD_FEATURES`` then
    ``SEAT_FEATURES``) (docs/kakeya.md#policy-features): offsets after the observation, 4 and 6 players."""
    rows = ["| set | offset (4 / 6 players) | size | name | meaning |", "|---|---|---|---|---|"]
    at = {4: 0, 6: 0}
    for set_name, label, layout in (
        ("cards", "`cards`", CARD_FEATURES),
        ("cards_seats", "`cards_seats` only", SEAT_FEATURES),
    ):
        for name, size, meaning in layout:
            varies = "n" in size  # sized by the player count: show both sizes
            shown = f"{size} ({_SIZES[size](4)} / {_SIZES[size](6)})" if varies else size
            rows.append(f"| {label} | {at[4]} / {at[6]} | {shown} | `{name}` | {meaning} |")
            at = {n: at[n] + _SIZES[size](n) for n in at}
        rows.append(f"| {label} | | **{at[4]} / {at[6]}** | total of `{set_name}` | |")
    return "\n".join(rows)


@cache
def _table(options: tuple[tuple[str, Any], ...]) -> tuple[int, dict[str, slice]]:
    """(players, observation slices) of a rule set, looked up once per rule set (every decision asks)."""
    cfg = make_config(**dict(options))
    return cfg.num_players, obs_spec(cfg).slices


def _table_of(env_options: Mapping[str, Any]) -> tuple[int, dict[str, slice]]:
    return _table(tuple(sorted(env_options.items())))


def card_features_size(env_options: Mapping[str, Any]) -> int:
    """The columns of ``cards`` (its layout's, at the rule set's player count)."""
    return sum(layout_size(CARD_FEATURES, _table_of(env_options)[0]))


def _keys(led: np.ndarray, is_trump: np.ndarray, is_rensho: np.ndarray) -> np.ndarray:
    """Trick keys of all 52 cards per row when suit ``led`` (broadcast to the cards) is led: -1 for a
    card that cannot win."""
    k = np.where(led == _SUIT, _RANK, -1)
    k = np.where(is_trump, _TRUMP_KEY + _RANK, k)
    return np.where(is_rensho, _RENSHO_KEY, k)


@dataclass(frozen=True)
class _Facts:
    """What both feature sets derive from a batch of observations (computed once per batch)."""

    n: int
    hand: np.ndarray  # (B, 52) bool
    out: np.ndarray  # (B, 52) bool: another seat may hold it
    trick: np.ndarray  # (B, n, 52) bool
    leading: np.ndarray  # (B,) bool
    k_led: np.ndarray  # (B, 52) trick keys under the led suit
    k_own: np.ndarray  # (B, 52) each card's key in the trick it would play in (leading: led with it)
    beats_cd: np.ndarray  # (B, 52 c, 52 d): card d would beat card c in c's trick
    beats: np.ndarray  # (B, 52) bool: my card beats every card already in the trick
    obs: np.ndarray
    slices: dict[str, slice]


def _facts(observations: np.ndarray, env_options: Mapping[str, Any]) -> _Facts:
    n, sl = _table_of(env_options)
    obs = np.asarray(observations)
    b = obs.shape[0]
    hand: np.ndarray = obs[:, sl["hand"]] > 0.5
    out: np.ndarray = obs[:, sl["gone"]] < 0.5
    trick: np.ndarray = obs[:, sl["trick"]].reshape(b, n, NUM_CARDS) > 0.5
    led_bits: np.ndarray = obs[:, sl["led_suit"]] > 0.5
    leading = np.asarray(~led_bits.any(1))
    led = np.where(leading, -1, led_bits.argmax(1))[:, None]
    trump_bits: np.ndarray = obs[:, sl["trump"]] > 0.5
    trump = np.where(trump_bits.any(1), trump_bits.argmax(1), -1)[:, None]
    rs: np.ndarray = obs[:, sl["rensho"]] > 0.5
    rensho = np.where(rs[:, 0], ACE_OF_CLUBS, np.where(rs[:, 1], ACE_OF_SPADES, -1))[:, None]
    is_trump: np.ndarray = np.equal(trump, _SUIT)  # (B, 52)
    is_rensho: np.ndarray = np.equal(rensho, np.arange(NUM_CARDS))
    k_led = _keys(led, is_trump, is_rensho)  # (B, 52) under the trick's led suit
    # each card's own key: under the led suit, or leading, under its own suit
    k_own = np.where(leading[:, None], _keys(_SUIT, is_trump, is_rensho), k_led)
    # the suit that would be led for card c, then every card d's key under it: (B, 52 c, 52 d)
    suit_c = np.where(leading[:, None], _SUIT, led)
    k_d = _keys(suit_c[:, :, None], is_trump[:, None, :], is_rensho[:, None, :])
    played = np.asarray(trick.any(1))
    best = np.where(played, k_led, -1).max(1)  # -1 before the lead
    beats = hand & (k_own > best[:, None]) & (k_own >= 0)
    return _Facts(n, hand, out, trick, leading, k_led, k_own, k_d > k_own[:, :, None], beats, obs, sl)


def card_features(observations: np.ndarray, env_options: Mapping[str, Any]) -> np.ndarray:
    """``(B, obs_size)`` Kakeya observations -> ``(B, card_features_size)`` float32 (``CARD_FEATURES``)."""
    return _card_features(_facts(observations, env_options))


def _card_features(f: _Facts) -> np.ndarray:
    n, hand, out, trick = f.n, f.hand, f.out, f.trick
    b = hand.shape[0]
    out3 = out.reshape(b, NUM_SUITS, NUM_RANKS)
    above = (out3.sum(2, keepdims=True) - np.cumsum(out3, 2)).reshape(b, NUM_CARDS)
    threats = (f.beats_cd & out[:, None, :]).sum(2)
    safe = f.beats & (threats == 0)
    played = np.asarray(trick.any(1))
    seat_keys = np.where(trick, f.k_led[:, None, :], -1).max(2)  # (B, n)
    winning = np.zeros((b, n), dtype=np.float32)
    started = np.asarray(played.any(1))
    winning[np.flatnonzero(started), seat_keys.argmax(1)[started]] = 1.0
    stake = (played * _EGARA).sum(1, keepdims=True) / 4.0
    return np.concatenate(
        [
            above / 12.0,
            threats / float(NUM_RANKS),
            f.beats,
            safe,
            winning,
            winning[:, n // 2 : n // 2 + 1],  # the partner sits n // 2 seats on
            stake,
            out3.sum(2) / float(NUM_RANKS),
            hand.reshape(b, NUM_SUITS, NUM_RANKS).sum(2) / float(NUM_RANKS),
        ],
        axis=1,
        dtype=np.float32,
    )


def seat_features_size(env_options: Mapping[str, Any]) -> int:
    """The columns ``cards_seats`` adds to ``cards`` (``SEAT_FEATURES``')."""
    return sum(layout_size(SEAT_FEATURES, _table_of(env_options)[0]))


def seat_features(observations: np.ndarray, env_options: Mapping[str, Any]) -> np.ndarray:
    """``(B, obs_size)`` -> ``(B, seat_features_size)`` float32 (``SEAT_FEATURES``)."""
    return _seat_features(_facts(observations, env_options))


def _seat_features(f: _Facts) -> np.ndarray:
    n, obs, sl = f.n, f.obs, f.slices
    b = obs.shape[0]
    voids = obs[:, sl["voids"]].reshape(b, n, NUM_SUITS) > 0.5
    has_cards = obs[:, sl["hand_counts"]] > 1e-6  # (B, n)
    # relative seat k may hold card c: it is out, k has cards and has not shown out of c's suit
    may_hold = f.out[:, None, :] & has_cards[:, :, None] & ~voids[:, :, _SUIT]  # (B, n, 52)
    may_hold[:, 0] = False  # my own hand is known
    to_play = has_cards & ~f.trick.any(2)  # still to play in this trick (me included)
    to_play[:, 0] = False
    opponent = np.ones(n, dtype=bool)
    opponent[[0, n // 2]] = False  # me and my partner (n // 2 seats on)
    opp_to_play = to_play & opponent  # (B, n)
    opp_may_hold: np.ndarray = np.asarray((may_hold & opp_to_play[:, :, None]).any(1))  # (B, 52)
    opp_threats = (f.beats_cd & opp_may_hold[:, None, :]).sum(2)
    opp_safe = f.beats & (opp_threats == 0)
    egara = obs[:, sl["egara"]].reshape(b, -1, NUM_EGARA) > 0.5  # (B, partnerships, 16)
    counts = egara.sum(2)
    taken = egara.any(1).sum(1)
    in_hand = (f.hand & (_EGARA > 0)).sum(1)
    return np.concatenate(
        [
            may_hold[:, 1:].reshape(b, (n - 1) * NUM_CARDS),
            to_play[:, 1:],
            opp_threats / float(NUM_RANKS),
            opp_safe,
            counts[:, :1] / float(NUM_EGARA),
            counts[:, 1:].max(1, keepdims=True) / float(NUM_EGARA),
            (NUM_EGARA - taken[:, None]) / float(NUM_EGARA),
            in_hand[:, None] / float(NUM_EGARA),
        ],
        axis=1,
        dtype=np.float32,
    )


def cards_seats_size(env_options: Mapping[str, Any]) -> int:
    return card_features_size(env_options) + seat_features_size(env_options)


def cards_seats_features(observations: np.ndarray, env_options: Mapping[str, Any]) -> np.ndarray:
    """``cards`` then ``SEAT_FEATURES`` (the shared facts computed once)."""
    f = _facts(observations, env_options)
    return np.concatenate([_card_features(f), _seat_features(f)], axis=1)


POLICY_FEATURES = {
    "cards": PolicyFeatures(
        card_features_size,
        card_features,
        "card-play facts: cards still out above each card, what beats it now, who wins the trick",
    ),
    "cards_seats": PolicyFeatures(
        cards_seats_size,
        cards_seats_features,
        "`cards`, then who may still hold each card (shown voids), which opponents are still to play, "
        "what they may beat, the egara count",
        extends="cards",
    ),
}
