"""Soft targets in behaviour cloning (training/bc.py ``temperature``): the teacher's action values."""

import json

import numpy as np
import pytest
import torch

from kabu_envs.agents.base import Capabilities
from kabu_envs.toy_card.agents import ScriptedAgent as ToyScriptedAgent
from kabu_envs.toy_card.game import Action
from kabu_envs.training import dagger
from kabu_envs.training.bc import Demonstrations, Labeller, collect, fit, soft_targets
from kabu_envs.training.config import load_config

torch.set_num_threads(1)
PASS, PLAY, RAISE = Action.PASS, Action.PLAY, Action.RAISE


class ValuingTeacher(ToyScriptedAgent):
    """The Toy Card scripted player, which also says what each move is worth: PLAY and RAISE are worth
    more the higher the card (value index ``card``: ``(card - 4.5) / 4`` and ``/ 2`` chips), PASS nothing
    (its arg-max is the scripted move: RAISE where legal, else PASS)."""

    capabilities = Capabilities(values=True)

    def act_with_values(self, observation: np.ndarray, action_mask: np.ndarray) -> tuple[int, np.ndarray]:
        values = np.full(action_mask.shape, np.nan)
        card = int(np.argmax(observation[:10]))
        values[PASS], values[PLAY] = 0.0, (card - 4.5) / 4
        if action_mask[RAISE]:
            values[RAISE] = (card - 4.5) / 2
        return self.act(observation, action_mask), values


def test_soft_targets_are_the_softmax_of_the_legal_valued_actions():
    values = np.array([[0.0, 1.0, np.nan], [2.0, np.nan, 5.0], [np.nan, np.nan, np.nan], [1.0, 3.0, 0.0]])
    masks = np.array([[1, 1, 1], [1, 1, 0], [1, 0, 1], [0, 1, 1]], dtype=bool)
    actions = np.array([1, 0, 2, 1])
    t = soft_targets(values, masks, actions, temperature=0.5)
    e = np.exp(2.0)
    np.testing.assert_allclose(t[0], [1 / (1 + e), e / (1 + e), 0.0], rtol=1e-6)  # NaN: no probability
    np.testing.assert_allclose(t[1], [1.0, 0.0, 0.0])  # the illegal valued action is ignored
    np.testing.assert_allclose(t[2], [0.0, 0.0, 1.0])  # nothing valued: one-hot on the teacher's action
    assert t[3, 0] == 0.0 and t[3, 1] > 0.99  # masked out whatever its value
    np.testing.assert_allclose(t.sum(1), 1.0, rtol=1e-6)
    cold = soft_targets(values, masks, actions, temperature=1e-4)  # the limit: the arg-max
    np.testing.assert_allclose(cold[0], [0.0, 1.0, 0.0])
    with pytest.raises(ValueError, match="temperature > 0"):
        soft_targets(values, masks, actions, temperature=0.0)


def test_the_labeller_refuses_a_teacher_that_only_acts():
    assert ValuingTeacher().capabilities.values and not ToyScriptedAgent().capabilities.values
    with pytest.raises(ValueError, match=r"act_with_values.*set bc.temperature to 0"):
        Labeller(ToyScriptedAgent(), soft=True)
    Labeller(ToyScriptedAgent(), soft=False)  # hard labels: any teacher


def test_a_soft_fit_matches_the_teachers_value_distribution(toy_view):
    from sb3_contrib import MaskablePPO

    view = toy_view(num_players=2, learner_seats=[0, 1], opponents="random", seed=1)
    data = collect(view, ValuingTeacher(), 800, seed=2, soft=True)
    assert data.values is not None and data.values.shape == data.masks.shape
    hard = collect(view, ToyScriptedAgent(), 800, seed=2)
    assert hard.values is None and np.array_equal(hard.actions, data.actions)  # the same decisions
    targets = soft_targets(data.values, data.masks, data.actions, temperature=1.0)
    assert np.array_equal(targets.argmax(1), data.actions)  # the values agree with the teacher's moves
    choice = data.masks.sum(1) >= 2
    assert choice.any() and (targets[choice].max(1) < 0.8).any()  # a real distribution to match

    def probs(temperature: float) -> np.ndarray:
        model = MaskablePPO("MlpPolicy", view, seed=0, device="cpu", policy_kwargs={"net_arch": [32]})
        fit(model.policy, data, 40, 3e-3, 64, vf_coef=0.5, seed=0, temperature=temperature)
        with torch.no_grad():
            dist = model.policy.get_distribution(torch.as_tensor(data.obs), action_masks=data.masks)
            return dist.distribution.probs.numpy()

    soft = probs(1.0)
    assert np.abs(soft[choice] - targets[choice]).max() < 0.08  # it learnt the teacher's odds
    assert np.abs(probs(0.0)[choice] - targets[choice]).max() > 0.2  # hard labels do not
    with pytest.raises(ValueError, match="action values"):
        model = MaskablePPO("MlpPolicy", view, seed=0, device="cpu", policy_kwargs={"net_arch": [32]})
        fit(model.policy, hard, epochs=1, lr=1e-3, batch_size=64, vf_coef=0.5, seed=0, temperature=1.0)


def test_demonstrations_keep_their_values_through_save_load_and_concat(tmp_path):
    n, a = 5, 3
    rng = np.random.default_rng(0)

    def demo(values: bool) -> Demonstrations:
        return Demonstrations(
            rng.random((n, 4), dtype=np.float32),
            np.ones((n, a), dtype=bool),
            np.zeros(n, dtype=np.int64),
            np.zeros(n, dtype=np.float32),
            2,
            rng.random((n, a)).astype(np.float32) if values else None,
        )

    with_values = demo(True)
    dagger.save_demonstrations(with_values, tmp_path / "d.npz")
    back = dagger.load_demonstrations(tmp_path / "d.npz")
    assert back.values is not None and np.array_equal(back.values, with_values.values)
    dagger.save_demonstrations(demo(False), tmp_path / "h.npz")
    assert dagger.load_demonstrations(tmp_path / "h.npz").values is None
    both = dagger.concat([with_values, demo(True)])
    assert both.values is not None and both.values.shape == (2 * n, a)
    assert dagger.concat([with_values, demo(False)]).values is None  # a fit then refuses soft targets


def test_temperature_is_validated_and_recorded(tmp_path):
    assert load_config("ppo_toy_card", bc={"teacher": "scripted"}).bc.temperature == 0.0
    for bad in (-0.5, "hot", True):
        with pytest.raises(ValueError, match="bc.temperature"):
            load_config("ppo_toy_card", bc={"teacher": "scripted", "temperature": bad})
    from kabu_envs.training.run import train

    soft = {"teacher": "scripted", "steps": 50, "temperature": 0.5}
    cfg = load_config("ppo_toy_card", timesteps=256, eval_deals=0, bc=soft)
    with pytest.raises(ValueError, match="act_with_values"):  # Toy Card's scripted player only acts
        train(cfg, out=tmp_path / "soft", progress_bar=False)
    cfg = load_config("ppo_toy_card", timesteps=256, eval_deals=0, bc={"teacher": "scripted", "steps": 50})
    train(cfg, out=tmp_path / "hard", progress_bar=False)
    run = json.loads((tmp_path / "hard" / "model" / "run.json").read_text())
    assert run["bc"]["temperature"] == 0.0
