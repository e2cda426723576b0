"""Oicho-Kabu's batch engine (``kabu_envs.oicho_kabu.batch``, on the kernel) against B AEC envs.

Every case steps ``batch.make("oicho_kabu", ...)`` and B raw AEC envs with the same random legal
actions and checks, at every step, the current players, the masks, the observations, ``terminated``
and the summed rewards. Games reset with seeds are fed (the AEC env's deals, drawn in Python at each
shuffle); ``reset(seed=s)`` deals the kernel's row streams, which the AEC envs then shuffle with
(``KernelRng``). ``LOCKSTEP_GAMES=N`` plays N games per case instead of 12 (longer runs).
"""

from __future__ import annotations

import os

import numpy as np
import pytest

from kabu_envs import batch, registry
from kabu_envs.core.errors import IllegalActionError
from kabu_envs.oicho_kabu import batch as oicho_batch
from kabu_envs.oicho_kabu import rules
from kabu_envs.oicho_kabu.batch_tables import hand2, hand3, hand_tables
from kabu_envs.oicho_kabu.config import make_config
from kabu_envs.oicho_kabu.deck import card_ids
from kabu_envs.oicho_kabu.game import Game
from kabu_envs.oicho_kabu.options import PRESETS, v1_options
from kabu_envs.oicho_kabu.yaku import LOCAL_YAKU

GAMES = int(os.environ.get("LOCKSTEP_GAMES", "12"))
_ALL_CHANGES = ("deals", "bust", "doubled", "low_hand", "lost_all")
_LOCAL_KABUFUDA = tuple(y for y in LOCAL_YAKU if y != "sanpachi_hikari")

# (id, options): every preset, player counts 2..8, each option away from its default, multi-round play
CASES = [
    ("standard", {}),
    ("2p", {"num_players": 2}),
    ("3p", {"num_players": 3}),
    ("5p", {"num_players": 5}),
    ("8p", {"num_players": 8}),
    ("kansai", {"rules": "kansai"}),
    ("kansai-6p-minso3", {"rules": "kansai", "num_players": 6, "minso_limit": 3}),
    ("site", {"rules": "kabufuda_site"}),
    ("site-7p-3rounds", {"rules": "kabufuda_site", "num_players": 7, "max_rounds": 3}),
    # issue #24: decisions in asking order outside the preset, and v1's presets (oicho_kabu_v1)
    ("asking-5p", {"decision_order": "asking", "num_players": 5, "max_rounds": 3}),
    ("v1-standard-3rounds", v1_options({"max_rounds": 3})),
    ("v1-site", v1_options({"rules": "kabufuda_site", "max_rounds": 2})),
    # issue #24, departure 1: the unbacked spread's card, off in standard, on outside its presets (the
    # site's dealer card after the bets, its choice, its face-down dealer cards), with hanafuda lights
    ("unbacked-off-2p", {"num_players": 2, "unbacked_spread_card": False}),
    ("site-unbacked-2p", {"rules": "kabufuda_site", "num_players": 2, "unbacked_spread_card": True}),
    ("unbacked-hanafuda-2p", {"deck": "hanafuda", "num_players": 2, "max_rounds": 3}),
    ("hanafuda-local", {"deck": "hanafuda", "local_yaku": LOCAL_YAKU, "info_cards": True}),
    ("western-local", {"deck": "western", "local_yaku": _LOCAL_KABUFUDA, "zoro_values": (2, 5, 10)}),
    (
        "info-after-hidden",
        {"info_cards": True, "dealer_first_card": "after_bets", "dealer_second_card_face_up": False},
    ),
    ("choice-before", {"dealer_card_choice": True}),
    ("choice-after-5p", {"dealer_card_choice": True, "dealer_first_card": "after_bets", "num_players": 5}),
    (
        "draw-rules",
        {"free_draw": True, "shiroku_escape": True, "pair_may_draw": False, "dealer_draw_rule": "free"},
    ),
    (
        "settle-rules",
        {
            "zero_zero": "tie",
            "tie_rule": "dealer_wins",
            "arashi_vs_arashi": "second_card",
            "bettor_three_tens": "push",
            "dealer_three_tens": "void",
            "bettor_ten_pair": "plain",
            "kuppin_order": "strict",
            "shippin_order": "strict",
            "toichi_order": "strict",
            "kuppin_four_one": True,
            "arashi_holders": "dealer",
        },
    ),
    (
        "overrides",
        {
            "local_yaku": _LOCAL_KABUFUDA,
            "yaku_overrides": {"zoro": {"multiplier": 0, "rank": 45}, "niichi": {"holders": "dealer"}},
            "wake_satsu_beats": ("zoro", "arashi"),
        },
    ),
    ("minso-triple", {"minso": True, "minso_limit": 2, "redeal_on_triple_table": True}),
    ("stakes", {"bet_sizes": (1, 3), "domae": 7, "bankroll": 4}),
    # the largest values the options allow (issue #25: the engine's tables grew with domae and the bet)
    ("huge-stakes", {"domae": 2**31 - 1, "bet_sizes": (1, 7, 2**31 - 1), "bankroll": 2**31 - 1}),
    ("largest-bet-only", {"bet_sizes": (2**31 - 1,)}),
    (
        "rounds-all-changes",
        {"max_rounds": 12, "bankroll": 12, "dealer_change": _ALL_CHANGES, "dealer_max_deals": 2},
    ),
    ("rounds-no-change-6p", {"max_rounds": 8, "bankroll": 6, "dealer_change": (), "num_players": 6}),
    ("rounds-select-nine", {"max_rounds": 5, "dealer_selection": "closest_to_nine", "bankroll": 8}),
    (
        "rounds-select-lowest-each",
        {"max_rounds": 6, "dealer_selection": "lowest", "dealer_selection_each_deal": True, "bankroll": 5},
    ),
]


