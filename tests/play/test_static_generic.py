"""The web page's scripts know no game: every game's words reach it as messages of the server's table.

A game's id, its name (in either language) or one of its message keys in the page's static files would
be a question of which game is on the table, asked outside the game's package; the rules panel, the
round titles and the old saved-games titles come from each game's viewer instead. The names checked
are read from the registry, so a new game is checked too. Card pictures are keyed by the ``kind`` a
view declares for a card (``kabufuda``, ``hanafuda``, ``western``, ``number``): no game id among them.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from kabu_envs import registry
from kabu_envs.play.session import viewer_for
from kabu_envs.play.web import messages_table

STATIC = Path(__file__).resolve().parents[2] / "kabu_envs" / "play" / "static"


def game_words() -> dict[str, list[str]]:
    """Each registered game's words a generic page must not hold: its id, its title, its name in both
    languages (the message ``game.<id>``) and the namespaces of its message keys (``oicho.`` ...)."""
    table = messages_table()
    out: dict[str, list[str]] = {}
    for spec in registry.games():
        words = {spec.id, spec.title, table[f"game.{spec.id}"]["en"], table[f"game.{spec.id}"]["ja"]}
        spaces = {k.split(".", 1)[0] for k in viewer_for(spec.id).messages if not k.startswith("game.")}
        out[spec.id] = sorted(words) + sorted(f"{ns}." for ns in spaces)
    return out


def named_games(text: str, words: dict[str, list[str]]) -> list[tuple[str, str]]:
    """The (game, word) pairs ``text`` names (case-insensitive; a key namespace as a whole word)."""
    found = []
    for game, ws in words.items():
        for w in ws:
            pattern = rf"\b{re.escape(w)}" if w.endswith(".") else re.escape(w)
            if re.search(pattern, text, flags=re.IGNORECASE):
                found.append((game, w))
    return found


@pytest.fixture(scope="module")
def words() -> dict[str, list[str]]:
    return game_words()


def test_the_words_checked_are_each_games_id_names_and_key_namespaces(words):
    assert set(words) == {spec.id for spec in registry.games()}
    assert {"oicho_kabu", "Oicho-Kabu", "おいちょかぶ", "oicho."} <= set(words["oicho_kabu"])
    assert {"kakeya", "Kakeya", "カケヤ", "kakeya."} <= set(words["kakeya"])
    assert {"toy_card", "Toy Card", "toy."} <= set(words["toy_card"])


@pytest.mark.parametrize(
    "name", sorted(p.name for p in STATIC.iterdir() if p.suffix in {".js", ".html", ".css"})
)
def test_no_static_file_of_the_page_names_a_game(name, words):
    text = (STATIC / name).read_text(encoding="utf-8")
    assert named_games(text, words) == [], name


def test_the_check_finds_the_game_questions_the_page_once_asked(words):
    """The lines the page once had: a branch on a game id, a test of a game's message key, a game's
    rule text and a pattern of a game's English title."""
    once = [
        'if (info.game === "oicho_kabu") {',
        'const isKakeya = (view) => view.say.title.key === "kakeya.title";',
        "Toy Card (2 players)",
        "renderMsg({ key: `oicho.yaku.${y}`, args: {} })",
        "おいちょかぶ (標準ルール)",
    ]
    assert [bool(named_games(line, words)) for line in once] == [True] * len(once)
    assert named_games("const DRAW = { kabufuda, hanafuda, western, number: numberCard };", words) == []
