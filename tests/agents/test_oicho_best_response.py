"""The Oicho-Kabu best response (kabu_envs/oicho_kabu/agents/best_response.py):
its values against brute force, its
models of the reference players against their real play, and that it never reads a hidden card."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from kabu_envs.agents.base import RandomAgent
from kabu_envs.oicho_kabu.actions import BET_BASE, CHOICE_ACTIONS, DRAW, ESCAPE, KEEP, REDEAL, STAND
from kabu_envs.oicho_kabu.agents.best_response import (
    _REDEAL_VALUES,
    OichoBestResponse,
    _Seen,
    check_supported,
)
from kabu_envs.oicho_kabu.agents.expert import OichoExpertAgent, SettleTable
from kabu_envs.oicho_kabu.agents.scripted import OichoScriptedAgent
from kabu_envs.oicho_kabu.config import make_config
from kabu_envs.oicho_kabu.deck import COPIES, NUM_VALUES, VALUES, card_id
from kabu_envs.oicho_kabu.env import raw_env
from kabu_envs.oicho_kabu.game import Game, Phase
from kabu_envs.oicho_kabu.observation import encode
from kabu_envs.oicho_kabu.rules import settle


def _mask(game: Game) -> np.ndarray:
    m = np.zeros(game.num_actions, dtype=np.int8)
    m[game.legal_actions()] = 1
    return m


def _play_until(game: Game, agents, stop) -> None:
    """Play ``game`` with ``agents[seat]`` until ``stop(game)`` or the end."""
    while not game.terminal and not stop(game):
        seat = game.current_player
        game.apply_action(int(agents[seat].act(encode(game, seat), _mask(game))))


@pytest.mark.parametrize(
    "options",
    [{}, {"rules": "kansai"}, {"rules": "kabufuda_site"}, {"local_yaku": ["zoro", "pin_basami", "nobori"]}],
)
def test_settle_table_fill_equals_settle(options):
    cfg = make_config(**options)
    table = SettleTable(cfg)
    table.fill()
    rng = np.random.default_rng(0)
    d, b = rng.integers(0, table.num_dealer, 3000), rng.integers(0, table.num_bettor, 3000)
    want = [
        settle(cfg, table._dealer_ids(x), table._bettor_ids(y))
        for x, y in zip(d.tolist(), b.tolist(), strict=True)
    ]
    assert table.values[d, b].tolist() == want


@pytest.mark.parametrize(
    "options",
    [
        {},
        {"rules": "kansai"},
        {"rules": "kabufuda_site"},
        {"local_yaku": ["zoro", "pin_basami"]},
        # two seats leave spreads unbacked: turned up and dealt a card (v2's standard and kansai), or not
        {"num_players": 2},
        {"rules": "kansai", "num_players": 2},
        {"num_players": 2, "unbacked_spread_card": False},
    ],
)
def test_dealer_draw_model_equals_act_on_real_observations(options):
    env = raw_env(**options)
    dealers = [OichoScriptedAgent(0, **options), OichoExpertAgent(0, **options)]
    bettors = RandomAgent(0)
    rows, want = [], [[], []]
    for seed in range(150):
        env.reset(seed=seed)
        while env.agents:
            a = env.agent_selection
            if env.terminations[a]:
                env.step(None)
                continue
            g, o = env.game, env.observe(a)
            if g.phase == Phase.DEALER_DRAW:
                rows.append(
                    (
                        [VALUES[c] for c in g.dealer_cards[:2]],
                        [VALUES[sp[0]] for sp in g.spreads],
                        [VALUES[sp[2]] if len(sp) > 2 else 0 for sp in g.spreads],
                        list(g.spread_state),
                        list(g.spread_total),
                        [VALUES[sp[1]] if g.turned_up(s) else 0 for s, sp in enumerate(g.spreads)],
                    )
                )
                for k, dealer in enumerate(dealers):
                    want[k].append(dealer.act(o["observation"], o["action_mask"]))
                act = want[0][-1]
            elif g.phase == Phase.MINSO:
                act = KEEP  # keep the table (a redeal is the same test on another table)
            else:
                act = (dealers[0] if a == env.possible_agents[g.dealer] else bettors).act(
                    o["observation"], o["action_mask"]
                )
            env.step(int(act))
    arrays = [np.array([r[i] for r in rows]) for i in range(6)]
    assert len(rows) > 50
    turned = int((arrays[5] > 0).any(axis=1).sum())
    assert (turned > 0) == make_config(**options).unbacked_spread_card  # the rule met where it is on
    for k, dealer in enumerate(dealers):
        assert dealer.dealer_draw_model(*arrays).tolist() == want[k]


def test_game_clone_is_an_independent_copy():
    env = raw_env()
    env.reset(seed=3)
    agents = [OichoScriptedAgent(0)] * 4
    g = env.game
    _play_until(g, agents, lambda x: x.phase == Phase.DECIDE)
    copy = g.clone(np.random.default_rng(0))

    def snapshot(x: Game) -> tuple:
        return list(x.deck.cards), [list(s) for s in x.spreads], [list(s) for s in x.stakes], list(x.chips)

    before = snapshot(g)
    _play_until(copy, agents, lambda x: False)
    assert copy.terminal and not g.terminal
    assert (
        list(g.deck.cards),
        [list(s) for s in g.spreads],
        [list(s) for s in g.stakes],
        list(g.chips),
    ) == before
    _play_until(g, agents, lambda x: False)  # the same cards and players: the same round
    assert g.round_rewards == copy.round_rewards


def test_unsupported_rule_sets_are_refused_by_name():
    with pytest.raises(ValueError, match="max_rounds=3"):
        OichoBestResponse("bettor", rules="kabufuda_site", max_rounds=3)
    with pytest.raises(ValueError, match="hanafuda"):
        OichoBestResponse.check_rules("dealer", rules="kansai", deck="hanafuda")
    with pytest.raises(ValueError, match="role must be"):
        OichoBestResponse("partnership")
    check_supported(make_config(local_yaku=["pin_basami"], free_draw=True))
    # the richer presets, in both roles
    for rules in ("kansai", "kabufuda_site"):
        for role in ("bettor", "dealer"):
            OichoBestResponse.check_rules(role, rules=rules)


def _minso_state(seed: int = 1):
    """A Kansai deal at the dealer's minso question, its scripted seats, the best response begun
    (player_0 deals: the tests play seat 0 as the dealer, so no selection draw)."""
    env = raw_env(rules="kansai", dealer_selection="fixed")
    env.reset(seed=seed)
    scripted = OichoScriptedAgent(0, rules="kansai")
    br = OichoBestResponse("dealer", rules="kansai", seed=seed)
    br.begin(env.game, 0, [scripted] * 4, deal=seed)
    assert env.game.phase == Phase.MINSO
    return env, scripted, br


def test_redeal_tables_have_their_exact_probabilities():
    """``all_tables``: each ordered table's probability, the falling factorials of its value counts
    over (40)_4 (another formula than the one used), triples removed under the Kansai rule."""
    _, _, br = _minso_state()
    for redeal in (True, False):
        br.cfg = make_config(rules="kansai", redeal_on_triple_table=redeal)
        tables, p = br.all_tables()
        assert p.sum() == pytest.approx(1.0, abs=1e-12)
        norm = 1.0 - (0.0 if not redeal else sum(_p_table(t) for t in _all_values() if _triple(t)))
        got = dict(zip(map(tuple, tables.tolist()), p.tolist(), strict=True))
        for t in [(1, 1, 2, 3), (1, 2, 3, 4), (5, 5, 5, 2), (7, 7, 7, 7), (10, 1, 10, 1)]:
            want = 0.0 if redeal and _triple(t) else _p_table(t) / norm
            assert got.get(t, 0.0) == pytest.approx(want, rel=1e-12, abs=1e-15), t
        assert len(got) == (10**4 - (10 + 4 * 10 * 9) if redeal else 10**4)


def _all_values():
    return itertools.product(range(1, NUM_VALUES + 1), repeat=4)


def _triple(t) -> bool:
    return max(t.count(v) for v in t) >= 3


def _p_table(t) -> float:
    """P(the first four cards of a shuffled 40-card deck have these values, in order)."""
    num = 1
    for v in set(t):
        for i in range(t.count(v)):
            num *= COPIES - i
    return num / (40 * 39 * 38 * 37)


def test_keep_value_matches_engine_rollouts():
    """The dealer's chips when it keeps the table (the bettors' stakes and draws by their policies, its
    draw by the expert's rule), against the engine playing the round out from re-dealt hidden cards."""
    env, scripted, br = _minso_state(seed=2)
    game = env.game
    seen = _Seen(br.encoder.spec, env.observe("player_0")["observation"])
    rng = np.random.default_rng(5)
    root = br._redealt(game, 0, seen, rng)
    table = seen.spread[:, 0]
    draws = np.random.default_rng(6).permuted(
        np.broadcast_to(np.repeat(np.arange(NUM_VALUES + 1), seen.pool()), (4000, 36)), axis=1
    )[:, :11]
    chips = br.keep_chips(root, table[None], draws[None])[0]
    expert = OichoExpertAgent(0, rules="kansai")
    rewards = []
    for _ in range(4000):
        g = br._redealt(game, 0, seen, rng)
        g.apply_action(KEEP)
        while not g.terminal:
            p = g.current_player
            g.apply_action(int((expert if p == 0 else scripted).act(encode(g, p), _mask(g))))
        rewards.append(g.round_rewards[0])
    r = np.asarray(rewards, dtype=float)
    se = np.sqrt(r.var() / r.size + chips.var() / chips.size)
    assert abs(r.mean() - chips.mean()) < 4 * se
    assert chips.std() > 0


