"""Loading a model or an agent file never runs code from it.

A Stable-Baselines3 zip whose ``data`` entry carries a pickle payload (as SB3 stores ``lr_schedule``
and other objects) is refused by every entry point that loads models, and the converter reads only
its weights; ``BaseAgent.load`` builds only allow-listed classes.
"""

import base64
import io
import json
import pickle
import zipfile
from pathlib import Path

import numpy as np
import pytest

from kabu_envs.agents.base import LOADABLE, BaseAgent, RandomAgent
from kabu_envs.agents.ppo_agent import PPOAgent, load_policy_agent
from kabu_envs.agents.registry import make_agent

torch = pytest.importorskip("torch")
torch.set_num_threads(1)


class _Payload:
    """Unpickling this creates ``path`` (what a malicious model would do, harmlessly)."""

    def __init__(self, path: Path) -> None:
        self.path = str(path)

    def __reduce__(self):
        return (exec, (f"open({self.path!r}, 'w').close()",))


def _toy_model():
    from sb3_contrib import MaskablePPO

    from kabu_envs.wrappers.views import make_view

    env = make_view("toy_card", seats=[0], opponents="random", num_players=2)
    return MaskablePPO("MlpPolicy", env, seed=0, device="cpu", policy_kwargs={"net_arch": [16]}), env


def _malicious_zip(tmp_path: Path, marker: Path) -> tuple[Path, object]:
    """An SB3 zip of a real toy model whose ``data`` carries the payload in ``lr_schedule``."""
    model, env = _toy_model()
    clean = tmp_path / "clean.zip"
    model.save(str(clean))
    evil = tmp_path / "evil" / "model.zip"
    evil.parent.mkdir()
    with zipfile.ZipFile(clean) as src, zipfile.ZipFile(evil, "w") as dst:
        for item in src.infolist():
            raw = src.read(item.filename)
            if item.filename == "data":
                data = json.loads(raw)
                blob = base64.b64encode(pickle.dumps(_Payload(marker))).decode()
                data["lr_schedule"] = {":type:": "<class 'function'>", ":serialized:": blob}
                raw = json.dumps(data).encode()
            dst.writestr(item, raw)
    return evil, model


@pytest.fixture
def evil(tmp_path):
    marker = tmp_path / "PWNED"
    path, model = _malicious_zip(tmp_path, marker)
    # the payload is live: SB3's own loader runs it (what every entry point used to do)
    from stable_baselines3.common.save_util import load_from_zip_file

    load_from_zip_file(str(path), device="cpu")
    assert marker.exists()
    marker.unlink()
    return path, marker, model


def test_every_loading_entry_point_refuses_the_zip_without_running_it(evil, tmp_path, monkeypatch):
    path, marker, _ = evil
    attempts = [
        lambda: make_agent("toy_card", str(path), 0),
        lambda: make_agent("toy_card", str(path.parent), 0),  # a model directory holding the zip
        lambda: PPOAgent(path=path),
        lambda: PPOAgent.load(path),
        lambda: load_policy_agent(path),
    ]
    for attempt in attempts:
        with pytest.raises(ValueError, match="Stable-Baselines3 model zip.*pickle.*training.export"):
            attempt()
        assert not marker.exists()
    # a shipped-model name through $KABU_MODELS_DIR, as an agent and as a training opponent
    models = tmp_path / "models" / "ppo_evil"
    models.mkdir(parents=True)
    (models / "model.zip").write_bytes(path.read_bytes())
    monkeypatch.setenv("KABU_MODELS_DIR", str(tmp_path / "models"))
    with pytest.raises(ValueError, match="Stable-Baselines3 model zip"):
        make_agent("toy_card", "ppo_evil", 0)
    from kabu_envs.training.config import load_config
    from kabu_envs.training.run import build_pool, train

    with pytest.raises(ValueError, match="Stable-Baselines3 model zip"):
        build_pool(load_config("ppo_toy_card", opponents={"ppo_evil": 1.0}), 0)
    # training's init_from
    cfg = load_config("ppo_toy_card", timesteps=64, eval_deals=0, init_from=str(path))
    with pytest.raises(ValueError, match="Stable-Baselines3 model zip"):
        train(cfg, out=tmp_path / "out", progress_bar=False)
    assert not marker.exists()


