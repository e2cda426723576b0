"""Thousands of random legal Kakeya games on the engine, checked against docs/kakeya.md restated here:
zero-sum rewards, partners equal, every card played once by an active seat, follow suit (both
``rensho_follow`` settings), shown-out suits, trick winners, egara counts, the 8-8 and all_play 9+
rules, the stones table, dealers and leaders."""

import numpy as np
import pytest
from kakeya_testlib import new_game

from kabu_envs.kakeya import Action, Phase

MODES = [
    {},
    {"num_players": 6, "six_player_mode": "dealers_sit_out"},
    {"num_players": 6, "six_player_mode": "all_play"},
]
VARIANTS = [
    {"max_deals": 4, "stones_per_player": 3, "rensho_follow": "must_follow"},
    {"reward": "egara", "rensho_rule": "seed", "max_deals": 2},
    {"dealers_choose_trump": False, "default_trump": "spades", "rensho_follow": "must_follow"},
    {"rensho_rule": "seed", "rensho_follow": "must_follow", "max_deals": 2},
]
VARIANT_IDS = ["match_must_follow", "egara_seed", "no_trump_choice_must_follow", "seed_must_follow"]


def ref_rensho(trump: int, rule: str) -> int:
    if rule == "seed":
        return 12 if trump == 0 else 51
    return 12 if trump == 3 else 51


