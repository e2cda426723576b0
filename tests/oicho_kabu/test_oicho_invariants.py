"""Random legal play: invariants on thousands of engine games and fewer env games, the global RNG,
and information hiding (changing a card a seat cannot see leaves its observations unchanged)."""

from __future__ import annotations

import random

import numpy as np
import pytest
from oicho_game_helpers import bet_round, stack

from kabu_envs import oicho_kabu_v1
from kabu_envs.core.rng import make_rng
from kabu_envs.oicho_kabu.actions import BET_BASE
from kabu_envs.oicho_kabu.config import make_config
from kabu_envs.oicho_kabu.game import Game, Phase
from kabu_envs.oicho_kabu.observation import Encoder

PRESETS = ["standard", "kabufuda_site", "kansai"]
ALL_CHANGES = ("deals", "bust", "doubled", "low_hand", "lost_all")
PHASE_ACTIONS = {
    Phase.MINSO: {3, 4},
    Phase.DEALER_CHOICE: {5, 6, 7},
    Phase.DECIDE: {0, 1, 2},
    Phase.DEALER_DRAW: {0, 1},
}


def _check_cards(game: Game) -> None:
    out = game.cards_in_play()
    rest = game.deck.cards[game.deck.top :]
    assert len(set(out)) == len(out), "a card is in two places"
    assert sorted(out + rest) == list(range(40)), "a card was lost or duplicated"


def _run_engine_game(cfg, rng: np.random.Generator, enc: Encoder) -> int:
    game = Game(cfg, rng, None)
    n = cfg.num_players
    total = np.zeros(n)
    steps = 0
    while not game.terminal:
        legal = game.legal_actions()
        assert legal and 0 <= game.current_player < n
        assert all(0 <= a < game.num_actions for a in legal)
        if game.phase == Phase.BET:
            assert BET_BASE in legal and all(a >= BET_BASE for a in legal)
            assert game.current_player != game.dealer
        else:
            assert set(legal) <= PHASE_ACTIONS[game.phase]
        if game.phase in (Phase.MINSO, Phase.DEALER_CHOICE, Phase.DEALER_DRAW):
            assert game.current_player == game.dealer
        if steps % 7 == 0:
            _check_cards(game)
            vec = enc.encode(game, steps % n)
            assert vec.shape == (enc.size,) and vec.min() >= 0.0 and vec.max() <= 1.0
        game.apply_action(legal[int(rng.integers(len(legal)))])
        r = game.pop_rewards()
        assert abs(r.sum()) < 1e-9
        total += r
        steps += 1
        assert steps < 5000, "episode does not end"
    _check_cards(game)
    assert game.current_player == -1 and game.legal_actions() == []
    assert sum(game.chips) == n * cfg.bankroll
    assert list(total) == [c - cfg.bankroll for c in game.chips]
    assert game.round_index <= cfg.max_rounds
    if game.round_index < cfg.max_rounds:
        assert sum(c > 0 for c in game.chips) < 2
    return steps


@pytest.mark.parametrize("preset", PRESETS)
@pytest.mark.parametrize("n", range(2, 9))
def test_engine_random_games_keep_invariants(preset, n):
    cfg = make_config(
        rules=preset,
        num_players=n,
        max_rounds=3,
        bankroll=30,
        dealer_change=ALL_CHANGES,
        dealer_max_deals=2,
    )
    rng = make_rng(1000 * n + len(preset))
    enc = Encoder(cfg)
    steps = sum(_run_engine_game(cfg, rng, enc) for _ in range(300))  # 2100 games per preset
    assert steps > 300 * 10


def _random_options(rng: np.random.Generator) -> dict:
    pick = lambda *xs: xs[int(rng.integers(len(xs)))]  # noqa: E731
    opts = dict(
        rules=pick(*PRESETS),
        num_players=int(rng.integers(2, 9)),
        dealer_selection=pick("fixed", "closest_to_nine", "lowest"),
        domae=pick(5, 20, 50),
        bankroll=pick(5, 40, 100),
        info_cards=pick(True, False),
        minso=pick(True, False),
        minso_limit=pick(1, 2),
        redeal_on_triple_table=pick(True, False),
        dealer_first_card=pick("before_bets", "after_bets"),
        dealer_card_choice=pick(True, False),
        dealer_second_card_face_up=pick(True, False),
        free_draw=pick(True, False),
        shiroku_escape=pick(True, False),
        dealer_draw_rule=pick("same_as_bettors", "free"),
        max_rounds=pick(1, 4),
        dealer_change=ALL_CHANGES[: int(rng.integers(0, 6))],
        local_yaku=pick((), ("pin_basami", "zoro", "niichi"), ("nobori", "kudari", "fujin", "raijin")),
    )
    # selection before every deal needs selection draws (a fixed dealer has none)
    opts["dealer_selection_each_deal"] = opts["dealer_selection"] != "fixed" and pick(True, False)
    return opts


