"""Game records, kabu-replay and kabu-play --resume under hostile and careless input (issue #25).

* A person's game in progress never shows another seat's cards, nor the seed or deck that deal them:
  its record is sealed, replays only as the person's seat saw it, and continues only unedited.
* A bad file is one line naming the problem and exit status 2, never a traceback.
* ``--resume`` checks what it resumes as ``kabu-replay`` does, or refuses (and leaves the file alone).
* The terminal game survives odd digits and Ctrl-C, and saves the game.
"""

from __future__ import annotations

import io
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from kabu_envs.play import replay as replay_cli
from kabu_envs.play.__main__ import main as play_main
from kabu_envs.play.records import GameRecord, RecordError, read_record, replay, write_record
from kabu_envs.play.replay import replay_frames
from kabu_envs.play.session import HUMAN, Match
from kabu_envs.play.terminal import INTERRUPTED, choose, run


def _kakeya_in_progress(moves: int = 3, seed: int = 12345) -> Match:
    """Kakeya, the person on seat 0 against scripted agents, ``moves`` moves in (the issue's case)."""
    match = Match("kakeya", [HUMAN, "scripted", "scripted", "scripted"], seed=seed)
    for _ in range(moves):
        match.advance()
        match.play(match.legal_moves()[0]["action"])
    match.advance()
    assert not match.over
    return match


def _cli(args: list[str], **kw) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", *args], capture_output=True, text=True, timeout=120, check=False, **kw
    )


def _hand(match: Match, seat: int) -> list[str]:
    return [c["name"] for c in match.view(seat)["hand"]["cards"]]


# --- item 1: the hidden cards of a game in progress ------------------------------------------------------
def test_a_saved_game_in_progress_hides_the_seed_deck_and_other_hands(tmp_path):
    match = _kakeya_in_progress()
    path = write_record(match.record(), tmp_path / "saved.json")
    text = path.read_text()
    data = json.loads(text)
    assert data["seed"] is None and data["deck"] is None and data["sealed"].startswith("v2.")
    assert "12345" not in text
    # the person's own view replays; another seat's is refused, in Python and on the command line
    assert replay_frames(read_record(path), 0)[-1]["view"] == match.view()
    with pytest.raises(RecordError, match="player_0's game in progress: until it is finished"):
        replay_frames(read_record(path), 1)
    proc = _cli(["kabu_envs.play.replay", str(path), "--seat", "1"])
    assert proc.returncode == 2 and "game in progress" in proc.stderr and not proc.stdout
    proc = _cli(["kabu_envs.play.replay", str(path)])
    assert proc.returncode == 0 and "seen by player_0" in proc.stdout and "12345" not in proc.stdout
    others = set(_hand(match, 1)) | set(_hand(match, 2))
    hands = [line for line in proc.stdout.splitlines() if line.startswith("  your hand:")]
    assert hands and not any(card in line.split() for line in hands for card in others)


def test_a_stacked_deck_is_sealed_too_and_a_finished_game_shows_everything(tmp_path):
    deck = list(range(51, -1, -1))
    match = Match("kakeya", [HUMAN, "random", "random", "random"], seed=3, deck=deck)
    match.advance()
    data = match.to_json()
    assert data["deck"] is None and data["seed"] is None
    rec = GameRecord.from_json(data)
    assert rec.deck == deck and rec.seed == 3  # opened with this machine's key
    while not match.over:
        match.advance()
        if not match.over:
            match.play(match.legal_moves()[0]["action"])
    done = match.to_json()
    assert done["complete"] and done["seed"] == 3 and done["deck"] == deck and "sealed" not in done
    path = write_record(match.record(), tmp_path / "done.json")
    proc = _cli(["kabu_envs.play.replay", str(path), "--seat", "2"])
    assert proc.returncode == 0 and "seed 3," in proc.stdout


def test_an_unseeded_game_s_seed_cannot_be_found_from_what_the_person_sees():
    """A fresh seed has 63 bits (not 32: every candidate could be tried), and the agents are not seeded
    from it (their choices, which the person sees, would narrow it down); a given seed still derives
    them, so a game with a given seed is the same game again."""
    from kabu_envs.play.session import agent_seed

    seeds = [Match("toy_card", [HUMAN, "random", "random"], {"num_players": 3}).seed for _ in range(20)]
    assert max(seeds) >= 2**40 and max(seeds) < 2**63
    match = Match("toy_card", [HUMAN, "random", "random"], {"num_players": 3})
    recorded = [s["seed"] for s in match.record().seats]
    assert recorded[1:] != [agent_seed(match.seed, i) for i in (1, 2)]
    given = Match("toy_card", [HUMAN, "random", "random"], {"num_players": 3}, seed=5)
    assert [s["seed"] for s in given.record().seats][1:] == [agent_seed(5, i) for i in (1, 2)]


