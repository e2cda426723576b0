"""Rule options declared once, as records: one ``Option`` drives validation, defaults and the docs table.

Each game lists its options as ``Option`` records (name, default, checker, source, meaning) in an
``OptionSet``. ``OptionSet.check(name, value)`` is the only place a value is validated, and
``OptionSet.markdown_table()`` is what the game's docs page prints, so the two cannot drift.

Checkers take a raw value and return the normalised one, or raise ``ValueError`` whose message says
what is allowed; ``OptionSet.check`` wraps that into a ``RuleConfigError`` naming the option and value.
The checkers here reject what a careless caller passes by accident: numpy arrays and containers where
a scalar is expected, ``bool`` where an integer is expected, integers too large to use (above
``MAX_INT``), and mappings where a list is expected. NumPy integer scalars are accepted as integers.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from kabu_envs.core.errors import RuleConfigError

# Largest integer an option may take: counts, chips and stones must fit int32 observations and
# float32 encodings without overflow (an option of 10**400 is a mistake, not a rule).
MAX_INT = 2**31 - 1

Checker = Callable[[Any], Any]


@dataclass(frozen=True)
class Option:
    """One rule option: its default, how a value is checked, where the rule comes from, what it means.

    ``allowed`` is the human text of the allowed values for the docs; when empty, the checker's own
    ``allowed`` attribute (set by ``choice``) or its docstring's first line is used.
    """

    name: str
    default: Any
    check: Checker
    source: str
    meaning: str
    allowed: str = ""

    def allowed_text(self) -> str:
        if self.allowed:
            return self.allowed
        choices = getattr(self.check, "allowed", None)
        if choices is not None:
            return ", ".join(f"`{c!r}`" if isinstance(c, str) else f"`{c}`" for c in choices)
        return (self.check.__doc__ or "").strip().splitlines()[0] if self.check.__doc__ else ""


class OptionSet:
    """An ordered, named collection of ``Option`` records for one game."""

    def __init__(self, game_title: str, options: Iterable[Option]) -> None:
        self.game_title = game_title
        self.options: tuple[Option, ...] = tuple(options)
        self.by_name: dict[str, Option] = {}
        for o in self.options:
            if o.name in self.by_name:
                raise ValueError(f"option {o.name!r} declared twice")
            self.by_name[o.name] = o

    def __iter__(self) -> Iterator[Option]:
        return iter(self.options)

    def __contains__(self, name: object) -> bool:
        return name in self.by_name

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(o.name for o in self.options)

    def defaults(self) -> dict[str, Any]:
        return {o.name: o.default for o in self.options}

    def check_known(self, given: Iterable[str]) -> None:
        """Raise ``RuleConfigError`` naming every unknown option (and listing the known ones)."""
        bad = [n for n in given if not isinstance(n, str) or n not in self.by_name]
        if bad:
            raise RuleConfigError(
                f"unknown {self.game_title} option(s) {', '.join(map(repr, sorted(map(str, bad))))}; "
                f"valid options: {', '.join(self.names)}"
            )

    def check(self, name: str, value: Any) -> Any:
        """The normalised value of one option; the error names the option, the value and what is allowed."""
        self.check_known([name])
        try:
            return self.by_name[name].check(value)
        except (TypeError, ValueError, OverflowError) as exc:
            shown = _short_repr(value)
            raise RuleConfigError(f"option {name!r} = {shown} is invalid: {exc}") from None

    def markdown_table(self, defaults: Mapping[str, Any] | None = None) -> str:
        """The docs table: name, default, allowed values, source and meaning of every option."""
        shown = dict(defaults) if defaults is not None else self.defaults()
        rows = ["| option | default | allowed | source | meaning |", "|---|---|---|---|---|"]
        for o in self.options:
            rows.append(
                f"| `{o.name}` | `{shown[o.name]!r}` | {o.allowed_text()} | {o.source} | {o.meaning} |"
            )
        return "\n".join(rows)


def parse_assignments(pairs: Iterable[str]) -> dict[str, Any]:
    """Rule options from command-line ``KEY=VALUE`` pairs: the value as JSON, else as a string.

    The values are checked later by the game's config; a pair without ``=`` or a key raises.
    """
    import json

    opts: dict[str, Any] = {}
    for kv in pairs:
        k, sep, v = kv.partition("=")
        if not sep or not k:
            raise ValueError(
                f'--option {kv!r}: expected KEY=VALUE, e.g. --option rules="kansai" or --option num_players=5'
            )
        try:
            opts[k] = json.loads(v)
        except json.JSONDecodeError:
            opts[k] = v
    return opts


def positive_int(text: str) -> int:
    """An argparse ``type`` for counts given on a command line (deals, timesteps): an integer >= 1."""
    import argparse

    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{value} must be at least 1")
    return value


def _short_repr(value: Any, limit: int = 80) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


# --- checkers ------------------------------------------------------------------------------------------


def _is_int(v: Any) -> bool:
    return isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))


def choice(*allowed: Any) -> Checker:
    """One of a fixed set of scalar values (compared by equality after a type check)."""

    def check(v: Any) -> Any:
        if _is_int(v):
            v = int(v)
        elif isinstance(v, np.str_):
            v = str(v)
        for a in allowed:
            if type(v) is type(a) and v == a:
                return a
        raise ValueError(f"allowed: {', '.join(map(repr, allowed))}")

    check.allowed = allowed  # type: ignore[attr-defined]
    return check


def boolean(v: Any) -> bool:
    """`True`, `False`"""
    if not isinstance(v, (bool, np.bool_)):
        raise ValueError("allowed: True or False")
    return bool(v)


def integer(lo: int, hi: int = MAX_INT) -> Checker:
    """An integer in ``lo..hi`` (``hi`` at most ``MAX_INT``)."""

    def check(v: Any) -> int:
        if not _is_int(v) or not lo <= int(v) <= hi:
            if hi >= MAX_INT:
                raise ValueError(f"allowed: an integer {lo}..{MAX_INT} (2**31 - 1)")
            raise ValueError(f"allowed: an integer {lo}..{hi}")
        return int(v)

    check.__doc__ = f"int {lo}..{hi}" if hi < MAX_INT else f"int >= {lo}"
    return check


def sequence(v: Any) -> tuple[Any, ...]:
    """A list or tuple (not a string, a mapping or a set, whose order or meaning would be a guess)."""
    if isinstance(v, np.ndarray) and v.ndim == 1:
        return tuple(v.tolist())
    if isinstance(v, (str, bytes, Mapping, set, frozenset, np.ndarray)) or not isinstance(v, Iterable):
        raise ValueError(f"expected a list or tuple, got {type(v).__name__}")
    return tuple(v)


def names(universe: tuple[str, ...], what: str, allow_empty: bool = True) -> Checker:
    """A list of distinct names from ``universe``, returned in the universe's order (hashable, canonical)."""

    def check(v: Any) -> tuple[str, ...]:
        t = sequence(v)
        bad = [x for x in t if not isinstance(x, str) or x not in universe]
        if bad:
            raise ValueError(f"unknown {what} {', '.join(map(repr, bad))}; allowed: {', '.join(universe)}")
        if len(set(t)) != len(t):
            raise ValueError(f"a {what} is listed twice; allowed: each name at most once")
        if not t and not allow_empty:
            raise ValueError(f"allowed: at least one {what}")
        return tuple(x for x in universe if x in t)

    check.__doc__ = f"a list of {what} names"
    return check
