"""The Kakeya expert with network play-outs (``expert_net``, kabu_envs/kakeya/agents/net_expert.py) and
its kernel part (kabu_envs/kakeya/kernel/netplay.py): the network's inputs and choice against a plain
Python/numpy reading of the same row, its own-view-only inputs, legality, determinism, the shipped
weights."""

from __future__ import annotations

import copy
import importlib.util
import json
import shutil
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from kabu_envs import kakeya_v2
from kabu_envs.agents.registry import make_agent
from kabu_envs.kakeya import make_config
from kabu_envs.kakeya.agents.kernel_expert import KakeyaKernelExpertAgent
from kabu_envs.kakeya.agents.net_expert import NET_PARAMS, KakeyaNetExpertAgent, load_net, net_folder
from kabu_envs.kakeya.agents.search import Search
from kabu_envs.kakeya.cards import NUM_CARDS, NUM_RANKS, bits_to_cards
from kabu_envs.kakeya.game import Phase
from kabu_envs.kakeya.kernel import netplay

_spec = importlib.util.spec_from_file_location(
    "kakeya_expert_tests", Path(__file__).parent / "test_kakeya_expert.py"
)
assert _spec is not None and _spec.loader is not None
_base = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_base)  # the game helpers of the expert's tests
game_states, true_position, search_for = _base.game_states, _base.true_position, _base.search_for

TABLES = [{}, {"num_players": 6}, {"num_players": 6, "six_player_mode": "dealers_sit_out"}]
TABLE_IDS = ["4p", "6p-all-play", "6p-sit-out"]
SHIPPED = NET_PARAMS["net"]
EGARA = [c for c in range(NUM_CARDS) if c % NUM_RANKS >= NUM_RANKS - 4]


@pytest.fixture(scope="module")
def net():
    return load_net(SHIPPED)[0]


