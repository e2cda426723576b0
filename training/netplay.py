"""A search's learned play-out policy, fitted here (torch): behaviour cloning on recorded decisions.

A game's package records the data (Kakeya: ``kabu_envs.kakeya.agents.netplay_data``, a teacher's
decisions with the sparse inputs its kernel computes from the seat's own view; the file's ``meta`` names
the game, the role and the sizes). The network (the sum of the active inputs' rows, ReLU, one logit per
action masked to the legal ones) is fitted by cross-entropy and written as ``playout.npz`` (plain
arrays, no pickle) beside ``playout.json`` (the architecture, the data files with their checksums, the
resolved config, the seed and, per table size, the provenance: env id, rule options, package version,
commit).

    python -m kabu_envs.training.netplay data4.npz data6.npz --hidden 64 --seed 0 --out DIR
"""

from __future__ import annotations

import argparse
import hashlib
import json
import time
from pathlib import Path
from typing import Any

import numpy as np

from kabu_envs.core.rng import make_rng

FORMAT = "kabu-envs playout net"  # (the loader, the game's agents, checks it)


def _legal_matrix(legal: np.ndarray, actions: int) -> np.ndarray:
    """Legal action bit sets (uint64) as a (rows, actions) bool matrix."""
    return ((legal[:, None] >> np.arange(actions, dtype=np.uint64)[None, :]) & np.uint64(1)).astype(bool)


def fit(
    data: dict[str, np.ndarray],
    sizes: tuple[int, int],
    hidden: int,
    epochs: int,
    seed: int,
    lr: float = 3e-3,
    batch: int = 512,
) -> tuple[dict[str, np.ndarray], dict[str, float]]:
    """The network of ``sizes`` (inputs, actions) fitted to ``data`` (a tenth held out for the accuracy
    reported): its arrays and the held-out accuracy and cross-entropy."""
    import torch

    features, actions = sizes
    torch.manual_seed(seed)
    rng = make_rng(seed)  # (the same stream as np.random.default_rng(seed))
    offsets, indices = data["offsets"], data["indices"].astype(np.int64)
    n = len(data["target"])
    legal = torch.from_numpy(_legal_matrix(data["legal"], actions))
    target = torch.from_numpy(data["target"])
    order = rng.permutation(n)
    held, train_rows = order[: n // 10], order[n // 10 :]
    lens = np.diff(offsets)
    pad = np.full((n, int(lens.max())), features, dtype=np.int64)  # (the padding row: zeros)
    pad[np.arange(n).repeat(lens), np.arange(len(indices)) - offsets[:-1].repeat(lens)] = indices
    inputs = torch.from_numpy(pad)
    emb = torch.nn.EmbeddingBag(features + 1, hidden, mode="sum", padding_idx=features)
    with torch.no_grad():
        torch.nn.init.normal_(emb.weight, std=0.5 / np.sqrt(30))
        emb.weight[features] = 0.0
    b1 = torch.nn.Parameter(torch.zeros(hidden))
    out = torch.nn.Linear(hidden, actions)
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
    w1 = emb.weight.detach().numpy()[:features].astype(np.float32)
    arrays = {
        "w1": w1,
        "b1": b1.detach().numpy().astype(np.float32),
        "w2": out.weight.detach().numpy().astype(np.float32),  # (actions, hidden): an action's row
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
    ap.add_argument("data", type=Path, nargs="+", help="data files recorded by a game's package")
    ap.add_argument("--hidden", type=int, default=64)
    ap.add_argument("--epochs", type=int, default=6)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--name", default="playout_kakeya")
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args(argv)
    start = time.time()
    data, sources = _merge(args.data)
    kinds = {(s["game"], s["role"], s["num_features"], s["num_actions"]) for s in sources}
    if len(kinds) != 1:
        raise ValueError(f"the data files are of different games, roles or sizes: {sorted(kinds)}")
    game, role, features, actions = kinds.pop()
    arrays, scores = fit(data, (features, actions), args.hidden, args.epochs, args.seed, lr=args.lr)
    args.out.mkdir(parents=True, exist_ok=True)
    weights: dict[str, Any] = arrays
    np.savez(args.out / "playout.npz", **weights)
    tables = sorted({s["num_players"] for s in sources})
    record = {
        "format": FORMAT,
        "format_version": 1,
        "name": args.name,
        "architecture": {"inputs": features, "hidden": args.hidden, "activation": "relu", "outputs": actions},
        "trained_for": {"game": game, "role": role, "num_players": tables},
        "training": {
            "method": "behaviour cloning (cross-entropy over the legal actions)",
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
            "provenance": {str(n): provenance(game, role, {"num_players": n}) for n in tables},
        },
        "weights_sha256": _sha(args.out / "playout.npz"),
    }
    (args.out / "playout.json").write_text(json.dumps(record, indent=2) + "\n")
    print(json.dumps(scores), f"{time.time() - start:.0f} s -> {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
