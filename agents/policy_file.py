"""Policy files that cannot carry code: ``policy.npz`` (the weights) + ``policy.json`` (what they are).

Why not Stable-Baselines3's ``model.zip``: its ``data`` entry stores objects (the learning-rate
schedule, the policy class, the spaces) as cloudpickle, and unpickling runs whatever code a file
carries. Models are exchanged between researchers, so reading one must never run code from it:

* ``policy.npz`` holds float32 arrays only and is read with ``np.load(..., allow_pickle=False)``;
* ``policy.json`` holds the architecture (layer sizes, activation), the observation and action
  sizes, the policy features it computes from the observation if any (``features``: a name the game
  declares, agents/features.py; the network's input is then the observation and those features),
  what the policy was trained for (game, role, rule options, number of players), the
  training run (name, seed, timesteps, package version; since 0.3.0 also its provenance: ``env_id`` and
  ``view_id`` with their versions, the resolved ``rule_options``, ``git_commit`` or null,
  kabu_envs/training/provenance.py) and the SHA-256 of ``policy.npz``.

Both are validated strictly on reading (types, every array's shape against the architecture, known
activations); every problem is a ``ValueError`` that names it. Reading and playing need numpy only.
The functions that write a file from a MaskablePPO model, or load one into it, import torch lazily
(training side).

Arrays (the SB3 ``MlpPolicy`` with its default Flatten extractor, actor and critic not sharing
layers): ``pi.<i>.weight`` / ``pi.<i>.bias`` for the actor's hidden layers ``i < len(policy_layers)``
and its action head ``i = len(policy_layers)`` (logits); ``vf.<i>.*`` likewise for the critic, whose
head has one output. Weights are ``(out, in)`` as in ``torch.nn.Linear``; the activation follows every
hidden layer, not the heads. The critic is kept so that training can go on from a file (``init_from``).
"""

from __future__ import annotations

import hashlib
import io
import json
import re
import zipfile
from collections.abc import Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from kabu_envs.agents.features import FeatureInputs

FORMAT = "kabu-envs policy"
FORMAT_VERSION = 1
ENSEMBLE_FORMAT = "kabu-envs policy ensemble"  # several policy files played as one (agents/ensemble.py)
RECORD_FILE = "policy.json"
WEIGHTS_FILE = "policy.npz"
ACTIVATIONS = ("tanh", "relu")
MASKED_LOGIT = np.float32(-1e8)  # what sb3-contrib's MaskableCategorical puts on illegal actions

_TOP_KEYS = {
    "format",
    "format_version",
    "obs_size",
    "num_actions",
    "architecture",
    "trained_for",
    "training",
    "weights_sha256",
}
_OPTIONAL_TOP_KEYS = {"features"}
_ARCH_KEYS = {"type", "activation", "policy_layers", "value_layers"}
_FOR_KEYS = {"game", "role", "num_players", "env_options"}
_TRAINING_KEYS = {"name": str, "seed": int, "timesteps": int, "package_version": str, "converted_from": dict}
# provenance (kabu_envs/training/provenance.py): the env ids, the resolved rule options, the source commit
_PROVENANCE_KEYS = {
    "env_id": str,
    "view_id": str,
    "rule_options": dict,
    "git_commit": str,
    "reconstructed": dict,
}
# a provenance written after the fact (models trained before 0.3.0): where it was read, and how the rules
# it names compare with those of the env's id today (``differences``: that id's values, {} = the same)
_RECONSTRUCTED_KEYS = {
    "from": str,
    "from_commits": list,
    "compared_with": str,
    "differences": dict,
    "note": str,
}
_OPTIONAL_RECONSTRUCTED_KEYS = {"models_as_trained"}
_CONVERTED_KEYS = {"file": str, "sha256": str}


def sb3_zip_refusal(path: str | Path) -> str:
    """Why a Stable-Baselines3 ``.zip`` is not loaded, and how to convert it."""
    return (
        f"{path} is a Stable-Baselines3 model zip; kabu-envs does not load these. Its 'data' entry holds "
        "pickled Python objects, and unpickling a file can run any code it carries, so a model from "
        "elsewhere could run code on this machine. Convert it once (only its weights are read, with "
        f"torch's weights_only loader): python -m kabu_envs.training.export {path} <out_dir> "
        "--game GAME --role ROLE "
        "[--option KEY=VALUE ...], then load <out_dir> (policy.npz + policy.json)."
    )


