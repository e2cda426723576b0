"""Helpers for the Kakeya tests: stacked decks from wished hands, scripted play."""

from __future__ import annotations

import numpy as np

from kabu_envs.kakeya import make_config
from kabu_envs.kakeya.cards import card_ids
from kabu_envs.kakeya.game import Game

ids = card_ids  # the engine's helper, under the name the tests use


def deal_order(n: int, first_dealer: int, skip: tuple[int, ...] = ()) -> list[int]:
    """Seats in deal order: from the seat after the first dealer, round the table."""
    return [s for s in ((first_dealer + k) % n for k in range(1, n + 1)) if s not in skip]


def deck_for(hands: dict[int, list], order: list[int]) -> list[int]:
    """The stacked deck (deal order) that gives every seat exactly ``hands[seat]``."""
    hands = {s: ids(h) for s, h in hands.items()}
    deck = []
    taken = dict.fromkeys(order, 0)
    for i in range(sum(len(h) for h in hands.values())):
        seat = order[i % len(order)]
        deck.append(hands[seat][taken[seat]])
        taken[seat] += 1
    return deck


def suit_hands() -> dict[int, list[int]]:
    """Seat s holds the whole suit s (clubs, diamonds, hearts, spades)."""
    return {s: list(range(13 * s, 13 * s + 13)) for s in range(4)}


def new_game(deck=None, seed: int = 0, **options) -> Game:
    return Game(make_config(**options), np.random.Generator(np.random.PCG64(seed)), deck)


def play_min_until_deal_ends(game: Game) -> np.ndarray:
    """Play the lowest legal card id until the current deal is scored; returns its rewards."""
    deals = game.deal_no
    while game.deal_no == deals:
        game.apply_action(min(game.legal_actions()))
    return game.pop_rewards()


def swapped_unseen(games: int = 12, seed: int = 400, wanted: int = 4):
    """``wanted`` mid-deal card decisions of random four-player games (the seat to play holding 5+
    cards), each as ``(obs, mask, obs2, mask2)``: the seat's observation and mask, then the same after
    two unseen cards of one suit are swapped between two other seats (a consistent deal: neither seat
    showed out of that suit). The observations are checked equal here; a player that decides from its
    observation only must decide alike on both."""
    import copy

    from kabu_envs.kakeya.cards import bits_to_cards
    from kabu_envs.kakeya.game import Phase
    from kabu_envs.kakeya.observation import Encoder

    cfg = make_config()
    enc = Encoder(cfg)
    found = 0
    for g in range(games):
        rng = np.random.default_rng(seed + g)
        game = Game(cfg, np.random.Generator(np.random.PCG64(seed + g)))
        while not game.terminal:
            if game.phase is Phase.PLAY and game.hand_counts[game.current_player] >= 5:
                seat, n = game.current_player, game.num_players
                a, b = (seat + 1) % n, (seat + 3) % n
                for suit in range(4):
                    ca = bits_to_cards(game.hands[a] & (((1 << 13) - 1) << (13 * suit)))
                    cb = bits_to_cards(game.hands[b] & (((1 << 13) - 1) << (13 * suit)))
                    if ca and cb:
                        other = copy.deepcopy(game)
                        other.hands[a] ^= (1 << ca[0]) | (1 << cb[0])
                        other.hands[b] ^= (1 << ca[0]) | (1 << cb[0])
                        obs, mask = enc.encode_with_mask(game, seat, game.legal_bits())
                        obs2, mask2 = enc.encode_with_mask(other, seat, other.legal_bits())
                        assert np.array_equal(obs, obs2) and np.array_equal(mask, mask2)
                        yield obs, mask, obs2, mask2
                        found += 1
                        if found >= wanted:
                            return
                        break
            legal = game.legal_actions()
            game.apply_action(legal[int(rng.integers(len(legal)))])
    raise AssertionError(f"only {found} of {wanted} positions to swap unseen cards in")


# what a shipped run's record called an agent that is another name today: "expert" was the search with
# scripted play-outs, pinned as ``expert_0_3`` since the search with network play-outs became ``expert``
THEN = {"expert": "expert_0_3"}


def run_config_then(path, then: dict[str, str] = THEN):
    """A shipped run's config (``run.json``) with the agents its record names read as their names today
    (``then``: the teacher and the opponents, the rounds' too), to compare with its preset."""
    from kabu_envs.training.config import load_config, load_run_config

    saved = load_run_config(path).to_dict()
    saved["bc"]["teacher"] = then.get(saved["bc"]["teacher"], saved["bc"]["teacher"])
    saved["opponents"] = {then.get(k, k): w for k, w in saved["opponents"].items()}
    for r in saved.get("dagger", {}).get("rounds", []):
        if r.get("opponents"):
            r["opponents"] = {then.get(k, k): w for k, w in r["opponents"].items()}
    return load_config(saved)


def collection_seeds(preset: str) -> set[int]:
    """The episode seeds a preset's labelling draws from, for every round it schedules (the run's own
    formula: ``training.dagger.collection_seeds``)."""
    from kabu_envs.training.config import load_config
    from kabu_envs.training.dagger import collection_seeds as seeds_of

    c = load_config(preset)
    rounds = len(c.dagger.schedule(c.opponents)) if c.dagger.iterations else 0
    return seeds_of(c.seed, rounds, c.dagger.workers)
