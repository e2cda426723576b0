"""Issue #24, Oicho-Kabu: the defaults v2 changed to follow the sources, each a stacked-deck scenario
through the AEC env played under v2 (``oicho_kabu_v2``) and under v1 (``oicho_kabu_v1``, an alias of v2
with v1's values, which must play as before). docs/oicho_kabu.md#traceability cites these tests."""

from __future__ import annotations

import importlib
import warnings

import pytest
from oicho_game_helpers import KEEP, TOP, B, D, S, stack, values

from kabu_envs import oicho_kabu_v2
from kabu_envs.oicho_kabu.config import make_config
from kabu_envs.oicho_kabu.deck import VALUES as VALUE
from kabu_envs.oicho_kabu.game import Phase
from kabu_envs.oicho_kabu.observation import obs_spec
from kabu_envs.oicho_kabu.options import PRESETS, V1_PRESETS, v1_options

with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)
    from kabu_envs import oicho_kabu_v1


def _env(module, deck_values, **options):
    e = module.raw_env(**options)
    e.reset(seed=0, options={"deck": stack(deck_values)})
    return e


def _act(e, *actions: int) -> None:
    for a in actions:
        e.step(a)


def test_v1_is_deprecated_and_plays_with_v1s_values():
    with pytest.warns(DeprecationWarning, match="oicho_kabu_v2"):
        importlib.reload(oicho_kabu_v1)
    for preset in PRESETS:
        got = oicho_kabu_v1.raw_env(rules=preset).config
        assert got == make_config(rules=preset, **V1_PRESETS[preset])
        assert got != make_config(rules=preset) or not V1_PRESETS[preset]
    assert oicho_kabu_v1.raw_env().config.dealer_selection == "fixed"  # v1's standard: player_0 deals
    assert oicho_kabu_v1.raw_env(dealer_selection="lowest").config.dealer_selection == "lowest"  # caller wins
    assert v1_options({"rules": "kabufuda_site"})["bet_sizes"] == (1, 2, 5, 10)
    # a caller's override of another yaku keeps v1's bettor-only shippin (merged per yaku, as presets are)
    over = oicho_kabu_v1.raw_env(local_yaku=["zoro"], yaku_overrides={"zoro": {"rank": 12}}).config
    assert over.yaku["shippin"].holders == {"bettor"} and over.yaku["zoro"].rank == 12
    both = oicho_kabu_v1.raw_env(yaku_overrides={"shippin": {"holders": "both"}}).config
    assert both.yaku["shippin"].holders == {"bettor", "dealer"}  # the caller still wins


# --- standard (the encyclopedia text) ------------------------------------------------------------------


def test_enc_dealer_selection_is_the_standard_default():
    """The encyclopedia text: "everyone turns up a card; the one closest to 9 deals; ties turn up another"."""
    # 3 players: 4, 4, 1 -> players 0 and 1 tie and turn up another: 2, 8 -> player_1 deals
    e = _env(oicho_kabu_v2, [4, 4, 1, 2, 8, 5, 6, 7, 10, 3], num_players=3)
    assert e.game.dealer == 1 and e.agent_selection == "player_2"  # the seat after the dealer bets first
    assert values(c for c in e.game.selection_cards if c >= 0) == [4, 4, 1]
    assert values(sp[0] for sp in e.game.spreads) == [5, 6, 7, 10]
    fixed = _env(
        oicho_kabu_v2, [5, 6, 7, 10, 3], num_players=3, dealer_selection="fixed"
    )  # the option keeps player_0
    assert fixed.game.dealer == 0 and values(sp[0] for sp in fixed.game.spreads) == [5, 6, 7, 10]
    v1 = _env(oicho_kabu_v1, [5, 6, 7, 10, 3], num_players=3)
    assert v1.game.dealer == 0 and v1.game.selection_cards == [-1, -1, -1]


