"""Expert iteration with the network search as teacher (preset ``kakeya_ei5``): a teacher may be given as
an agent class (``package.module:Class``, a search that is not a registry name), and its rounds record
the search's action values for the soft targets."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from kabu_envs.agents.registry import make_agent
from kabu_envs.kakeya.agents.net_expert import KakeyaNetExpertAgent
from kabu_envs.training import dagger
from kabu_envs.training.config import load_config

NET_TEACHER = "kabu_envs.kakeya.agents.net_expert:KakeyaNetExpertAgent"


def test_the_preset_continues_ei2_kakeya_labelled_by_the_network_search():
    cfg = load_config("kakeya_ei5")
    assert cfg.bc.teacher == NET_TEACHER and cfg.bc.temperature > 0
    assert isinstance(make_agent("kakeya", cfg.bc.teacher, 0), KakeyaNetExpertAgent)
    assert cfg.init_from == "ei2_kakeya" and cfg.timesteps == 0 and not cfg.dagger.aggregate
    rounds = cfg.dagger.schedule(cfg.opponents)
    assert all(r.opponents == {"expert_0_2": 0.5, "expert_0_3": 0.5} for r in rounds)  # fixed references
    ei2 = load_config("kakeya_ei2")
    assert cfg.policy_kwargs == ei2.policy_kwargs  # the warm start's network and inputs
    # its collection seeds (seed + 7919 k + worker) are apart from the other clones'
    mine = {cfg.seed + 7919 * k + w for k in range(1, len(rounds) + 1) for w in range(cfg.dagger.workers)}
    others = {s + 501 + 7919 * k + w for s in (3, 10) for k in range(4) for w in range(2)}
    assert not mine & others


@pytest.mark.parametrize(
    ("teacher", "match"),
    [
        ("kabu_envs.kakeya.agents.net_expert:NoSuchAgent", "has no class 'NoSuchAgent'"),
        ("kabu_envs.kakeya.agents.no_such_module:KakeyaNetExpertAgent", "cannot import"),
        ("oracle", "'package.module:Class' agent class"),
    ],
)
def test_a_teacher_class_that_does_not_load_is_refused_by_name(teacher, match):
    with pytest.raises(ValueError, match=match):
        load_config("kakeya_ei5", bc={"teacher": teacher})


def test_the_class_teacher_labels_its_decisions_with_its_values():
    """A round collected with the class teacher: every recorded decision has the search's values, the
    label is the best-valued legal card wherever the search valued cards, and the seed fixes it all."""
    cfg = load_config("kakeya_ei5")
    cfg = dataclasses.replace(
        cfg, opponents={"scripted": 1.0}, dagger=dataclasses.replace(cfg.dagger, workers=1)
    )
    data = dagger.collect_mixture(cfg, None, 1.0, 30, seed=11)
    assert len(data) >= 30 and data.values is not None and data.values.shape == data.masks.shape
    valued = 0
    for values, mask, action in zip(data.values, data.masks, data.actions, strict=True):
        assert mask[action]
        legal = np.where(mask, values, np.nan)
        if np.isfinite(legal).any():
            valued += 1
            assert legal[action] == np.nanmax(legal)
    assert valued >= len(data) // 2
    again = dagger.collect_mixture(cfg, None, 1.0, 30, seed=11)
    assert np.array_equal(again.actions, data.actions)
    assert np.array_equal(again.values, data.values, equal_nan=True)
