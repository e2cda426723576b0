"""Kakeya's policy features (``kabu_envs.agents.features``): card-play facts computed from the
observation, for networks that imitate the search (docs/kakeya.md#policy-features).

Why these: the search expert's edge over its clone is in the middle and end of a deal, where a move
depends on which cards are still out and whether a card wins the trick (docs/baselines.md). A network
can in principle learn "the highest card still out in its suit" from the ``gone`` bits, but it learns
it slowly and noisily from a search's labels; given the counts directly, a clone agrees with the
search more often and loses less value per decision (measured there).

Every feature is a function of the observation alone (the seat's hand and public cards), vectorised
over a batch with plain numpy; a row's features depend on that row only, so a batch and one
observation at a time give the same numbers.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from typing import Any

import numpy as np

from kabu_envs.agents.features import PolicyFeatures
from kabu_envs.kakeya.cards import ACE_OF_CLUBS, ACE_OF_SPADES, JACK, NUM_CARDS, NUM_RANKS, NUM_SUITS
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


def features_table() -> str:
    """The docs table of ``CARD_FEATURES`` (docs/kakeya.md#policy-features): offsets after the
    observation, for 4 and 6 players."""
    rows = ["| offset (4 / 6 players) | size | name | meaning |", "|---|---|---|---|"]
    at = {4: 0, 6: 0}
    for name, size, meaning in CARD_FEATURES:
        sizes = {n: n if size == "n" else int(size) for n in at}
        shown = size if size != "n" else "n (4 / 6)"
        rows.append(f"| {at[4]} / {at[6]} | {shown} | `{name}` | {meaning} |")
        at = {n: at[n] + sizes[n] for n in at}
    rows.append(f"| | **{at[4]} / {at[6]}** | total | |")
    return "\n".join(rows)


@cache
def _table(options: tuple[tuple[str, Any], ...]) -> tuple[int, dict[str, slice]]:
    """(players, observation slices) of a rule set, looked up once per rule set (every decision asks)."""
    cfg = make_config(**dict(options))
    return cfg.num_players, obs_spec(cfg).slices


def _table_of(env_options: Mapping[str, Any]) -> tuple[int, dict[str, slice]]:
    return _table(tuple(sorted(env_options.items())))


def card_features_size(env_options: Mapping[str, Any]) -> int:
    return 4 * NUM_CARDS + _table_of(env_options)[0] + 2 + 2 * NUM_SUITS


def _keys(led: np.ndarray, is_trump: np.ndarray, is_rensho: np.ndarray) -> np.ndarray:
    """Trick keys of all 52 cards per row when suit ``led`` (broadcast to the cards) is led: -1 for a
    card that cannot win."""
    k = np.where(led == _SUIT, _RANK, -1)
    k = np.where(is_trump, _TRUMP_KEY + _RANK, k)
    return np.where(is_rensho, _RENSHO_KEY, k)


def card_features(observations: np.ndarray, env_options: Mapping[str, Any]) -> np.ndarray:
    """``(B, obs_size)`` Kakeya observations -> ``(B, card_features_size)`` float32 (``CARD_FEATURES``)."""
    n, sl = _table_of(env_options)
    obs = np.asarray(observations)
    b = obs.shape[0]
    hand: np.ndarray = obs[:, sl["hand"]] > 0.5
    out: np.ndarray = obs[:, sl["gone"]] < 0.5  # another seat may hold it
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

    out3 = out.reshape(b, NUM_SUITS, NUM_RANKS)
    above = (out3.sum(2, keepdims=True) - np.cumsum(out3, 2)).reshape(b, NUM_CARDS)

    k_led = _keys(led, is_trump, is_rensho)  # (B, 52) under the trick's led suit
    # each card's own key: under the led suit, or leading, under its own suit
    k_own = np.where(leading[:, None], _keys(_SUIT, is_trump, is_rensho), k_led)
    # the suit that would be led for card c, then every card d's key under it: (B, 52 c, 52 d)
    suit_c = np.where(leading[:, None], _SUIT, led)
    k_d = _keys(suit_c[:, :, None], is_trump[:, None, :], is_rensho[:, None, :])
    threats = ((k_d > k_own[:, :, None]) & out[:, None, :]).sum(2)

    played = np.asarray(trick.any(1))
    best = np.where(played, k_led, -1).max(1)  # -1 before the lead
    beats = hand & (k_own > best[:, None]) & (k_own >= 0)
    safe = beats & (threats == 0)

    seat_keys = np.where(trick, k_led[:, None, :], -1).max(2)  # (B, n)
    winning = np.zeros((b, n), dtype=np.float32)
    started = np.asarray(played.any(1))
    winning[np.flatnonzero(started), seat_keys.argmax(1)[started]] = 1.0
    stake = (played * _EGARA).sum(1, keepdims=True) / 4.0
    return np.concatenate(
        [
            above / 12.0,
            threats / float(NUM_RANKS),
            beats,
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


POLICY_FEATURES = {
    "cards": PolicyFeatures(
        card_features_size,
        card_features,
        "card-play facts: cards still out above each card, what beats it now, who wins the trick",
    ),
}