def test_minso_choice_and_regret():
    """The best response's minso: its own choice has regret 0, the other a positive regret equal to
    the gap between the two values; agents evaluated on one deal share its computation."""
    env, _, br = _minso_state(seed=1)
    o = env.observe("player_0")
    obs, mask = o["observation"], o["action_mask"]
    best = br.act(env.game, 0, obs, mask)
    assert best in (KEEP, REDEAL) and br.decisions["minso"] == 1
    other = REDEAL if best == KEEP else KEEP
    assert br.regret(env.game, 0, obs, mask, best) == 0.0
    assert br.regret(env.game, 0, obs, mask, other) > 0.0

    # the value of a redeal (exact over the tables, sampled draws) against the engine redealing
    [(redeal_a, redeal_b, se)] = [v for k, v in _REDEAL_VALUES.items() if k[:2] == (br.cfg, 1)]
    assert abs(redeal_a - redeal_b) < 4 * se * np.sqrt(2)
    seen = _Seen(br.encoder.spec, obs)
    rng = np.random.default_rng(8)
    expert, scripted = OichoExpertAgent(0, rules="kansai"), OichoScriptedAgent(0, rules="kansai")
    rewards = []
    for _ in range(3000):
        g = br._redealt(env.game, 0, seen, rng)
        g.apply_action(REDEAL)
        while not g.terminal:
            p = g.current_player
            g.apply_action(int((expert if p == 0 else scripted).act(encode(g, p), _mask(g))))
        rewards.append(g.round_rewards[0])
    r = np.asarray(rewards, dtype=float)
    assert abs(r.mean() - redeal_a) < 4 * np.sqrt(r.var() / r.size + se**2)


