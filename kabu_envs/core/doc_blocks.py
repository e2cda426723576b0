"""Generated blocks of the Markdown docs: ``<!-- BEGIN generated:NAME -->`` ... ``END`` marker.

Each game's ``docs.py`` renders its tables (options, yaku, observation, actions) and this module reads
and rewrites the blocks, so a page and the code that generates it cannot drift (tests compare them).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping


def block_pattern(name: str) -> re.Pattern[str]:
    """Groups: the BEGIN marker line, the body (without its last newline), the END marker."""
    return re.compile(rf"(<!-- BEGIN generated:{name} -->\n)(.*?)\n?(<!-- END generated:{name} -->)", re.S)


def read_blocks(text: str, names: Iterable[str]) -> dict[str, str]:
    """The bodies of the named blocks as they stand in ``text`` (``""`` where a block is missing)."""
    out = {}
    for name in names:
        m = block_pattern(name).search(text)
        out[name] = m.group(2) if m else ""
    return out


def replace_blocks(text: str, bodies: Mapping[str, str], where: str = "docs") -> str:
    """``text`` with every named block's body replaced; a block missing or present twice raises."""
    for name, body in bodies.items():

        def put(m: re.Match[str], body: str = body) -> str:
            return m.group(1) + body + "\n" + m.group(3)

        text, count = block_pattern(name).subn(put, text)
        if count != 1:
            raise ValueError(f"{where}: marker block 'generated:{name}' is missing or duplicated")
    return text