def table_shape(game: str, env_options: Mapping[str, Any] | None = None) -> dict[str, int]:
    """``num_players``, ``obs_size`` and ``num_actions`` of ``game`` with these rule options."""
    from kabu_envs import registry

    env = registry.get(game).make_raw_env(**dict(env_options or {}))
    seat = env.possible_agents[0]
    return {
        "num_players": len(env.possible_agents),
        "obs_size": int(env.observation_space(seat)["observation"].shape[0]),
        "num_actions": int(env.action_space(seat).n),
    }


# --- strict JSON checks ---------------------------------------------------------------------------
def _bad(where: str, msg: str) -> ValueError:
    return ValueError(f"{where}: {msg}")


def _obj(
    x: Any, where: str, required: AbstractSet[str], optional: AbstractSet[str] = frozenset()
) -> dict[str, Any]:
    if not isinstance(x, dict):
        raise _bad(where, f"must be a JSON object, got {type(x).__name__}")
    missing = sorted(required - set(x))
    if missing:
        raise _bad(where, f"missing key(s) {missing}")
    unknown = sorted(set(x) - required - set(optional))
    if unknown:
        raise _bad(where, f"unknown key(s) {unknown}")
    return x


def _int(x: Any, where: str, low: int = 1) -> int:
    if isinstance(x, bool) or not isinstance(x, int):
        raise _bad(where, f"must be an integer, got {x!r}")
    if x < low:
        raise _bad(where, f"must be >= {low}, got {x}")
    return x


def _str(x: Any, where: str) -> str:
    if not isinstance(x, str) or not x:
        raise _bad(where, f"must be a non-empty string, got {x!r}")
    return x


def _sizes(x: Any, where: str) -> tuple[int, ...]:
    if not isinstance(x, list):
        raise _bad(where, f"must be a list of layer sizes, got {x!r}")
    return tuple(_int(v, f"{where}[{i}]") for i, v in enumerate(x))


def layer_shapes(prefix: str, sizes: list[int] | tuple[int, ...]) -> dict[str, tuple[int, ...]]:
    """Array name -> shape of a Linear stack through ``sizes`` (input, hidden..., output)."""
    out: dict[str, tuple[int, ...]] = {}
    for i in range(len(sizes) - 1):
        out[f"{prefix}.{i}.weight"] = (sizes[i + 1], sizes[i])
        out[f"{prefix}.{i}.bias"] = (sizes[i + 1],)
    return out


def _check_arrays(
    arrays: Mapping[str, np.ndarray], shapes: Mapping[str, tuple[int, ...]], where: str
) -> None:
    missing, unknown = sorted(set(shapes) - set(arrays)), sorted(set(arrays) - set(shapes))
    if missing or unknown:
        raise _bad(where, f"arrays do not match the architecture: missing {missing}, unexpected {unknown}")
    for k, shape in shapes.items():
        a = arrays[k]
        if a.dtype.kind != "f" or a.dtype.itemsize != 4:
            raise _bad(where, f"array {k!r} must be float32, got {a.dtype}")
        if a.shape != shape:
            raise _bad(where, f"array {k!r} has shape {a.shape}, the architecture needs {shape}")
        if not np.isfinite(a).all():
            raise _bad(where, f"array {k!r} holds NaN or infinite values")


def _normalise(z: np.ndarray) -> np.ndarray:
    """``z - logsumexp(z)`` in float32, as torch computes it (max-shifted)."""
    z = np.asarray(z, dtype=np.float32)
    m = z.max()
    return z - (m + np.log(np.exp(z - m).sum(dtype=np.float32)))


def _normalise_rows(z: np.ndarray) -> np.ndarray:
    """``_normalise`` of every row of a ``(B, n)`` float32 array."""
    z = np.asarray(z, dtype=np.float32)
    m = z.max(axis=1, keepdims=True)
    return z - (m + np.log(np.exp(z - m).sum(axis=1, dtype=np.float32, keepdims=True)))