# The site's rules on two seats: the selection draws (1 for seat 0, 5 for seat 1: seat 0 deals) and the
# bettor's info card come first; the dealer takes its cards (top) after the bets, face down to the end.
SITE2 = {"rules": "kabufuda_site", "num_players": 2}


class _TwoSpreads(OichoScriptedAgent):
    """The scripted player, staking 5 on spreads 0 and 2 and nothing elsewhere."""

    def _bet(self, obs: np.ndarray, mask: np.ndarray) -> int:
        return self._stake_to(mask, 5) if self._active_spread(obs) in (0, 2) else BET_BASE


def _head(options: dict, info: int = 6) -> list[int]:
    """The stacked deck's values before the table: selection draws, the bettor's info card."""
    cfg = make_config(**options)
    # player_0 deals: the lowest card, or the closest to 9
    draws = {"fixed": [], "lowest": [1, 5], "closest_to_nine": [5, 1]}[cfg.dealer_selection]
    return draws + ([info] if cfg.info_cards else [])


def _advance(game: Game, agents, stop) -> None:
    """``_play_until``, keeping a minso table."""
    while not game.terminal and not stop(game):
        if game.phase == Phase.MINSO:
            game.apply_action(KEEP)
        else:
            seat = game.current_player
            game.apply_action(int(agents[seat].act(encode(game, seat), _mask(game))))