def test_the_terminal_does_not_show_a_fresh_seed_until_the_game_is_over(tmp_path):
    match = Match("toy_card", [HUMAN, "random"])
    out = io.StringIO()
    run(match, io.StringIO("1\n"), out)
    head, tail = out.getvalue().split("=== match summary ===")
    assert str(match.seed) not in head and f"seed was {match.seed}" in tail
    given = Match("toy_card", [HUMAN, "random"], seed=77)
    out = io.StringIO()
    run(given, io.StringIO("1\n"), out)
    assert out.getvalue().splitlines()[0].endswith("; seed 77")


def test_a_saved_game_continues_in_the_terminal_and_is_then_replayable_by_every_seat(tmp_path):
    path = tmp_path / "saved.json"
    match = Match("kakeya", [HUMAN, "scripted", "scripted", "scripted"], seed=12345)
    assert run(match, io.StringIO("1\n1\n1\nq\n"), io.StringIO(), str(path)) == 1
    assert json.loads(path.read_text())["seed"] is None
    proc = _cli(["kabu_envs.play", "--resume", str(path)], input="1\n" * 200)
    assert proc.returncode == 0, proc.stderr
    record = read_record(path)
    assert record.complete and record.seed == 12345
    assert replay_cli.main([str(path), "--seat", "1", "--moves"]) == 0


# --- item 8: bad files are one line and exit status 2 ------------------------------------------------------
def _raw_seed(data: dict, text: str) -> str:
    """The record's JSON with ``text`` written as its seed (what ``json.dumps`` cannot write)."""
    return json.dumps({**data, "seed": "@SEED@"}).replace('"@SEED@"', text)


def _good_record(tmp_path: Path) -> dict:
    match = Match("oicho_kabu", ["scripted"] * 4, seed=5)
    match.advance()
    return match.to_json()


@pytest.mark.parametrize(
    ("name", "make", "message"),
    [
        ("latin1", lambda d: json.dumps(d).replace("scripted", "scr\xefpted").encode("latin-1"), "not UTF-8"),
        ("deep", lambda d: b"[" * 100_000 + b"]" * 100_000, "nested too deeply"),
        ("digits", lambda d: _raw_seed(d, "7" * 5000), "digits"),
        ("nan", lambda d: _raw_seed(d, "NaN"), "NaN is not a JSON number"),
        ("infinity", lambda d: _raw_seed(d, "-Infinity"), "-Infinity is not a JSON number"),
        ("rewards", lambda d: json.dumps({**d, "rewards": 5}), "'rewards' must be null or 4 numbers"),
        ("complete", lambda d: json.dumps({**d, "complete": "false"}), "'complete' must be true or false"),
        ("dup-deck", lambda d: json.dumps({**d, "deck": [3, 3]}), "card id 3 appears twice"),
        ("range-deck", lambda d: json.dumps({**d, "deck": [0, 40]}), "card id 40 is out of range"),
        (
            "seat-seed",
            lambda d: json.dumps({**d, "seats": [{"agent": "x", "seed": 1.5}] * 4}),
            "'seats' must",
        ),
        ("game", lambda d: json.dumps({**d, "game": ["kakeya"]}), "'game' must be a game id"),
        ("version", lambda d: json.dumps({**d, "version": True}), "record version True is not supported"),
        ("missing", lambda d: "{}", "not a game record"),
    ],
)
def test_kabu_replay_names_a_bad_file_in_one_line_with_status_2(tmp_path, name, make, message):
    path = tmp_path / f"{name}.json"
    raw = make(_good_record(tmp_path))
    path.write_bytes(raw if isinstance(raw, bytes) else raw.encode())
    proc = _cli(["kabu_envs.play.replay", str(path)])
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr and len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    assert message in proc.stderr and proc.stderr.startswith(f"kabu-replay: {path}: ")