@pytest.mark.parametrize(
    ("condition", "dealer_second", "bettor_action", "domae"),
    [("low_hand", 1, S, 50), ("doubled", 10, S, 1)],
)
def test_enc_dealer_change_low_hand_and_doubled_in_standard(condition, dealer_second, bettor_action, domae):
    """The encyclopedia text: the deal passes when the dealer "has dealt the agreed number of times, is broke,
    has doubled the domae, or ends with 5 or less". ``low_hand``: the dealer stands on 9 + 5 = 4 (and loses
    to the bettor's 9); ``doubled``: the dealer's 9 + 10 = 9 beats the bettor's 6 and wins the domae of 1."""
    # table 2 7 7 8, dealer's first 9 | bets | seconds 7 (or 4) 1 1 1 | v2: the unbacked spreads 1-3
    # get 3 3 6 | the dealer's second
    second = 7 if condition == "low_hand" else 4
    deal = [2, 7, 7, 8, 9, second, 1, 1, 1]
    last = [dealer_second if condition == "doubled" else 5]
    dealers = {}
    for name, module, head, unbacked in (
        ("v2", oicho_kabu_v2, [9, 1], [3, 3, 6]),
        ("v1", oicho_kabu_v1, [], []),
    ):
        e = _env(module, head + deal + unbacked + last, num_players=2, max_rounds=2, domae=domae)
        assert e.game.dealer == 0
        _act(e, B(1), B(0), B(0), B(0), bettor_action, S)  # one chip on spread 0; both stand
        assert e.game.round_index == 1
        dealers[name] = e.game.dealer
    assert dealers == {"v2": 1, "v1": 0}  # v1 (deals, bust) keeps the dealer


@pytest.mark.parametrize(
    ("spread", "second", "third", "want"),
    [
        # the bettor's 5-3 = 8 against the dealer's 4-1: v2's dealer holds shippin and wins outright;
        # v1's dealer held a plain 5 and lost to the 8
        (5, 3, [], {"v2": -1, "v1": 1}),
        # "the player wins even against the dealer's kuppin or shippin": the bettor's 7-7-7 arashi (x3)
        (7, 7, [7], {"v2": 3, "v1": 3}),
    ],
)
def test_enc_standard_dealer_holds_shippin(spread, second, third, want):
    """Departure 1 (the encyclopedia text): «Игрок выигрывает даже против куппина или шиппина дилера» (the
    player wins even against the dealer's kuppin or shippin), and the Kansai section lists «Шиппин
    применяется только к игрокам, а не к дилеру» (shippin only for players, not the dealer) as a *change*:
    so in the main rules, `standard`, the dealer's first two cards 4 and 1 are a shippin too."""
    # table: spread 0, then 5 6 8 | the dealer's first 4 | seconds: spread 0's, 2 2 2 | [spread 0 draws]
    # | v2: the unbacked spreads 1-3 get 3 3 6 | the dealer's second 1 (4-1, value 5), he stands
    deal = [spread, 5, 6, 8, 4, second, 2, 2, 2, *third]
    got = {}
    for name, module, head, unbacked in (
        ("v2", oicho_kabu_v2, [9, 2], [3, 3, 6]),
        ("v1", oicho_kabu_v1, [], []),
    ):
        e = _env(module, head + deal + unbacked + [1], num_players=2)
        assert e.game.dealer == 0
        _act(e, B(1), B(0), B(0), B(0), D if third else S, S)
        assert values(e.game.dealer_cards) == [4, 1] and values(e.game.spreads[0]) == [spread, second, *third]
        got[name] = e.game.round_rewards[1]
    assert got == want
    assert "dealer" in make_config().yaku["shippin"].holders
    assert "dealer" not in make_config(rules="kansai").yaku["shippin"].holders  # the Kansai change


def test_enc_kansai_keeps_the_main_games_dealer_selection_and_dealer_change():
    """Departure 2: the Kansai rules are local «Основные изменения» (main changes) to a main game in which
    «Ближайший к 9 становится дилером» (the one closest to 9 deals) and «Дилер меняется, когда … дилер
    получил значение 5 или менее» (the deal passes when the dealer got 5 or less); the Kansai section
    changes neither, so `kansai` keeps both. Selection 2 9: player_1 deals; he stands on 4-1 = 5 (a plain
    5 in Kansai) against the bettor's 5 (a push), so the deal passes to player_0."""
    # table 2 7 7 8 | the dealer's first 4 | minso: keep | bets | seconds 3 1 1 1 | spread 0 (5) stands |
    # v2: the unbacked spreads 1-3 get 3 3 6 | the dealer's second 1
    deal = [2, 7, 7, 8, 4, 3, 1, 1, 1]
    dealers = {}
    for name, module, head, unbacked in (
        ("v2", oicho_kabu_v2, [2, 9], [3, 3, 6]),
        ("v1", oicho_kabu_v1, [], []),
    ):
        e = _env(module, head + deal + unbacked + [1], rules="kansai", num_players=2, max_rounds=2)
        first = e.game.dealer
        bettor = 1 - first
        assert e.game.cfg.dealer_selection == ("closest_to_nine" if name == "v2" else "fixed")
        _act(e, KEEP, B(1), B(0), B(0), B(0), S, S)
        assert e.game.round_index == 1 and e.game.round_rewards[bettor] == 0
        dealers[name] = (first, e.game.dealer)
    assert dealers == {"v2": (1, 0), "v1": (0, 0)}  # v1's kansai: player_0 deals and keeps the deal


