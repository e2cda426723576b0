"""Sealed game records: the seed and the deck of a person's game in progress, hidden and tamper-proof.

Why: a saved game (an incomplete record with a person's seat) holds what determines every card. Shown
in the clear, it lets the person read the other hands (replay another seat, or deal the seed again)
before the game is over. So ``GameRecord.to_json`` seals them: ``"seed"`` and ``"deck"``
are null and ``"sealed"`` holds them encrypted, with a tag over the whole record, under a key kept on
this machine (``key_file()``). ``kabu-play --resume``, ``kabu-replay`` and the web page open it with
that key; an edited record (other actions, seats, rewards, options) no longer opens. A finished game's
record is written in the clear: its cards may be seen.

The cipher is the standard library's: HMAC-SHA256 as a pseudo-random function in counter mode for the
key stream, then HMAC-SHA256 over the nonce, the record and the cipher text (encrypt-then-MAC), with
separate keys derived from the one on disk. The plain text is padded to 64 bytes, so its length says
nothing about the seed.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import os
import secrets
import threading
from pathlib import Path
from typing import Any

PREFIX = "v2."  # v2: the key's id first (a seal of another key says so); v1 seals still open
OLD_PREFIX = "v1."
KEY_ENV = "KABU_PLAY_KEY_FILE"
MAX_TOKEN = 1 << 16  # characters: a sealed seed and deck are a few hundred
_NONCE, _TAG, _BLOCK, _PAD, _KID = 16, 32, 32, 64, 8
_lock = threading.Lock()
_cache: dict[str, bytes] = {}


class SealError(ValueError):
    """A seal that cannot be made or opened; the message says why (never the key)."""


def key_file() -> Path:
    """Where the key lives: ``$KABU_PLAY_KEY_FILE``, else ``$XDG_STATE_HOME/kabu-envs/saved-games.key``
    (``~/.local/state`` by default)."""
    explicit = os.environ.get(KEY_ENV)
    if explicit:
        return Path(explicit)
    state = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(state) / "kabu-envs" / "saved-games.key"


def load_key(create: bool = True) -> bytes:
    """The machine's key (made on first use, readable by its owner only). ``SealError`` when it cannot
    be read, or made when ``create``."""
    path = key_file()
    with _lock:
        if str(path) in _cache:
            return _cache[str(path)]
        try:
            text = path.read_text().strip()
        except FileNotFoundError:
            if not create:
                raise SealError(f"no key for saved games on this machine ({path})") from None
            text = _make_key(path)
        except OSError as exc:
            raise SealError(f"cannot read the key for saved games ({exc.strerror or exc})") from None
        try:
            key = bytes.fromhex(text)
        except ValueError:
            key = b""
        if len(key) != 32:
            raise SealError(
                f"the key for saved games ({path}) is damaged: 64 hex digits expected (move it away: a "
                "new key is then made, and games saved with the old one no longer open)"
            )
        check_private(path)
        _cache[str(path)] = key
        return key


def check_private(path: Path) -> None:
    """``SealError`` when other users may read the key (a POSIX mode with group or other bits): they
    could open every saved game of this user. Not on Windows (no such modes)."""
    if os.name != "posix":
        return
    try:
        mode = path.stat().st_mode & 0o777
    except OSError as exc:
        raise SealError(f"cannot read the key for saved games ({exc.strerror or exc})") from None
    if mode & 0o077:
        raise SealError(
            f"the key for saved games ({path}) can be read by other users (mode {mode:03o}): "
            f"`chmod 600 {path}` to use it"
        )


FINISHED = ".finished"  # beside the key: the games played to their end (see ``mark_finished``)


def finished_file() -> Path:
    """The ledger of finished games, beside the key (``<key file>.finished``)."""
    path = key_file()
    return path.with_name(path.name + FINISHED)


def _game_id(game: str) -> str:
    """A finished game's entry: a hash of what names it (its finished record shows all of it anyway)."""
    return hashlib.sha256(b"kabu-envs finished game " + game.encode()).hexdigest()[:32]


def mark_finished(game: str) -> bool:
    """Note that ``game`` (a sealed game's identity: rules, seed, seats) was played to its end: its
    finished record shows the seed, so a save of it must not continue (``was_finished``), or replaying
    the finished record would show every card still to come. False when the note cannot be written."""
    path = finished_file()
    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        with os.fdopen(fd, "a") as f:
            f.write(_game_id(game) + "\n")
    except OSError:
        return False
    return True


def was_finished(game: str) -> bool:
    """True when ``game`` was played to its end on this machine (``mark_finished``)."""
    try:
        text = finished_file().read_text()
    except (OSError, UnicodeDecodeError):
        return False
    return _game_id(game) in text.split()


