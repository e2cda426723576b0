"""The Kakeya expert as a soft teacher: ``act_with_values`` (issue #27, expert iteration's labels)."""

from __future__ import annotations

import numpy as np
import pytest

from kabu_envs.kakeya import make_config
from kabu_envs.kakeya.actions import TRUMP_BASE
from kabu_envs.kakeya.agents.expert import KakeyaExpert02Agent, KakeyaExpertAgent
from kabu_envs.kakeya.cards import NUM_CARDS
from kabu_envs.kakeya.game import Game, Phase
from kabu_envs.kakeya.observation import Encoder

PARAMS = {"samples": 6, "lead_samples": 4, "trump_samples": 3}


def decisions(opts: dict, games: int, seed: int):
    """(phase, observation, mask) at every decision of ``games`` random deals."""
    cfg = make_config(**opts)
    enc = Encoder(cfg)
    for g in range(games):
        rng = np.random.default_rng(seed + g)
        game = Game(cfg, np.random.Generator(np.random.PCG64(seed + g)))
        while not game.terminal:
            obs, mask = enc.encode_with_mask(game, game.current_player, game.legal_bits())
            yield game.phase, obs, mask
            legal = game.legal_actions()
            game.apply_action(legal[int(rng.integers(len(legal)))])


@pytest.mark.parametrize("opts", [{}, {"num_players": 6, "six_player_mode": "all_play"}], ids=["4p", "6p"])
def test_values_come_with_the_same_action_and_rank_it_first(opts):
    kinds: set[str] = set()
    for k, (phase, obs, mask) in enumerate(decisions(opts, 2, seed=70)):
        plain = KakeyaExpertAgent(seed=k, **opts, **PARAMS)
        soft = KakeyaExpertAgent(seed=k, **opts, **PARAMS)
        action, values = soft.act_with_values(obs, mask)
        assert action == plain.act(obs, mask)  # the same draws, the same choice
        assert values.shape == mask.shape and values.dtype == np.float64
        valued = np.flatnonzero(np.isfinite(values))
        assert mask[valued].all()  # never an illegal action
        if mask.sum() == 1:
            assert valued.size == 0  # a forced move is not searched
            continue
        if valued.size:
            assert action in valued and values[action] == values[valued].max()
            kinds.add("trump" if action >= TRUMP_BASE else "card" if action < NUM_CARDS else "lead")
        if phase is Phase.PLAY and valued.size:
            assert valued.size >= 2 and (valued < NUM_CARDS).all()
            assert np.abs(values[valued]).max() <= 20  # a deal's stones, averaged
    assert kinds >= {"card", "lead"} or kinds >= {"card", "trump"}


@pytest.mark.parametrize("opts", [{}, {"num_players": 6, "six_player_mode": "all_play"}], ids=["4p", "6p"])
def test_the_expert_values_its_moves_too(opts):
    """The registry's ``expert`` (the kernel search) is a soft teacher on every kind of decision: the
    candidates left in its race valued (their weighted means), the one it plays the best of them."""
    from kabu_envs.kakeya.agents.kernel_expert import KakeyaKernelExpertAgent

    params = {"samples": 24, "min_samples": 8, "lead_samples": 4, "trump_samples": 3, "eps": 0.5}
    kinds: set[str] = set()
    for k, (phase, obs, mask) in enumerate(decisions(opts, 2, seed=70)):
        plain = KakeyaKernelExpertAgent(seed=k, **opts, **params)
        action, values = KakeyaKernelExpertAgent(seed=k, **opts, **params).act_with_values(obs, mask)
        assert action == plain.act(obs, mask)
        valued = np.flatnonzero(np.isfinite(values))
        assert mask[valued].all()
        if mask.sum() == 1:
            assert valued.size == 0
            continue
        if valued.size:
            assert action in valued and values[action] == values[valued].max()
            kinds.add("trump" if action >= TRUMP_BASE else "card" if action < NUM_CARDS else "lead")
        if phase is Phase.PLAY and valued.size:
            assert (valued < NUM_CARDS).all() and np.abs(values[valued]).max() <= 20
    assert {"card", "lead"} <= kinds or {"card", "trump"} <= kinds


def test_values_are_means_over_the_samples_actually_drawn():
    """Under ``max_ms=0`` a decision draws one sample: its values are one sample's, as with ``samples=1``."""
    checked = 0
    for k, (phase, obs, mask) in enumerate(decisions({}, 2, seed=90)):
        if phase is not Phase.PLAY or mask.sum() < 3:
            continue
        _, capped = KakeyaExpertAgent(seed=k, samples=8, max_ms=0).act_with_values(obs, mask)
        _, one = KakeyaExpertAgent(seed=k, samples=1).act_with_values(obs, mask)
        _, eight = KakeyaExpertAgent(seed=k, samples=8).act_with_values(obs, mask)
        np.testing.assert_array_equal(capped, one)
        fin = np.isfinite(eight)
        assert np.array_equal(fin, np.isfinite(one))
        checked += 1
    assert checked >= 5


def test_the_experts_are_soft_teachers():
    from kabu_envs.agents.registry import make_agent

    assert KakeyaExpertAgent(seed=0).capabilities.values and KakeyaExpert02Agent(seed=0).capabilities.values
    assert make_agent("kakeya", "expert", 0).capabilities.values


def test_an_agent_name_carries_its_parameters():
    from kabu_envs.agents.registry import make_agent
    from kabu_envs.kakeya.agents.kernel_expert import KakeyaKernelExpertAgent
    from kabu_envs.training.config import load_config

    agent = make_agent("kakeya", "expert:samples=5,dd_tricks=3", 0, num_players=6)
    assert isinstance(agent, KakeyaKernelExpertAgent) and agent.cfg.num_players == 6
    assert agent.params["samples"] == 5 and agent.params["dd_tricks"] == 3
    with pytest.raises(ValueError, match="unknown option"):
        make_agent("kakeya", "expert:samplez=5", 0)
    with pytest.raises(ValueError, match="key=value pairs with JSON values"):
        make_agent("kakeya", "expert:samples=five", 0)
    with pytest.raises(ValueError, match="rule options, not the agent's parameters"):
        make_agent("kakeya", "expert:num_players=6", 0, num_players=4)
    with pytest.raises(ValueError, match="unknown agent"):
        make_agent("kakeya", "oracle:samples=5", 0)
    with pytest.raises(ValueError, match="fixed reference"):
        make_agent("kakeya", "expert_0_2:samples=64", 0)
    cfg = load_config("kakeya", bc={"teacher": "expert:samples=128", "temperature": 0.1})
    assert cfg.bc.teacher == "expert:samples=128"
    with pytest.raises(ValueError, match="unknown bc.teacher"):
        load_config("kakeya", bc={"teacher": "oracle:samples=1"})
