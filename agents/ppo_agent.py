"""A trained MaskablePPO policy behind the ``Agent`` protocol.

Two sources:

* a policy file (``policy.npz`` + ``policy.json``, see ``agents/policy_file.py``): what the
  command lines, the registry and shipped models use. Inference is float32 numpy, never torch or
  SB3 (neither is imported), so playing needs no torch install and no file is ever unpickled.
  Deterministic play is the arg-max of the masked softmax computed the way sb3-contrib's
  ``MaskableCategorical`` computes it, i.e. the action ``MaskablePPO.predict(obs,
  action_masks=mask, deterministic=True)`` returns (tests compare them on real observations).
  Stochastic play samples the masked policy with the agent's own seeded generator.
* an in-memory MaskablePPO ``model`` (training: frozen self-play snapshots, the BC teacher and
  evaluations during a run). ``act`` always passes the mask to ``predict``: without it,
  ``predict`` silently ignores legality (sb3-contrib issue #212). ``fast=True`` runs the actor MLP
  in float64 numpy instead, several times faster than ``predict`` for one observation.

A model directory may also hold an ensemble (``agents/ensemble.py``: several policy files played as
one, the mean of their masked log-probabilities); it plays through the same calls.

``load_policy_agent`` resolves a name (``ppo_x`` -> ``<models_dir>/ppo_x/``), a directory or a
``policy.json`` path and checks, with ``expect``, that the model fits the table it will play at.
SB3 ``.zip`` files are refused with a message saying why and how to convert them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from kabu_envs.agents.base import BaseAgent, batch_masks, legal_from_mask
from kabu_envs.agents.batching import act_row_by_row
from kabu_envs.agents.ensemble import PolicyEnsemble, read_model, write_ensemble
from kabu_envs.agents.features import FeatureInputs
from kabu_envs.agents.policy_file import (
    RECORD_FILE,
    Policy,
    looks_like_sb3_zip,
    record_path,
    sb3_zip_refusal,
    write_policy,
)


def find_policy(name_or_path: str | Path, models_dir: str | Path | None = None) -> Path:
    """The ``policy.json`` of a model name (under ``models_dir``), a model directory or a path."""
    p = Path(name_or_path)
    if looks_like_sb3_zip(p):
        raise ValueError(sb3_zip_refusal(p))
    candidates = [p]
    if models_dir is not None and p.suffix not in (".json", ".npz"):
        candidates.insert(0, Path(models_dir) / p)
    looked = []
    for c in candidates:
        # record_path refuses a directory that holds an SB3 model.zip and no policy file
        rec = record_path(c) if c.is_dir() or c.suffix in (".json", ".npz") else c / RECORD_FILE
        if rec.is_file():
            return rec
        looked.append(str(rec))
    raise ValueError(f"no model found for agent {str(name_or_path)!r}; looked at {looked}")


def load_policy_agent(
    name_or_path: str | Path,
    seed: int | None = None,
    *,
    models_dir: str | Path | None = None,
    expect: Mapping[str, Any] | None = None,
    deterministic: bool = True,
    name: str | None = None,
) -> PPOAgent:
    """A ``PPOAgent`` playing a policy file; ``expect`` (keywords of ``Policy.check_fits``: ``game``,
    ``role``, ``env_options``, ``num_players``, ``obs_size``, ``num_actions``) is checked first."""
    path = find_policy(name_or_path, models_dir)
    policy = read_model(path)
    if expect:
        policy.check_fits(**expect, label=f"model {str(name_or_path)!r}")
    return PPOAgent(policy=policy, seed=seed, deterministic=deterministic, name=name or path.parent.name)


class _NumpyActor:
    """A frozen numpy copy of an in-memory SB3 MlpPolicy's actor (Flatten -> Linear/activation stack ->
    logits): the self-play snapshots. Why not ``policy_from_sb3`` (the float32 ``Policy`` of a policy
    file): the shipped PPO models' runs sampled their snapshots with these float64 probabilities, and a
    preset re-run reproduces them only with the same arithmetic."""

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
    """Plays a policy file (numpy) or an in-memory MaskablePPO model; ``act`` always uses the mask."""

    name = "ppo"

    def __init__(
        self,
        model: Any = None,
        path: str | Path | None = None,
        deterministic: bool = True,
        fast: bool = False,
        seed: int | None = None,
        name: str | None = None,
        policy: Policy | PolicyEnsemble | None = None,
        inputs: FeatureInputs | None = None,
    ) -> None:
        """``inputs``: an in-memory ``model`` trained with policy features takes ``inputs(observations)``
        (a policy file knows its own)."""
        super().__init__(seed=seed, path=None if path is None else str(path), deterministic=deterministic)
        if sum(x is not None for x in (model, path, policy)) != 1:
            raise ValueError("PPOAgent needs exactly one of: model (MaskablePPO), path (policy file), policy")
        if path is not None:
            policy = read_model(find_policy(path))
        self.model = model
        self.policy = policy
        self.deterministic = deterministic
        self.name = name or (policy.source.name if policy is not None and policy.source else "ppo")
        self._actor = _NumpyActor(model.policy) if model is not None and fast else None
        if inputs is not None and model is None:
            raise ValueError("inputs are for an in-memory model; a policy file names its own features")
        self._inputs = inputs

    def _model_obs(self, observation: np.ndarray) -> np.ndarray:
        """An in-memory model's input for one observation (the features appended, if any)."""
        obs = np.asarray(observation, dtype=np.float32)
        return obs if self._inputs is None else self._inputs(obs.reshape(1, -1))[0]

    def check_fits(self, **expect: Any) -> None:
        """``Policy.check_fits`` for a policy file; sizes only for an in-memory model."""
        if self.policy is not None:
            self.policy.check_fits(**expect, label=f"model {self.name!r}")
            return
        extra = 0 if self._inputs is None else self._inputs.size
        have = (int(self.model.observation_space.shape[0]) - extra, int(self.model.action_space.n))
        want = (expect.get("obs_size"), expect.get("num_actions"))
        if any(w is not None and w != h for w, h in zip(want, have, strict=True)):
            raise ValueError(
                f"model {self.name!r} has observation size {have[0]} and {have[1]} actions, not {want}"
            )

    def act_batch(
        self,
        observations: np.ndarray,
        action_masks: np.ndarray,
        rngs: Sequence[np.random.Generator] | None = None,
    ) -> np.ndarray:
        """The actions of a batch of decisions ``(B, obs)``, ``(B, A)`` -> ``(B,)`` int64: row i is
        what ``act`` plays (with ``self.rng`` = ``rngs[i]`` when sampling), the network run once.

        Deterministic play is the arg-max of the same float32 probabilities; stochastic play computes
        the probabilities as ``action_probs`` does and samples each row with ``Generator.choice`` from
        its own generator (``rngs[i]``, else ``self.rng`` row after row), so the draws are ``act``'s.
        An in-memory MaskablePPO model (no policy file) is asked row by row (``act_row_by_row``).
        """
        if self.policy is None:
            return act_row_by_row(self, np.asarray(observations), np.asarray(action_masks), rngs)
        masks = batch_masks(action_masks, rngs)
        probs = self.policy.masked_probs_batch(observations, masks)
        if self.deterministic:
            return probs.argmax(axis=1).astype(np.int64)
        p = probs.astype(np.float64)
        p[~masks] = 0.0
        p /= p.sum(axis=1, keepdims=True)
        gens = rngs if rngs is not None else [self.rng] * len(p)
        n = p.shape[1]
        return np.array([g.choice(n, p=row) for g, row in zip(gens, p, strict=True)], dtype=np.int64)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        mask = np.asarray(action_mask, dtype=bool)
        legal = legal_from_mask(mask)
        if self.policy is not None:
            if self.deterministic:
                action = int(np.argmax(self.policy.masked_probs(observation, mask)))
            else:
                action = int(self.rng.choice(mask.size, p=self.action_probs(observation, mask)))
        elif self._actor is not None:
            logits = self._actor.logits(self._model_obs(observation))
            logits = np.where(mask, logits, -np.inf)
            if self.deterministic:
                return int(np.argmax(logits))
            p = np.exp(logits - logits.max())
            return int(self.rng.choice(mask.size, p=p / p.sum()))
        else:
            obs = self._model_obs(observation)
            if self.deterministic:
                action, _ = self.model.predict(obs, action_masks=mask, deterministic=True)
                action = int(np.asarray(action).item())
            else:
                action = int(self.rng.choice(mask.size, p=self.action_probs(observation, mask)))
        if action not in legal:  # cannot happen with a mask; guard against API drift
            raise RuntimeError(f"policy returned illegal action {action}; legal: {legal.tolist()}")
        return action

    def action_probs(self, observation: np.ndarray, action_mask: np.ndarray) -> np.ndarray:
        """The masked policy's probabilities over all actions (zero on illegal ones)."""
        if self.policy is not None:
            p = self.policy.masked_probs(observation, action_mask).astype(np.float64)
            p[~np.asarray(action_mask, dtype=bool)] = 0.0
            return p / p.sum()
        import torch

        policy = self.model.policy
        obs_t, _ = policy.obs_to_tensor(self._model_obs(observation))
        with torch.no_grad():
            dist = policy.get_distribution(obs_t, action_masks=np.asarray(action_mask, dtype=bool))
            p = dist.distribution.probs.cpu().numpy().reshape(-1).astype(np.float64)
        return p / p.sum()

    def save(self, path: str | Path) -> None:
        """Write the policy file (``policy.npz`` + ``policy.json``; an ensemble: its record and its
        members' files) into the directory ``path``."""
        if isinstance(self.policy, PolicyEnsemble):
            sources = {n: m.source for n, m in zip(self.policy.names, self.policy.members, strict=True)}
            files = {n: src for n, src in sources.items() if src is not None}
            if len(files) != len(sources):
                raise ValueError(
                    "an ensemble built in memory has no member files to copy; use write_ensemble"
                )
            write_ensemble(files, path, self.policy.training)
            return
        if self.policy is None:
            raise ValueError(
                "an in-memory MaskablePPO model does not know what it was trained for; write it with "
                "kabu_envs.agents.policy_file.write_policy("
                "policy_from_sb3(model.policy, game, role, env_options), dir)"
            )
        write_policy(self.policy, path)

    @staticmethod
    def load(path: str | Path, seed: int | None = None, **kwargs: Any) -> PPOAgent:
        return load_policy_agent(path, seed, **kwargs)