def _aec_state(env, names):
    if not env.agents or all(env.terminations[a] for a in env.agents):
        return -1, None, None
    obs = env.observe(env.agent_selection)
    return names.index(env.agent_selection), obs["action_mask"].astype(bool), obs["observation"]


def _lockstep(options, B=GAMES, seed=None, seeds=None, decks=None, act_seed=3, p_lowest=0.0):
    """Play the batch and B AEC envs side by side with the same random legal actions to the end; with
    probability ``p_lowest`` a seat takes its lowest legal action id (STAND, KEEP, TAKE_TOP, BET(0)).
    Returns the steps and the number of observations taken with an unbacked spread turned up."""
    env = batch.make("oicho_kabu", batch_size=B, **options)
    assert type(env).__name__ == "OichoKabuBatch"
    aecs = [registry.get("oicho_kabu").make_raw_env(**options) for _ in range(B)]
    if seed is not None:  # the kernel's row streams: the AEC games shuffle with the same generator
        from test_kernel_oicho import KernelRng

        env.reset(seed=seed, decks=decks)
        seeds = [0] * B
        for b, a in enumerate(aecs):
            feed = KernelRng(seed, b)
            a._new_game = lambda _rng, deck, a=a, feed=feed: Game(a.config, feed, deck)
    else:
        seeds = seeds if seeds is not None else [500 + 11 * b for b in range(B)]
        env.reset(seeds=seeds, decks=decks)
    decks = decks if decks is not None else [None] * B
    for a, s, d in zip(aecs, seeds, decks, strict=True):
        a.reset(seed=s, options=None if d is None else {"deck": d})
    names = aecs[0].possible_agents
    rng = np.random.default_rng(act_seed)
    summed = np.zeros((B, len(names)))
    steps = turned = 0
    while not env.terminated.all():
        acts = np.zeros(B, dtype=np.int64)
        for b, a in enumerate(aecs):
            seat, mask, obs = _aec_state(a, names)
            assert env.current_player[b] == seat, (b, steps)
            assert env.terminated[b] == (seat < 0)
            if seat < 0:
                assert not env.legal_action_mask[b].any() and not env.observation[b].any()
                continue
            assert np.array_equal(env.legal_action_mask[b], mask), (b, steps)
            assert np.array_equal(env.observation[b], obs), (
                b,
                steps,
                np.flatnonzero(env.observation[b] != obs),
            )
            turned += any(a.game.turned_up(sp) for sp in range(4))
            legal = np.flatnonzero(mask)
            acts[b] = legal[0] if rng.random() < p_lowest else rng.choice(legal)
        live = env.current_player >= 0
        env.step(acts)
        summed -= env.rewards
        for b in np.flatnonzero(live):
            aecs[b].step(int(acts[b]))
            summed[b] += [aecs[b].rewards[n] for n in names]
        np.testing.assert_array_equal(summed, 0.0)
        steps += 1
        assert steps < 5000
    for a in aecs:
        assert _aec_state(a, names)[0] < 0
    return steps, turned


@pytest.mark.parametrize("options", [c[1] for c in CASES], ids=[c[0] for c in CASES])
def test_lockstep_with_aec_envs(options):
    _, turned = _lockstep(options)
    if make_config(**options).unbacked_spread_card and options.get("num_players") == 2:
        assert turned > 0  # the two-seat cases leave spreads unbacked: the dealt card was compared
    elif not make_config(**options).unbacked_spread_card:
        assert turned == 0


