"""The Kakeya search's learned play-out policy (``kabu_envs/kakeya/kernel/netplay.py``), trained here.

Behaviour cloning of a strong player's card plays: games of the teacher at every seat
(``expert_0_3`` by default), and at each card decision with a choice the network's inputs, computed by
the kernel itself from the decision's template row (``netplay.features_row``: the seat's own view, the
same function the play-outs read), the legal cards and the card played. The network (sum of the active
inputs' rows, ReLU, one logit per card masked to the legal ones) is fitted by cross-entropy with torch
and written as ``playout.npz`` (plain arrays, no pickle) beside ``playout.json`` (the architecture,
the data, the resolved config, the seed and the provenance: env id, rule options, package version,
commit).

    python -m kabu_envs.training.netplay record --players 4 --deals 3000 --seed 1 --out data4.npz
    python -m kabu_envs.training.netplay fit data4.npz data6.npz --hidden 64 --seed 0 --out DIR
"""

from __future__ import annotations

import argparse
import hashlib
import json
import time
from pathlib import Path
from typing import Any

import numpy as np

from kabu_envs.kakeya.agents.kernel_expert import KakeyaKernelExpertAgent
from kabu_envs.kakeya.cards import NUM_CARDS
from kabu_envs.kakeya.knowledge import SeatView

FORMAT = "kabu-envs kakeya playout net"


def _teacher(
    name: str, seed: int, rule_options: dict[str, Any], sink: list[tuple[np.ndarray, int, int]]
) -> Any:
    """A teacher agent that appends (inputs, legal cards as a bit set, card) to ``sink`` at each card
    decision with more than one legal card."""
    from kabu_envs.agents.registry import make_agent
    from kabu_envs.kakeya.kernel import netplay

    base = type(make_agent("kakeya", name, seed=0, **rule_options))
    if not issubclass(base, KakeyaKernelExpertAgent):
        raise ValueError(f"the teacher must be a kernel expert (expert, expert_0_3), got {name!r}")
    idx = np.zeros(netplay.MAX_ACTIVE, dtype=np.int64)

    class Recording(base):  # type: ignore[valid-type, misc]
        def _choose_card(self, view: SeatView, legal: list[int]) -> int:
            card = int(super()._choose_card(view, legal))
            if len(legal) > 1:
                s = self.search  # the template row holds this decision's position (seat 0 = me)
                k = netplay.features_row(s.TEMPLATE, 0, s.st, s.opts, idx)
                mask = sum(1 << c for c in legal)
                sink.append((idx[:k].copy(), mask, card))
            return card

    return Recording(seed=seed, **rule_options)


def record(teacher: str, num_players: int, deals: int, seed: int) -> dict[str, np.ndarray]:
    """``deals`` one-deal matches of the teacher at every seat (seeded from ``seed``): the inputs (flat
    indices with row offsets), the legal cards (bit sets) and the cards played."""
    from kabu_envs import registry

    rule_options: dict[str, Any] = {"num_players": num_players}
    sink: list[tuple[np.ndarray, int, int]] = []
    seats = [_teacher(teacher, seed * 1000 + s, rule_options, sink) for s in range(num_players)]
    env = registry.get("kakeya").make_raw_env(**rule_options)
    rng = np.random.default_rng(seed)
    for _ in range(deals):
        env.reset(seed=int(rng.integers(2**31)))
        for name in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            seat = env.agents.index(name) if name in env.agents else env.possible_agents.index(name)
            env.step(int(seats[seat].act(obs["observation"], obs["action_mask"])))
    lengths = np.array([len(i) for i, _, _ in sink], dtype=np.int64)
    return {
        "indices": np.concatenate([i for i, _, _ in sink]).astype(np.int16),
        "offsets": np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64),
        "legal": np.array([m for _, m, _ in sink], dtype=np.uint64),
        "target": np.array([c for _, _, c in sink], dtype=np.int64),
    }


def _legal_matrix(legal: np.ndarray) -> np.ndarray:
    return ((legal[:, None] >> np.arange(NUM_CARDS, dtype=np.uint64)[None, :]) & np.uint64(1)).astype(bool)


