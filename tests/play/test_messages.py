"""Every line the play server writes is a message of its one table, in English and in Japanese.

Whole games of every registered game and rule set (Oicho-Kabu: each rule set and deck; Kakeya: 4 and
6 seats, matches of several deals; Toy Card) are played by agents, seen from every seat and in the
god view; every message of every view, move, move name and round end is written in both languages
from the table the page gets (``/api/messages``): a key the table lacks, an argument a template names
but the message lacks, or a Japanese line with Latin words (outside card names, ranks, numbers) fails.
Every key written literally in the library's sources (``say("...")``) and every error code is in the
table too, so a rare line the games below do not reach is still checked.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

import kabu_envs
from kabu_envs import registry
from kabu_envs.core.messages import CORE, PLACEHOLDER, keys_used, render, say
from kabu_envs.play.errors import MESSAGES as ERRORS
from kabu_envs.play.godview import god_view
from kabu_envs.play.session import Match, name_new_cards, viewer_for
from kabu_envs.play.web import messages_table

# What may stay Latin in a Japanese line: card names and ranks (A♠, 10♣, J), the suit symbols' names
# are translated; Oicho's hand values are digits; a model's or agent's name is an argument of its own.
LATIN_ALLOWED = re.compile(
    r"(?:10|[2-9AJQK])[♣♦♥♠]|\b[AJQK]\b|kabu-play|kabu-replay|JSON|HTTP|Content-(?:Length|Type)|application/json"
    r"|chunked"
)


def full_table() -> dict[str, tuple[str, str, str]]:
    """Every key with its (log, en, ja) templates: the shared ones, the errors', each game's."""
    table: dict[str, tuple[str, str, str]] = {**CORE, **ERRORS}
    for spec in registry.games():
        table.update(viewer_for(spec.id).messages)
    return table


def latin(text: str) -> list[str]:
    return re.findall(r"[A-Za-z]+", LATIN_ALLOWED.sub("", text))


SETTINGS: list[tuple[str, dict[str, Any]]] = [
    *[
        ("oicho_kabu", {"rules": rules, "deck": deck, "max_rounds": 6})
        for rules in ("standard", "kansai", "kabufuda_site")
        for deck in ("hanafuda", "kabufuda", "western")
    ],
    ("kakeya", {"max_deals": 3}),
    ("kakeya", {"num_players": 6, "max_deals": 2}),
    ("toy_card", {}),
]


def _messages_of_view(view: dict[str, Any]) -> list[Any]:
    out = [view["say"]["title"], *view["say"]["status"], *view["say"]["result"]]
    for z in view["zones"]:
        out += [z["say"].get("label"), *(z["say"].get("note") or [])]
        out += [c.get("say") for c in z["cards"] if not c.get("hidden")]
    if view.get("hand"):
        out.append(view["hand"].get("say"))
        out += [c.get("say") for c in view["hand"]["cards"]]
    return [m for m in out if m is not None]


def play_and_collect(game: str, options: dict[str, Any], seed: int) -> list[tuple[Any, int]]:
    """Every message of a whole game by agents, seen from every seat (with that seat as "you")."""
    n = len(registry.get(game).make_raw_env(**options).possible_agents)
    match = Match(game, ["random"] * n, options, seed)
    viewer = match.viewer
    said: list[tuple[Any, int]] = []
    while not match.over:
        env = match.env
        actor = match.to_act
        assert actor is not None
        views = [viewer.seat_view(env, q) for q in range(n)]
        for q, v in enumerate(views):
            said += [(m, q) for m in _messages_of_view(v)]
        said += [(m, 0) for m in _messages_of_view(god_view(viewer, env, n, 0))]
        said += [(viewer.action_say(env, int(a)), actor) for a in env.legal_actions()]
        moves = [viewer.move_say(env, actor, int(a), q) for q in range(n) for a in env.legal_actions()[:1]]
        said += [(m, q) for q, m in enumerate(moves) if m is not None]
        frame = match.advance(limit=1)[0]
        said += [(m, 0) for m in _messages_of_view(frame["view"])]
        if frame["say"] is not None:
            said.append((frame["say"], 0))
    return said


def test_the_games_played_are_every_registered_game():
    assert {game for game, _ in SETTINGS} == {spec.id for spec in registry.games()}


@pytest.fixture(scope="module")
def table() -> dict[str, tuple[str, str, str]]:
    return full_table()


@pytest.mark.parametrize(("game", "options"), SETTINGS, ids=lambda x: str(x) if isinstance(x, str) else None)
def test_every_line_of_whole_games_is_written_in_english_and_japanese(game, options, table):
    seen: set[str] = set()
    for seed in range(2):
        for msg, me in play_and_collect(game, options, seed):
            seen.update(keys_used(msg))
            for person in (True, False):  # (a person's game, and a seat watched)
                en = render(msg, table, "en", me=me, person=person)
                ja = render(msg, table, "ja", me=me, person=person)
                assert en and ja, msg
                assert not latin(ja), (msg, ja)
                if not person:
                    assert not re.search(r"\byou\b|あなた", en + ja), (msg, en, ja)
    assert seen  # (whole games were written)


def test_the_page_gets_every_key_in_both_languages_and_nothing_else(table):
    page = messages_table()
    assert set(page) == set(table)
    for key, entry in page.items():
        assert set(entry) == {"en", "ja"} and entry["en"] and entry["ja"], key
        assert not latin(PLACEHOLDER.sub("", entry["ja"])), (key, entry)  # (its words: Japanese)


def test_every_key_written_in_the_sources_is_in_the_table(table):
    """A literal ``say("key", ...)`` anywhere in the library, or a key naming an error code."""
    root = Path(kabukey := kabu_envs.__file__).parent
    assert kabukey
    literal = re.compile(r"""say\(\s*"([\w.]+)\"""")
    keys = set()
    for path in root.rglob("*.py"):
        keys.update(literal.findall(path.read_text(encoding="utf-8")))
    keys.update(k for k in re.findall(r'"(error\.\w+)"', (root / "play" / "web.py").read_text()))
    assert len(keys) > 60, len(keys)
    missing = sorted(k for k in keys if k not in table)
    assert not missing, missing