def ref_winner(plays: list[tuple[int, int]], trump: int, rensho: int) -> int:
    """Trick winner restated: Rensho; else highest trump; else highest of the led suit."""
    for seat, card in plays:
        if card == rensho:
            return seat
    trumps = [(c % 13, s) for s, c in plays if c // 13 == trump]
    if trumps:
        return max(trumps)[1]
    led = plays[0][1] // 13
    return max((c % 13, s) for s, c in plays if c // 13 == led)[1]


def ref_stones(won: set[int], trump: int, rensho: int) -> int:
    egara = sum(1 for c in won if c % 13 >= 9)
    aces = {c for c in won if c % 13 == 12}
    col = 0 if egara <= 11 else (1 if egara <= 15 else 2)
    if not aces:
        return 4
    if len(aces) <= 2 and rensho not in aces and trump * 13 + 12 not in aces:
        return 2
    return (1, 2, 4)[col]


def ref_legal(hand: set[int], led: int, rensho: int, rensho_follow: str) -> set[int]:
    """Follow suit restated (docs/kakeya.md#play): the led suit if held, else anything; Rensho any
    time; with "free" Rensho is no card of its suit for following, with "must_follow" it is."""
    if led < 0:
        return set(hand)
    follow = {c for c in hand if c // 13 == led and (c != rensho or rensho_follow == "must_follow")}
    return (follow | ({rensho} & hand)) if follow else set(hand)


def play_random_match(seed: int, stats: dict | None = None, **opts) -> int:
    """Play one match with random legal actions, checking every rule; returns the step count.
    ``stats["rensho_kept"]`` counts plays where a seat whose only card of the led suit was Rensho
    played another card (possible with rensho_follow="free" only)."""
    rng = np.random.default_rng(seed)
    g = new_game(seed=seed, **opts)
    cfg = g.cfg
    n, num_partnerships = cfg.num_players, cfg.num_partnerships
    total_stones = cfg.stones_per_player * n
    dealer_p = num_partnerships - 1
    lead_p = -1
    trump = cfg.default_trump_suit
    steps = 0
    deals_done = 0
    deals_won = [0] * num_partnerships
    egara_totals = [0] * num_partnerships
    while not g.terminal:
        # --- one deal ------------------------------------------------------------------
        assert g.dealer_partnership == dealer_p and g.first_dealer == dealer_p
        if cfg.dealers_choose_trump:
            assert g.phase is Phase.TRUMP and g.current_player == dealer_p and not any(g.hands)
            trump = int(rng.integers(4))
            g.apply_action(52 + trump)
            steps += 1
        assert g.trump == trump
        rensho = ref_rensho(trump, cfg.rensho_rule)
        active = [not (cfg.dealers_sit_out and s % num_partnerships == dealer_p) for s in range(n)]
        assert g.active == active
        hands = [{c for c in range(52) if g.hands[s] >> c & 1} for s in range(n)]
        assert sorted(c for h in hands for c in h) == list(range(52))
        order = [s for s in ((dealer_p + k) % n for k in range(1, n + 1)) if active[s]]
        sizes = [len(hands[s]) for s in order]
        assert sizes == ([9, 9, 9, 9, 8, 8] if cfg.all_play else [13] * 4)
        assert all(not hands[s] for s in range(n) if not active[s])
        chooser_p = lead_p if lead_p >= 0 else order[0] % num_partnerships
        chooser = next(s for s in order if s % num_partnerships == chooser_p)
        assert g.phase is Phase.LEAD and g.current_player == chooser
        a = int(rng.integers(56, 58))
        g.apply_action(a)
        steps += 1
        leader = chooser if a == Action.LEAD_SELF else (chooser + num_partnerships) % n
        won: list[set[int]] = [set() for _ in range(num_partnerships)]
        shown_out = [set() for _ in range(n)]  # suits a seat did not follow, with a card other than Rensho
        deal_no = g.deal_no
        while any(hands):
            trick_seats = [s for s in ((leader + k) % n for k in range(n)) if hands[s]]
            plays: list[tuple[int, int]] = []
            for seat in trick_seats:
                assert g.phase is Phase.PLAY and g.current_player == seat
                legal = g.legal_actions()
                led = plays[0][1] // 13 if plays else -1
                assert set(legal) == ref_legal(hands[seat], led, rensho, cfg.rensho_follow) and legal
                card = legal[int(rng.integers(len(legal)))]
                g.apply_action(card)
                steps += 1
                if led >= 0 and card // 13 != led and card != rensho:
                    shown_out[seat].add(led)
                    if stats is not None and rensho in hands[seat] and rensho // 13 == led:
                        stats["rensho_kept"] = stats.get("rensho_kept", 0) + 1
                hands[seat].discard(card)
                plays.append((seat, card))
                # shown out (the observation's voids): no card of the suit is left in that hand, except
                # perhaps Rensho with "free"
                if g.deal_no == deal_no:  # (a new deal starts with no shown-out suits)
                    assert g.void_bits == sum(1 << (4 * s + v) for s in range(n) for v in shown_out[s])
                for s in range(n):
                    for v in shown_out[s]:
                        left = {c for c in hands[s] if c // 13 == v}
                        assert not left or (cfg.rensho_follow == "free" and left == {rensho})
                if not g.terminal and seat != trick_seats[-1]:
                    assert not g.pop_rewards().any()
            winner = ref_winner(plays, trump, rensho)
            won[winner % num_partnerships] |= {c for _, c in plays if c % 13 >= 9}
            leader = winner
            while any(hands) and not hands[leader]:
                leader = (leader + 1) % n
        # --- scoring -----------------------------------------------------------------------
        rewards = g.pop_rewards()
        playing = [p for p in range(num_partnerships) if active[p]]
        egara = {p: len(won[p]) for p in playing}
        assert sum(egara.values()) == 16
        r = g.results[-1]
        assert r.egara == egara
        if cfg.all_play:
            winners = [p for p in playing if egara[p] >= 9]
            win = winners[0] if winners else -1
        else:
            a_, b_ = playing
            if egara[a_] != egara[b_]:
                win = a_ if egara[a_] > egara[b_] else b_
            else:
                win = b_ if rensho in won[a_] else a_
        assert r.winner == win
        if win >= 0:
            amount = ref_stones(won[win], trump, rensho)
            losers = sorted((p for p in playing if p != win), key=lambda p: (egara[p], p))
            owed = dict.fromkeys(losers, amount)
            if cfg.all_play and cfg.all_play_payment == "shared":  # the table's amount, split
                owed = {losers[0]: (amount + 1) // 2, losers[1]: amount // 2}
            for p in losers:
                assert -r.stones_change[p] <= owed[p]
                assert r.stones_change[p] == -owed[p] or g.partnership_totals[p] == 0
            assert r.stones_change[win] == -sum(v for p, v in r.stones_change.items() if p != win)
        else:
            assert all(v == 0 for v in r.stones_change.values())
        assert sum(g.stones) == total_stones and min(g.stones) >= 0
        assert abs(rewards.sum()) < 1e-9
        for s in range(n):
            assert rewards[s] == rewards[(s + num_partnerships) % n]  # partners equal
            if not active[s]:
                assert rewards[s] == 0.0
            elif cfg.reward == "stones":
                assert rewards[s] == r.stones_change[s % num_partnerships]
            else:
                assert -1.0 <= rewards[s] <= 1.0
        if win >= 0:
            losers = [p for p in playing if p != win]
            dealer_p = min(losers, key=lambda p: (egara[p], p))
        lead_p = win
        assert g.deal_no == deals_done + 1 and r.deal == deals_done
        deals_done += 1
        for p in playing:
            egara_totals[p] += egara[p]
        if win >= 0:
            deals_won[win] += 1
        assert g.egara_totals == egara_totals and g.deals_won == deals_won
        assert g.terminal == (deals_done == cfg.max_deals or 0 in g.partnership_totals)
        assert steps < 10_000
    assert g.current_player == -1 and g.legal_actions() == []
    return steps


@pytest.mark.parametrize("mode", MODES, ids=["4p", "6p_sit_out", "6p_all_play"])
def test_random_games_every_mode(mode):
    steps = sum(play_random_match(seed, **mode) for seed in range(700))
    assert steps > 700 * 50


@pytest.mark.parametrize("mode", MODES, ids=["4p", "6p_sit_out", "6p_all_play"])
@pytest.mark.parametrize("variant", VARIANTS, ids=VARIANT_IDS)
def test_random_matches_with_variants(mode, variant):
    for seed in range(120):
        play_random_match(1000 + seed, **mode, **variant)


@pytest.mark.parametrize(
    "rensho_follow, rule", [("free", "traditional"), ("free", "seed"), ("must_follow", "seed")]
)
def test_rensho_kept_back_occurs_only_with_free(rensho_follow, rule):
    """Random play reaches the case the option is about: a seat whose only card of the led suit is
    Rensho plays another card (often with "free"; never with "must_follow")."""
    stats: dict = {}
    for seed in range(150):
        play_random_match(5000 + seed, stats, rensho_rule=rule, rensho_follow=rensho_follow, max_deals=3)
    kept = stats.get("rensho_kept", 0)
    assert kept >= 10 if rensho_follow == "free" else kept == 0, kept


def test_the_8_8_rule_and_nobody_wins_occur_in_random_play():
    """Make sure the random games above actually reach the rare branches they check."""
    seen_88 = seen_nobody = 0
    for seed in range(400):
        g = new_game(seed=seed, dealers_choose_trump=False)
        rng = np.random.default_rng(seed)
        while not g.terminal:
            legal = g.legal_actions()
            g.apply_action(legal[int(rng.integers(len(legal)))])
        seen_88 += g.results[0].egara == {0: 8, 1: 8}
        g = new_game(seed=seed, num_players=6, six_player_mode="all_play", dealers_choose_trump=False)
        while not g.terminal:
            legal = g.legal_actions()
            g.apply_action(legal[int(rng.integers(len(legal)))])
        seen_nobody += g.results[0].winner == -1
    assert seen_88 >= 5 and seen_nobody >= 50
