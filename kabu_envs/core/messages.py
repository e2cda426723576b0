"""Messages: what the play tools write (seat views, moves, results), as a key and its arguments.

Why: the web page is in English and Japanese. A line of English it has to read back (a regular
expression per kind of line) leaves every line nobody wrote a pattern for in English. So a viewer
writes each line as a *message*, ``{"key": "oicho.move.bet", "args": {"p": 1, "n": 5, "s": 2}}``, and a
table gives each key three templates: ``log`` (the terse English of the terminal and of the view's
text fields, seats and spreads counted from 0 as the engines count them), ``en`` and ``ja`` (the page's
sentences, counted from 1). A game's keys are in its ``view.py`` (``MESSAGES``), the shared ones here;
the web server sends the page the union (``catalogue``), and the page renders every key with the
same template language (``static/i18n.js``: ``renderMsg``).

A template is text with placeholders ``{arg}`` or ``{arg:filter:option:option}``:

- ``seat`` / ``Seat`` (capitalised): a seat number as a name: the speaker's own seat "you" (あなた)
  when a person plays it, else "seat 3" (3番席); ``log``: "you" or "player_2".
- ``seatno``: always "seat 3" (3番席) (``log``: "player_2"); ``pseat``: as ``seat`` (``log``: "p2").
- ``poss``: "your" / "seat 3's" (あなたの / 3番席の); ``log``: "your" / "player_2's".
- ``v:A:B``: A when the seat is the person's own, else B (English verbs: "bet" / "bets").
- ``idx``: a 0-based index counted from 1 (``log``: as is). ``signed``: +3, −3, ±0.
- ``pl:one:many``: "1 card", "2 cards".
- ``@ns``: the message ``ns.<value>`` (a name from a list: ``@oicho.yaku``, ``@phase``).
- ``msg``: a nested message (null: nothing; ``Msg``: capitalised in English).
- ``list:SEP``: a list of messages joined by the message SEP.

and ``{arg?text}``: ``text`` when the argument is true. Arguments are JSON values.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

Msg = dict[str, Any]
# key -> (log, en, ja)
Table = Mapping[str, tuple[str, str, str]]
LANGS = ("log", "en", "ja")

PLACEHOLDER = re.compile(r"\{(\w+)(\?[^{}]*|(?::[^{}:]*)*)\}")


def say(key: str, **args: Any) -> Msg:
    """A message: ``key`` of a table and its arguments (JSON values; nested messages allowed)."""
    return {"key": key, "args": args}


# The shared keys: separators, seats, names every game uses, the god view, what a move dealt.
CORE: dict[str, tuple[str, str, str]] = {
    "sep.comma": (", ", ", ", "、"),
    "sep.semi": ("; ", "; ", "、"),
    "sep.arrow": (", ", " → ", " → "),
    "core.parts": ("{items:list:sep.semi}", "{items:list:sep.semi}", "{items:list:sep.semi}"),
    "core.who": ("{p:seat}", "{p:seat}", "{p:seat}"),
    "core.pwho": ("{p:pseat}", "{p:seat}", "{p:seat}"),
    "core.you_are": (
        "you are {p:seatno}",
        "{p:v:you are:watching} {p:seatno}",
        "{p:v:あなたは:}{p:seatno}{p:v::の視点}",
    ),
    "core.to_act": ("to act: {p:seat}", "to act: {p:seat}", "手番: {p:seat}"),
    "core.over": ("to act: over", "game over", "終局"),
    "core.god": (
        "god view: every seat's cards",
        "god view: every seat's cards",
        "神の視点: 全員の札が見える",
    ),
    "core.hand_of": ("{p:poss} hand", "{p:poss} hand", "{p:poss}手札"),
    "core.moved_dealt": (
        "{move:msg}{dealt:list:sep.none}",
        "{move:msg} (dealt: {dealt:list:sep.semi})",
        "{move:msg} (配られた札: {dealt:list:sep.comma})",
    ),
    "sep.none": ("", "; ", "、"),
    "core.dealt": (" -> {card:msg} [{zone:msg}]", "{card:msg} to {zone:msg}", "{zone:msg}に{card:msg}"),
    "core.card": ("{name}", "{name}", "{name}"),
    "core.action": ("action {n}", "action {n}", "{n}番の手"),
    "core.action_named": ("{name}", "{name}", "{n}番の手 ({name})"),
    "core.move": ("{p:seat}: {action:msg}", "{p:Seat}: {action:msg}", "{p:seat}: {action:msg}"),
    "core.title": ("{name}", "{name}", "{name}"),
    "core.observation": ("observation: {values}", "observation: {values}", "観測: {values}"),
}


def _seat_text(lang: str, p: int, me: int | None, person: bool, form: str) -> str:
    """A seat as a name in ``lang`` (the filters ``seat``, ``Seat``, ``seatno``, ``pseat``, ``poss``)."""
    own = p == me and (person or lang == "log")
    if lang == "log":
        if form == "poss":
            return "your" if own else f"player_{p}'s"
        if form == "pseat":
            return "you" if own else f"p{p}"
        return f"player_{p}" if form == "seatno" or not own else "you"
    if lang == "ja":
        name = "あなた" if own and form != "seatno" else f"{p + 1}番席"
        return name + "の" if form == "poss" else name
    if form == "poss":
        return "your" if own else f"seat {p + 1}'s"
    name = "you" if own and form != "seatno" else f"seat {p + 1}"
    return name[0].upper() + name[1:] if form == "Seat" else name


def render(
    msg: Msg | None, table: Table, lang: str = "log", me: int | None = None, person: bool = True
) -> str:
    """``msg`` written from its template in ``lang`` (``log``, ``en``, ``ja``); ``me``: the seat whose
    view it is ("you"), ``person``: whether a person plays it (else "you" is written as that seat)."""
    if msg is None:
        return ""
    try:
        template = table[msg["key"]][LANGS.index(lang)]
    except KeyError:
        raise KeyError(f"message key {msg['key']!r} is in no message table") from None
    args = msg.get("args", {})

    def fill(m: re.Match[str]) -> str:
        name, spec = m.group(1), m.group(2)
        if name not in args:
            raise KeyError(f"message {msg['key']!r}: no argument {name!r} for its {lang} template")
        value = args[name]
        if spec.startswith("?"):
            return spec[1:] if value else ""
        parts = spec.split(":")[1:] if spec else []
        kind = parts[0] if parts else ""
        if kind == "":
            return str(value)
        if kind in ("seat", "Seat", "seatno", "pseat", "poss"):
            return _seat_text(lang, int(value), me, person, kind)
        if kind == "v":
            own = int(value) == me and (person or lang == "log")
            return parts[1] if own else parts[2]
        if kind == "idx":
            return str(int(value) + (0 if lang == "log" else 1))
        if kind == "signed":
            v = int(value)
            if lang == "log":
                return f"{v:+d}"
            return f"+{v}" if v > 0 else (f"−{-v}" if v < 0 else "±0")
        if kind == "pl":
            return f"{value} {parts[1] if int(value) == 1 else parts[2]}"
        if kind.startswith("@"):
            return render(say(f"{kind[1:]}.{value}"), table, lang, me, person)
        if kind in ("msg", "Msg"):  # (Msg: capitalised, a sentence's subject in English)
            text = render(value, table, lang, me, person)
            return text[:1].upper() + text[1:] if kind == "Msg" and lang == "en" else text
        if kind == "list":
            sep = render(say(parts[1]), table, lang, me, person)
            return sep.join(render(v, table, lang, me, person) for v in value)
        raise ValueError(f"message {msg['key']!r}: unknown filter {kind!r}")

    return PLACEHOLDER.sub(fill, template)


def keys_used(msg: Any) -> Iterable[str]:
    """Every key ``msg`` uses, nested messages included (not the ``@`` lookups: ``lookups_used``)."""
    if isinstance(msg, dict):
        if "key" in msg and "args" in msg:
            yield msg["key"]
        for v in msg.values():
            yield from keys_used(v)
    elif isinstance(msg, list):
        for v in msg:
            yield from keys_used(v)


def catalogue(tables: Iterable[Table]) -> dict[str, dict[str, str]]:
    """The page's table: every key of ``tables`` with its ``en`` and ``ja`` templates (a key defined
    twice differently is an error: two games would write each other's lines)."""
    out: dict[str, dict[str, str]] = {}
    for table in tables:
        for key, (_, en, ja) in table.items():
            entry = {"en": en, "ja": ja}
            if out.get(key, entry) != entry:
                raise ValueError(f"message key {key!r} is defined twice, differently")
            out[key] = entry
    return out
