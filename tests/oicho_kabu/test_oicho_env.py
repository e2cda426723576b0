"""The PettingZoo adapter: api/seed tests per preset, wrappers, registry, render, reset options."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from oicho_game_helpers import B, stack
from pettingzoo.test import api_test, seed_test

from kabu_envs import oicho_kabu_v1, oicho_kabu_v2
from kabu_envs.core.errors import IllegalActionError
from kabu_envs.oicho_kabu.observation import obs_spec

PRESETS = ["standard", "kabufuda_site", "kansai"]


def _random_play(e, seed: int) -> dict[str, float]:
    rng = np.random.default_rng(seed)
    totals = dict.fromkeys(e.possible_agents, 0.0)
    for agent in e.agent_iter():
        obs, reward, term, trunc, _ = e.last()
        totals[agent] += reward
        if term or trunc:
            e.step(None)
            continue
        e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return totals


@pytest.mark.parametrize("preset", PRESETS)
def test_api_test_passes(preset):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        api_test(oicho_kabu_v1.env(rules=preset, max_rounds=3), num_cycles=300)


@pytest.mark.parametrize("preset", PRESETS)
def test_seed_test_passes(preset):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        seed_test(lambda: oicho_kabu_v1.env(rules=preset, max_rounds=4), num_cycles=300)


def test_same_seed_same_game_different_seed_differs():
    def trace(seed):
        e = oicho_kabu_v1.env(max_rounds=3)
        e.reset(seed=seed)
        rng = np.random.default_rng(1)
        out = []
        for _agent in e.agent_iter():
            obs, r, term, trunc, _ = e.last()
            out.append((obs["observation"].tobytes(), r))
            if term:
                e.step(None)
            else:
                e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        return out

    assert trace(5) == trace(5)
    assert trace(5) != trace(6)


def test_spaces_match_obs_spec_and_actions():
    e = oicho_kabu_v1.raw_env(num_players=5, bet_sizes=(1, 3))
    space = e.observation_space("player_0")
    assert space["observation"].shape == (obs_spec(e.config).size,)
    assert e.action_space("player_4").n == 8 + 3
    e.reset(seed=0)
    for agent in e.agents:
        obs = e.observe(agent)
        assert space.contains(obs)
        assert obs["action_mask"].dtype == np.int8


def test_unknown_or_invalid_option_raises_naming_it():
    with pytest.raises(ValueError, match="bogus_option"):
        oicho_kabu_v1.env(bogus_option=1)
    with pytest.raises(ValueError, match="num_players"):
        oicho_kabu_v1.env(num_players=9)


def test_reset_deck_is_stacked_and_bad_decks_raise():
    e = oicho_kabu_v1.raw_env()
    e.reset(seed=0, options={"deck": stack([9, 8, 7, 6, 5])})
    g = e.unwrapped.game
    assert [c // 4 + 1 for c in (sp[0] for sp in g.spreads)] == [9, 8, 7, 6]
    assert g.dealer_cards[0] // 4 + 1 == 5
    with pytest.raises(ValueError, match="twice"):
        e.reset(seed=0, options={"deck": [3, 3]})
    with pytest.raises(ValueError, match="out of range"):
        e.reset(seed=0, options={"deck": [40]})
    with pytest.raises(ValueError, match="out of range"):
        e.reset(seed=0, options={"deck": [-1]})


def test_unknown_reset_option_warns():
    e = oicho_kabu_v1.raw_env()
    with pytest.warns(UserWarning, match="decks"):
        e.reset(seed=0, options={"decks": [1]})


def test_illegal_action_raises_with_legal_list():
    e = oicho_kabu_v1.env(domae=3)
    e.reset(seed=0)
    e.step(B(2))  # stake 2: fine
    with pytest.raises(IllegalActionError, match=r"illegal action 10 \(BET\(2\)=2\).*legal actions: \[8=BET"):
        e.step(B(2))  # only 1 left under the domae


def test_illegal_reward_wrapper_terminates_with_penalty():
    e = oicho_kabu_v1.env(illegal_reward=-7.0)
    e.reset(seed=0)
    offender = e.agent_selection
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        e.step(0)  # STAND during the bets
    assert all(e.terminations.values())
    assert e.rewards[offender] == -7.0
    assert sum(v for a, v in e.rewards.items() if a != offender) == 0


def test_rewards_sum_to_zero_and_chips_exposed():
    e = oicho_kabu_v1.env(num_players=3, max_rounds=4)
    e.reset(seed=11)
    totals = _random_play(e, 3)
    assert abs(sum(totals.values())) < 1e-9
    chips = e.unwrapped.chips
    assert set(chips) == set(e.possible_agents)
    assert sum(chips.values()) == 300
    for a in e.possible_agents:
        assert chips[a] - 100 == pytest.approx(totals[a])


def test_render_ansi_shows_table_and_yaku():
    e = oicho_kabu_v1.env(render_mode="ansi", num_players=2, local_yaku=["niichi"])
    # spreads 3,4,5,6; dealer 9 face down; seconds 3(=arashi draw), 1, 1, 1; dealer 2nd 1 -> kuppin
    e.reset(seed=0, options={"deck": stack([3, 4, 5, 6, 9, 3, 1, 1, 1, 3, 1])})
    text = e.render()
    assert "dealer: player_0" in text and "spread 3" in text and "[9]" in text
    for k in (1, 0, 0, 0):
        e.step(B(k))
    e.step(1)  # spread 0: 3+3 = 6, draws the third 3 -> arashi_kabu
    assert e.unwrapped.game.legal_actions() == [0, 1]  # dealer 9-1 = 0 but kuppin: STAND allowed
    e.step(0)
    text = e.render()
    assert "arashi_kabu" in text and "kuppin" in text and "episode over" in text
    assert "p1:+5" in text  # arashi-kabu (x5) outranks kuppin


def test_render_without_mode_warns_and_human_prints(capsys):
    e = oicho_kabu_v1.env()
    e.reset(seed=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert e.render() is None
    h = oicho_kabu_v1.env(render_mode="human")
    h.reset(seed=0)
    assert "Oicho-Kabu" in capsys.readouterr().out


def test_registered_in_pettingzoo_registry():
    from pettingzoo.env_registry.registration import make

    e = make("aec", oicho_kabu_v2.ENV_ID, num_players=3)
    assert e.unwrapped.config.num_players == 3
    assert e.unwrapped.metadata["name"] == "oicho_kabu_v2"


def test_module_exports():
    assert oicho_kabu_v2.Action.BET(0) == 8
    assert oicho_kabu_v2.make_config(rules="kansai").free_draw is True
    assert callable(oicho_kabu_v2.raw_env)


@pytest.mark.parametrize(
    ("deck", "ace", "light"), [("western", "A", ""), ("kabufuda", "1", ""), ("hanafuda", "1", "*")]
)
def test_render_names_cards_by_deck(deck, ace, light):
    e = oicho_kabu_v2.env(render_mode="ansi", deck=deck, num_players=2, dealer_selection="fixed")
    e.reset(seed=0, options={"deck": [0, 8, 12, 16, 20]})  # 1 (light), 3 (light), 4, 5 | dealer 6
    text = e.render()
    assert f"spread 0: {ace}{light} " in text and f"spread 1: 3{light} " in text


# --- the fast standard wrappers --------------------------------------------------------------------
def _stock_env(illegal_reward=None, **options):
    from pettingzoo.utils.wrappers import (
        AssertOutOfBoundsWrapper,
        OrderEnforcingWrapper,
        TerminateIllegalWrapper,
    )

    e = oicho_kabu_v2.raw_env(**options)
    if illegal_reward is not None:
        e = TerminateIllegalWrapper(e, illegal_reward=illegal_reward)
    return OrderEnforcingWrapper(AssertOutOfBoundsWrapper(e))


def _trace(e, seed, illegal_at=None):
    e.reset(seed=seed)
    rng = np.random.default_rng(seed)
    out = []
    for i, agent in enumerate(e.agent_iter()):
        obs, r, term, trunc, info = e.last()
        out.append((agent, obs["observation"].tobytes(), obs["action_mask"].tobytes(), r, term, trunc))
        out.append((dict(e.rewards), dict(e.terminations), dict(e.truncations), list(e.agents)))
        if term or trunc:
            e.step(None)
        elif i == illegal_at:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                e.step(int(np.flatnonzero(obs["action_mask"] == 0)[0]))
        else:
            e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return out


@pytest.mark.parametrize("illegal_at", [None, 3])
def test_fast_wrappers_behave_like_the_stock_ones(illegal_at):
    reward = None if illegal_at is None else -2.0
    for seed in range(5):
        fast = oicho_kabu_v2.env(illegal_reward=reward, num_players=3, max_rounds=2)
        stock = _stock_env(illegal_reward=reward, num_players=3, max_rounds=2)
        assert _trace(fast, seed, illegal_at) == _trace(stock, seed, illegal_at)


def test_fast_wrappers_keep_the_standard_checks():
    from pettingzoo.utils.wrappers import AssertOutOfBoundsWrapper, OrderEnforcingWrapper

    e = oicho_kabu_v2.env()
    assert isinstance(e, OrderEnforcingWrapper) and isinstance(e.env, AssertOutOfBoundsWrapper)
    assert str(e) == "oicho_kabu_v2"
    for name in ("agents", "agent_selection", "terminations", "rewards"):
        with pytest.raises(AttributeError, match="before reset"):
            getattr(e, name)
    e.reset(seed=0)
    with pytest.raises(AssertionError, match="not in action space"):
        e.step(99)
    assert e.unwrapped.game.phase.name == "BET"  # nothing happened
    e.agent_selection = "player_2"  # writes reach the raw env
    assert e.unwrapped.agent_selection == "player_2"


@pytest.mark.parametrize("each_deal", [False, True])
def test_selection_cards_are_public_in_every_observation_and_the_render(each_deal):
    opts = {"num_players": 3, "dealer_selection": "lowest", "dealer_selection_each_deal": each_deal}
    e = oicho_kabu_v1.raw_env(render_mode="ansi", max_rounds=2, **opts)
    spec = obs_spec(e.config)
    assert ("selection_cards" in spec.slices) == each_deal  # a new piece only with the option
    # selection 6, 2, 9: player_1 deals; table, dealer's first card
    e.reset(seed=0, options={"deck": stack([6, 2, 9, 1, 4, 7, 10, 5])})
    game = e.unwrapped.game
    assert game.dealer == 1 and game.betting_order == ([0, 2] if each_deal else [2, 0])
    text = e.render()
    assert ("selection (lowest): p0:6  p1:2  p2:9 -> p1 deals; bets: p0, p2" in text) == each_deal
    if not each_deal:
        return
    for seat in range(3):  # every seat sees every card, from itself on
        sel = np.asarray(spec.decode(e.observe(f"player_{seat}")["observation"])["selection_cards"])
        seen = [int(block.argmax()) + 1 for block in sel.reshape(3, 10)]
        assert seen == [[6, 2, 9][(seat + k) % 3] for k in range(3)]
        assert sel.sum() == 3
    while game.round_index == 0:  # a new deal, a new selection in every observation
        e.step(int(np.flatnonzero(e.observe(e.agent_selection)["action_mask"])[0]))
    cards = [c // 4 + 1 for c in game.selection_cards]
    sel = np.asarray(spec.decode(e.observe("player_0")["observation"])["selection_cards"]).reshape(3, 10)
    assert [int(b.argmax()) + 1 for b in sel] == cards


def test_render_seat_text_hides_what_the_seat_cannot_see():
    """``env(render_seat=i)``: the text prints unseen cards as [?]; the god view brackets face-down ones."""
    e = oicho_kabu_v1.env(render_mode="ansi", render_seat=2, rules="kabufuda_site")
    e.reset(seed=0)
    text = e.render()
    assert "view: player_2" in text
    info = next(line for line in text.splitlines() if "info cards" in line)
    owners = [part.split(":")[0].strip() for part in info.split("info cards:")[1].split(",")]
    shown = [p for p in info.split("info cards:")[1].split(",") if "?" not in p]
    assert owners and [p.split(":")[0].strip() for p in shown] == (["p2"] if "p2" in owners else [])
    god = oicho_kabu_v1.env(render_mode="ansi", rules="kabufuda_site")
    god.reset(seed=0)
    assert "?" not in god.render() and "view:" not in god.render()