def test_kabu_replay_into_a_closed_pipe_stops_quietly(tmp_path):
    match = Match("kakeya", ["random"] * 4, {"max_deals": 12}, seed=1)  # far more than a pipe holds
    match.advance()
    path = write_record(match.record(), tmp_path / "long.json")
    proc = subprocess.Popen(
        [sys.executable, "-m", "kabu_envs.play.replay", str(path)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.readline()
    proc.stdout.close()  # as `| head -1` does
    err = proc.stderr.read()
    assert proc.wait(timeout=120) == 2
    assert (
        "Traceback" not in err
        and err.strip() == "kabu-replay: the output was closed before the end (broken pipe)"
    )


def test_a_record_that_does_not_replay_is_status_1(tmp_path):
    data = _good_record(tmp_path)
    data["rewards"] = [9.0, -3.0, -3.0, -3.0]
    path = tmp_path / "r.json"
    path.write_text(json.dumps(data))
    proc = _cli(["kabu_envs.play.replay", str(path), "--moves"])
    assert (
        proc.returncode == 1 and "differ from the record's" in proc.stderr and "Traceback" not in proc.stderr
    )


# --- item 9: --resume checks what it resumes ---------------------------------------------------------------
def _resume(path: Path) -> subprocess.CompletedProcess:
    return _cli(["kabu_envs.play", "--resume", str(path)], input="1\n" * 200)


def _finished(tmp_path: Path) -> dict:
    match = Match("kakeya", [HUMAN, "scripted", "random", "scripted"], seed=9)
    while not match.over:
        match.advance()
        if not match.over:
            match.play(match.legal_moves()[-1]["action"])
    return match.to_json()


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda d: d.update(rewards=[5.0, -5.0, 5.0, -5.0]), "differ from the record's"),
        (lambda d: d.update(actions=d["actions"][:-3]), "says the game is complete, but after"),
        (lambda d: None, "this game is finished"),
    ],
)
def test_resume_refuses_a_finished_or_edited_record_and_leaves_it_alone(tmp_path, edit, message):
    data = _finished(tmp_path)
    edit(data)
    path = tmp_path / "game.json"
    path.write_text(json.dumps(data))
    before = path.read_bytes()
    proc = _resume(path)
    assert proc.returncode == 2 and message in proc.stderr and "Traceback" not in proc.stderr
    assert path.read_bytes() == before


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda d: d.update(seed=12346), "'seed' and 'deck' null"),
        (lambda d: d.update(actions=d["actions"][:-1]), "does not open"),
        (lambda d: d["seats"][1].update(seed=d["seats"][1]["seed"] + 1), "does not open"),
        (lambda d: d.update(options={"max_deals": 2}), "does not open"),
        (lambda d: d.update(sealed=d["sealed"][:-6] + "AAAAAA"), "does not open"),
        (lambda d: d.update(sealed="v1.xyz"), "not a seal written by kabu-play"),
        (lambda d: d.update(sealed="v2.xyz"), "not a seal written by kabu-play"),
        (lambda d: d.update(viewer=1), "does not open"),
    ],
)
def test_resume_refuses_an_edited_game_in_progress(tmp_path, edit, message):
    data = _kakeya_in_progress().to_json()
    edit(data)
    path = tmp_path / "saved.json"
    path.write_text(json.dumps(data))
    proc = _resume(path)
    assert proc.returncode == 2 and message in proc.stderr, proc.stderr
    with pytest.raises(RecordError, match=message):
        Match.from_json(data)


def test_a_record_sealed_with_another_key_does_not_open(tmp_path, monkeypatch):
    # hardening #11: a missing or another key used to be reported as "changed after it was saved"
    data = _kakeya_in_progress().to_json()
    own = os.environ["KABU_PLAY_KEY_FILE"]
    GameRecord.from_json(data)  # opens here
    with pytest.raises(RecordError, match="sealed with another key"):
        GameRecord.from_json(data, key=b"k" * 32)
    monkeypatch.setenv("KABU_PLAY_KEY_FILE", str(tmp_path / "none" / "key"))
    monkeypatch.setattr("kabu_envs.play.seal._cache", {})
    with pytest.raises(RecordError, match="no key for saved games on this machine"):
        GameRecord.from_json(data)
    edited = {**data, "actions": data["actions"][:-1]}  # an edit is still named as one
    monkeypatch.setenv("KABU_PLAY_KEY_FILE", own)
    with pytest.raises(RecordError, match="changed after it was saved"):
        GameRecord.from_json(edited)


