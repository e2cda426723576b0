"""The pickle-free policy file: strict reading, fit checks, numpy play equal to MaskablePPO's, no torch.

The shipped models play from policy.npz + policy.json with numpy alone; their deterministic actions
must be those of ``MaskablePPO.predict(obs, action_masks=mask, deterministic=True)`` on the same
weights, on thousands of real observations of each model's own game and role.
"""

import hashlib
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from policy_testlib import decisions

from kabu_envs.agents.policy_file import read_policy, sb3_policy_kwargs, write_policy
from kabu_envs.agents.ppo_agent import load_policy_agent
from kabu_envs.agents.registry import SHIPPED_MODELS, make_agent, shipped_models

MODELS = SHIPPED_MODELS
REPO_ROOT = Path(__file__).resolve().parents[2]
SHIPPED = {"ppo_oicho_bettor": ("oicho_kabu", "bettor"), "ppo_oicho_dealer": ("oicho_kabu", "dealer")}
SHIPPED["ppo_kakeya"] = ("kakeya", "partnership")
SHIPPED["ei_kakeya"] = ("kakeya", "partnership")  # the expert-iteration clone (issue #27), no PPO
SHIPPED["ei2_kakeya"] = ("kakeya", "partnership")  # the same with the card features
SHIPPED["ei6p_kakeya"] = ("kakeya", "partnership")  # the six-player clone (all play)
SHIPPED["ei6p2_kakeya"] = ("kakeya", "partnership")  # that clone, two more DAgger rounds
SHIPPED["ei5_kakeya"] = ("kakeya", "partnership")  # ei2_kakeya, a DAgger round labelled by the network search
# the richer Oicho-Kabu settings (docs/studies/oicho_models.md)
SHIPPED |= {f"ppo_oicho_bettor_{r}": ("oicho_kabu", "bettor") for r in ("kansai", "kabufuda_site")}
# several policy files played as one (agents/ensemble.py, tests/agents/test_ensemble.py); ens6p_kakeya:
# ei6p5_kakeya, ei6p4_kakeya and ei6p3_kakeya (kept in its members/) over the suit rotations, six
# players; ens5_kakeya: ens_kakeya with ei5_kakeya and its continuation (kakeya_ei6, a member in its
# folder) for ei2_kakeya
ENSEMBLES = {"ens_kakeya", "ens6p_kakeya", "ens5_kakeya"}


def test_shipped_models_are_policy_files_recording_what_they_were_trained_for():
    assert shipped_models() == sorted(SHIPPED.keys() | ENSEMBLES)
    for name, (game, role) in SHIPPED.items():
        d = MODELS / name
        assert not list(d.glob("*.zip")) and not list(d.glob("*.pkl")), name
        policy = read_policy(d)
        run = json.loads((d / "run.json").read_text())
        assert policy.trained_for == {
            "game": game,
            "role": role,
            "num_players": run["config"]["env_options"].get("num_players", 4),
            "env_options": run["config"]["env_options"],
        }
        assert policy.training["name"] == name and policy.training["seed"] == run["seed"]
        assert policy.training["timesteps"] == run["timesteps"]
        assert policy.activation == "tanh"
        assert list(policy.policy_layers) == run["config"]["policy_kwargs"]["net_arch"]
        with np.load(d / "policy.npz", allow_pickle=False) as npz:
            assert all(npz[k].dtype == np.float32 for k in npz.files)


def _copy(tmp_path: Path, name: str = "ppo_oicho_dealer") -> Path:
    out = tmp_path / name
    write_policy(read_policy(MODELS / name), out)
    return out


def _edit(d: Path, fn) -> None:
    rec = json.loads((d / "policy.json").read_text())
    fn(rec)
    (d / "policy.json").write_text(json.dumps(rec))


