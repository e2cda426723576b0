"""The web server's refusals as messages (``kabu_envs.core.messages``): a code, its arguments, and the
page's English and Japanese for it.

Why: the page is in Japanese too; an English error line read back by a pattern leaves every error
nobody wrote a pattern for in English. Every ``ApiError`` and every refusal of the request handler
carries a code of ``MESSAGES`` (``error.<code>``); a record's or an option's own explanation, which
comes from deeper code in English, is an argument (``detail``) the page shows as it is, after the
sentence in the page's language. ``classify`` names the code of a record's, a seal's or a move's
error by its kind.
"""

from __future__ import annotations

from typing import Any

from kabu_envs.core.messages import Msg, say

# key -> (log, en, ja)
MESSAGES: dict[str, tuple[str, str, str]] = {
    "error.game_gone": (
        "this game is no longer on the server (idle too long, or the server restarted); start a new one",
        "this game is no longer on the server (idle too long, or the server restarted); start a new one",
        "この対局はもうサーバーにありません (長く放置されたか"
        "、サーバーが再起動しました)。新しい対局を始めてください",
    ),
    "error.too_many_games": (
        "the server holds {capacity} games in progress, all played within the last {protect} minutes: "
        "a new game can start in about {minutes} minute(s), or as soon as one of them is finished (or "
        "the server is restarted, which drops them all)",
        "the server holds {capacity} games in progress, all played within the last {protect} minutes: "
        "a new game can start in about {minutes} minute(s), or as soon as one of them is finished "
        "(or the server is restarted, which drops them all)",
        "サーバーは対局中のゲームを{capacity}局抱えていて、どれも{protect}分以内に指されています。"
        "約{minutes}分後か、どれかが終わりしだい新しい対局を始められます "
        "(サーバーを再起動すると、対局中のゲームはすべて消えます)",
    ),
    "error.busy": (
        "the server is busy replaying records; try again",
        "the server is busy replaying records; try again",
        "サーバーは棋譜の再生で混み合っています。少し待ってからもう一度どうぞ",
    ),
    "error.illegal_move": (
        "{action} is not a legal move now; legal: {legal:list:sep.comma}",
        "that move is not legal now; the legal moves: {legal:list:sep.comma}",
        "今はその手は打てません。打てる手: {legal:list:sep.comma}",
    ),
    "error.legal_item": ("{action} ({label:msg})", "{label:msg}", "{label:msg}"),
    "error.not_your_turn": ("it is not your turn", "it is not your turn", "あなたの番ではありません"),
    "error.game_over": ("the game is over", "the game is over", "対局は終わっています"),
    "error.action_required": (
        "bad move: 'action' is required (your turn): one of the legal moves' ids",
        "a move is required: it is your turn",
        "手を選んでください (あなたの番です)",
    ),
    "error.bad_action": ("bad move: {detail}", "bad move: {detail}", "手の指定が正しくありません ({detail})"),
    "error.unknown_agent": (
        "unknown agent {name} for {game}; use one of {allowed}",
        "unknown agent “{name}” for {game:@game}; use one of {allowed}",
        "{game:@game}に「{name}」というエージェントはいません。使えるもの: {allowed}",
    ),
    "error.agent_count": (
        "agents: give one name, or {n} (one per seat), not {got}",
        "agents: give one name, or {n} (one per seat), not {got}",
        "エージェントは1つ、または席の数 ({n}) だけ指定してください (指定: {got})",
    ),
    "error.unknown_game": (
        "unknown game {game}",
        "unknown game “{game}”",
        "「{game}」というゲームはありません",
    ),
    "error.seat_range": (
        "seat {seat}: this table has seats 0..{last}",
        "seat {seat:idx}: this table has seats 1 to {n}",
        "{seat:idx}番席はありません。席は1〜{n}番から選んでください",
    ),
    "error.bad_field": ("{detail}", "{detail}", "入力「{field}」が正しくありません ({detail})"),
    "error.bad_options": (
        "{detail}",
        "these rule options cannot be used: {detail}",
        "このルール設定は使えません ({detail})",
    ),
    "error.bad_record": (
        "cannot use this record: {detail}",
        "cannot use this record: {detail}",
        "この棋譜は使えません ({detail})",
    ),
    "error.record_in_progress": (
        "this is {viewer:seatno}'s game in progress: it replays only as {viewer:seatno} saw it",
        "this is {viewer:seatno}'s game in progress: until it is finished it replays only as {viewer:seatno} "
        "saw it, not as {seat:seatno}",
        "{viewer:seatno}の対局はまだ途中です。終わるまでは{viewer:seatno}から見た形でしか再生できません "
        "({seat:seatno}からは見られません)",
    ),
    "error.record_finished": (
        "this game is finished (a complete record): there is nothing to continue",
        "this game is finished (a complete record): there is nothing to continue",
        "この対局は終わっています (完全な棋譜です)。続ける手はありません",
    ),
    "error.save_spent": (
        "this saved game was already played to its end",
        "this saved game was already played to its end (from a copy of this save): its finished record "
        "shows every card, so the save cannot be continued",
        "この保存した対局は (同じ保存の写しから) すでに最後まで指されています。終局の棋譜は全部の札を"
        "見せるので、この保存からは続けられません",
    ),
    "error.not_resumable": (
        "this record is not a game in progress with a person's seat",
        "this record is not a game in progress with a person's seat",
        "この棋譜は、人が指している途中の対局ではありません",
    ),
    "error.seat_not_in_record": (
        "seat {seat} is not a seat of this game (0..{last})",
        "seat {seat:idx} is not a seat of this game (seats 1 to {n})",
        "{seat:idx}番席はこの対局にありません (1〜{n}番席)",
    ),
    "error.first_out_of_range": (
        "'first' = {first}: this record has frames 0..{last}",
        "move {first} is past the end of this record ({last} moves)",
        "この棋譜は{last}手までです ({first}手目はありません)",
    ),
    "error.record_too_long": (
        "this record has {actions} actions; the page replays"
        " at most {max} (kabu-replay FILE replays any record)",
        "this record has {actions} actions; the page replays"
        " at most {max} (kabu-replay FILE replays any record)",
        "この棋譜は{actions}手あります。このページで再生できるのは{max}"
        "手までです (kabu-replay なら全部再生できます)",
    ),
    "error.seal_foreign": (
        "'sealed' is not a seal written by kabu-play",
        "this saved game is not one kabu-play sealed",
        "この保存データは kabu-play が封印したものではありません",
    ),
    "error.seal_other_key": (
        "the saved game was sealed with another key than this machine's",
        "the saved game was sealed with another key than this machine's (saved on another machine, or "
        "the key file was replaced): it opens only with the key it was saved with",
        "この保存した対局は別の鍵で封印されています (別のマ"
        "シンで保存されたか、鍵ファイルが置き換えられました)。"
        "保存したときの鍵でしか開けません",
    ),
    "error.seal_changed": (
        "the saved game does not open: it was changed after it was saved",
        "the saved game does not open: it was changed after it was saved (a game in progress continues "
        "only where it was saved, unedited)",
        "この保存した対局は開けません: 保存した後に書き換えられていま"
        "す (途中の対局は、保存したそのままの形でしか続けられません)",
    ),
    "error.seal_key": (
        "{detail}",
        "the key for saved games cannot be used: {detail}",
        "保存用の鍵が使えません ({detail})",
    ),
    "error.record_unwritable": (
        "the game record could not be written (the record folder is not writable)",
        "the game record could not be written (the record folder is not writable)",
        "棋譜を書き込めませんでした (保存先のフォルダに書き込めません)",
    ),
    "error.bad_host": (
        "this page answers to {allowed}, not {host}",
        "this page answers to {allowed}, not {host}",
        "このページは {allowed} の宛先にだけ応えます ({host} ではありません)",
    ),
    "error.cross_site": (
        "a request from another site is refused",
        "a request from another site is refused",
        "別のサイトからのリクエストはお断りしています",
    ),
    "error.no_page": ("no page {path}", "no page {path}", "{path} というページはありません"),
    "error.body_type": (
        "the body must be JSON (Content-Type: application/json)",
        "the body must be JSON (Content-Type: application/json)",
        "リクエストの本文は JSON (Content-Type: application/json) にしてください",
    ),
    "error.no_length": (
        "a body needs a Content-Length (no chunked encoding)",
        "a body needs a Content-Length (no chunked encoding)",
        "本文には Content-Length が要ります (chunked は使えません)",
    ),
    "error.bad_length": (
        "Content-Length {length} is not a byte count",
        "Content-Length {length} is not a byte count",
        "Content-Length {length} がバイト数になっていません",
    ),
    "error.too_large": (
        "request too large: at most {max} bytes",
        "request too large: at most {max} bytes",
        "リクエストが大きすぎます ({max}バイトまで)",
    ),
    "error.body_short": (
        "the body ended before its Content-Length",
        "the body ended before its Content-Length",
        "本文が Content-Length より短いまま終わりました",
    ),
    "error.bad_json": ("bad JSON: {detail}", "bad JSON: {detail}", "JSON が正しくありません ({detail})"),
    "error.not_object": (
        "bad JSON: the body must be a JSON object",
        "bad JSON: the body must be a JSON object",
        "本文は JSON のオブジェクトにしてください",
    ),
    "error.too_nested": (
        "the request is nested too deeply",
        "the request is nested too deeply",
        "リクエストの入れ子が深すぎます",
    ),
    "error.timeout": (
        "the request did not arrive in time",
        "the request did not arrive in time",
        "リクエストが時間内に届きませんでした",
    ),
    "error.internal": ("internal error", "internal error", "サーバー内部のエラーです"),
    "error.http": ("{phrase}", "{phrase} ({status})", "HTTP エラー {status}"),
    "error.no_answer": (
        "the server answered {status}",
        "the server answered {status} {phrase}",
        "サーバーから正しい応答がありませんでした ({status})",
    ),
}