def test_resume_uses_and_checks_the_recorded_agent_seeds(monkeypatch):
    import kabu_envs.agents.registry as agents

    data = _kakeya_in_progress().to_json()
    data["sealed"] = None  # (the seats are checked before the seal is opened)
    data["seats"][2]["seed"] = "7"
    with pytest.raises(RecordError, match="'seats' must be a list"):
        Match.from_json(data)
    made: list[tuple[str, int | None]] = []
    real = agents.make_agent
    monkeypatch.setattr(
        agents, "make_agent", lambda g, n, s=None, **kw: made.append((n, s)) or real(g, n, s, **kw)
    )
    match = _kakeya_in_progress()
    seeds = [s["seed"] for s in match.record().seats]
    made.clear()
    Match.from_json(match.to_json())
    assert [s for _, s in made] == seeds[1:] and seeds[0] is None
    old = GameRecord.from_json(match.to_json())  # a record whose seats have other seeds (unsealed here)
    old.seats[3]["seed"] = 4242
    old.viewer = None
    made.clear()
    Match.from_record(old)
    assert made[-1] == ("scripted", 4242)


# --- item 10: the terminal -------------------------------------------------------------------------------
def test_a_superscript_digit_is_not_a_choice():
    out = io.StringIO()
    answers = iter(["²\n", "1\n"])
    assert (
        choose([{"label": "Pass", "action": 0}, {"label": "Play", "action": 1}], lambda: next(answers), out)
        == 0
    )
    assert "not a choice: '²'" in out.getvalue()


def test_ctrl_c_saves_the_game_and_exits_cleanly(tmp_path):
    class Interrupting(io.StringIO):
        def readline(self, *args: object) -> str:
            raise KeyboardInterrupt

    path = tmp_path / "saved.json"
    match = Match("kakeya", [HUMAN, "random", "random", "random"], seed=2)
    out = io.StringIO()
    assert run(match, Interrupting(), out, str(path)) == INTERRUPTED == 130
    assert "(interrupted)" in out.getvalue() and "a saved game: --resume it" in out.getvalue()
    assert Match.from_json(json.loads(path.read_text())).view() == match.view()