def test_converter_reads_only_the_weights(evil, tmp_path):
    from kabu_envs.training.export import main

    path, marker, model = evil
    out = tmp_path / "converted"
    assert main([str(path), str(out), "--game", "toy_card", "--role", "seat"]) == 0
    assert not marker.exists()
    agent = make_agent("toy_card", str(out), 0, role="seat")
    rec = json.loads((out / "policy.json").read_text())
    assert rec["trained_for"] == {"game": "toy_card", "role": "seat", "num_players": 2, "env_options": {}}
    assert rec["training"]["converted_from"]["file"] == "model.zip"
    rng = np.random.default_rng(0)
    for _ in range(200):
        obs = rng.random(18).astype(np.float32)
        mask = np.array([1, 1, rng.random() < 0.5], dtype=bool)
        want = int(model.predict(obs, action_masks=mask, deterministic=True)[0])
        assert agent.act(obs, mask.astype(np.int8)) == want


def test_converter_refuses_a_pickle_in_the_weights_and_bad_arguments(tmp_path):
    from kabu_envs.training.export import convert

    marker = tmp_path / "PWNED"
    buf = io.BytesIO()
    torch.save({"action_net.weight": _Payload(marker)}, buf)
    path = tmp_path / "model.zip"
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("policy.pth", buf.getvalue())
    with pytest.raises(ValueError, match="not plain weights"):
        convert(path, tmp_path / "out", "toy_card", "seat")
    assert not marker.exists()
    with pytest.raises(ValueError, match="no policy.pth"):
        bad = tmp_path / "bad.zip"
        with zipfile.ZipFile(bad, "w") as z:
            z.writestr("data", "{}")
        convert(bad, tmp_path / "out", "toy_card", "seat")
    model, _ = _toy_model()
    model.save(str(tmp_path / "toy.zip"))
    with pytest.raises(ValueError, match="Toy Card has no role 'dealer'"):
        convert(tmp_path / "toy.zip", tmp_path / "out", "toy_card", "dealer")
    with pytest.raises(ValueError, match="does not fit kakeya"):  # sizes of another game's table
        convert(tmp_path / "toy.zip", tmp_path / "out", "kakeya", "partnership")
    with pytest.raises(ValueError, match="--game and --role"):
        convert(tmp_path / "toy.zip", tmp_path / "out")


def test_base_agent_load_builds_only_allow_listed_classes(tmp_path, monkeypatch):
    marker = tmp_path / "PWNED"
    # a module shipped beside an agent file (the current directory is on sys.path under `python -m`)
    (tmp_path / "kabu_evil_agent_mod.py").write_text(
        f"open({str(marker)!r}, 'w').close()\nclass Agent: pass\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    for name, params in (
        ("kabu_evil_agent_mod.Agent", {}),
        ("os.system", {"command": f"touch {marker}"}),
        ("subprocess.Popen", {"args": ["touch", str(marker)]}),
        ("builtins.exec", {"source": f"open({str(marker)!r}, 'w').close()"}),
        (
            "kabu_envs.agents.ppo_agent.PPOAgent",
            {"path": "models/ppo_kakeya"},
        ),  # an agent class, not allow-listed
        ("kabu_envs.agents.base.BaseAgent", {}),
        (["os", "system"], {}),
    ):
        path = tmp_path / "agent.json"
        path.write_text(json.dumps({"class": name, "params": params}))
        with pytest.raises(ValueError, match="not an agent class that can be loaded"):
            BaseAgent.load(path)
        assert not marker.exists()
    path.write_text(json.dumps({"class": "kabu_envs.agents.base.RandomAgent", "params": ["x"]}))
    with pytest.raises(ValueError, match="params"):
        BaseAgent.load(path)
    path.write_text(json.dumps({"class": "kabu_envs.agents.base.RandomAgent", "params": {}, "module": "os"}))
    with pytest.raises(ValueError, match="keys 'class' and 'params'"):
        BaseAgent.load(path)
    # the allow-list: every hand-written agent, each loading back
    RandomAgent(seed=1).save(path)
    assert type(BaseAgent.load(path)) is RandomAgent
    from kabu_envs.kakeya.agents.scripted import KakeyaScriptedAgent
    from kabu_envs.oicho_kabu.agents.expert import OichoExpertAgent
    from kabu_envs.oicho_kabu.agents.scripted import OichoScriptedAgent

    for cls in (RandomAgent, KakeyaScriptedAgent, OichoScriptedAgent, OichoExpertAgent):
        assert LOADABLE[f"{cls.__module__}.{cls.__qualname__}"] is cls
    # a former name is the declaring class's alone, never a subclass's (which inherits the attribute)
    from kabu_envs.kakeya.agents.expert import KakeyaExpertAgent
    from kabu_envs.kakeya.agents.kernel_expert import KakeyaKernelExpertAgent  # noqa: F401 (registers)

    assert LOADABLE["kabu_envs.agents.kakeya_expert.KakeyaExpertAgent"] is KakeyaExpertAgent
