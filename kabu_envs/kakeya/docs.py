"""Generated parts of docs/kakeya.md: options, actions, stones table, observation layouts and the
policy features.

The tables are printed from the data the code runs on, so the documentation cannot drift:
``python -m kabu_envs.kakeya.docs`` prints them, ``--update`` rewrites the marked blocks of
docs/kakeya.md in place (``<!-- BEGIN generated:NAME -->`` ... ``<!-- END generated:NAME -->``).
"""

from __future__ import annotations

import sys
from pathlib import Path

from kabu_envs.core.doc_blocks import read_blocks, replace_blocks
from kabu_envs.kakeya.actions import LEAD_PARTNER, LEAD_SELF, NUM_ACTIONS, TRUMP_BASE
from kabu_envs.kakeya.cards import SUIT_NAMES
from kabu_envs.kakeya.config import OPTIONS, make_config
from kabu_envs.kakeya.features import features_table
from kabu_envs.kakeya.observation import obs_spec
from kabu_envs.kakeya.scoring import COLUMN_NAMES, ROW_NAMES, STONES_TABLE

DOC_PATH = Path(__file__).resolve().parents[2] / "docs" / "kakeya.md"


def actions_table() -> str:
    rows = ["| id | action | meaning |", "|---|---|---|"]
    rows.append("| 0..51 | `PLAY(card)` | play the card with that id (`suit*13 + rank`, 2 = 0 ... A = 12) |")
    for s, name in enumerate(SUIT_NAMES):
        rows.append(f"| {TRUMP_BASE + s} | `TRUMP({s})` | first dealer makes {name} trumps for this deal |")
    rows.append(f"| {LEAD_SELF} | `LEAD_SELF` | the lead chooser leads the first trick itself |")
    rows.append(f"| {LEAD_PARTNER} | `LEAD_PARTNER` | the lead chooser's partner leads the first trick |")
    rows.append(f"| | **{NUM_ACTIONS}** | `Discrete({NUM_ACTIONS})` |")
    return "\n".join(rows)


def stones_table() -> str:
    rows = ["| winners' egara | " + " | ".join(COLUMN_NAMES) + " |", "|---|" + "---|" * len(COLUMN_NAMES)]
    for name, row in zip(ROW_NAMES, STONES_TABLE, strict=True):
        rows.append(f"| {name} | " + " | ".join("-" if v is None else str(v) for v in row) + " |")
    return "\n".join(rows)


def generated_blocks() -> dict[str, str]:
    return {
        "options": OPTIONS.markdown_table(),
        "actions": actions_table(),
        "stones": stones_table(),
        "observation_4": obs_spec(make_config()).markdown_table(),
        "observation_6": obs_spec(make_config(num_players=6)).markdown_table(),
        "policy_features": features_table(),
    }


def doc_blocks(text: str) -> dict[str, str]:
    """The generated blocks as they stand in the doc text."""
    return read_blocks(text, generated_blocks())


def update(path: Path = DOC_PATH) -> None:
    path.write_text(replace_blocks(path.read_text(), generated_blocks(), where=str(path)))


if __name__ == "__main__":
    if "--update" in sys.argv[1:]:
        update()
    else:
        for name, body in generated_blocks().items():
            print(f"<!-- BEGIN generated:{name} -->\n{body}\n<!-- END generated:{name} -->\n")