def test_ctrl_c_in_a_real_terminal_game(tmp_path, monkeypatch):
    path = tmp_path / "saved.json"
    proc = subprocess.Popen(
        [sys.executable, "-m", "kabu_envs.play", "--game", "kakeya", "--seed", "4", "--record", str(path)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        # as a terminal starts it: a runner that ignores SIGINT (a background job: `cmd &`) passes that
        # on, and Python then keeps ignoring it instead of raising KeyboardInterrupt
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    assert proc.stdout is not None
    seen = ""
    deadline = time.monotonic() + 120  # (event-driven: the prompt; a loaded machine starts slowly)
    while "your move [" not in seen and time.monotonic() < deadline:
        chunk = os.read(proc.stdout.fileno(), 4096).decode()
        if not chunk:
            break
        seen += chunk
    assert "your move [" in seen, (seen[-2000:], proc.poll())
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 130 and "Traceback" not in err, err
    assert "(interrupted)" in out and "game record written to" in out
    assert read_record(path).complete is False
    monkeypatch.setattr(sys, "stdin", io.StringIO("q\n"))
    assert play_main(["--resume", str(path)]) == 1  # it continues (and is quit again)


def test_the_interactive_questions_survive_ctrl_c_and_odd_digits(monkeypatch, capsys):
    answers = iter(["²", "1"])

    def ask(prompt: str = "") -> str:
        try:
            return next(answers)
        except StopIteration:
            raise KeyboardInterrupt from None

    monkeypatch.setattr("builtins.input", ask)
    assert play_main([]) == 130
    captured = capsys.readouterr()
    assert "not a choice: '²'" in captured.out and "interrupted" in captured.err


def test_replay_shows_the_table_before_each_own_move_and_names_drawn_cards(tmp_path, capsys):
    # player_0 deals (with the v2 selection the person deals round 1 here, and a bettor's draw before the
    # person's forced dealer move that ends the round is not named, as a dealer's draw)
    options = {"max_rounds": 2, "dealer_selection": "fixed"}
    match = Match("oicho_kabu", ["scripted", "scripted", HUMAN, "scripted"], options, seed=5)
    while not match.over:
        match.advance()
        if not match.over:
            match.play(match.legal_moves()[-1]["action"])
    path = write_record(match.record(), tmp_path / "game.json")
    assert replay_cli.main([str(path)]) == 0
    out = capsys.readouterr().out
    own = sum(1 for line in out.splitlines() if line.startswith("  * you"))
    assert own >= 2 and out.count("== Oicho-Kabu") >= own + 1  # the start, before each own move, ...
    draws = [line for line in out.splitlines() if ": draw (spread" in line]  # (a dealer's may end a round)
    assert draws and all(" -> " in line for line in draws), draws
    _, totals = replay(read_record(path))
    assert totals == pytest.approx(match.totals.tolist())


def _play_out(match: Match) -> None:
    while not match.over:
        match.advance()
        if not match.over:
            match.play(match.legal_moves()[0]["action"])


def test_a_save_does_not_continue_after_its_game_was_finished(tmp_path):
    # hardening #10: save (sealed), finish a copy (its record shows the seed), god-view replay it at the
    # save point, then resume the save: every hidden card was known
    match = Match("kakeya", [HUMAN, "scripted", "scripted", "scripted"])  # a fresh, secret seed
    for _ in range(3):
        match.advance()
        match.play(match.legal_moves()[0]["action"])
    save = json.loads(json.dumps(match.to_json()))
    copy = Match.from_json(save)
    _play_out(copy)
    finished = copy.record()
    assert finished.complete and finished.seed == match.seed
    with pytest.raises(RecordError, match="already played to its end"):
        Match.from_json(save)
    path = tmp_path / "save.json"
    path.write_text(json.dumps(save))
    proc = _resume(path)
    assert proc.returncode == 2 and "already played to its end" in proc.stderr, proc.stderr
    # a game the person seeded (they know the seed) is no secret: its save continues as before
    seeded = Match("kakeya", [HUMAN, "scripted", "scripted", "scripted"], seed=77)
    seeded.advance()
    seeded.play(seeded.legal_moves()[0]["action"])
    saved = seeded.to_json()
    _play_out(Match.from_json(saved))
    Match.from_json(saved)


def test_a_damaged_or_unsafe_key_is_named_when_saving(tmp_path, monkeypatch):
    # hardening #11 and #17: a damaged key ended the terminal game in a traceback; a key other users may
    # read was used silently
    for text, mode, message in [("not hex\n", 0o600, "is damaged"), ("ab" * 32 + "\n", 0o644, "chmod 600")]:
        key = tmp_path / f"key-{mode:o}"
        key.write_text(text)
        key.chmod(mode)
        monkeypatch.setenv("KABU_PLAY_KEY_FILE", str(key))
        monkeypatch.setattr("kabu_envs.play.seal._cache", {})
        match = Match("kakeya", [HUMAN, "scripted", "scripted", "scripted"], seed=5)
        out = io.StringIO()
        record = tmp_path / "game.json"
        assert run(match, io.StringIO("1\nq\n"), out, str(record)) == 1
        assert f"the game could not be saved: the key for saved games ({key})" in out.getvalue()
        assert message in out.getvalue() and not record.exists()


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_fifo_or_a_device_is_refused_at_once(tmp_path):
    # hardening #14: a FIFO hung kabu-replay and --resume; a link to /dev/zero read without end
    fifo = tmp_path / "fifo.json"
    os.mkfifo(fifo)
    zero = tmp_path / "zero.json"
    zero.symlink_to("/dev/zero")
    for path in (fifo, zero):  # (a hang is the subprocess timeout)
        with pytest.raises(RecordError, match="not a regular file"):
            read_record(path)
        for argv in (
            ["-m", "kabu_envs.play.replay", str(path)],
            ["-m", "kabu_envs.play", "--resume", str(path)],
        ):
            proc = subprocess.run([sys.executable, *argv], capture_output=True, text=True, timeout=60)
            assert proc.returncode == 2 and "not a regular file" in proc.stderr, proc.stderr
    big = tmp_path / "big.json"
    with big.open("wb") as f:
        f.truncate((64 << 20) + 1)  # sparse: no disk used
    with pytest.raises(RecordError, match="too large for a record"):
        read_record(big)