def _set(path: list, value):
    def fn(rec):
        node = rec
        for k in path[:-1]:
            node = node[k]
        node[path[-1]] = value

    return fn


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (_set(["architecture", "activation"], "gelu"), "unknown activation 'gelu'"),
        (_set(["architecture", "activation"], 3), "activation: must be a non-empty string"),
        (_set(["architecture", "type"], "transformer"), "architecture.type 'transformer' is not supported"),
        (
            _set(["architecture", "policy_layers"], [256, 128]),
            r"'pi.1.weight' has shape \(256, 256\), the architecture needs \(128, 256\)",
        ),
        (_set(["architecture", "policy_layers"], [256, True]), r"policy_layers\[1\]: must be an integer"),
        (_set(["architecture", "value_layers"], "256"), "value_layers: must be a list"),
        (
            _set(["obs_size"], 231),
            r"pi.0.weight' has shape \(256, 230\), the architecture needs \(256, 231\)",
        ),
        (_set(["num_actions"], 12.0), "num_actions: must be an integer"),
        (_set(["num_actions"], 0), "num_actions: must be >= 1"),
        (_set(["format"], "sb3"), "format 'sb3' is not 'kabu-envs policy'"),
        (_set(["format_version"], 2), "format_version 2 is not supported"),
        (_set(["format_version"], True), "format_version True is not supported"),
        (_set(["extra"], 1), r"unknown key\(s\) \['extra'\]"),
        (lambda rec: rec.pop("trained_for"), r"missing key\(s\) \['trained_for'\]"),
        (_set(["trained_for", "num_players"], "4"), "trained_for.num_players: must be an integer"),
        (_set(["trained_for", "role"], ""), "trained_for.role: must be a non-empty string"),
        (_set(["trained_for", "env_options"], [1]), "env_options: must be a JSON object"),
        (_set(["trained_for", "class"], "os.system"), r"trained_for: unknown key\(s\) \['class'\]"),
        (_set(["training", "seed"], -1), "training.seed: must be >= 0"),
        (_set(["training", "hook"], "x"), r"training: unknown key\(s\) \['hook'\]"),
        (_set(["weights_sha256"], "0" * 64), "policy.npz does not match the weights_sha256"),
    ],
)
def test_policy_json_is_validated_strictly(tmp_path, edit, message):
    d = _copy(tmp_path)
    _edit(d, edit)
    with pytest.raises(ValueError, match=message):
        read_policy(d)


def _rewrite_npz(d: Path, arrays: dict, allow_pickle: bool = False) -> None:
    np.savez(d / "policy.npz", allow_pickle=allow_pickle, **arrays)
    sha = hashlib.sha256((d / "policy.npz").read_bytes()).hexdigest()
    _edit(d, _set(["weights_sha256"], sha))


def test_policy_npz_is_read_without_pickles_and_checked_against_the_json(tmp_path):
    d = _copy(tmp_path)
    arrays = dict(read_policy(d).arrays)
    evil = dict(arrays, **{"pi.0.bias": np.array([print], dtype=object)})
    _rewrite_npz(d, evil, allow_pickle=True)
    with pytest.raises(ValueError, match="unreadable without pickles"):
        read_policy(d)
    _rewrite_npz(d, dict(arrays, extra=np.zeros(3, np.float32)))
    with pytest.raises(ValueError, match=r"unexpected \['extra'\]"):
        read_policy(d)
    _rewrite_npz(d, {k: v for k, v in arrays.items() if k != "vf.2.bias"})
    with pytest.raises(ValueError, match=r"missing \['vf.2.bias'\]"):
        read_policy(d)
    _rewrite_npz(d, dict(arrays, **{"pi.2.bias": arrays["pi.2.bias"].astype(np.float64)}))
    with pytest.raises(ValueError, match="'pi.2.bias' must be float32"):
        read_policy(d)
    nan = arrays["pi.2.bias"].copy()
    nan[0] = np.nan
    _rewrite_npz(d, dict(arrays, **{"pi.2.bias": nan}))
    with pytest.raises(ValueError, match="NaN or infinite"):
        read_policy(d)
    (d / "policy.npz").unlink()
    with pytest.raises(ValueError, match="weights .* are missing"):
        read_policy(d)
    (d / "policy.json").write_text("{not json")
    with pytest.raises(ValueError, match="not valid JSON"):
        read_policy(d)


def test_write_read_round_trip_is_exact_and_reproducible(tmp_path):
    src = read_policy(MODELS / "ppo_kakeya")
    write_policy(src, tmp_path / "a")
    write_policy(read_policy(tmp_path / "a"), tmp_path / "b")
    assert (tmp_path / "a" / "policy.npz").read_bytes() == (MODELS / "ppo_kakeya" / "policy.npz").read_bytes()
    assert (tmp_path / "b" / "policy.json").read_text() == (MODELS / "ppo_kakeya" / "policy.json").read_text()
    again = read_policy(tmp_path / "b")
    assert all(np.array_equal(again.arrays[k], v) for k, v in src.arrays.items())
    assert again.record() == src.record()
    for path in (tmp_path / "b", tmp_path / "b" / "policy.json", tmp_path / "b" / "policy.npz"):
        assert load_policy_agent(path).policy.record() == src.record()