@pytest.mark.parametrize("rules_name", list(PRESETS))
def test_lockstep_reset_with_one_seed(rules_name):
    _lockstep({"rules": rules_name, "max_rounds": 2}, seed=21, act_seed=8)


# stacked decks: a full deck, a triple on the table (a redeal with `redeal_on_triple_table`), short
# prefixes, selection draws that tie
_STACKED = [
    list(range(40))[::-1],
    card_ids(5, 5, 5, 2, 9, 1, 7, 3, 3, 4, 6, 8),
    None,
    card_ids(1, 1, 1, 1),
    card_ids(9, 9, 9, 4),
    list(range(0, 40, 3)),
    None,
    card_ids(10, 10, 10, 10, 3, 3, 3),
]


@pytest.mark.parametrize(
    "options",
    [{}, {"rules": "kansai", "max_rounds": 3}, {"rules": "kabufuda_site", "max_rounds": 3}],
    ids=["standard", "kansai", "site"],
)
def test_lockstep_with_stacked_decks(options):
    _lockstep(options, B=len(_STACKED), decks=_STACKED)


@pytest.mark.parametrize(
    "options",
    [
        {"max_rounds": 10, "dealer_change": ("low_hand", "lost_all"), "num_players": 3},
        {"rules": "kansai", "max_rounds": 4, "minso_limit": 4},
        {"rules": "kabufuda_site", "max_rounds": 4},
        {"rules": "kabufuda_site", "max_rounds": 4, "unbacked_spread_card": True},
        {"max_rounds": 4, "unbacked_spread_card": False, "deck": "hanafuda"},
        {"max_rounds": 4, "deck": "hanafuda", "num_players": 3},
    ],
    ids=["rounds-low-hand", "kansai", "site", "site-unbacked", "unbacked-off", "unbacked-hanafuda"],
)
def test_lockstep_with_passive_players(options):
    """Seats that mostly pass: rounds nobody stakes on (no final hand for ``low_hand``), minso kept, and
    spreads left unbacked (dealt their card with ``unbacked_spread_card``)."""
    _, turned = _lockstep(options, p_lowest=0.9, act_seed=5)
    assert (turned > 0) == make_config(**options).unbacked_spread_card


def test_lockstep_with_long_stacked_prefixes():
    """Stacked prefixes longer than a round: the dealer's bottom/4th card taken from inside the prefix
    and the unused rest kept on top at the next round (``Deck.take`` / ``Deck.fresh``)."""
    rng = np.random.default_rng(9)
    decks = [rng.permutation(40)[:30].tolist() for _ in range(8)]
    for options in (
        {"rules": "kabufuda_site", "max_rounds": 3},
        {"dealer_card_choice": True, "max_rounds": 3},
    ):
        _lockstep(options, B=8, decks=decks, act_seed=2)


@pytest.mark.parametrize("options", [{}, {"rules": "kansai", "max_rounds": 4}])
def test_autoreset_plays_on_and_reports_each_end(options):
    """An autoreset batch equals the plain one until an episode ends; on that step it reports the same
    rewards and ``terminated`` and already shows a new episode's first decision."""
    B = 16
    auto = batch.make("oicho_kabu", batch_size=B, autoreset=True, **options)
    plain = batch.make("oicho_kabu", batch_size=B, **options)
    auto.reset(seed=5)
    plain.reset(seed=5)
    rng = np.random.default_rng(1)
    restarted = np.zeros(B, dtype=bool)
    for _ in range(400):
        acts = np.array([rng.choice(np.flatnonzero(m)) for m in auto.legal_action_mask])
        same = ~restarted
        plain.step(np.where(same & (plain.current_player >= 0), acts, 0))
        auto.step(acts)
        assert (auto.current_player >= 0).all()
        np.testing.assert_array_equal(auto.rewards[same], plain.rewards[same])
        assert np.array_equal(auto.terminated[same], plain.terminated[same])
        still = same & ~plain.terminated
        assert np.array_equal(auto.observation[still], plain.observation[still])
        ended = same & plain.terminated
        if ended.any():  # round 0, full chips
            assert (auto.state.round_index[ended] == 0).all()
            assert (auto.state.chips[ended] == auto.config.bankroll).all()
        restarted |= plain.terminated
        np.testing.assert_array_equal(auto.rewards.sum(axis=1), 0.0)
    assert restarted.all()