# --- kabufuda_site (the kabufuda site) -----------------------------------------------------------------
# deck: selection (player_0 draws the lowest and deals), the bettor's info card, the table, [bets], the
# dealer's first (TAKE_TOP), the spreads' seconds, [thirds], the dealer's second (TAKE_TOP), [its third]


def test_site_no_third_card_on_eight_for_a_pair_bettor_or_dealer():
    """The kabufuda site: "rules for everyone, the dealer included: no third card on 7 or more"."""
    deck = [3, 5, 6, 4, 7, 7, 8, 4, 4, 1, 1, 1, 4]  # spread 0: 4-4; the dealer 4-4
    for module, legal in ((oicho_kabu_v2, [S]), (oicho_kabu_v1, [S, D])):
        e = _env(module, deck, rules="kabufuda_site", num_players=2)
        _act(e, B(1), B(0), B(0), B(0), TOP)
        assert e.game.phase == Phase.DECIDE and e.game.legal_actions() == legal
        _act(e, S, TOP)
        assert e.game.phase == Phase.DEALER_DRAW and e.game.legal_actions() == legal
        _act(e, S)
        assert values(e.game.dealer_cards) == [4, 4] and e.game.round_rewards == [0, 0]


def test_site_zero_against_zero_goes_by_the_tie_rule():
    """The kabufuda site has no "dealer wins on 0-0" rule: ties go by the table's tie rule."""
    # spread 0: 5-5 draws 10 (0); the dealer 5-5 draws 10 (0)
    deck = [3, 6, 6, 5, 7, 7, 8, 5, 5, 1, 1, 1, 10, 5, 10]
    results = {}
    for name, module in (("v2", oicho_kabu_v2), ("v1", oicho_kabu_v1)):
        for tie_rule in ("push", "dealer_wins"):
            e = _env(module, deck, rules="kabufuda_site", num_players=2, tie_rule=tie_rule)
            _act(e, B(1), B(0), B(0), B(0), TOP, D, TOP, D)
            assert values(e.game.spreads[0]) == [5, 5, 10] and values(e.game.dealer_cards) == [5, 5, 10]
            results[name, tie_rule] = e.game.round_rewards[1]
    assert results == {
        ("v2", "push"): 0,
        ("v2", "dealer_wins"): -1,
        ("v1", "push"): -1,
        ("v1", "dealer_wins"): -1,
    }


def test_site_decisions_go_in_asking_order():
    """The kabufuda site: "the dealer asks each player in turn whether he wants a card; on a card backed by
    several, the first asked decides". Selection 1, 2, 3: player_0 deals, player_1 is asked first."""
    deck = [1, 2, 3, 6, 6, 5, 6, 7, 8, 9, 10, 10, 1, 1]  # info cards 6 6; spreads 0, 1: 5 and 6 (free)
    for module, first in ((oicho_kabu_v2, (1, 1)), (oicho_kabu_v1, (2, 0))):
        e = _env(module, deck, rules="kabufuda_site", num_players=3)
        assert e.game.betting_order == [1, 2]
        _act(e, B(0), B(1), B(0), B(0), B(1), B(0), B(0), B(0), TOP)  # player_1 on spread 1, player_2 on 0
        assert e.game.decider[:2] == [2, 1]
        assert (e.game.current_player, e.game.active_spread) == first
        _act(e, S)
        assert (e.game.current_player, e.game.active_spread) == (3 - first[0], 1 - first[1])


def test_site_one_bettor_may_stake_the_whole_domae():
    """The kabufuda site: "one player may bet the whole maximum" (domae 50, the preset's own)."""
    e = _env(oicho_kabu_v2, [3, 5, 6, 4, 7, 7, 8], rules="kabufuda_site", num_players=2)
    assert e.game.cfg.domae == 50 and e.game.bet_sizes == (1, 5, 10, 25)
    _act(e, B(4), B(4))  # 25 + 25
    assert e.game.seat_total[1] == 50 and e.game.legal_actions() == [B(0)]
    v1 = _env(oicho_kabu_v1, [3, 5, 6, 4, 7, 7, 8], rules="kabufuda_site", num_players=2)
    _act(v1, B(4), B(4), B(4), B(4))  # 10 on every spread: v1's bettor reached 40 at most
    assert v1.game.seat_total[1] == 40