# What a record's (or a seal's) error message says -> its code: the messages are this package's own
# (records.py, seal.py, session.py); the tests raise each of them.
_RECORD_KINDS = (
    ("already played to its end", "save_spent"),
    ("this game is finished (a complete record)", "record_finished"),
    ("not a seal written by kabu-play", "seal_foreign"),
    ("sealed with another key", "seal_other_key"),
    ("changed after it was saved", "seal_changed"),
    ("key for saved games", "seal_key"),
)


def record_error(exc: Exception) -> Msg:
    """The message of a record's, a seal's or a resumed game's error (``RecordError``, ``SealError``)."""
    text = str(exc)
    for phrase, code in _RECORD_KINDS:
        if phrase in text:
            return say(f"error.{code}", detail=text)
    return say("error.bad_record", detail=text)


def field_error(text: str) -> Msg:
    """A request field's error (``fields.FieldError``: its message starts with the field's name)."""
    name = text.split("'")[1] if text.startswith("'") and text.count("'") >= 2 else ""
    return say("error.bad_field", field=name, detail=text)


def error_body(said: Msg, english: str, **extra: Any) -> dict[str, Any]:
    """The JSON of a refusal: ``error`` (English), ``say`` (its message), and ``extra`` fields."""
    return {"error": english, "say": said, **extra}