def test_illegal_actions_and_bad_input_are_named():
    env = batch.make("oicho_kabu", batch_size=3)
    env.reset(seed=4)
    acts = np.array([int(np.flatnonzero(m)[0]) for m in env.legal_action_mask])
    bad = acts.copy()
    bad[2] = 1  # DRAW while betting
    with pytest.raises(IllegalActionError, match=r"game 2 of the batch") as err:
        env.step(bad)
    assert "BET" in str(err.value) or "8" in str(err.value)
    with pytest.raises(ValueError, match="3 integer action ids"):
        env.step(acts[:2])
    with pytest.raises(ValueError):
        env.reset(seeds=[1, 2, 3], decks=[None, [3, 3], None])
    with pytest.raises(ValueError):
        env.reset(seeds=[1, 2, 3], decks=[[40], None, None])
    env.reset(seed=4)
    before = env.observation.copy()
    with pytest.raises(IllegalActionError):
        env.step(bad)
    assert np.array_equal(env.observation, before)  # a refused step changes nothing
    env.step(acts)
    assert env.state_nbytes() > env.observation.nbytes


@pytest.mark.parametrize(
    "options",
    [
        {},
        {"rules": "kansai"},
        {"rules": "kabufuda_site"},
        {"deck": "hanafuda", "local_yaku": LOCAL_YAKU, "arashi_vs_arashi": "rank_321"},
        {
            "local_yaku": _LOCAL_KABUFUDA,
            "yaku_overrides": {"arashi": {"multiplier": 0}},
            "tie_rule": "dealer_wins",
        },
        {"arashi_vs_arashi": "higher_card", "zero_zero": "tie", "bettor_three_tens": "push"},
    ],
)
def test_settle_table_equals_rules_settle(options):
    """The engine settles by hand signatures; on random real hands that equals ``rules.settle``."""
    cfg = make_config(**options)
    tab = hand_tables(cfg)
    K, cls = tab.num_classes, tab.card_class
    rng = np.random.default_rng(0)
    for _ in range(3000):
        cards = rng.permutation(40)[:6].tolist()
        d = cards[: 2 + int(rng.integers(2))]
        b = cards[3 : 5 + int(rng.integers(2))]
        c = [int(cls[x]) for x in d]
        dh = hand2(c[0], c[1], K) if len(d) == 2 else hand3(c[0], c[1], c[2], K)
        c = [int(cls[x]) for x in b]
        bh = hand2(c[0], c[1], K) if len(b) == 2 else hand3(c[0], c[1], c[2], K)
        assert tab.settle[tab.dealer_sig[dh], tab.bettor_sig[bh]] == rules.settle(cfg, d, b), (d, b)
        assert tab.hand_value[dh] == rules.hand_value(d)


def test_every_option_set_runs_on_the_kernel_engine():
    for _, options in CASES:
        assert type(batch.make("oicho_kabu", batch_size=2, **options)).__name__ == "OichoKabuBatch"


def test_steps_with_one_phase_and_with_several_phases_agree_with_aec_envs():
    """Steps whose moving games are all in one phase and steps mixing phases, whole and partial, against
    the reference loop (multi-round games drift apart in phase; finished games sit out)."""
    options = {"max_rounds": 4, "minso": True, "dealer_card_choice": True}
    env = batch.make("oicho_kabu", batch_size=6, **options)
    ref = batch.LoopBatchEnv("oicho_kabu", batch_size=6, **options)
    env.reset(seeds=list(range(6)))
    ref.reset(seeds=list(range(6)))
    rng = np.random.default_rng(5)
    one_phase = several = 0
    while (env.current_player >= 0).any():
        live = env.current_player >= 0
        moving = rng.random(6) < 0.5 if rng.random() < 0.3 else np.ones(6, dtype=bool)
        phases = set(env.decision_view().phase[live & moving].tolist())
        one_phase += len(phases) == 1
        several += len(phases) > 1
        acts = np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in env.legal_action_mask])
        env.step(acts, active=moving)
        ref.step(acts, active=moving)
        assert np.array_equal(env.observation, ref.observation)
        assert np.array_equal(env.legal_action_mask, ref.legal_action_mask)
        assert np.array_equal(env.current_player, ref.current_player)
        assert np.array_equal(env.rewards, ref.rewards)
        assert np.array_equal(env.terminated, ref.terminated)
    assert one_phase and several


@pytest.mark.parametrize("options", [{"domae": 10**7}, {"bet_sizes": (1, 10**7)}, {"domae": 2**31 - 1}])
def test_the_engine_costs_the_same_whatever_domae_and_the_bet_sizes(options):
    """Nothing the engine builds grows with ``domae`` or the largest stake (issue #25: ``domae=10**8``
    took 8 s and 763 MiB, ``2**31 - 1`` asked for 16 GiB): it builds for them what it builds for the
    defaults, and it accepts every value the AEC env accepts."""
    import tracemalloc

    def peak(**opts) -> int:
        tracemalloc.start()
        try:
            oicho_batch.OichoKabuBatch(8, **opts).reset(seed=1)
            return tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()

    assert peak(**options) < 2 * peak() + (1 << 20)