@pytest.mark.parametrize(
    "options",
    [{"num_players": 2}, {"num_players": 2, "unbacked_spread_card": False}, SITE2],
    ids=["standard", "standard-unbacked-off", "kabufuda_site"],
)
def test_dealer_values_equal_brute_force_over_every_hidden_card(options):
    # One scripted bettor staking on spreads 0 and 2 only. Table 1 7 4 8, the dealer's 2 (face down),
    # second cards 5 6 9 3 (hidden from the dealer), spread 2 draws a 6, [the unbacked spreads 1 and 3,
    # turned up (their 6 and 3 now seen), get a 4 and a 10], the dealer's 3: a 5, where it may stand or
    # draw. On the site's rules the bettor's info card is unseen by the dealer.
    site = "rules" in options
    unbacked = [4, 10] if make_config(**options).unbacked_spread_card else []
    bettor = _TwoSpreads(0, **options)
    dealer = OichoScriptedAgent(0, **options)  # takes its cards from the top (the site's rules)
    head = _head(options)
    table = [1, 7, 4, 8]
    env = raw_env(**options)
    env.reset(seed=0, options={"deck": _ids([*head, *table, 2, 5, 6, 9, 3, 6, *unbacked, 3])})
    last = lambda x: x.phase == Phase.BET and x.active_spread == 3  # noqa: E731
    _advance(env.game, [dealer, bettor], last)
    last_bet = env.game.clone(np.random.default_rng(0))  # before any hidden card is dealt
    _advance(env.game, [dealer, bettor], lambda x: x.phase == Phase.DEALER_DRAW)
    game = env.game
    assert game.dealer == 0 and game.legal_actions() == [STAND, DRAW]
    assert game.spread_total[1] == game.spread_total[3] == 0 < game.spread_total[0] * game.spread_total[2]
    br = OichoBestResponse("dealer", **options)
    br.begin(game, 0, [None, bettor])
    seen = _Seen(br.encoder.spec, env.observe("player_0")["observation"])
    got = br.dealer_values(game, seen)

    # brute force: every value of the four hidden second cards, weighted by the unseen cards that
    # realise it, the round replayed by the engine and the real bettor from the stacked deal; kept when
    # the replay shows the dealer what it saw (same stands and draws, same cards); then every next card
    # table, the dealer's two cards, spread 2's third card, the unbacked spreads' dealt cards (their
    # turned-up second cards are enumerated with the others and must replay as seen)
    visible = [*table, 2, 6, 3, *unbacked]
    turned_seconds = [6, 3] if unbacked else []
    assert seen.pool()[1:].tolist() == [
        COPIES - (visible + turned_seconds).count(v) for v in range(1, NUM_VALUES + 1)
    ]
    left = {v: COPIES - visible.count(v) for v in range(1, NUM_VALUES + 1)}
    total = {STAND: 0.0, DRAW: 0.0}
    weight_sum = 0.0
    before = 0 if site else 1  # cards of the dealer already dealt at the last bet
    for seconds in itertools.product(range(1, NUM_VALUES + 1), repeat=4):
        used = dict(left)
        w = 1.0
        for v in seconds:
            w *= used[v]
            used[v] -= 1
        if w == 0:
            continue
        g = last_bet.clone(np.random.default_rng(0))  # the deal replayed from the last bet on
        rest = [2] * (1 - before) + [*seconds, 6, *unbacked, 3]
        g.deck.cards[g.deck.top : g.deck.top + len(rest)] = [card_id(v, COPIES - 1) for v in rest]
        _advance(g, [dealer, bettor], lambda x: x.phase in (Phase.DEALER_DRAW, Phase.OVER))
        if g.phase != Phase.DEALER_DRAW or _public(g) != _public(game):
            continue
        weight_sum += w
        stand = g.clone(np.random.default_rng(0))
        stand.apply_action(STAND)
        total[STAND] += w * stand.round_rewards[0]
        n_left = sum(used.values())
        for y, cnt in used.items():
            if cnt:
                d = g.clone(np.random.default_rng(0))
                d.deck.cards[d.deck.top] = card_id(y, COPIES - 1)  # only the value matters to the rules
                d.apply_action(DRAW)
                total[DRAW] += w * cnt / n_left * d.round_rewards[0]
    assert weight_sum > 0
    assert got[STAND] == pytest.approx(total[STAND] / weight_sum, abs=1e-9)
    assert got[DRAW] == pytest.approx(total[DRAW] / weight_sum, abs=1e-9)


