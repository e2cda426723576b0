"""A trained sb3-contrib MaskablePPO model behind the ``Agent`` protocol.

Why the care with masks: ``MaskablePPO.predict`` silently ignores legality when no
``action_masks`` are passed (sb3-contrib issue #212) and may then return an illegal
action. ``PPOAgent.act`` therefore always passes the mask, and checks the result.
Deterministic (arg-max over legal actions) by default; stochastic play samples from
the masked policy with the agent's own seeded generator, never torch's global one.

``fast=True`` (used for frozen snapshots inside training envs) runs the actor MLP in
numpy, which is several times faster than ``predict`` for one observation; it is
exact for the default ``MlpPolicy`` (tests compare it with ``predict``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from agents.base import BaseAgent, legal_from_mask


def _load_model(path: str | Path) -> Any:
    """Load a MaskablePPO zip without unpickling its saved spaces.

    The spaces are rebuilt as plain Gymnasium spaces from the weights' shapes, so a model never
    depends on the class names a game module happened to use when it was saved.
    """
    import torch
    from gymnasium import spaces
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.save_util import load_from_zip_file

    torch.set_num_threads(1)
    _, params, _ = load_from_zip_file(str(path), device="cpu", load_data=False)
    sd = params["policy"]
    n_obs = int(sd["mlp_extractor.policy_net.0.weight"].shape[1])
    n_act = int(sd["action_net.weight"].shape[0])
    custom = {
        "observation_space": spaces.Box(0.0, 1.0, (n_obs,), np.float32),
        "action_space": spaces.Discrete(n_act),
    }
    return MaskablePPO.load(str(path), device="cpu", custom_objects=custom)


class _NumpyActor:
    """The actor of an SB3 MlpPolicy (Flatten -> Linear/activation stack -> logits)."""

    def __init__(self, policy: Any) -> None:
        import torch.nn as nn

        self.layers: list[tuple[np.ndarray, np.ndarray, str | None]] = []
        mods = list(policy.mlp_extractor.policy_net) + [policy.action_net]
        for i, m in enumerate(mods):
            if isinstance(m, nn.Linear):
                act = None
                if i + 1 < len(mods) and not isinstance(mods[i + 1], nn.Linear):
                    act = type(mods[i + 1]).__name__
                    if act not in ("Tanh", "ReLU"):
                        raise ValueError(f"fast PPOAgent does not support activation {act}")
                w = m.weight.detach().cpu().numpy().astype(np.float64)
                b = m.bias.detach().cpu().numpy().astype(np.float64)
                self.layers.append((w, b, act))

    def logits(self, obs: np.ndarray) -> np.ndarray:
        x = np.asarray(obs, dtype=np.float64).ravel()
        for w, b, act in self.layers:
            x = w @ x + b
            if act == "Tanh":
                x = np.tanh(x)
            elif act == "ReLU":
                x = np.maximum(x, 0.0)
        return x


class PPOAgent(BaseAgent):
    """Plays with a MaskablePPO model; ``act`` always uses the action mask."""

    name = "ppo"

    def __init__(
        self,
        model: Any = None,
        path: str | Path | None = None,
        deterministic: bool = True,
        fast: bool = False,
        seed: int | None = None,
        name: str | None = None,
    ) -> None:
        super().__init__(seed=seed, path=None if path is None else str(path), deterministic=deterministic)
        if model is None:
            if path is None:
                raise ValueError("PPOAgent needs a model or a path to a saved model.zip")
            model = _load_model(path)
        self.model = model
        self.deterministic = deterministic
        self.name = name or (Path(path).parent.name if path else "ppo")
        self._actor = _NumpyActor(model.policy) if fast else None

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        mask = np.asarray(action_mask, dtype=bool)
        legal = legal_from_mask(mask)
        if self._actor is not None:
            logits = self._actor.logits(observation)
            logits = np.where(mask, logits, -np.inf)
            if self.deterministic:
                return int(np.argmax(logits))
            p = np.exp(logits - logits.max())
            return int(self.rng.choice(mask.size, p=p / p.sum()))
        obs = np.asarray(observation, dtype=np.float32)
        if self.deterministic:
            action, _ = self.model.predict(obs, action_masks=mask, deterministic=True)
            action = int(np.asarray(action).item())
        else:
            action = int(self.rng.choice(mask.size, p=self.action_probs(obs, mask)))
        if action not in legal:  # cannot happen with a mask; guard against API drift
            raise RuntimeError(f"MaskablePPO returned illegal action {action}; legal: {legal.tolist()}")
        return action

    def action_probs(self, observation: np.ndarray, action_mask: np.ndarray) -> np.ndarray:
        """The masked policy's probabilities over all actions (zero on illegal ones)."""
        import torch

        policy = self.model.policy
        obs_t, _ = policy.obs_to_tensor(np.asarray(observation, dtype=np.float32))
        with torch.no_grad():
            dist = policy.get_distribution(obs_t, action_masks=np.asarray(action_mask, dtype=bool))
            p = dist.distribution.probs.cpu().numpy().reshape(-1).astype(np.float64)
        return p / p.sum()

    def save(self, path: str | Path) -> None:
        """Save the model (``.zip``); the JSON config of BaseAgent makes no sense here."""
        self.model.save(str(path))

    @staticmethod
    def load(path: str | Path, seed: int | None = None, **kwargs: Any) -> PPOAgent:
        return PPOAgent(path=path, seed=seed, **kwargs)