def test_enc_one_one_one_takes_pin_basami_against_the_dealers_arashi():
    """The encyclopedia text: pin-basami makes "the dealer lose unconditionally", and 1-1-1 is also an
    arashi. A hand holding several yaku takes, at the showdown, the one best for its holder against the
    actual opposing hand: against the dealer's 2-2-2 the pin-basami (+1), not the losing arashi (-3)."""
    # table 1 7 7 8, the dealer's first 2 | bets | seconds 1 8 8 9, spread 0 draws a 1 | v2: the unbacked
    # spreads 1-3 get 3 3 4 | the dealer's 2, then 2
    deal = [1, 7, 7, 8, 2, 1, 8, 8, 9, 1]
    got = {}
    for name, module, head, unbacked in (
        ("v2", oicho_kabu_v2, [9, 1], [3, 3, 4]),
        ("v1", oicho_kabu_v1, [], []),
    ):
        e = _env(module, head + deal + unbacked + [2, 2], num_players=2, local_yaku=["pin_basami"])
        _act(e, B(1), B(0), B(0), B(0), D, D)
        assert values(e.game.spreads[0]) == [1, 1, 1] and values(e.game.dealer_cards) == [2, 2, 2]
        got[name] = e.game.round_rewards[1]
    assert got == {"v2": 1, "v1": -3}


# --- departure 1: the unbacked spread (the encyclopedia text) -------------------------------------------
# Two seats, standard: selection 9 1 (player_0 deals) | table 1 6 4 7 | the dealer's first 2 | player_1
# backs spread 1 only | seconds 1 2 5 7 | spread 1 (6-2 = 8) stands | v2: the unbacked spreads 0, 2, 3 get
# 3, 10, 7 in spread order | the dealer's second: 5 in v2 (2-5 = 7), 3 in v1 (the card v1 gives the dealer)
UNBACKED_DEAL = [1, 6, 4, 7, 2, 1, 2, 5, 7]
UNBACKED_CARDS = [3, 10, 7, 5]


def _seen(e, seat: str) -> tuple[list[list[int]], list[list[int]]]:
    """The spread card values ``seat``'s observation shows (0: not shown) and its hidden flags."""
    sl = obs_spec(e.game.cfg).slices
    o = e.observe(seat)["observation"]
    cards = o[sl["spread_cards"]].reshape(4, 3, 10)
    shown = [[int(b.argmax()) + 1 if b.max() > 0 else 0 for b in sp] for sp in cards]
    return shown, o[sl["spread_hidden"]].reshape(4, 3).astype(int).tolist()


def test_enc_unbacked_spread_is_turned_up_and_dealt_one_card():
    """The encyclopedia text: "a spread without bets is turned up, and one card is dealt to it face up",
    after the players' draws and before the dealer turns up his card and takes his second. Nobody decides
    for it (the <= 3 and >= 7 rules do not apply: 1-1 and 4-5 each get exactly one card), everyone sees
    its cards, and it is never settled (its 7-7-7 is no arashi against anyone)."""
    e = _env(oicho_kabu_v2, [9, 1, *UNBACKED_DEAL, *UNBACKED_CARDS], num_players=2)
    g = e.game
    assert g.dealer == 0 and g.cfg.unbacked_spread_card
    _act(e, B(0), B(1), B(0), B(0))
    assert (g.phase, g.active_spread) == (Phase.DECIDE, 1)  # the only decision: the backed spread
    assert _seen(e, "player_0")[1][0] == [0, 1, 0]  # the dealer does not see spread 0's second card yet
    _act(e, S)
    assert g.phase == Phase.DEALER_DRAW and g.legal_actions() == [S]  # 2-5 = 7
    assert [values(sp) for sp in g.spreads] == [[1, 1, 3], [6, 2], [4, 5, 10], [7, 7, 7]]
    assert values(g.dealer_cards) == [2, 5]
    kinds = [type(ev).__name__ for ev in g.log]
    assert kinds[-4:] == ["Stand", "Unbacked", "Unbacked", "Unbacked"]
    assert [(ev.spread, VALUE[ev.second], VALUE[ev.card]) for ev in g.log[-3:]] == [
        (0, 1, 3),
        (2, 5, 10),
        (3, 7, 7),
    ]
    for seat in ("player_0", "player_1"):  # turned up: both seats see all three cards, nothing hidden
        shown, hidden = _seen(e, seat)
        assert [shown[0], shown[2], shown[3]] == [[1, 1, 3], [4, 5, 10], [7, 7, 7]]
        assert hidden[0] == hidden[2] == hidden[3] == [0, 0, 0]
    assert _seen(e, "player_0")[1][1] == [0, 1, 0]  # the backed spread's second card stays the backers'
    _act(e, S)
    assert g.results == [None, 1, None, None] and g.round_rewards == [-1, 1]  # 8 beats 7; nothing else paid


