"""Strict readers of the web API's JSON fields: one type each, as the envs check their arguments.

Why: ``int(body["action"])`` played ``8.9`` as 8, ``1.7`` as seat 1, ``true`` as seed 1. A
field here is an integer (not a bool, not a float, not a string of digits), a string, a list of
strings or an object, or it is refused with ``FieldError`` naming the field, the value and what is
allowed. Values are cut short in messages (a request may be large).
"""

from __future__ import annotations

from typing import Any


class FieldError(ValueError):
    """A request field of the wrong type or out of range; the message names it."""


def _short(value: Any, limit: int = 40) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def integer(
    body: dict[str, Any], name: str, default: int | None = None, lo: int = 0, hi: int | None = None
) -> int:
    """``body[name]``, an integer in ``lo..hi``; absent or null: ``default`` (required when None)."""
    value = body.get(name)
    if value is None:
        if default is None:
            raise FieldError(f"{name!r} is required: an integer")
        return default
    if not is_int(value):
        raise FieldError(f"{name!r} must be an integer, got {_short(value)}")
    if value < lo or (hi is not None and value > hi):
        upper = "" if hi is None else f"..{hi}"
        raise FieldError(f"{name!r} must be an integer {lo}{upper}, got {_short(value)}")
    return int(value)


def optional_integer(body: dict[str, Any], name: str, lo: int = 0, hi: int | None = None) -> int | None:
    """``body[name]``: an integer in ``lo..hi``, or None when absent, null or ``""`` (an empty field)."""
    if body.get(name) in (None, ""):
        return None
    return integer(body, name, 0, lo, hi)


def string(body: dict[str, Any], name: str, default: str | None = None) -> str:
    value = body.get(name, default)
    if not isinstance(value, str):
        if value is None:
            raise FieldError(f"{name!r} is required: a string")
        raise FieldError(f"{name!r} must be a string, got {_short(value)}")
    return value


def obj(body: dict[str, Any], name: str, default: dict[str, Any] | None = None) -> dict[str, Any]:
    """``body[name]``, a JSON object (absent or null: ``default``, else required)."""
    value = body.get(name)
    if value is None and default is not None:
        return default
    if not isinstance(value, dict):
        raise FieldError(f"{name!r} must be a JSON object, got {_short(value)}")
    return value


def boolean(body: dict[str, Any], name: str, default: bool = False) -> bool:
    """``body[name]``: true or false (JSON booleans only: ``"false"`` or 0 is refused, not guessed)."""
    value = body.get(name, default)
    if value is None:
        return default
    if not isinstance(value, bool):
        raise FieldError(f"{name!r} must be true or false, got {_short(value)}")
    return value


def names(body: dict[str, Any], name: str) -> list[str] | None:
    """``body[name]``: names as a list of strings or one comma-separated string; None when absent."""
    value = body.get(name)
    if value in (None, "", []):
        return None
    if isinstance(value, str):
        return [v.strip() for v in value.split(",") if v.strip()]
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return [v.strip() for v in value]
    raise FieldError(
        f"{name!r} must be a name, a comma-separated string or a list of names, got {_short(value)}"
    )


def int_list(body: dict[str, Any], name: str) -> list[int] | None:
    """``body[name]``: a list of integers, or None when absent or null."""
    value = body.get(name)
    if value is None:
        return None
    if not isinstance(value, list) or not all(is_int(v) for v in value):
        raise FieldError(f"{name!r} must be null or a list of integers, got {_short(value)}")
    return [int(v) for v in value]