def test_engine_random_option_mixes():
    rng = make_rng(99)
    for _ in range(300):
        cfg = make_config(**_random_options(rng))
        _run_engine_game(cfg, rng, Encoder(cfg))


@pytest.mark.parametrize("preset", PRESETS)
def test_env_random_games_masks_and_rewards(preset):
    rng = np.random.default_rng(7)
    for n in range(2, 9):
        e = oicho_kabu_v1.env(rules=preset, num_players=n, max_rounds=2)
        for ep in range(4):
            e.reset(seed=100 * n + ep)
            total = 0.0
            for agent in e.agent_iter(max_iter=5000):
                obs, reward, term, trunc, _ = e.last()
                total += reward
                if term or trunc:
                    e.step(None)
                    continue
                for other in e.agents:
                    mask = e.observe(other)["action_mask"]
                    assert mask.any() == (other == agent), (other, agent)
                e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
            assert not e.agents and abs(total) < 1e-9
            assert sum(e.unwrapped.chips.values()) == n * 100


def test_global_rng_untouched_and_not_used():
    random.seed(123)
    np.random.seed(123)
    py_state, np_state = random.getstate(), np.random.get_state()

    def trace(burn: bool):
        e = oicho_kabu_v1.env(rules="kabufuda_site", num_players=5, max_rounds=3)
        e.reset(seed=4)
        rng = np.random.default_rng(4)
        out = []
        for _agent in e.agent_iter():
            obs, r, term, trunc, _ = e.last()
            out.append((obs["observation"].tobytes(), r))
            if burn:  # RLCard's test: the global RNG must not influence the game
                random.random()
                np.random.random(3)
            e.step(None if term else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        return out

    plain = trace(False)
    assert random.getstate() == py_state
    after = np.random.get_state()
    assert after[0] == np_state[0] and np.array_equal(after[1], np_state[1]) and after[2:] == np_state[2:]
    for _ in range(50):
        Game(make_config(num_players=6, max_rounds=2), make_rng(None), None)
    assert random.getstate() == py_state
    assert np.array_equal(np.random.get_state()[1], np_state[1])
    assert trace(True) == plain


# --- information hiding ----------------------------------------------------------------------------
def _obs_trace(cfg, deck, stakes):
    """Observations of every seat after every step under a fixed policy (BET per plan, else legal[0])."""
    g = Game(cfg, make_rng(0), deck)
    enc = Encoder(cfg)
    seats = range(cfg.num_players)
    trace = [([enc.encode(g, s) for s in seats], g.showdown, g.dealer_revealed)]
    bet_round(g, stakes)
    trace.append(([enc.encode(g, s) for s in seats], g.showdown, g.dealer_revealed))
    while not g.terminal:
        g.apply_action(g.legal_actions()[0])
        trace.append(([enc.encode(g, s) for s in seats], g.showdown, g.dealer_revealed))
    return trace


def _equal_until(ta, tb, seat, stop) -> tuple[bool, bool]:
    """(equal at every step before ``stop`` holds, differs at some step)."""
    equal_before, differs = True, False
    for (oa, *flags_a), (ob, *_flags) in zip(ta, tb, strict=True):
        same = np.array_equal(oa[seat], ob[seat])
        differs |= not same
        if not stop(*flags_a):
            equal_before &= same
    return equal_before, differs


NEVER = lambda showdown, revealed: False  # noqa: E731
SHOWDOWN = lambda showdown, revealed: showdown  # noqa: E731
REVEAL = lambda showdown, revealed: revealed or showdown  # noqa: E731


def test_spread_second_card_is_seen_only_by_its_backers():
    cfg = make_config(num_players=3, dealer_selection="fixed")
    base = [9, 7, 2, 8, 3, 10, 1, None, 1, 4]  # spread 2: 2 + (4 or 3), both may draw or stand
    deck_a = stack([4 if v is None else v for v in base])
    deck_b = stack([3 if v is None else v for v in base])
    stakes = {1: {0: 1, 1: 1}, 2: {2: 1}}
    ta, tb = _obs_trace(cfg, deck_a, stakes), _obs_trace(cfg, deck_b, stakes)
    for seat in (0, 1):  # the dealer and player_1 never see it before the showdown
        equal, differs = _equal_until(ta, tb, seat, SHOWDOWN)
        assert equal and differs
    equal, _ = _equal_until(ta, tb, 2, NEVER)
    assert not equal  # its backer sees it


@pytest.mark.parametrize("face_up", [True, False])
def test_dealer_first_card_is_hidden_until_step_ten(face_up):
    cfg = make_config(num_players=3, dealer_second_card_face_up=face_up, dealer_selection="fixed")
    base = [9, 7, 8, 8, None, 10, 1, 1, 1, 4]  # dealer (3 or 2) + 4: 7 or 6, both may stand
    deck_a = stack([3 if v is None else v for v in base])
    deck_b = stack([2 if v is None else v for v in base])
    stakes = {1: {0: 1}, 2: {1: 1}}
    ta, tb = _obs_trace(cfg, deck_a, stakes), _obs_trace(cfg, deck_b, stakes)
    equal, differs = _equal_until(ta, tb, 0, REVEAL)  # not even the dealer sees it before step 10
    assert equal and differs
    for seat in (1, 2):
        equal, _ = _equal_until(ta, tb, seat, REVEAL if face_up else SHOWDOWN)
        assert equal
        equal_before_showdown, _ = _equal_until(ta, tb, seat, SHOWDOWN)
        assert equal_before_showdown != face_up  # face up: the bettors see it at step 10


def test_info_card_is_seen_only_by_its_owner():
    cfg = make_config(num_players=3, info_cards=True, dealer_selection="fixed")
    # info cards for seats 1, 2 first; the unbacked spreads 2 and 3 get a 3 each before the dealer's 3
    base = [5, None, 9, 7, 8, 8, 4, 10, 1, 1, 1, 3, 3, 3]
    deck_a = stack([6 if v is None else v for v in base])
    deck_b = stack([2 if v is None else v for v in base])
    stakes = {1: {0: 1}, 2: {1: 1}}
    ta, tb = _obs_trace(cfg, deck_a, stakes), _obs_trace(cfg, deck_b, stakes)
    for seat in (0, 1):  # never shown to anyone else, not even at the showdown
        equal, differs = _equal_until(ta, tb, seat, NEVER)
        assert equal and not differs
    equal, _ = _equal_until(ta, tb, 2, NEVER)
    assert not equal


# --- the encoder's cache ---------------------------------------------------------------------------
@pytest.mark.parametrize("preset", PRESETS)
def test_cached_encoder_equals_a_fresh_one(preset):
    """The per-seat cache (reused between BET turns) never serves a stale observation."""
    rng = make_rng(5)
    for n in (2, 4, 7):
        for deck in ("kabufuda", "hanafuda"):
            cfg = make_config(rules=preset, num_players=n, deck=deck, max_rounds=3, bankroll=20, domae=15)
            cached = Encoder(cfg)
            for _ in range(15):
                g = Game(cfg, rng, None)
                while True:
                    seats = range(n) if rng.random() < 0.3 else [max(g.current_player, 0)]
                    for s in seats:
                        got, want = cached.encode(g, s), Encoder(cfg).encode(g, s)
                        assert got.dtype == np.float32 and np.array_equal(got, want), (g.phase, s)
                    if g.terminal:
                        break
                    legal = g.legal_actions()
                    g.apply_action(legal[int(rng.integers(len(legal)))])


def test_observation_is_a_fresh_array_each_call():
    cfg = make_config()
    g = Game(cfg, make_rng(0), None)
    enc = Encoder(cfg)
    a = enc.encode(g, 1)
    a[:] = 7.0
    b = enc.encode(g, 1)
    assert b.max() == 1.0 and not np.shares_memory(a, b)
