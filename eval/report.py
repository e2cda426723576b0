"""The results table of README.md and docs/baselines.md, generated from ``reports/summary.json``.

``python -m kabu_envs.eval.report`` prints the table; ``--write`` rewrites the blocks between
``<!-- BEGIN generated:results -->`` and ``<!-- END generated:results -->`` in both files, so the
published numbers are always the ones ``make demo`` wrote (a test checks they agree).
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path
from typing import Any

from kabu_envs import registry

ROOT = Path(__file__).resolve().parent.parent
SUMMARY = ROOT / "reports" / "summary.json"
DOCS = (ROOT / "README.md", ROOT / "docs" / "baselines.md")
BLOCK = re.compile(r"(<!-- BEGIN generated:results -->\n)(.*?)(<!-- END generated:results -->)", re.S)


def _num(x: float) -> str:
    return f"{x:+.3f}".replace("-", "−")


def _title(game: str) -> str:
    try:
        return registry.get(game).title
    except ValueError:  # a summary from a game not installed here: show its id
        return game


def results_markdown(summary: dict[str, Any]) -> str:
    """One row per matchup: the standard rules first, then each richer setting; within them by role,
    trained agents first, then the hand-written reference rows."""
    lines = [
        "| game | rules | role | agent | opponent | deals | mean | 95% CI | ties |",
        "|---|---|---|---|---|---:|---:|---|---:|",
    ]
    for game, block in summary.items():
        settings = list(dict.fromkeys(m.get("rules", "standard") for m in block["matchups"]))
        rows = sorted(
            block["matchups"],
            key=lambda m: (
                settings.index(m.get("rules", "standard")),  # noqa: B023 (used at once, in this loop)
                m["role"],
                not m["agent"].startswith("ppo"),
            ),
        )
        for m in rows:
            lo, hi = m["ci95"]
            mark = " **(>0)**" if lo > 0 else ""
            lines.append(
                f"| {_title(game)} | {m.get('rules', 'standard')} | {m['role']} | {m['agent']} | "
                f"{m['opponent']} | "
                f"{m['games']} | {_num(m['mean'])} | [{_num(lo)}, {_num(hi)}]{mark} | "
                f"{m.get('tie_rate', float('nan')):.2f} |"
            )
    return "\n".join(lines) + "\n"


def render_into(text: str, table: str) -> str:
    """``text`` with its generated results block replaced by ``table`` (raises if it has none)."""
    if not BLOCK.search(text):
        raise ValueError("no <!-- BEGIN generated:results --> ... <!-- END generated:results --> block")
    return BLOCK.sub(lambda m: m.group(1) + table + m.group(3), text)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m kabu_envs.eval.report", description=__doc__)
    ap.add_argument("--summary", default=str(SUMMARY))
    ap.add_argument("--write", action="store_true", help="rewrite README.md and docs/baselines.md")
    args = ap.parse_args(argv)
    table = results_markdown(json.loads(Path(args.summary).read_text()))
    if args.write:
        for doc in DOCS:
            doc.write_text(render_into(doc.read_text(), table))
    print(table, end="")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