def reference_features(search: Search, b: int) -> list[int]:
    """The inputs of the seat to play in row ``b``, read in plain Python from the row's arrays (the
    kernel's ``features`` must find the same set)."""
    st, n = search.state, search.n
    P = n // 2
    seat = int(st.current_player[b])
    g = st.g[b]
    spec = search._k.spec
    out = [netplay.F_HAND + c for c in bits_to_cards(int(st.hands[b, seat]))]
    trick = {s: int(st.t_card[b, s]) for s in range(n) if st.t_card[b, s] >= 0}
    gone = int(st.played[b]) & ~sum(1 << c for c in trick.values())
    out += [netplay.F_GONE + c for c in bits_to_cards(gone)]
    for s, c in trick.items():
        out.append((netplay.F_TRICK_PARTNER if s % P == seat % P else netplay.F_TRICK_OPP) + c)
    if trick:
        led, trump, rensho = int(g[spec.T_LED]), int(g[spec.TRUMP]), int(g[spec.RENSHO])

        def rank(c: int) -> tuple[int, int, int]:
            return (c == rensho, c // NUM_RANKS == trump, c // NUM_RANKS == led and c % NUM_RANKS)

        w = max(trick, key=lambda s: rank(trick[s]))
        out.append(netplay.F_WINNING + trick[w])
        if w % P == seat % P:
            out.append(netplay.F_WIN_PARTNER)
        out.append(netplay.F_LED + led)
    out += [netplay.F_TRUMP + int(g[spec.TRUMP]), netplay.F_RENSHO + int(g[spec.RENSHO])]
    out.append(netplay.F_POS + len(trick))
    if len(trick) == g[spec.T_LEN] - 1:
        out.append(netplay.F_LAST)
    for j in range(1, n):
        v = int(st.voids[b, (seat + j) % n])
        out += [netplay.F_VOIDS + 4 * (j - 1) + s for s in range(4) if v >> s & 1]
    egara = [sum(1 for c in EGARA if int(st.captured[b, p]) >> c & 1) for p in range(P)]
    out.append(netplay.F_MY_EGARA + egara[seat % P])
    out.append(netplay.F_OPP_EGARA + max(e for p, e in enumerate(egara) if p != seat % P))
    if n == 6:
        out.append(netplay.F_SIX)
    return sorted(out)


def kernel_features(search: Search, b: int) -> list[int]:
    idx = np.zeros(netplay.MAX_ACTIVE, dtype=np.int64)
    k = netplay.features_row(b, int(search.state.current_player[b]), search.st, search.opts, idx)
    return sorted(int(i) for i in idx[:k])


def reference_logits(net, inputs: list[int]) -> np.ndarray:
    """The numpy forward pass: dense 0/1 inputs, ReLU hidden layer, one logit per card (float64)."""
    w1, b1, w2, b2 = (a.astype(np.float64) for a in net[:4])
    x = np.zeros(netplay.NUM_FEATURES)
    x[inputs] = 1.0
    return np.maximum(x @ w1 + b1, 0.0) @ w2.T + b2


def play_positions(opts: dict, games: int, seed: int):
    """(game, search) with the true position of the seat to play loaded in row 0 (relative seats), at
    every card decision of random games."""
    for game, _ in game_states(opts, games, seed=seed):
        if game.phase is not Phase.PLAY:
            continue
        search, deal = search_for(game)
        search.load(0, true_position(game), deal)
        yield game, search


@pytest.mark.parametrize("opts", TABLES, ids=TABLE_IDS)
def test_kernel_inputs_and_choice_equal_a_numpy_reference_and_are_legal(opts, net):
    seen = complement = 0
    for game, search in play_positions(opts, 3, seed=600):
        inputs = kernel_features(search, 0)
        assert inputs == reference_features(search, 0)
        choice = int(netplay.choice_row(0, search.st, search.opts, net))
        legal = [a for a in game.legal_actions() if a < NUM_CARDS]
        assert choice in legal
        if len(legal) > 1:
            z = reference_logits(net, inputs)[legal]
            top = np.sort(z)[::-1]
            if top[0] - top[1] > 1e-4:  # (float32 sums in another order: only clear maxima compared)
                assert choice == legal[int(np.argmax(z))]
                seen += 1
            complement += int(game.played).bit_count() > 26
    assert seen > 50 and complement > 5  # both ways of adding the gone cards' rows were used


@pytest.mark.parametrize("opts", TABLES, ids=TABLE_IDS)
def test_the_network_reads_only_its_own_view(opts, net):
    """Other seats' hands changed (cards swapped between two of them): the same inputs and choice."""
    swapped = 0
    for _, search in play_positions(opts, 3, seed=700):
        st, n = search.state, search.n
        holding = [s for s in range(1, n) if st.hands[0, s]]  # (a seat sitting out holds nothing)
        if len(holding) < 2:
            continue
        a, b = holding[0], holding[-1]
        before = (kernel_features(search, 0), int(netplay.choice_row(0, search.st, search.opts, net)))
        ca, cb = bits_to_cards(int(st.hands[0, a]))[0], bits_to_cards(int(st.hands[0, b]))[-1]
        flip = np.uint64((1 << ca) | (1 << cb))
        st.hands[0, a] ^= flip
        st.hands[0, b] ^= flip
        after = (kernel_features(search, 0), int(netplay.choice_row(0, search.st, search.opts, net)))
        assert before == after
        swapped += 1
    assert swapped > 30


def engine_playout(game, search, deal, net, plies: int) -> tuple[float, float]:
    """A play-out of the seat to play's true position (``deal``'s facts; the network for ``plies`` cards,
    then the rules of thumb) on the search's row, and the same cards played one by one by the scalar
    engine (each legal there): (the row's value, the engine's reward for that seat)."""
    root = game.current_player
    search.load(0, true_position(game), deal)
    value = float(
        netplay.playout_row(0, search.rmin, plies, search.st, search.opts, search.rewards, search.over, net)
    )
    g, k = copy.deepcopy(game), 0
    g.pop_rewards()
    while g.phase is Phase.PLAY:
        search.load(0, true_position(g, root), deal)
        if k < plies:
            card = int(netplay.choice_row(0, search.st, search.opts, net))
        else:
            card = int(search._k.search.policy_row(0, search.rmin, search.st, search.opts))
        assert card in g.legal_actions()
        g.apply_action(card)
        k += 1
    return value, g.pop_rewards()[root]


@pytest.mark.parametrize("opts", TABLES, ids=TABLE_IDS)
def test_a_net_playout_is_the_engine_playing_the_net_choices(opts, net):
    """A play-out ends the deal with the value the scalar engine pays when the same cards are played one
    by one, every table (at six players all playing, the deal's ``tie_base`` is the seat's absolute
    partnership: the odd shared stone of two losers tied on egara is the lower absolute partnership's)."""
    checked = 0
    for game, search in play_positions(opts, 2, seed=800):
        if game.hand_counts[game.current_player] != 7:
            continue
        m = game.num_players // 2
        deal = replace(search_for(game)[1], tie_base=game.current_player % m)
        for plies in (0, 5, 52):
            value, reward = engine_playout(game, search, deal, net, plies)
            assert value == reward
            checked += 1
    assert checked >= 6


def test_expert_scores_tied_losers_as_the_engine_and_expert_0_3_as_it_did():
    """Six players, all play: when the two losing partnerships tie on egara, the engine gives the odd
    stone to the lower absolute partnership. ``expert``'s search (``tie_rule="absolute"``) scores every
    play-out as the engine; ``expert_0_3``'s pinned rule (``"relative"``, the lower partnership counted
    from the deciding seat) is 0.3's and scores some of them otherwise."""
    opts = TABLES[1]
    agents = {name: make_agent("kakeya", name, seed=0, **opts) for name in ("expert", "expert_0_3")}
    assert agents["expert"].params["tie_rule"] == "absolute"
    assert agents["expert_0_3"].params["tie_rule"] == "relative"
    wrong = {name: 0 for name in agents}
    checked = 0
    for game, enc in game_states(opts, 60, seed=810):
        if game.phase is not Phase.PLAY or game.hand_counts[game.current_player] != 3:
            continue
        search = search_for(game)[0]
        for name, agent in agents.items():
            view = agent.decoder.decode(enc.encode(game, game.current_player))
            value, reward = engine_playout(game, search, agent._deal(view, view.trump), netplay.empty(), 0)
            wrong[name] += value != reward
        checked += 1
    assert checked > 200
    assert wrong["expert"] == 0
    assert wrong["expert_0_3"] > 0  # (the old rule: the test above fails with it)


def play_games(opts: dict, games: int, params: dict, seed: int = 0) -> list[int]:
    """``expert_net`` partnership 0 vs ``expert`` seats; the expert_net's actions in order (each legal)."""
    actions = []
    for g in range(games):
        env = kakeya_v2.env(**opts)
        env.reset(seed=seed + g)
        n = len(env.possible_agents)
        agents = [
            KakeyaNetExpertAgent(seed=seed + g, **opts, **params)
            if s % (n // 2) == 0
            else KakeyaKernelExpertAgent(seed=seed + g, **opts, samples=8, min_samples=4)
            for s in range(n)
        ]
        for name in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            seat = int(name.split("_")[1])
            action = agents[seat].act(obs["observation"], obs["action_mask"])
            assert obs["action_mask"][action] == 1
            if seat % (n // 2) == 0:
                actions.append(action)
            env.step(action)
    return actions


@pytest.mark.parametrize("opts", TABLES[:2], ids=TABLE_IDS[:2])
def test_expert_net_plays_legal_moves_deterministically_per_seed(opts):
    params = {"samples": 8, "min_samples": 4, "lead_samples": 4, "trump_samples": 2}
    first = play_games(opts, 2, params)
    assert first == play_games(opts, 2, params)
    assert first != play_games(opts, 2, params, seed=50)


def test_with_no_network_plies_it_is_the_expert_bit_for_bit():
    """``net_plies=0``: the network never plays, and the decision is the kernel expert's (the same
    sampler draws, race and values): the network's decision function adds nothing else."""
    checked = 0
    for game, enc in game_states({}, 3, seed=900):
        if game.phase is not Phase.PLAY:
            continue
        obs, mask = enc.encode_with_mask(game, game.current_player, game.legal_bits())
        a = KakeyaNetExpertAgent(seed=4, net_plies=0, samples=24)
        b = KakeyaKernelExpertAgent(seed=4, samples=24)
        assert a.act(obs, mask) == b.act(obs, mask)
        assert a._values == b._values
        checked += 1
    assert checked > 60


def test_expert_net_decides_from_its_observation_only(kakeya_testlib):
    """Unseen cards swapped between two other seats mid-deal (``kakeya_testlib.swapped_unseen``): the
    observation is unchanged and so is the decision, for every seed."""
    for obs, mask, obs2, mask2 in kakeya_testlib.swapped_unseen():
        for s in range(3):
            params = {"samples": 8, "min_samples": 4}
            assert KakeyaNetExpertAgent(seed=s, **params).act(obs, mask) == KakeyaNetExpertAgent(
                seed=s, **params
            ).act(obs2, mask2)


def test_it_checks_its_parameters_and_saves(tmp_path):
    agent = KakeyaNetExpertAgent(seed=1, samples=32)
    assert agent.params["samples"] == 32 and agent.params["net_plies"] == NET_PARAMS["net_plies"]
    with pytest.raises(ValueError, match="net_plies must be an int >= 0"):
        KakeyaNetExpertAgent(net_plies=-1)
    with pytest.raises(ValueError, match=r"tie_rule must be one of \('absolute', 'relative'\), got 'lower'"):
        KakeyaNetExpertAgent(tie_rule="lower")
    with pytest.raises(ValueError, match=r"no play-out network 'nonesuch'.*shipped: \['playout_kakeya'"):
        KakeyaNetExpertAgent(net="nonesuch")
    path = tmp_path / "agent.json"
    agent.save(path)
    again = type(agent).load(path, seed=1)
    assert isinstance(again, KakeyaNetExpertAgent) and again.params == agent.params


def test_the_weights_load_without_pickle_and_are_checked(tmp_path):
    d = tmp_path / "net"
    shutil.copytree(net_folder(SHIPPED), d)
    arrays, record = load_net(str(d))
    assert arrays[0].shape == (netplay.NUM_FEATURES, record["architecture"]["hidden"])
    # an object array (what only pickle can hold) is refused by the loader
    with np.load(d / "playout.npz") as f:
        parts = {k: f[k] for k in f.files}
    np.savez(d / "playout.npz", **{**parts, "w1": np.array([{"x": 1}], dtype=object)})
    rec = json.loads((d / "playout.json").read_text())
    import hashlib

    rec["weights_sha256"] = hashlib.sha256((d / "playout.npz").read_bytes()).hexdigest()
    (d / "playout.json").write_text(json.dumps(rec))
    with pytest.raises(ValueError, match="allow_pickle"):
        load_net(str(d))
    # weights that are not the record's
    np.savez(d / "playout.npz", **parts)
    with pytest.raises(ValueError, match="SHA-256 is not the record's"):
        load_net(str(d))


def test_the_shipped_network_records_its_training_and_provenance():
    rec = load_net(SHIPPED)[1]
    t = rec["training"]
    assert {"hidden", "epochs", "lr", "batch", "seed"} <= set(t["config"])
    assert t["data"] and all(
        {"teacher", "num_players", "deals", "seed", "file_sha256"} <= set(d) for d in t["data"]
    )
    assert sorted(t["provenance"]) == [str(n) for n in rec["trained_for"]["num_players"]]
    for n, prov in t["provenance"].items():
        assert prov["env_id"] == "kabu_envs/Kakeya-v2" and prov["rule_options"]["num_players"] == int(n)
        assert prov["package_version"] and prov["git_commit"]
    assert make_config(num_players=4).num_players == 4


def test_the_strength_curve_measures_it_against_expert_0_3_in_chunks(capsys):
    """``benchmarks/strength_curve.py --agent net --reference expert_0_3 --chunks 2``: one cumulative
    row per chunk, the last over every deal."""
    spec = importlib.util.spec_from_file_location(
        "strength_curve", Path(__file__).parents[2] / "benchmarks" / "strength_curve.py"
    )
    assert spec is not None and spec.loader is not None
    curve = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(curve)
    args = ["--agent", "net", "--reference", "expert_0_3", "--deals", "3", "--chunks", "2"]
    assert curve.main([*args, "--option", "samples=4", "--option", "min_samples=2", "--seed", "5"]) == 0
    rows = [r for r in capsys.readouterr().out.splitlines() if r.startswith("| 4p | net")]
    assert len(rows) == 2 and "vs expert_0_3" in rows[0]
    assert [int(r.split("|")[3]) for r in rows] == [2, 3]


FIXTURE = Path(__file__).parent / "data" / "kakeya_net_expert.npz"


def test_the_network_search_makes_the_recorded_decisions_with_the_recorded_values():
    """The decisions recorded before the network's play-outs moved into the expert's one card-decision
    kernel (tests/agents/make_net_expert_fixture.py): the same actions and action values, exactly
    (with the six-player tie rule of then, ``tie_rule="relative"``)."""
    with np.load(FIXTURE, allow_pickle=False) as f:
        data = {k: f[k] for k in f.files}
    cases, params = json.loads(str(data["cases"])), json.loads(str(data["params"]))
    params.setdefault("tie_rule", "relative")  # (recorded before the option: the old rule)
    checked = valued = 0
    for ci, (opts, single) in enumerate(cases):
        for i in range(single):
            agent = KakeyaNetExpertAgent(seed=int(data[f"seed{ci}"][i]), **opts, **params)
            action, values = agent.act_with_values(data[f"obs{ci}"][i], data[f"mask{ci}"][i])
            assert action == data[f"action{ci}"][i], (opts, i)
            np.testing.assert_array_equal(values, data[f"values{ci}"][i], err_msg=f"{opts} decision {i}")
            checked += 1
            valued += bool(np.isfinite(values).any())
    assert checked == 118 and valued > 100


def _batch_rows(seed: int = 901, count: int = 16) -> tuple[np.ndarray, np.ndarray]:
    rows = [
        enc.encode_with_mask(game, game.current_player, game.legal_bits())
        for game, enc in game_states({}, 2, seed=seed)
        if game.phase is Phase.PLAY
    ][:count]
    return np.stack([o for o, _ in rows]), np.stack([m for _, m in rows])


def test_its_batched_decisions_are_its_own_for_any_number_of_workspaces(monkeypatch):
    """``act_batch`` with several threads runs the rows' network searches at once
    (``decide.decide_rows``, the network's scratch per workspace): the actions of row by row, for 1-3
    workspaces; and not the rules-of-thumb search's."""
    from kabu_envs.core import threads

    obs, masks = _batch_rows()
    params = {"samples": 24, "min_samples": 8}
    one = KakeyaNetExpertAgent(seed=7, **params)
    reference = [one.act(o, m) for o, m in zip(obs, masks, strict=True)]
    called: list[int] = []
    original = KakeyaNetExpertAgent.batch_search.fget
    monkeypatch.setattr(
        KakeyaNetExpertAgent, "batch_search", property(lambda self: called.append(1) or original(self))
    )
    for workspaces in (1, 2, 3):
        monkeypatch.setattr(threads, "threads", lambda w=workspaces: w)
        batched = KakeyaNetExpertAgent(seed=7, **params).act_batch(obs, masks)
        assert list(batched) == reference, workspaces
    assert called  # (the batched path was taken)
    expert = KakeyaKernelExpertAgent(seed=7, **params).act_batch(obs, masks)
    assert list(batched) != list(expert)  # (the network's play-outs decide differently somewhere)


_THREADS = """
import sys

import numba
import numpy as np

from kabu_envs.kakeya.agents.net_expert import KakeyaNetExpertAgent
from tests.agents.test_kakeya_net_expert import _batch_rows

obs, masks = _batch_rows(seed=902, count=40)
agent = KakeyaNetExpertAgent(seed=3, samples=24, min_samples=8)
print("threads", numba.get_num_threads(), "parallel", agent._parallel_threads())
print(list(agent.act_batch(obs, masks)))
"""


@pytest.mark.skipif(
    importlib.util.find_spec("numba") is None or __import__("os").environ.get("NUMBA_DISABLE_JIT") == "1",
    reason="plain Python: no threads",
)
def test_one_and_two_threads_give_the_same_batched_actions():
    """Fresh processes with ``NUMBA_NUM_THREADS`` 1 and 2 (numba reads it once): the batched network
    search (rows on two threads) acts as the serial one, row by row."""
    import os
    import subprocess
    import sys

    root = Path(__file__).resolve().parents[2]
    out = []
    for n in (1, 2):
        env = {**os.environ, "NUMBA_NUM_THREADS": str(n), "PYTHONPATH": str(root), "OMP_NUM_THREADS": "1"}
        done = subprocess.run(
            [sys.executable, "-c", _THREADS], env=env, capture_output=True, text=True, cwd=root, timeout=1500
        )
        assert done.returncode == 0, done.stderr[-3000:]
        out.append(done.stdout.splitlines())
    assert out[0][0] == "threads 1 parallel False" and out[1][0] == "threads 2 parallel True"
    assert out[0][1] == out[1][1]
