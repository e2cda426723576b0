"""An RLlib PPO RLModule's weights as the project's policy file (``agents/policy_file.py``).

RLlib's default PPO module (new API stack, ``DefaultModelConfig``) is an MLP encoder followed by
heads: ``encoder.actor_encoder.net.mlp.*`` -> ``pi.net.mlp.*`` (logits) and
``encoder.critic_encoder.net.mlp.*`` -> ``vf.net.mlp.*`` (value), or one shared
``encoder.encoder.net.mlp.*`` under both heads when ``vf_share_layers`` is on. Each stack is a
``Sequential(Linear, activation, Linear, activation, ..., Linear)`` and the encoder's last layer is
followed by its activation too. Concatenated, the actor is exactly the policy file's ``pi`` stack
(activation after every hidden layer, none after the head) and the critic its ``vf`` stack; a
shared encoder is written into both (same function, as the format keeps the critic separate).

So a model trained with RLlib plays through ``agents.registry.make_agent(game, "<dir>")`` with
numpy only, and is never loaded from RLlib's checkpoints (which hold pickled objects).
Only what the format can express is converted: one activation (``tanh`` or ``relu``) for the
encoder and any hidden head layers, no layer norm; anything else raises naming it. The conversion
reads a plain name -> array mapping, so it needs neither ray nor torch.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from kabu_envs.agents.policy_file import ACTIVATIONS, Policy, policy_from_arrays

# RLlib's Gaussian heads keep this constant buffer even for discrete actions; it is no weight.
IGNORED_SUFFIX = "log_std_clip_param_const"
SHARED = "encoder.encoder.net.mlp"
ACTOR = ("encoder.actor_encoder.net.mlp", "pi.net.mlp")
CRITIC = ("encoder.critic_encoder.net.mlp", "vf.net.mlp")


def _stack(state: Mapping[str, np.ndarray], prefix: str) -> list[tuple[str, str]]:
    """The (weight, bias) names of a ``Sequential(Linear, act, Linear, ...)`` under ``prefix``."""
    idx = sorted(int(k[len(prefix) + 1 :].split(".")[0]) for k in state if k.startswith(prefix + "."))
    idx = sorted(set(idx))
    if idx != [2 * i for i in range(len(idx))]:
        raise ValueError(
            f"{prefix}: modules {idx} are not Linear layers separated by activations "
            "(layer norm or another layer type?); only plain MLPs convert"
        )
    names = [(f"{prefix}.{i}.weight", f"{prefix}.{i}.bias") for i in idx]
    missing = [n for pair in names for n in pair if n not in state]
    if missing:
        raise ValueError(f"{prefix}: missing {missing}")
    return names


def rllib_names(state: Mapping[str, np.ndarray]) -> dict[str, list[tuple[str, str]]]:
    """``{"pi": [...], "vf": [...]}``: the RLlib (weight, bias) names of the actor and critic stacks."""
    shared = any(k.startswith(SHARED + ".") for k in state)
    out = {}
    for key, (encoder, head) in (("pi", ACTOR), ("vf", CRITIC)):
        out[key] = _stack(state, SHARED if shared else encoder) + _stack(state, head)
        if len(out[key]) < 2:
            raise ValueError(f"not an RLlib PPO MLP module: no {key} encoder and head in {sorted(state)}")
    used = {n for stack in out.values() for pair in stack for n in pair}
    unknown = sorted(k for k in set(state) - used if not k.endswith(IGNORED_SUFFIX))
    if unknown:
        raise ValueError(f"unsupported RLlib module: parameters {unknown} are not those of a PPO MLP")
    return out


def policy_from_rllib_state(
    state: Mapping[str, Any],
    activation: str,
    game: str,
    role: str,
    env_options: Mapping[str, Any],
    training: dict[str, Any] | None = None,
) -> Policy:
    """A ``Policy`` from an RLlib PPO module's ``state_dict`` (numpy arrays); its sizes must be those
    of ``game``'s table with ``env_options``. ``activation`` is the model config's one activation."""
    if activation not in ACTIVATIONS:
        raise ValueError(f"activation {activation!r} cannot be written; known: {list(ACTIVATIONS)}")
    arrays: dict[str, np.ndarray] = {}
    layers: dict[str, list[int]] = {}
    for key, stack in rllib_names(state).items():
        for i, (w, b) in enumerate(stack):
            arrays[f"{key}.{i}.weight"] = np.asarray(state[w], dtype=np.float32)
            arrays[f"{key}.{i}.bias"] = np.asarray(state[b], dtype=np.float32)
        layers[key] = [int(arrays[f"{key}.{i}.weight"].shape[0]) for i in range(len(stack) - 1)]
    return policy_from_arrays(arrays, layers, activation, game, role, env_options, training)


def model_activation(model_config: Mapping[str, Any]) -> str:
    """The one activation of an RLlib ``DefaultModelConfig`` dict the policy file can hold, or raise."""
    act = str(model_config.get("fcnet_activation", "tanh"))
    if model_config.get("head_fcnet_hiddens") and model_config.get("head_fcnet_activation", "relu") != act:
        raise ValueError(
            f"head_fcnet_activation {model_config.get('head_fcnet_activation', 'relu')!r} differs from "
            f"fcnet_activation {act!r}: a policy file has one activation"
        )
    if model_config.get("fcnet_use_layernorm") or model_config.get("head_fcnet_use_layernorm"):
        raise ValueError("layer norm cannot be written to a policy file (plain MLPs only)")
    if act not in ACTIVATIONS:
        raise ValueError(f"fcnet_activation {act!r} cannot be written; use one of {list(ACTIVATIONS)}")
    return act