def fit(
    data: dict[str, np.ndarray], hidden: int, epochs: int, seed: int, lr: float = 3e-3, batch: int = 512
) -> tuple[dict[str, np.ndarray], dict[str, float]]:
    """The network fitted to ``data`` (a tenth held out for the accuracy reported): its arrays and the
    held-out accuracy and cross-entropy."""
    import torch

    from kabu_envs.kakeya.kernel import netplay

    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    offsets, indices = data["offsets"], data["indices"].astype(np.int64)
    n = len(data["target"])
    legal = torch.from_numpy(_legal_matrix(data["legal"]))
    target = torch.from_numpy(data["target"])
    order = rng.permutation(n)
    held, train_rows = order[: n // 10], order[n // 10 :]
    lens = np.diff(offsets)
    pad = np.full((n, int(lens.max())), netplay.NUM_FEATURES, dtype=np.int64)  # (the padding row: zeros)
    pad[np.arange(n).repeat(lens), np.arange(len(indices)) - offsets[:-1].repeat(lens)] = indices
    inputs = torch.from_numpy(pad)
    emb = torch.nn.EmbeddingBag(
        netplay.NUM_FEATURES + 1, hidden, mode="sum", padding_idx=netplay.NUM_FEATURES
    )
    with torch.no_grad():
        torch.nn.init.normal_(emb.weight, std=0.5 / np.sqrt(30))
        emb.weight[netplay.NUM_FEATURES] = 0.0
    b1 = torch.nn.Parameter(torch.zeros(hidden))
    out = torch.nn.Linear(hidden, NUM_CARDS)
    params = [*emb.parameters(), b1, *out.parameters()]
    opt = torch.optim.Adam(params, lr=lr)

    def logits(rows: np.ndarray) -> torch.Tensor:
        h = torch.relu(emb(inputs[rows]) + b1)
        z = out(h)
        return z.masked_fill(~legal[rows], -1e9)

    steps = epochs * (len(train_rows) // batch)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, max(steps, 1))
    for _ in range(epochs):
        rng.shuffle(train_rows)
        for i in range(0, len(train_rows) - batch + 1, batch):
            rows = train_rows[i : i + batch]
            loss = torch.nn.functional.cross_entropy(logits(rows), target[rows])
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
    with torch.no_grad():
        z = logits(held)
        ce = float(torch.nn.functional.cross_entropy(z, target[held]))
        acc = float((z.argmax(1) == target[held]).float().mean())
    w1 = emb.weight.detach().numpy()[: netplay.NUM_FEATURES].astype(np.float32)
    arrays = {
        "w1": w1,
        "b1": b1.detach().numpy().astype(np.float32),
        "w2": out.weight.detach().numpy().astype(np.float32),  # (52, hidden): a card's logit row
        "b2": out.bias.detach().numpy().astype(np.float32),
    }
    return arrays, {"held_out_accuracy": round(acc, 4), "held_out_cross_entropy": round(ce, 4)}


def _merge(paths: list[Path]) -> tuple[dict[str, np.ndarray], list[dict[str, Any]]]:
    parts, sources = [], []
    for p in paths:
        with np.load(p, allow_pickle=False) as f:
            d = {k: f[k] for k in ("indices", "offsets", "legal", "target")}
            meta = json.loads(str(f["meta"]))
        parts.append(d)
        sources.append({**meta, "decisions": len(d["target"]), "file_sha256": _sha(p)})
    indices, offsets, base = [], [np.zeros(1, dtype=np.int64)], 0
    for d in parts:
        indices.append(d["indices"])
        offsets.append(d["offsets"][1:] + base)
        base += int(d["offsets"][-1])
    merged = {
        "indices": np.concatenate(indices),
        "offsets": np.concatenate(offsets),
        "legal": np.concatenate([d["legal"] for d in parts]),
        "target": np.concatenate([d["target"] for d in parts]),
    }
    return merged, sources


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def main(argv: list[str] | None = None) -> int:
    from kabu_envs.training.provenance import provenance

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("record", help="the teacher's card decisions with the network's inputs")
    r.add_argument("--teacher", default="expert_0_3")
    r.add_argument("--players", type=int, choices=(4, 6), default=4)
    r.add_argument("--deals", type=int, default=1000)
    r.add_argument("--seed", type=int, default=1)
    r.add_argument("--out", type=Path, required=True)
    f = sub.add_parser("fit", help="fit the network to recorded decisions and write it")
    f.add_argument("data", type=Path, nargs="+")
    f.add_argument("--hidden", type=int, default=64)
    f.add_argument("--epochs", type=int, default=8)
    f.add_argument("--lr", type=float, default=3e-3)
    f.add_argument("--seed", type=int, default=0)
    f.add_argument("--name", default="playout_kakeya")
    f.add_argument("--out", type=Path, required=True)
    args = ap.parse_args(argv)
    start = time.time()
    if args.cmd == "record":
        data = record(args.teacher, args.players, args.deals, args.seed)
        meta = {"teacher": args.teacher, "num_players": args.players, "deals": args.deals, "seed": args.seed}
        saved: dict[str, Any] = {"meta": np.array(json.dumps(meta)), **data}
        np.savez_compressed(args.out, **saved)
        print(f"{len(data['target'])} decisions in {time.time() - start:.0f} s -> {args.out}")
        return 0
    data, sources = _merge(args.data)
    arrays, scores = fit(data, args.hidden, args.epochs, args.seed, lr=args.lr)
    args.out.mkdir(parents=True, exist_ok=True)
    weights: dict[str, Any] = arrays
    np.savez(args.out / "playout.npz", **weights)
    from kabu_envs.kakeya.kernel import netplay

    record_ = {
        "format": FORMAT,
        "format_version": 1,
        "name": args.name,
        "architecture": {
            "inputs": netplay.NUM_FEATURES,
            "hidden": args.hidden,
            "activation": "relu",
            "outputs": NUM_CARDS,
        },
        "trained_for": {"game": "kakeya", "num_players": sorted({s["num_players"] for s in sources})},
        "training": {
            "method": "behaviour cloning (cross-entropy over the legal cards)",
            "config": {
                "hidden": args.hidden,
                "epochs": args.epochs,
                "lr": args.lr,
                "batch": 512,
                "seed": args.seed,
            },
            "data": sources,
            **scores,
            "seconds": round(time.time() - start, 1),
            "provenance": {
                str(n): provenance("kakeya", "partnership", {"num_players": n})
                for n in sorted({s["num_players"] for s in sources})
            },
        },
        "weights_sha256": _sha(args.out / "playout.npz"),
    }
    (args.out / "playout.json").write_text(json.dumps(record_, indent=2) + "\n")
    print(json.dumps(scores), f"{time.time() - start:.0f} s -> {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
