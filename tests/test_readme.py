"""The README's Python snippets run as written (a quickstart that breaks is a bug)."""

import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parent.parent / "README.md"
BLOCKS = re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.S)


def test_readme_has_snippets():
    assert len(BLOCKS) >= 3


@pytest.mark.parametrize("i", range(len(BLOCKS)))
def test_readme_snippet_runs(i, capsys):
    exec(compile(BLOCKS[i], f"README.md[{i}]", "exec"), {})
