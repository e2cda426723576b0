"""The generated results tables of docs/results.md (and README.md), from ``reports/summary.json``.

Three tables: the duplicate matchups (block ``results``), the gaps to a best response (block
``best_response``: every ``best_response`` row, per rule setting and role) and the exploitability
yardstick (block ``exploit``: each shipped exploiter against its frozen agent). ``python -m
kabu_envs.eval.report`` prints them; ``--write`` rewrites the blocks between ``<!-- BEGIN
generated:NAME -->`` and ``<!-- END generated:NAME -->``: every block of docs/results.md (which must
hold all three) and whichever of them README.md holds, so the published numbers are always the ones
``make demo`` wrote (a test checks they agree).
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
RESULTS_PAGE = ROOT / "docs" / "results.md"
# the results page holds every block; README.md whichever it chooses to show
DOCS = (RESULTS_PAGE, ROOT / "README.md")
BLOCKS = ("results", "best_response", "exploit")


def _block(name: str) -> re.Pattern[str]:
    return re.compile(rf"(<!-- BEGIN generated:{name} -->\n)(.*?)(<!-- END generated:{name} -->)", re.S)


def _num(x: float) -> str:
    return f"{x:+.3f}".replace("-", "−")


def _hand_written(game: str) -> tuple[str, ...]:
    """The game's own agents' names (``random`` alone for a game not installed here): the rest of a
    summary's agents are trained models, listed first."""
    try:
        return registry.get(game).agent_names
    except ValueError:
        return ("random",)


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
        hand_written = _hand_written(game)
        rows = sorted(
            block["matchups"],
            key=lambda m: (
                settings.index(m.get("rules", "standard")),  # noqa: B023 (used at once, in this loop)
                m["role"],
                m["agent"].partition(":")[0] in hand_written,  # noqa: B023 (as above)
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


def _gap(x: float) -> str:
    """A gap: four decimals below 0.1 chips (the hand-written players' gaps are thousandths)."""
    return (f"{x:+.4f}" if abs(x) < 0.1 else f"{x:+.3f}").replace("-", "−")


def best_response_markdown(summary: dict[str, Any]) -> str:
    """One row per best-response gap: the standard rules first, then each richer setting, in the
    demo's order; "zero" = share of deals on which the agent did what the best response would."""
    lines = [
        "| game | rules | role | agent | deals | gap (chips per deal) | 95% CI | zero |",
        "|---|---|---|---|---:|---:|---|---:|",
    ]
    for game, block in summary.items():
        rows = block.get("best_response", [])
        settings = list(dict.fromkeys(["standard", *(r.get("rules", "standard") for r in rows)]))
        for r in sorted(rows, key=lambda r: settings.index(r.get("rules", "standard"))):  # noqa: B023
            lo, hi = r["ci95"]
            lines.append(
                f"| {_title(game)} | {r.get('rules', 'standard')} | {r['role']} | {r['agent']} | "
                f"{r['deals']} | {_gap(r['gap'])} | [{_gap(lo)}, {_gap(hi)}] | "
                f"{r.get('zero_rate', float('nan')):.2f} |"
            )
    return "\n".join(lines) + "\n"


def exploit_markdown(summary: dict[str, Any]) -> str:
    """One row per shipped exploiter (``summary[game]["exploit"]``, written by ``make demo``): its
    advantage against the frozen agent's table on the held-out deals."""
    lines = [
        "| game | rules | frozen agent | exploiter role | table | deals | advantage | 95% CI |",
        "|---|---|---|---|---|---:|---:|---|",
    ]
    for game, block in summary.items():
        for r in block.get("exploit", []):
            lo, hi = r["ci95"]
            lines.append(
                f"| {_title(game)} | {r.get('rules', 'standard')} | {r['agent']} | {r['role']} | "
                f"{r['table']} | {r['deals']} | {_num(r['advantage'])} | [{_num(lo)}, {_num(hi)}] |"
            )
    return "\n".join(lines) + "\n"


def tables(summary: dict[str, Any]) -> dict[str, str]:
    """Every generated block's table, by block name."""
    return {
        "results": results_markdown(summary),
        "best_response": best_response_markdown(summary),
        "exploit": exploit_markdown(summary),
    }


def blocks_in(text: str) -> list[str]:
    """The names of the generated blocks ``text`` holds, of those this module writes."""
    return [name for name in BLOCKS if _block(name).search(text)]


def render_into(text: str, table: str, name: str = "results") -> str:
    """``text`` with its generated block ``name`` replaced by ``table`` (raises if it has none)."""
    block = _block(name)
    if not block.search(text):
        raise ValueError(f"no <!-- BEGIN generated:{name} --> ... <!-- END generated:{name} --> block")
    return block.sub(lambda m: m.group(1) + table + m.group(3), text)


def render_all(text: str, summary: dict[str, Any], required: tuple[str, ...] = ()) -> str:
    """``text`` with every generated block it holds rewritten from ``summary`` (raises if it lacks one
    of ``required``)."""
    for name, table in tables(summary).items():
        if name in required or _block(name).search(text):
            text = render_into(text, table, name)
    return text


def required_blocks(doc: Path) -> tuple[str, ...]:
    """The blocks ``doc`` must hold: all of them on the results page, none elsewhere."""
    return BLOCKS if doc.resolve() == RESULTS_PAGE.resolve() else ()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m kabu_envs.eval.report", description=__doc__)
    ap.add_argument("--summary", default=str(SUMMARY))
    ap.add_argument("--write", action="store_true", help="rewrite docs/results.md and README.md's blocks")
    args = ap.parse_args(argv)
    summary = json.loads(Path(args.summary).read_text())
    if args.write:
        # every page rendered before any is written: a page missing a block changes nothing
        pages = {
            doc: render_all(doc.read_text(), summary, required_blocks(doc)) for doc in DOCS if doc.is_file()
        }
        for doc, text in pages.items():
            doc.write_text(text)
    print("\n".join(tables(summary).values()), end="")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