def test_a_model_that_does_not_fit_the_table_is_refused_at_load_time():
    with pytest.raises(ValueError, match="model 'ppo_kakeya' does not fit") as e:
        make_agent("kakeya", "ppo_kakeya", 0, num_players=6)
    msg = str(e.value)
    assert "trained for kakeya, role partnership, 4 players" in msg and "6 players" in msg
    assert "players 4 != 6" in msg and "observation size 446 != 582" in msg
    with pytest.raises(ValueError, match="trained for kakeya.*game kakeya != oicho_kabu"):
        make_agent("oicho_kabu", "ppo_kakeya", 0)
    with pytest.raises(ValueError, match="trained for oicho_kabu, role bettor.*role bettor != dealer"):
        make_agent("oicho_kabu", "ppo_oicho_bettor", 0, role="dealer")
    with pytest.raises(ValueError, match="trained for oicho_kabu, role dealer.*role dealer != bettor"):
        load_policy_agent(
            "ppo_oicho_dealer", models_dir=MODELS, expect={"game": "oicho_kabu", "role": "bettor"}
        )
    with pytest.raises(ValueError, match="observation size 230 != 234; actions 13 != 14"):
        load_policy_agent(MODELS / "ppo_oicho_bettor", expect={"obs_size": 234, "num_actions": 14})
    # the evaluation passes the role it evaluates
    from kabu_envs.eval.tournament import matchup_record

    with pytest.raises(ValueError, match="role bettor != dealer"):
        matchup_record("oicho_kabu", "ppo_oicho_bettor", "random", "dealer", deals=2)
    # fitting uses: other rule options with the same table are allowed
    agent = make_agent("oicho_kabu", "ppo_oicho_bettor", 0, role="bettor", rules="kansai")
    assert agent.name == "ppo_oicho_bettor"
    load_policy_agent("ppo_kakeya", models_dir=MODELS, expect={"game": "kakeya", "env_options": {}})


def _view(game: str, role: str, **opts):
    from kabu_envs.wrappers.views import make_view

    return make_view(game, role=role, opponents=["scripted", "random"], seed=0, **opts)


def _observations(game: str, role: str, policy, n: int) -> tuple[np.ndarray, np.ndarray]:
    """``n`` real decisions of the model's seat(s) at its table: half played by the model, half random."""
    return decisions(_view(game, role, **policy.trained_for["env_options"]), n, 5, policy)


@pytest.mark.parametrize("name", sorted(SHIPPED))
def test_numpy_play_equals_maskable_ppo_predict_on_real_observations(name):
    torch = pytest.importorskip("torch")
    from sb3_contrib import MaskablePPO

    from kabu_envs.agents.policy_file import load_into_sb3

    torch.set_num_threads(1)
    game, role = SHIPPED[name]
    opts = read_policy(MODELS / name).trained_for["env_options"]
    agent = make_agent(game, name, 0, role=role, **opts)
    policy = agent.policy
    obs, masks = _observations(game, role, policy, 3000)
    # the torch reference: a MaskablePPO of this architecture holding these weights (on the
    # observation and its policy features, when the model has them)
    view = env = _view(game, role, **opts)
    if policy.features is not None:
        from stable_baselines3.common.vec_env import DummyVecEnv

        from kabu_envs.agents.features import FeatureInputs
        from kabu_envs.training.batch_vec_env import VecFeatures

        env = VecFeatures(DummyVecEnv([lambda: view]), FeatureInputs(game, policy.features, opts))
    model = MaskablePPO("MlpPolicy", env, device="cpu", policy_kwargs=sb3_policy_kwargs(policy))
    load_into_sb3(policy, model.policy)
    inputs = policy.inputs(obs)  # the observations, the features appended if any
    want, _ = model.predict(inputs, action_masks=masks, deterministic=True)
    got = np.array([agent.act(o, m.astype(np.int8)) for o, m in zip(obs, masks, strict=True)])
    assert (masks.sum(1) > 1).sum() > 900  # real decisions, not forced moves
    assert np.array_equal(got, want), np.flatnonzero(got != want)[:10]
    single = [
        int(model.predict(o, action_masks=m, deterministic=True)[0])
        for o, m in zip(inputs[:300], masks[:300], strict=True)
    ]
    assert got[:300].tolist() == single
    # the stochastic policy: the same masked distribution as sb3-contrib's
    with torch.no_grad():
        dist = model.policy.get_distribution(torch.as_tensor(inputs[:500]), action_masks=masks[:500])
        p_torch = dist.distribution.probs.numpy()
    p_np = np.stack([agent.action_probs(o, m) for o, m in zip(obs[:500], masks[:500], strict=True)])
    assert np.abs(p_np - p_torch).max() < 1e-5
    assert (p_np[~masks[:500]] == 0).all()