def _public(g: Game) -> tuple:
    """What the dealer sees at its draw: stakes, states, first and third cards (and a turned-up
    spread's second), its own two cards."""
    spreads = [
        (VALUES[sp[0]], VALUES[sp[1]] if g.turned_up(s) else 0, VALUES[sp[2]] if len(sp) > 2 else 0)
        for s, sp in enumerate(g.spreads)
    ]
    return (g.stakes, g.spread_state, spreads, [VALUES[c] for c in g.dealer_cards])


def _ids(values):
    """A stacked prefix by value: the next copy of a value for each repeat."""
    count = dict.fromkeys(range(1, NUM_VALUES + 1), 0)
    out = []
    for v in values:
        out.append(card_id(v, count[v]))
        count[v] += 1
    return out


# The bettor's draw: the standard rules; Kansai (spread 3 on 4-6: DRAW or ESCAPE; a minso
# question first, a table kept); the site's rules (its info card 6 seen, the dealer's cards taken
# after the bets and face down).
DRAW_CASES = {
    "standard": ({"num_players": 2}, (5, 10)),
    "kansai": ({"rules": "kansai", "num_players": 2}, (4, 6)),
    "kabufuda_site": (SITE2, (5, 10)),
}


def _bettor_draw_state(options=None, last=(5, 10)):
    """Two seats, the bettor (seat 1) backs all four spreads and decides spread 3 on ``last``; spreads
    0-2 stand (8, 9, 7 with tens); the dealer's first card (a 2) is face down."""
    options = {"num_players": 2} if options is None else options
    env = raw_env(**options)
    head = _head(options)
    env.reset(seed=0, options={"deck": _ids([*head, 8, 9, 7, last[0], 2, 10, 10, 10, last[1]])})
    g = env.game
    dealer = OichoScriptedAgent(0, **options)
    while not (g.phase == Phase.DECIDE and g.active_spread == 3):
        phase = g.phase
        if phase == Phase.MINSO:
            g.apply_action(KEEP)
        elif phase == Phase.BET:
            assert g.current_player == 1
            g.apply_action(BET_BASE + 1)
        elif phase == Phase.DEALER_CHOICE:
            g.apply_action(CHOICE_ACTIONS[0])
        else:
            g.apply_action(STAND)
    return env, dealer