def softmax(z: np.ndarray) -> np.ndarray:
    """The softmax of float32 log-probabilities (max-shifted, float32 sum), as torch computes it."""
    e = np.exp(z - z.max())
    return e / e.sum(dtype=np.float32)


def softmax_rows(z: np.ndarray) -> np.ndarray:
    """The softmax of every row of ``(B, n)`` float32 log-probabilities (max-shifted, float32 sums)."""
    e = np.exp(z - z.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, dtype=np.float32, keepdims=True)


def batch_masks_of(action_masks: np.ndarray, num_actions: int) -> np.ndarray:
    """A batch's action masks as ``(B, num_actions)`` bools; a wrong shape or an empty row raises."""
    masks = np.asarray(action_masks).astype(bool)
    if masks.ndim != 2 or masks.shape[1] != num_actions:
        raise ValueError(f"action masks of shape {masks.shape} for a policy with {num_actions} actions")
    if not masks.any(axis=1).all():
        raise ValueError("an action mask of the batch is all zeros: that game has no seat to act")
    return masks


# --- the policy ------------------------------------------------------------------------------------
@dataclass
class Policy:
    """A validated policy file in memory; ``logits`` is the actor in float32 numpy."""

    obs_size: int
    num_actions: int
    activation: str
    policy_layers: tuple[int, ...]
    value_layers: tuple[int, ...]
    trained_for: dict[str, Any]
    training: dict[str, Any]
    arrays: dict[str, np.ndarray]
    source: Path | None = None
    features: str | None = None  # the game's policy features fed after the observation (agents/features.py)
    _actor: list[tuple[np.ndarray, np.ndarray, bool]] = field(default_factory=list, repr=False)
    _inputs: FeatureInputs | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        where = str(self.source or "policy")
        _int(self.obs_size, f"{where}: obs_size")
        _int(self.num_actions, f"{where}: num_actions")
        if self.activation not in ACTIVATIONS:
            raise _bad(where, f"unknown activation {self.activation!r}; known: {list(ACTIVATIONS)}")
        self.policy_layers = _sizes(list(self.policy_layers), f"{where}: architecture.policy_layers")
        self.value_layers = _sizes(list(self.value_layers), f"{where}: architecture.value_layers")
        _check_trained_for(self.trained_for, f"{where}: trained_for")
        _check_training(self.training, f"{where}: training")
        if self.features is not None:
            _str(self.features, f"{where}: features")
            try:
                self._inputs = FeatureInputs(
                    self.trained_for["game"], self.features, self.trained_for["env_options"]
                )
            except ValueError as e:
                raise _bad(where, str(e)) from None
        self.arrays = {k: np.asarray(v) for k, v in self.arrays.items()}
        _check_arrays(self.arrays, self.shapes(), where)
        self.arrays = {k: np.ascontiguousarray(v, dtype=np.float32) for k, v in self.arrays.items()}
        n = len(self.policy_layers)
        self._actor = [
            (self.arrays[f"pi.{i}.weight"], self.arrays[f"pi.{i}.bias"], i < n) for i in range(n + 1)
        ]

    @property
    def input_size(self) -> int:
        """The network's input: the observation, plus the policy features if any."""
        return self.obs_size + (0 if self._inputs is None else self._inputs.size)

    def inputs(self, observations: np.ndarray) -> np.ndarray:
        """The network inputs of a batch of observations ``(B, obs_size)`` (the features appended)."""
        x = np.asarray(observations, dtype=np.float32)
        return x if self._inputs is None else self._inputs(x)

    def shapes(self) -> dict[str, tuple[int, ...]]:
        pi = [self.input_size, *self.policy_layers, self.num_actions]
        vf = [self.input_size, *self.value_layers, 1]
        return {**layer_shapes("pi", pi), **layer_shapes("vf", vf)}

    def logits(self, observation: np.ndarray) -> np.ndarray:
        """The actor's logits for one observation, in float32 like the torch model."""
        x = np.asarray(observation, dtype=np.float32).reshape(-1)
        if x.size != self.obs_size:
            raise ValueError(
                f"observation of size {x.size} for a policy trained on size {self.obs_size} "
                f"({self.describe()})"
            )
        if self._inputs is not None:
            x = self._inputs(x[None])[0]
        return self.actor(x)

    def actor(self, x: np.ndarray) -> np.ndarray:
        """The actor's logits for one network input (``inputs`` of one observation), float32."""
        for w, b, hidden in self._actor:
            x = w @ x + b
            if hidden:
                x = np.tanh(x) if self.activation == "tanh" else np.maximum(x, np.float32(0.0))
        return x

    def logits_batch(self, observations: np.ndarray) -> np.ndarray:
        """The actor's logits for a batch ``(B, obs_size)`` -> ``(B, num_actions)``, float32, each row
        bit for bit what ``logits`` gives for it.

        Why not one ``x @ w.T``: a matrix product sums in another order than the matrix-vector product
        of ``logits`` (last-bit differences here), and a near-tie could then play another action than
        ``act``. ``np.matmul`` over a stack of column vectors runs that same matrix-vector product per
        row inside one call: exact, and still a single numpy call per layer.
        """
        x = np.asarray(observations, dtype=np.float32)
        if x.ndim != 2 or x.shape[1] != self.obs_size:
            raise ValueError(
                f"observations of shape {x.shape} for a policy trained on size {self.obs_size} "
                f"(expected (B, {self.obs_size}); {self.describe()})"
            )
        return self.actor_batch(self.inputs(x))

    def actor_batch(self, inputs: np.ndarray) -> np.ndarray:
        """The actor's logits for network inputs ``(B, input_size)``, each row bit for bit ``actor``'s."""
        x = np.ascontiguousarray(inputs, dtype=np.float32)[:, :, None]
        for w, b, hidden in self._actor:
            x = np.matmul(w, x)
            x += b[:, None]
            if hidden:
                x = np.tanh(x) if self.activation == "tanh" else np.maximum(x, np.float32(0.0))
        return x[:, :, 0]

    def masked_probs_batch(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        """``masked_probs`` of every row, ``(B, num_actions)`` float32, equal to it bit for bit."""
        masks = batch_masks_of(action_masks, self.num_actions)
        z = _normalise_rows(self.logits_batch(observations))
        return softmax_rows(_normalise_rows(np.where(masks, z, MASKED_LOGIT)))

    def masked_probs(self, observation: np.ndarray, action_mask: np.ndarray) -> np.ndarray:
        """float32 probabilities of the masked policy, computed the way sb3-contrib does.

        The same steps as torch's ``Categorical`` inside ``MaskableCategorical``: the logits are
        normalised by their log-sum-exp, illegal ones become -1e8, the result is normalised again and
        its softmax taken. Arg-max over this (first index on a tie) is what
        ``MaskablePPO.predict(..., deterministic=True)`` plays.
        """
        mask = np.asarray(action_mask).astype(bool).reshape(-1)
        if mask.size != self.num_actions:
            raise ValueError(f"action mask of size {mask.size} for a policy with {self.num_actions} actions")
        z = _normalise(self.logits(observation))
        return softmax(_normalise(np.where(mask, z, MASKED_LOGIT)))

    def describe(self) -> str:
        t = self.trained_for
        return (
            f"{t['game']}, role {t['role']}, {t['num_players']} players, rule options "
            f"{json.dumps(t['env_options'], sort_keys=True)} (observation size {self.obs_size}, "
            f"{self.num_actions} actions{'' if self.features is None else ', features ' + self.features})"
        )

    def check_fits(
        self,
        game: str | None = None,
        role: str | None = None,
        env_options: Mapping[str, Any] | None = None,
        num_players: int | None = None,
        obs_size: int | None = None,
        num_actions: int | None = None,
        label: str | None = None,
    ) -> None:
        """Raise a ``ValueError`` when this policy does not fit the table it is about to play at.

        ``None`` means "not checked". With ``game`` and ``env_options``, the number of players and
        the observation and action sizes are those of that table. Rule options that change neither
        the table size nor the observation layout are not compared (playing a model under other rules
        is a legitimate experiment); the message shows them.
        """
        label = label or f"model {str(self.source or '')!r}"
        t = self.trained_for
        problems = []
        if game is not None and game != t["game"]:
            problems.append(f"game {t['game']} != {game}")
        elif game is not None and env_options is not None:
            table = table_shape(game, env_options)
            num_players = table["num_players"] if num_players is None else num_players
            obs_size = table["obs_size"] if obs_size is None else obs_size
            num_actions = table["num_actions"] if num_actions is None else num_actions
        if role is not None and role != t["role"]:
            problems.append(f"role {t['role']} != {role}")
        for key, want, have in (
            ("players", num_players, t["num_players"]),
            ("observation size", obs_size, self.obs_size),
            ("actions", num_actions, self.num_actions),
        ):
            if want is not None and want != have:
                problems.append(f"{key} {have} != {want}")
        if problems:
            used = [f"{k} {v}" for k, v in (("game", game), ("role", role)) if v is not None]
            if num_players is not None:
                used.append(f"{num_players} players")
            if env_options is not None:
                used.append(f"rule options {json.dumps(dict(env_options), sort_keys=True)}")
            if obs_size is not None:
                used.append(f"observation size {obs_size}")
            if num_actions is not None:
                used.append(f"{num_actions} actions")
            raise ValueError(
                f"{label} does not fit: it was trained for {self.describe()}, but is used for "
                f"{', '.join(used)} ({'; '.join(problems)})"
            )

    def record(self) -> dict[str, Any]:
        """The policy.json content (without the weights' checksum; ``features`` only when set, so a
        policy without them writes the record it always wrote)."""
        return {
            "format": FORMAT,
            "format_version": FORMAT_VERSION,
            "obs_size": self.obs_size,
            "num_actions": self.num_actions,
            **({} if self.features is None else {"features": self.features}),
            "architecture": {
                "type": "mlp",
                "activation": self.activation,
                "policy_layers": list(self.policy_layers),
                "value_layers": list(self.value_layers),
            },
            "trained_for": self.trained_for,
            "training": self.training,
        }


def _check_trained_for(t: Any, where: str) -> None:
    _obj(t, where, _FOR_KEYS)
    _str(t["game"], f"{where}.game")
    _str(t["role"], f"{where}.role")
    _int(t["num_players"], f"{where}.num_players")
    opts = t["env_options"]
    if not isinstance(opts, dict) or not all(isinstance(k, str) for k in opts):
        raise _bad(f"{where}.env_options", f"must be a JSON object of rule options, got {opts!r}")


def _check_training(t: Any, where: str) -> None:
    _obj(t, where, set(), set(_TRAINING_KEYS) | set(_PROVENANCE_KEYS))
    for k, kind in _PROVENANCE_KEYS.items():
        v = t.get(k)
        if v is None:  # absent (a file of 0.2) or null (no view, no git checkout)
            continue
        if k == "reconstructed":
            _check_reconstructed(v, f"{where}.{k}")
        elif kind is str:
            _str(v, f"{where}.{k}")
        elif not isinstance(v, dict) or not all(isinstance(kk, str) for kk in v):
            raise _bad(f"{where}.{k}", f"must be a JSON object of rule options, got {v!r}")
    for k, typ in _TRAINING_KEYS.items():
        if k not in t:
            continue
        v = t[k]
        if typ is int:
            _int(v, f"{where}.{k}", low=0)
        elif typ is str:
            _str(v, f"{where}.{k}")
        else:
            _obj(v, f"{where}.{k}", set(_CONVERTED_KEYS))
            for kk in _CONVERTED_KEYS:
                _str(v[kk], f"{where}.{k}.{kk}")


def _check_reconstructed(r: Any, where: str) -> None:
    """A provenance reconstructed from git history names the full commits it was read at."""
    _obj(r, where, set(_RECONSTRUCTED_KEYS), _OPTIONAL_RECONSTRUCTED_KEYS)
    for k, kind in _RECONSTRUCTED_KEYS.items():
        if not isinstance(r[k], kind):
            raise _bad(
                f"{where}.{k}", f"must be a JSON {'string' if kind is str else kind.__name__}, got {r[k]!r}"
            )
    commits = r["from_commits"]
    if not commits or not all(isinstance(c, str) and re.fullmatch(r"[0-9a-f]{40}", c) for c in commits):
        raise _bad(
            f"{where}.from_commits", f"must be a non-empty list of full git commit ids, got {commits!r}"
        )


def looks_like_sb3_zip(path: Path) -> bool:
    if path.suffix == ".zip":
        return True
    if path.suffix == ".npz" or not path.is_file():
        return False
    with open(path, "rb") as f:
        return f.read(4) == b"PK\x03\x04"


def record_path(path: str | Path) -> Path:
    """The ``policy.json`` of a model directory, a ``policy.json`` or a ``policy.npz`` path."""
    p = Path(path)
    if looks_like_sb3_zip(p):
        raise ValueError(sb3_zip_refusal(p))
    if p.suffix == ".npz":
        return p.with_name(RECORD_FILE)
    if p.is_dir():
        if not (p / RECORD_FILE).is_file() and (p / "model.zip").is_file():
            raise ValueError(sb3_zip_refusal(p / "model.zip"))
        return p / RECORD_FILE
    return p


def read_record(path: str | Path) -> tuple[Path, Any]:
    """The ``policy.json`` path of a model (directory or path) and its parsed JSON, not yet validated
    (a policy file's or an ensemble's: ``format`` says which)."""
    rec_path = record_path(path)
    if not rec_path.is_file():
        raise ValueError(f"no policy file at {rec_path}")
    try:
        return rec_path, json.loads(rec_path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise _bad(str(rec_path), f"not valid JSON ({e})") from None


def read_trained_for(path: str | Path) -> dict[str, Any]:
    """What a model was trained for (game, role, players, rule options), from its record alone: for
    listing models without reading their weights (playing one reads and validates it all)."""
    rec_path, rec = read_record(path)
    if not isinstance(rec, dict) or not isinstance(rec.get("trained_for"), dict):
        raise _bad(str(rec_path), "has no trained_for record")
    return rec["trained_for"]


def read_policy(path: str | Path) -> Policy:
    """Read and validate a policy (model directory, ``policy.json`` or ``policy.npz``); no pickles."""
    rec_path, rec = read_record(path)
    where = str(rec_path)
    if isinstance(rec, dict) and rec.get("format") == ENSEMBLE_FORMAT:
        raise _bad(
            where,
            "is an ensemble of policy files (agents/ensemble.py): it plays as one model (read_model, "
            "kabu-eval, the registry), but holds no single network to train on or export; name one of "
            f"its members ({rec_path.parent / 'members'}/<name>) instead",
        )
    _obj(rec, where, _TOP_KEYS, _OPTIONAL_TOP_KEYS)
    if rec["format"] != FORMAT:
        raise _bad(where, f"format {rec['format']!r} is not {FORMAT!r}")
    if rec["format_version"] != FORMAT_VERSION or isinstance(rec["format_version"], bool):
        raise _bad(where, f"format_version {rec['format_version']!r} is not supported (this reader: 1)")
    arch = _obj(rec["architecture"], f"{where}: architecture", _ARCH_KEYS)
    if arch["type"] != "mlp":
        raise _bad(where, f"architecture.type {arch['type']!r} is not supported; known: ['mlp']")
    _str(arch["activation"], f"{where}: architecture.activation")
    sha = _str(rec["weights_sha256"], f"{where}: weights_sha256")
    npz_path = rec_path.with_name(WEIGHTS_FILE)
    if not npz_path.is_file():
        raise _bad(where, f"its weights {npz_path} are missing")
    raw = npz_path.read_bytes()
    if hashlib.sha256(raw).hexdigest() != sha:
        raise _bad(where, f"{npz_path.name} does not match the weights_sha256 recorded here")
    try:
        with np.load(io.BytesIO(raw), allow_pickle=False) as npz:
            arrays = {k: npz[k] for k in npz.files}
    except ValueError as e:  # object arrays (pickles) are refused by allow_pickle=False
        raise _bad(str(npz_path), f"unreadable without pickles ({e})") from None
    except (OSError, zipfile.BadZipFile) as e:
        raise _bad(str(npz_path), f"not a valid .npz file ({e})") from None
    return Policy(
        obs_size=rec["obs_size"],
        num_actions=rec["num_actions"],
        activation=arch["activation"],
        policy_layers=_sizes(arch["policy_layers"], f"{where}: architecture.policy_layers"),
        value_layers=_sizes(arch["value_layers"], f"{where}: architecture.value_layers"),
        trained_for=rec["trained_for"],
        training=rec["training"],
        arrays=arrays,
        source=rec_path.parent,
        features=rec.get("features"),
    )


def _npz_bytes(arrays: Mapping[str, np.ndarray]) -> bytes:
    """An .npz of float32 arrays, byte-for-byte reproducible (fixed zip timestamps)."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for k in sorted(arrays):
            info = zipfile.ZipInfo(f"{k}.npy", date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            with z.open(info, "w") as f:
                np.lib.format.write_array(f, np.ascontiguousarray(arrays[k], dtype="<f4"), allow_pickle=False)
    return buf.getvalue()


def write_policy(policy: Policy, out_dir: str | Path) -> Path:
    """Write ``policy.npz`` + ``policy.json`` into ``out_dir``; returns the JSON's path."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    raw = _npz_bytes(policy.arrays)
    (out / WEIGHTS_FILE).write_bytes(raw)
    rec = {**policy.record(), "weights_sha256": hashlib.sha256(raw).hexdigest()}
    (out / RECORD_FILE).write_text(json.dumps(rec, indent=2) + "\n", encoding="utf-8")
    read_policy(out)  # what was written reads back
    return out / RECORD_FILE


def make_trained_for(
    game: str, role: str, env_options: Mapping[str, Any], obs_size: int, num_actions: int
) -> dict[str, Any]:
    """The ``trained_for`` record; the network's sizes must be those of the game's table."""
    table = table_shape(game, env_options)
    if (table["obs_size"], table["num_actions"]) != (obs_size, num_actions):
        raise ValueError(
            f"the network (observation size {obs_size}, {num_actions} actions) does not fit {game} with "
            f"rule options {dict(env_options)} (observation size {table['obs_size']}, "
            f"{table['num_actions']} actions): wrong game or rule options?"
        )
    opts = json.loads(json.dumps(dict(env_options)))  # plain JSON values, or raise
    return {"game": game, "role": role, "num_players": table["num_players"], "env_options": opts}


# --- SB3 (MaskablePPO MlpPolicy) state dicts: names and the mapping to ours ---------------------------
def _sb3_prefix(prefix: str) -> tuple[str, str]:
    return (
        ("mlp_extractor.policy_net", "action_net")
        if prefix == "pi"
        else ("mlp_extractor.value_net", "value_net")
    )


def _sb3_name(prefix: str, i: int, n_hidden: int, part: str) -> str:
    body, head = _sb3_prefix(prefix)
    # MlpExtractor stacks are Sequential(Linear, activation, Linear, activation, ...)
    return f"{head}.{part}" if i == n_hidden else f"{body}.{2 * i}.{part}"


def policy_from_sb3_state_dict(
    state: Mapping[str, np.ndarray],
    activation: str,
    game: str,
    role: str,
    env_options: Mapping[str, Any],
    training: dict[str, Any] | None = None,
    features: str | None = None,
) -> Policy:
    """A ``Policy`` from the numpy state dict of an SB3 ``MlpPolicy`` (other parameters raise); its
    sizes must be those of ``game``'s table with ``env_options`` (and ``features``' columns)."""
    arrays: dict[str, np.ndarray] = {}
    layers: dict[str, list[int]] = {}
    for prefix in ("pi", "vf"):
        body, head = _sb3_prefix(prefix)
        idx = sorted(
            k[len(body) + 1 :].split(".")[0]
            for k in state
            if k.startswith(body + ".") and k.endswith(".weight")
        )
        n = len(idx)
        if sorted(idx) != sorted(str(2 * i) for i in range(n)):
            raise ValueError(f"not an SB3 MlpPolicy state dict: {body} layers {idx}")
        names = {
            (i, part): _sb3_name(prefix, i, n, part) for i in range(n + 1) for part in ("weight", "bias")
        }
        missing = sorted(v for v in names.values() if v not in state)
        if missing:
            raise ValueError(f"not an SB3 MlpPolicy state dict: missing {missing}")
        for (i, part), name in names.items():
            arrays[f"{prefix}.{i}.{part}"] = np.asarray(state[name])
        layers[prefix] = [int(arrays[f"{prefix}.{i}.weight"].shape[0]) for i in range(n)]
    unknown = sorted(set(state) - set(sb3_names(layers["pi"], layers["vf"])))
    if unknown:
        raise ValueError(f"unsupported policy: parameters {unknown} are not those of an SB3 MlpPolicy")
    return policy_from_arrays(arrays, layers, activation, game, role, env_options, training, features)


def policy_from_arrays(
    arrays: dict[str, np.ndarray],
    layers: Mapping[str, Sequence[int]],
    activation: str,
    game: str,
    role: str,
    env_options: Mapping[str, Any],
    training: dict[str, Any] | None = None,
    features: str | None = None,
) -> Policy:
    """A ``Policy`` of named ``arrays`` (``pi.<i>.weight`` ... as written to ``policy.npz``) with the
    hidden sizes ``layers["pi"]``, ``layers["vf"]``: the one place a converter (SB3, RLlib) builds one.
    With ``features`` the first layer's input is the observation and those features."""
    extra = 0 if features is None else FeatureInputs(game, features, env_options).size
    n_obs = int(arrays["pi.0.weight"].shape[1]) - extra
    n_act = int(arrays[f"pi.{len(layers['pi'])}.weight"].shape[0])
    return Policy(
        obs_size=n_obs,
        num_actions=n_act,
        activation=activation,
        policy_layers=tuple(layers["pi"]),
        value_layers=tuple(layers["vf"]),
        trained_for=make_trained_for(game, role, env_options, n_obs, n_act),
        training=dict(training or {}),
        arrays=arrays,
        features=features,
    )


def sb3_names(
    policy_layers: tuple[int, ...] | list[int], value_layers: tuple[int, ...] | list[int]
) -> dict[str, str]:
    """SB3 parameter name -> our array name, for these hidden layers."""
    out = {}
    for prefix, hidden in (("pi", policy_layers), ("vf", value_layers)):
        for i in range(len(hidden) + 1):
            for part in ("weight", "bias"):
                out[_sb3_name(prefix, i, len(hidden), part)] = f"{prefix}.{i}.{part}"
    return out


def sb3_state_dict(policy: Policy) -> dict[str, np.ndarray]:
    """The inverse of ``policy_from_sb3_state_dict`` (SB3 parameter names -> arrays)."""
    return {k: policy.arrays[v] for k, v in sb3_names(policy.policy_layers, policy.value_layers).items()}


# --- training side (torch) ---------------------------------------------------------------------------
def sb3_policy_kwargs(policy: Policy) -> dict[str, Any]:
    """``policy_kwargs`` that build a MaskablePPO ``MlpPolicy`` of this architecture."""
    import torch.nn as nn

    pi, vf = list(policy.policy_layers), list(policy.value_layers)
    act = {"tanh": nn.Tanh, "relu": nn.ReLU}[policy.activation]
    return {"net_arch": pi if pi == vf else {"pi": pi, "vf": vf}, "activation_fn": act}


def load_into_sb3(policy: Policy, sb3_policy: Any) -> None:
    """Copy the weights into an SB3 policy built with ``sb3_policy_kwargs`` (strict names)."""
    import torch

    state = {k: torch.from_numpy(v.copy()) for k, v in sb3_state_dict(policy).items()}
    sb3_policy.load_state_dict(state, strict=True)


def policy_from_sb3(
    sb3_policy: Any,
    game: str,
    role: str,
    env_options: Mapping[str, Any],
    training: dict[str, Any] | None = None,
    features: str | None = None,
) -> Policy:
    """A ``Policy`` from a live MaskablePPO policy (``model.policy``; with ``features``, a model
    trained on ``[observation, features]``, training/run.py)."""
    import torch.nn as nn

    extractor = type(sb3_policy.features_extractor).__name__
    if extractor != "FlattenExtractor":
        raise ValueError(f"only the default Flatten features extractor is supported, not {extractor}")
    acts = {nn.Tanh: "tanh", nn.ReLU: "relu"}
    if sb3_policy.activation_fn not in acts:
        raise ValueError(f"activation {sb3_policy.activation_fn.__name__} is not supported; use Tanh or ReLU")
    state = {k: v.detach().cpu().numpy() for k, v in sb3_policy.state_dict().items()}
    return policy_from_sb3_state_dict(
        state, acts[sb3_policy.activation_fn], game, role, env_options, training, features
    )