def test_enc_unbacked_spread_card_off_is_v1s_round():
    """The option's other setting (v1, and ``kabufuda_site``'s reading of the kabufuda site): no card for
    the unbacked spreads, whose second cards stay face down; the next card is the dealer's."""
    for module, head, options in (
        (oicho_kabu_v2, [9, 1], {"unbacked_spread_card": False}),
        (oicho_kabu_v1, [], {}),
    ):
        e = _env(module, [*head, *UNBACKED_DEAL, *UNBACKED_CARDS], num_players=2, **options)
        g = e.game
        _act(e, B(0), B(1), B(0), B(0), S)
        assert [values(sp) for sp in g.spreads] == [[1, 1], [6, 2], [4, 5], [7, 7]]
        assert values(g.dealer_cards) == [2, 3] and g.legal_actions() == [S, D]  # 2-3 = 5
        assert not any(g.turned_up(s) for s in range(4))
        assert _seen(e, "player_0")[1][0] == [0, 1, 0]
        _act(e, S)
        assert g.results == [None, 1, None, None] and g.round_rewards == [-1, 1]


def test_unbacked_cards_follow_every_decision_in_asking_order_and_precede_the_dealers_take():
    """The option on under ``kabufuda_site`` (decisions in asking order, the dealer's cards taken after
    the bets and kept face down): the unbacked spreads' cards come after the last decision and before the
    dealer's second card (TAKE_TOP takes the card after them); the dealer's cards stay hidden from the
    bettors while the turned-up spread shows."""
    # selection 1 2 3 (player_0 deals; player_1 asked first) | info 6 6 | table 5 8 6 9 | bets: player_2
    # on spread 0, player_1 on spread 2 | dealer's first 2 (TOP) | seconds 10 1 1 10 | spread 2 (6-1 = 7)
    # stands first (player_1), then spread 0 (5-10 = 5) draws 4 | unbacked 1, 3: 3, 3 | dealer's second 4
    deck = [1, 2, 3, 6, 6, 5, 8, 6, 9, 2, 10, 1, 1, 10, 4, 3, 3, 4]
    e = _env(oicho_kabu_v2, deck, rules="kabufuda_site", num_players=3, unbacked_spread_card=True)
    g = e.game
    _act(e, B(0), B(0), B(1), B(0), B(1), B(0), B(0), B(0), TOP)
    assert (g.current_player, g.active_spread) == (1, 2)
    _act(e, S)
    assert (g.current_player, g.active_spread) == (2, 0) and len(g.spreads[1]) == 2  # not before the last
    _act(e, D, TOP)
    assert [values(sp) for sp in g.spreads] == [[5, 10, 4], [8, 1, 3], [6, 1], [9, 10, 3]]
    assert values(g.dealer_cards) == [2, 4]
    shown, hidden = _seen(e, "player_1")
    assert shown[1] == [8, 1, 3] and shown[3] == [9, 10, 3] and hidden[1] == hidden[3] == [0, 0, 0]
    assert e.observe("player_1")["observation"][_piece(e, "dealer_hidden")].tolist()[:2] == [1, 1]


def _piece(e, name: str) -> slice:
    return obs_spec(e.game.cfg).slices[name]