@pytest.mark.parametrize("case", list(DRAW_CASES))
def test_bettor_draw_values_match_brute_force_within_sampling_error(case):
    options, last = DRAW_CASES[case]
    env, dealer = _bettor_draw_state(options, last)
    game = env.game
    legal = game.legal_actions()
    assert legal == ([DRAW, ESCAPE] if case == "kansai" else [STAND, DRAW])  # 4-6 = 0: draw or escape
    br = OichoBestResponse("bettor", samples=20000, **options)
    br.begin(game, 1, [dealer, None])
    seen = _Seen(br.encoder.spec, env.observe("player_1")["observation"])
    assert seen.info == (6 if case == "kabufuda_site" else 0)
    q = br.draw_values(game, 1, seen, legal, np.random.default_rng(1))

    # brute force: the dealer's face-down card and the next three cards of the deck, every value, over
    # the cards the bettor has not seen (its info card is seen: one 6 fewer)
    visible = [8, 9, 7, last[0], 10, 10, 10, last[1]] + ([6] if seen.info else [])
    left = {v: COPIES - visible.count(v) for v in range(1, NUM_VALUES + 1)}
    assert seen.pool()[1:].tolist() == list(left.values())  # the same unseen cards, exactly
    exact = dict.fromkeys(legal, 0.0)
    total_w = 0.0
    for d1, n1, n2, n3 in itertools.product(range(1, NUM_VALUES + 1), repeat=4):
        used, w = dict(left), 1.0
        for v in (d1, n1, n2, n3):
            w *= used[v]
            used[v] -= 1
        if w == 0:
            continue
        total_w += w
        for action in legal:
            g = game.clone(np.random.default_rng(0))
            g.dealer_cards[0] = card_id(d1, 0)  # ids: only the values matter to the rules
            g.deck.cards[g.deck.top : g.deck.top + 3] = [card_id(n1, 1), card_id(n2, 2), card_id(n3, 3)]
            g.apply_action(action)
            _play_until(g, [dealer, None], lambda x: False)
            exact[action] += w * g.round_rewards[1]
    for action in legal:
        se = q[action].std() / np.sqrt(q[action].size)
        assert abs(q[action].mean() - exact[action] / total_w) < 4 * se + 1e-9, action


def test_bettor_draw_values_model_the_turned_up_spread_the_dealer_sees():
    """``unbacked_spread_card`` (standard): the bettor backs spreads 0, 1 and 3 and decides spread 3 (5-10);
    spread 2, unbacked, is turned up and dealt a card before the expert dealer decides, and the expert
    counts both cards out of the unseen ones. The sampled draws hand exactly those two cards to the
    dealer's model, and the values agree with engine rollouts of the same information state."""
    options = {"num_players": 2}
    env = raw_env(**options)
    env.reset(seed=0, options={"deck": _ids([*_head(options), 8, 9, 7, 5, 2, 10, 10, 10, 10])})
    g = env.game
    dealer = OichoExpertAgent(0, **options)
    while not (g.phase == Phase.DECIDE and g.active_spread == 3):
        g.apply_action(BET_BASE + (g.active_spread != 2) if g.phase == Phase.BET else STAND)
    assert g.spread_total[2] == 0 and g.legal_actions() == [STAND, DRAW]
    br = OichoBestResponse("bettor", samples=4000, **options)
    br.begin(g, 1, [dealer, None])
    seen = _Seen(br.encoder.spec, env.observe("player_1")["observation"])
    calls = []
    model = dealer.dealer_draw_model

    def spy(*args):
        calls.append(args)
        return model(*args)

    dealer.dealer_draw_model = spy
    q = br.draw_values(g, 1, seen, [STAND, DRAW], np.random.default_rng(1))
    third, second = calls[-1][2], calls[-1][5]
    assert (second[:, 2] > 0).all() and (third[:, 2] > 0).all() and not second[:, [0, 1, 3]].any()
    dealer.dealer_draw_model = model
    rng = np.random.default_rng(7)
    for action in (STAND, DRAW):  # the engine plays the rest from a redealt state: the same information
        rewards = []
        for _ in range(1500):
            c = br._redealt(g, 1, seen, rng)
            c.apply_action(action)
            _play_until(c, [dealer, None], lambda x: False)
            assert c.turned_up(2)
            rewards.append(c.round_rewards[1])
        r, v = np.array(rewards, dtype=float), q[action]
        assert abs(r.mean() - v.mean()) < 4 * np.sqrt(r.var() / r.size + v.var() / v.size), action