def test_stochastic_play_is_seeded_legal_and_follows_the_policy():
    a = make_agent("kakeya", "ppo_kakeya", 7)
    from kabu_envs.agents.ppo_agent import PPOAgent

    b = PPOAgent(path=MODELS / "ppo_kakeya", deterministic=False, seed=7)
    c = PPOAgent(path=MODELS / "ppo_kakeya", deterministic=False, seed=7)
    policy = a.policy
    obs, masks = _observations("kakeya", "partnership", policy, 200)
    for o, m in zip(obs, masks, strict=True):
        x, y = b.act(o, m.astype(np.int8)), c.act(o, m.astype(np.int8))
        assert x == y and m[x]
    # one decision sampled many times follows the masked probabilities
    i = int(np.argmax([np.sort(b.action_probs(o, m))[-2] for o, m in zip(obs, masks, strict=True)]))
    p = b.action_probs(obs[i], masks[i])
    counts = np.bincount([b.act(obs[i], masks[i].astype(np.int8)) for _ in range(4000)], minlength=p.size)
    assert np.abs(counts / 4000 - p).max() < 0.03


TORCH_FREE = """
import importlib.abc, sys
BLOCKED = {"torch", "stable_baselines3", "sb3_contrib"}
class Block(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in BLOCKED:
            raise ImportError(f"{name} is blocked in this test")
sys.meta_path.insert(0, Block())
from kabu_envs.agents.registry import make_agent
from kabu_envs.eval.games import matchup
MODELS = (
    ("oicho_kabu", "ppo_oicho_bettor", "bettor"),
    ("oicho_kabu", "ppo_oicho_dealer", "dealer"),
    ("kakeya", "ppo_kakeya", "partnership"),
)
for game, name, role in MODELS:
    agent = make_agent(game, name, 0, role=role)
    other = make_agent(game, "scripted", 1)
    assert matchup(game, agent, other, role, deals=3, seed=0).summary().n == 3
from kabu_envs.eval.__main__ import main
main(["--game", "kakeya", "--agents", "ppo_kakeya", "--opponents", "random", "--deals", "2"])
assert not BLOCKED & set(sys.modules), BLOCKED & set(sys.modules)
print("ok")
"""


def test_shipped_models_play_and_evaluate_without_torch():
    out = subprocess.run(
        [sys.executable, "-c", TORCH_FREE], cwd=REPO_ROOT, capture_output=True, text=True, timeout=300
    )
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.strip().endswith("ok")


def test_a_model_folder_of_any_name_is_an_agent_name(tmp_path, monkeypatch):
    """A model is found by its folder's name, not by a ``ppo`` prefix (the expert-iteration clone ships as
    ``ei_kakeya``): listed, recognised, loaded; a name with no folder is still an unknown agent."""
    from kabu_envs.agents.registry import is_model_name

    models = tmp_path / "models"
    write_policy(read_policy(MODELS / "ppo_oicho_dealer"), models / "clone_dealer")
    monkeypatch.setenv("KABU_MODELS_DIR", str(models))
    assert shipped_models() == ["clone_dealer"] and is_model_name("clone_dealer")
    assert not is_model_name("expert") and not is_model_name("clone_bettor")
    agent = make_agent("oicho_kabu", "clone_dealer", 0, role="dealer")
    assert agent.name == "clone_dealer"
    with pytest.raises(ValueError, match=r"unknown agent 'clone_bettor'.*\['clone_dealer'\]"):
        make_agent("oicho_kabu", "clone_bettor", 0)