def _make_key(path: Path) -> str:
    """Write a new key atomically (another process may be making one at the same time: the first wins)."""
    text = secrets.token_hex(32)
    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        tmp = path.with_name(f".{path.name}.{secrets.token_hex(4)}")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as f:
            f.write(text + "\n")
        try:
            os.link(tmp, path)
        except FileExistsError:
            text = path.read_text().strip()
        finally:
            tmp.unlink()
    except OSError as exc:
        raise SealError(
            f"cannot keep the key for saved games ({exc.strerror or exc}); set {KEY_ENV} to a writable file"
        ) from None
    return text


def _derive(key: bytes, label: bytes) -> bytes:
    return hmac.new(key, b"kabu-envs saved game " + label, hashlib.sha256).digest()


def _stream(key: bytes, nonce: bytes, n: int) -> bytes:
    blocks = (n + _BLOCK - 1) // _BLOCK
    return b"".join(
        hmac.new(key, nonce + i.to_bytes(4, "big"), hashlib.sha256).digest() for i in range(blocks)
    )[:n]


def _xor(a: bytes, b: bytes) -> bytes:
    return (int.from_bytes(a, "big") ^ int.from_bytes(b, "big")).to_bytes(len(a), "big")


def _tag(key: bytes, nonce: bytes, context: bytes, body: bytes, prefix: str = PREFIX) -> bytes:
    msg = prefix.encode() + nonce + len(context).to_bytes(8, "big") + context + body
    return hmac.new(key, msg, hashlib.sha256).digest()


def key_id(key: bytes) -> bytes:
    """A short name of ``key`` written in a seal, so that a seal of another key is told apart from an
    edited one (an HMAC of a label: it says nothing of the key)."""
    return _derive(key, b"id")[:_KID]


def seal(secret: dict[str, Any], context: bytes, key: bytes | None = None) -> str:
    """``secret`` (JSON-able) encrypted and bound to ``context`` (the rest of the record, canonical)."""
    key = load_key() if key is None else key
    plain = json.dumps(secret, separators=(",", ":")).encode()
    plain += b" " * (-len(plain) % _PAD)
    nonce = secrets.token_bytes(_NONCE)
    body = _xor(plain, _stream(_derive(key, b"stream"), nonce, len(plain)))
    kid = key_id(key)
    tag = _tag(_derive(key, b"tag"), kid + nonce, context, body)
    return PREFIX + base64.urlsafe_b64encode(kid + nonce + body + tag).decode()


def unseal(token: Any, context: bytes, key: bytes | None = None) -> dict[str, Any]:
    """The secret of ``seal``; ``SealError`` when the token is malformed, was made with another key or
    the record around it was changed."""
    prefix = next((p for p in (PREFIX, OLD_PREFIX) if isinstance(token, str) and token.startswith(p)), None)
    if prefix is None or len(token) > MAX_TOKEN:
        raise SealError("'sealed' is not a seal written by kabu-play")
    try:
        raw = base64.urlsafe_b64decode(token[len(prefix) :].encode())
    except ValueError:
        raise SealError("'sealed' is not a seal written by kabu-play") from None
    kid_len = _KID if prefix == PREFIX else 0
    if len(raw) < kid_len + _NONCE + _TAG + _PAD:
        raise SealError("'sealed' is not a seal written by kabu-play")
    kid, nonce, body, tag = (
        raw[:kid_len],
        raw[kid_len : kid_len + _NONCE],
        raw[kid_len + _NONCE : -_TAG],
        raw[-_TAG:],
    )
    if key is None:
        try:
            key = load_key(create=False)
        except SealError as exc:  # no key, a damaged or unsafe one: say that, not "changed"
            raise SealError(f"the saved game cannot be opened: {exc}") from None
    if kid and kid != key_id(key):
        raise SealError(
            "the saved game was sealed with another key than this machine's (saved on another machine, "
            f"or the key file was replaced: {key_file()}); it opens only with the key it was saved with"
        )
    if not hmac.compare_digest(tag, _tag(_derive(key, b"tag"), kid + nonce, context, body, prefix)):
        raise SealError(
            "the saved game does not open: it was changed after it was saved"
            + ("" if kid else ", or saved on another machine")
            + " (a game in progress continues only where it was saved, unedited)"
        )
    plain = _xor(body, _stream(_derive(key, b"stream"), nonce, len(body)))
    out = json.loads(plain.decode())
    if not isinstance(out, dict):
        raise SealError("'sealed' is not a seal written by kabu-play")
    return out