def test_planned_bets_value_matches_engine_rollouts():
    env = raw_env(dealer_selection="fixed")  # player_1 bets
    scripted = OichoScriptedAgent(0)
    for seed in range(20):  # a deal whose plan stakes something
        env.reset(seed=seed)
        g = env.game
        _play_until(g, [scripted] * 4, lambda x: x.current_player == 1)
        br = OichoBestResponse("bettor", seed=seed, samples=3000)
        br.begin(g, 1, [scripted] * 4, deal=seed)
        seen = _Seen(br.encoder.spec, env.observe("player_1")["observation"])
        plan = br._plan_bets(g, 1, seen)
        if sum(plan["profile"]):
            break
    rng = np.random.default_rng(7)
    base = OichoExpertAgent(0)
    rewards = []
    for _ in range(3000):  # the engine plays the rest: the stakes, the others, the expert's draws
        c = br._redealt(g, 1, seen, rng)
        bets = iter(plan["profile"])
        while not c.terminal:
            p = c.current_player
            if p == 1 and c.phase == Phase.BET:
                a = BET_BASE + next(bets)
            else:
                a = (base if p == 1 else scripted).act(encode(c, p), _mask(c))
            c.apply_action(int(a))
        rewards.append(c.round_rewards[1])
    r, v = np.array(rewards, dtype=float), plan["best_b"]
    se = np.sqrt(r.var() / r.size + v.var() / v.size)
    assert abs(r.mean() - v.mean()) < 4 * se


def _reshuffled_unseen(game: Game, seat_obs: np.ndarray, spec, seed: int, seat: int = -1) -> Game:
    """The same information state with every card the seat does not see (the other seats' info cards
    too) moved elsewhere."""
    seen = _Seen(spec, seat_obs)
    g = game.clone(np.random.default_rng(0))
    places = [(sp, k) for s, sp in enumerate(g.spreads) for k in range(len(sp)) if not seen.spread[s, k]]
    places += [(g.dealer_cards, k) for k in range(len(g.dealer_cards)) if not seen.dealer[k]]
    places += [(g.info_cards, s) for s, c in enumerate(g.info_cards) if c >= 0 and s != seat]
    places += [(g.deck.cards, i) for i in range(g.deck.top, len(g.deck.cards))]
    cards = np.random.default_rng(seed).permutation([lst[i] for lst, i in places]).tolist()
    for (lst, i), c in zip(places, cards, strict=True):
        lst[i] = c
    return g


def test_decisions_never_depend_on_unseen_cards():
    env, dealer = _bettor_draw_state()
    game = env.game
    obs = env.observe("player_1")["observation"]
    values = []
    for variant in (game, _reshuffled_unseen(game, obs, OichoBestResponse("bettor").encoder.spec, 5)):
        br = OichoBestResponse("bettor", samples=500, num_players=2)
        br.begin(variant, 1, [dealer, None])
        assert np.array_equal(encode(variant, 1), obs)  # the seat sees the same thing
        q = br.draw_values(variant, 1, _Seen(br.encoder.spec, obs), [STAND, DRAW], np.random.default_rng(3))
        values.append(q)
    assert all(np.array_equal(values[0][a], values[1][a]) for a in (STAND, DRAW))