def test_enc_unbacked_card_changes_the_dealers_final_value_and_so_the_deal():
    """``low_hand`` reads the dealer's final value, which the unbacked spreads' cards change: with them the
    dealer's second card is a 5 (9-5 = 4: the deal passes), without them a 10 (9-10 = 9: it stays)."""
    # selection 9 1 | table 2 7 7 8 | the dealer's 9 | player_1 backs spread 0 | seconds 7 1 1 1 |
    # spread 0 (2-7 = 9) stands | [unbacked 1-3: 10 3 3] | the dealer's second
    deal = [9, 1, 2, 7, 7, 8, 9, 7, 1, 1, 1]
    dealers = {}
    for on in (True, False):
        rest = [10, 3, 3, 5] if on else [10]
        e = _env(oicho_kabu_v2, deal + rest, num_players=2, max_rounds=2, unbacked_spread_card=on)
        _act(e, B(1), B(0), B(0), B(0), S)
        assert values(e.game.dealer_cards) == ([9, 5] if on else [9, 10])
        _act(e, S)
        dealers[on] = e.game.dealer
    assert dealers == {True: 1, False: 0}


def test_unbacked_spread_shows_in_the_render_the_view_the_picture_and_the_log():
    """What a seat is shown of a turned-up spread: its three cards in the text, the view and the picture
    (no card back), the log's "unbacked" line; before, its second card is a card back."""
    from kabu_envs.oicho_kabu.render import BACK, FACE, render_log, render_text, visibility
    from kabu_envs.oicho_kabu.view import OichoViewer

    e = _env(oicho_kabu_v2, [9, 1, *UNBACKED_DEAL, *UNBACKED_CARDS], num_players=2)
    g = e.game
    _act(e, B(0), B(1), B(0), B(0))
    assert visibility(g, 0)[0][0] == [FACE, BACK] and "spread 0: 1 [?]" in render_text(g, 0)
    _act(e, S)
    assert visibility(g, 0)[0][0] == visibility(g, 1)[0][3] == [FACE] * 3
    text = render_text(g, 0)
    assert "spread 0: 1 1 3" in text and "spread 3: 7 7 7" in text and "turned" in text
    assert "unbacked 0: turned up 1, dealt 3" in render_log(g)
    spread0 = next(z for z in OichoViewer().seat_view(e, 0)["zones"] if z["label"] == "spread 0")
    assert [c.get("rank") for c in spread0["cards"]] == ["1", "1", "3"] and "turned up" in spread0["note"]
    assert e.render_frame(0) is not None  # the picture draws from the same visibility


def test_unbacked_cards_never_run_the_deck_short():
    """An unbacked spread takes the one card a backed spread could have drawn: a round still uses at most
    7 info cards + 4 spreads x 3 + the dealer's 3 = 22 of the 40 cards (the dealer's 4th-card take
    included), at the largest table with every card-using option on."""
    from kabu_envs.core.rng import make_rng
    from kabu_envs.oicho_kabu.game import Game

    cfg = make_config(num_players=8, info_cards=True, dealer_card_choice=True, free_draw=True, max_rounds=4)
    assert cfg.unbacked_spread_card
    rng = make_rng(3)
    most = 0
    for _ in range(40):
        g = Game(cfg, rng, None)
        while not g.terminal:
            legal = g.legal_actions()
            g.apply_action(legal[-1] if g.phase != Phase.BET or rng.random() < 0.1 else legal[0])
            most = max(most, len(g.cards_in_play()))
            assert len(g.cards_in_play()) + len(g.deck) == 40
    assert most == 22  # reached: every spread with three cards, the dealer's three, seven info cards


def test_site_unbacked_spread_gets_no_card():
    """``kabufuda_site`` reads the kabufuda site, which deals every spread its face-down second card and a
    third only to a player who asks: ``unbacked_spread_card=False``. The unbacked spreads keep two cards,
    their second face down, and the dealer's TAKE_TOP takes the card after the last draw."""
    deck = [1, 2, 3, 6, 6, 5, 8, 6, 9, 2, 10, 1, 1, 10, 4, 3, 3, 4]  # as in the asking-order test above
    e = _env(oicho_kabu_v2, deck, rules="kabufuda_site", num_players=3)
    g = e.game
    assert not g.cfg.unbacked_spread_card
    _act(e, B(0), B(0), B(1), B(0), B(1), B(0), B(0), B(0), TOP, S, D, TOP)
    assert [values(sp) for sp in g.spreads] == [[5, 10, 4], [8, 1], [6, 1], [9, 10]]
    assert values(g.dealer_cards) == [2, 3]
    shown, hidden = _seen(e, "player_1")
    assert shown[1] == [8, 0, 0] and hidden[1] == hidden[3] == [0, 1, 0]