@pytest.mark.parametrize("key", sorted(ERRORS))
def test_each_error_is_written_in_japanese_around_its_detail(key, table):
    """An error's Japanese is a Japanese sentence; an English ``detail`` (a record's or an option's
    own explanation) is the only Latin in it."""
    names = set(re.findall(r"\{(\w+)", table[key][2]))
    args: dict[str, Any] = {name: 3 for name in names}
    for name in names & {"detail", "phrase", "path", "host", "allowed", "name", "field", "length"}:
        args[name] = "__"
    if "legal" in names:
        args["legal"] = [say("error.legal_item", action=1, label=say("oicho.act.stand"))]
    if "game" in names:
        args["game"] = "__" if key == "error.unknown_game" else "kakeya"  # (an unknown id: as typed)
    if "label" in names:
        args["label"] = say("oicho.act.stand")
    ja = render(say(key, **args), table, "ja", me=0)
    assert re.search(r"[\u3040-\u30ff\u4e00-\u9fff]", ja), (key, ja)
    assert not latin(ja.replace("__", "")), (key, ja)


def test_a_template_missing_an_argument_or_a_key_is_refused(table):
    with pytest.raises(KeyError, match="no argument 'n'"):
        render(say("oicho.act.bet", s=1), table, "ja")
    with pytest.raises(KeyError, match="in no message table"):
        render(say("oicho.no_such_line"), table, "en")


def test_seats_and_spreads_are_counted_from_one_on_the_page_and_from_zero_in_the_log(table):
    bet = say("oicho.move.bet", p=2, n=5, s=0)
    assert render(bet, table, "log", me=1) == "player_2: bet 5 on spread 0"
    assert render(bet, table, "en", me=1) == "Seat 3 bets 5 on spread 1"
    assert render(bet, table, "ja", me=1) == "3番席が1番の札に5点張った"
    assert render(bet, table, "en", me=2) == "You bet 5 on spread 1"
    assert render(bet, table, "en", me=2, person=False) == "Seat 3 bets 5 on spread 1"  # (watched)
    assert render(bet, table, "ja", me=2) == "あなたが1番の札に5点張った"


def test_a_dealt_card_is_credited_to_the_zone_it_landed_in(table):
    """The frame's message names the card a move turned up and where it went (both languages)."""
    match = Match("oicho_kabu", ["human", "random", "random", "random"], {"deck": "hanafuda"}, seed=4)
    match.advance()
    frames = []
    while not match.over and len(frames) < 200:
        frames.append(match.play(match.legal_moves()[-1]["action"]))
        frames += match.advance()
    dealt = [f["say"] for f in frames if f["say"] and f["say"]["key"] == "core.moved_dealt"]
    assert dealt
    ja = render(dealt[0], table, "ja", me=0)
    assert "配られた札" in ja and "月" in ja, ja
    assert render(dealt[0], table, "log", me=0) == [f["move"] for f in frames if f["say"] is dealt[0]][0]
    assert name_new_cards(None, frames[0]["view"], frames[0]["view"]) is None