@pytest.mark.parametrize("rules", ["standard", "kansai", "kabufuda_site"])
def test_bet_plans_draws_and_dealer_values_never_depend_on_unseen_cards(rules):
    """On each preset: a later bettor's bet plan, a bettor's draw values (as many as the deals give)
    and the dealer's exact values (not for Kansai: its dealer seat is refused) are bit-identical when
    every card the seat does not see (the others' info cards included) is moved elsewhere."""
    options = {"rules": rules}
    env = raw_env(**options)
    scripted = OichoScriptedAgent(0, **options)
    spec = OichoBestResponse("bettor", **options).encoder.spec
    names = env.possible_agents
    checked = {"plan": 0, "draw": 0, "dealer": 0}
    moved_info = 0  # deals whose other seats' info cards were moved
    for deal in range(11, 40):
        env.reset(seed=deal)
        g = env.game
        _advance(g, [scripted] * 4, lambda x: x.phase == Phase.BET and x.current_player == x.betting_order[1])
        seat = g.current_player
        obs = env.observe(names[seat])["observation"]
        plans = []
        other = _reshuffled_unseen(g, obs, spec, deal, seat)
        assert other.deck.cards[other.deck.top :] != g.deck.cards[g.deck.top :]
        moved_info += other.info_cards != g.info_cards
        # the simulations' copies of the two are the same game, card for card
        copies = [
            OichoBestResponse("bettor", **options)._redealt(
                x, seat, _Seen(spec, obs), np.random.default_rng(1)
            )
            for x in (g, other)
        ]
        assert [(c.info_cards, c.spreads, c.dealer_cards, c.deck.cards) for c in copies[:1]] == [
            (c.info_cards, c.spreads, c.dealer_cards, c.deck.cards) for c in copies[1:]
        ]
        for variant in (g, other):
            assert np.array_equal(encode(variant, seat), obs)
            br = OichoBestResponse("bettor", seed=4, samples=400, **options)
            br.begin(variant, seat, [scripted] * 4, deal=deal)
            plans.append(br._plan_bets(variant, seat, _Seen(br.encoder.spec, obs)))
        assert plans[0]["profile"] == plans[1]["profile"]
        assert np.array_equal(plans[0]["best_b"], plans[1]["best_b"])
        checked["plan"] += 1
        _advance(g, [scripted] * 4, lambda x: x.phase in (Phase.DECIDE, Phase.DEALER_DRAW, Phase.OVER))
        if g.phase == Phase.DECIDE and g.current_player != g.dealer:
            seat = g.current_player
            obs = env.observe(names[seat])["observation"]
            q = []
            for variant in (g, _reshuffled_unseen(g, obs, spec, deal, seat)):
                assert np.array_equal(encode(variant, seat), obs)
                br = OichoBestResponse("bettor", samples=300, **options)
                br.begin(variant, seat, [scripted] * 4, deal=deal)
                legal = variant.legal_actions()
                rng = np.random.default_rng(deal)
                q.append(br.draw_values(variant, seat, _Seen(br.encoder.spec, obs), legal, rng))
            assert all(np.array_equal(q[0][a], q[1][a]) for a in q[0])
            checked["draw"] += 1
        _advance(g, [scripted] * 4, lambda x: x.phase in (Phase.DEALER_DRAW, Phase.OVER))
        if g.phase == Phase.DEALER_DRAW and rules != "kansai":
            seat = g.dealer
            obs = env.observe(names[seat])["observation"]
            got = []
            for variant in (g, _reshuffled_unseen(g, obs, spec, deal, seat)):
                assert np.array_equal(encode(variant, seat), obs)
                br = OichoBestResponse("dealer", **options)
                br.begin(variant, seat, [scripted] * 4)
                got.append(br.dealer_values(variant, _Seen(br.encoder.spec, obs)))
            assert got[0] == got[1]
            checked["dealer"] += 1
        if min(checked.values()) >= 3 or (rules == "kansai" and min(checked["plan"], checked["draw"]) >= 3):
            break
    assert checked["plan"] >= 3 and checked["draw"] >= 3
    assert (moved_info > 0) == (rules == "kabufuda_site")
    assert checked["dealer"] >= (0 if rules == "kansai" else 3)
