"""The web page in a real headless browser (the system Chromium, driven by Selenium).

Plays a whole Oicho-Kabu round and a whole Kakeya deal by clicking the first highlighted move each
time (every other time the first highlighted card of the hand, where there is one), then checks the
result the page shows against the engine: the record the server wrote is replayed
(``kabu_envs.play.records``) and its rewards and final result lines must be what the page says.
Each game is played in English and in Japanese; agents watched playing a whole game (watch mode:
pause, step, speed); screenshots of the table (desktop and 390 px wide) are compared with the
reference images in tests/play/screens/ within a tolerance robust to font anti-aliasing (a layout
change fails; ``KABU_UPDATE_SCREENSHOTS=1`` rewrites the references, ``KABU_SCREENSHOT_DIR`` keeps the
shots taken). Every test ends by reading the browser's console: no error (a failed request, a 404
icon, a script error) may appear. Also: a two-deal game's result box (cleared at the person's first
move of the next deal), a game saved in progress (sealed: the other seats refused, continued from the
replay tab), a long record stepped through in pages, and a game gone from the server.

Skipped only when /usr/bin/chromium is absent and ``KABU_REQUIRE_BROWSER`` is unset (CI sets it, so
CI fails instead of skipping).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import tempfile
import threading
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from kabu_envs.play.records import read_record, replay, write_record
from kabu_envs.play.replay import replay_frames
from kabu_envs.play.session import HUMAN, Match, viewer_for
from kabu_envs.play.web import make_server

CHROMIUM = Path("/usr/bin/chromium")
SCREENS = Path(__file__).parent / "screens"  # the reference screenshots
WINDOW = (1000, 900)  # the desktop window of the screenshots; a phone: 390 px wide
# a pixel differs when a channel moves by more than PIXEL_TOLERANCE (anti-aliased glyph edges move
# less than a layout change does); at most MAX_DIFFERENT of the pixels may differ
PIXEL_TOLERANCE, MAX_DIFFERENT = 64, 0.015
# the README's pictures of the table: these references, copied (KABU_UPDATE_SCREENSHOTS copies them)
README_SHOTS = {
    "oicho_kabu-en": "web_table.png",
    "oicho_kabu-hanafuda-phone": "web_table_phone.png",
    "oicho_kabu-hanafuda-showdown-ja": "web_oicho_hanafuda_round_ja.png",
    "oicho_kabu-kabufuda-showdown-ja": "web_oicho_kabufuda_round_ja.png",
    "kakeya-deal-ja": "web_kakeya_deal_ja.png",
    "watch-kakeya": "web_watch_kakeya.png",
    "kakeya-phone-ja": "web_kakeya_phone_ja.png",
}
DOCS_IMG = Path(__file__).resolve().parents[2] / "docs" / "img"
CHROMEDRIVER = Path("/usr/bin/chromedriver")

if not (CHROMIUM.exists() and CHROMEDRIVER.exists()) and not os.environ.get("KABU_REQUIRE_BROWSER"):
    pytest.skip(
        "no /usr/bin/chromium + /usr/bin/chromedriver (apt-get install chromium chromium-driver; "
        ".ci/run installs them and sets KABU_REQUIRE_BROWSER=1)",
        allow_module_level=True,
    )

if not os.environ.get("KABU_REQUIRE_BROWSER"):
    pytest.importorskip("selenium", reason="selenium is in the dev extra (pip install -e '.[dev]')")
from selenium import webdriver  # noqa: E402
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
]


@pytest.fixture(scope="module")
def live(tmp_path_factory):
    records = tmp_path_factory.mktemp("records")
    srv = make_server("127.0.0.1", 0, records)
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{srv.server_address[1]}", records, srv
    srv.shutdown()
    srv.server_close()


@pytest.fixture()
def server(live):
    return live[:2]


@pytest.fixture(scope="module")
def chromium():
    profile = tempfile.mkdtemp(prefix="kabu-chromium-")
    opts = webdriver.ChromeOptions()
    opts.binary_location = str(CHROMIUM)
    for flag in [*FLAGS, f"--user-data-dir={profile}"]:
        opts.add_argument(flag)
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(executable_path=str(CHROMEDRIVER)), options=opts)
    driver.set_page_load_timeout(30)
    yield driver
    driver.quit()
    shutil.rmtree(profile, ignore_errors=True)


@pytest.fixture()
def browser(chromium):
    """The module's Chromium; after the test, its console must hold no error (nor warning)."""
    chromium.get_log("browser")  # (drop what earlier tests left)
    yield chromium
    problems = [e for e in chromium.get_log("browser") if e["level"] in ("SEVERE", "WARNING")]
    assert not problems, problems


# seconds a page may take for one event on a loaded machine before a test calls it a hang (waits are
# event-driven: a quiet machine does not wait them out)
WAIT = 120


def _until_mine(driver) -> None:
    """Wait until the person has a legal move, a showdown is held, or the game is over."""
    WebDriverWait(driver, WAIT).until(
        lambda d: (
            d.find_elements(By.CSS_SELECTOR, "#moves button.move.legal")
            or d.find_element(By.ID, "result-continue").is_displayed()
            or d.find_element(By.ID, "summary-box").is_displayed()
        )
    )


def _settled(count: Callable[[], int]) -> int:
    """``count()`` once two reads 0.6 s apart agree (at most ``WAIT`` seconds)."""
    deadline = time.monotonic() + WAIT
    last = count()
    while True:
        time.sleep(0.6)
        now = count()
        if now == last:
            return now
        assert time.monotonic() < deadline, "the page kept moving"
        last = now


def _start(driver, url: str, query: str, lang: str = "en") -> WebDriverWait:
    driver.set_window_size(*WINDOW)
    driver.get(f"{url}/?{query}&delay=0&anim=0&lang={lang}")
    wait = WebDriverWait(driver, WAIT)
    wait.until(lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-ready") == "1")
    turn = driver.find_element(By.TAG_NAME, "body").get_attribute("data-turn")
    driver.find_element(By.ID, "start").click()
    wait.until(lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-turn") != turn)
    return wait


def screen_difference(shot: Path, reference: Path) -> float:
    """The fraction of pixels of ``shot`` that differ from ``reference`` by more than
    ``PIXEL_TOLERANCE`` in some channel (1.0 when the sizes differ)."""
    a = np.asarray(Image.open(shot).convert("RGB"), dtype=np.int16)
    b = np.asarray(Image.open(reference).convert("RGB"), dtype=np.int16)
    if a.shape != b.shape:
        return 1.0
    return float((np.abs(a - b).max(axis=2) > PIXEL_TOLERANCE).mean())


def _check_screen(driver, name: str, tmp_path: Path) -> None:
    """A screenshot of the page, compared with ``screens/<name>.png`` (see the module docstring)."""
    driver.execute_script("document.activeElement && document.activeElement.blur()")
    keep = os.environ.get("KABU_SCREENSHOT_DIR")
    shot = (Path(keep) if keep else tmp_path) / f"{name}.png"
    shot.parent.mkdir(parents=True, exist_ok=True)
    driver.save_screenshot(str(shot))
    reference = SCREENS / f"{name}.png"
    if os.environ.get("KABU_UPDATE_SCREENSHOTS"):
        SCREENS.mkdir(exist_ok=True)
        shutil.copyfile(shot, reference)
        if name in README_SHOTS:  # (a palette PNG: a third of the size, for the docs)
            small = Image.open(shot).convert("RGB").quantize(colors=128)
            small.save(DOCS_IMG / README_SHOTS[name], optimize=True)
    assert reference.exists(), f"no reference screenshot {reference} (KABU_UPDATE_SCREENSHOTS=1 makes it)"
    diff = screen_difference(shot, reference)
    assert diff <= MAX_DIFFERENT, f"{shot} differs from {reference} in {diff:.1%} of its pixels"


JAPANESE = re.compile(r"[\u3040-\u30ff\u4e00-\u9fff]")
# what may stay Latin on the Japanese page: card names (A♠, 10♣), ranks, the program's name, the
# rule options' format, the key names and the language button (its label is the other language)
LATIN_ALLOWED = re.compile(r"(?:10|[2-9AJQK])[♣♦♥♠]|\b[AJQK]\b|kabu-play|JSON|Enter|English|\b[a-z]\b")

# the visible text nodes of the page (not in a card's picture nor a key's label, not in an element
# marked data-verbatim such as a file path)
VISIBLE_TEXT = """
const out = [];
const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
while (walker.nextNode()) {
  const el = walker.currentNode.parentElement;
  if (!el || el.closest("svg, script, style, kbd, [data-verbatim]")) continue;
  if (!el.getClientRects().length) continue;
  const text = walker.currentNode.textContent.trim();
  if (text) out.push(text);
}
for (const el of document.querySelectorAll("button, option, select")) {
  if (el.getClientRects().length && el.title) out.push(el.title);
}
return out;
"""


def not_japanese(driver) -> list[str]:
    """The visible strings of the page with a Latin letter outside card names and ``LATIN_ALLOWED``."""
    texts = driver.execute_script(VISIBLE_TEXT)
    return [text for text in texts if re.search("[A-Za-z]", LATIN_ALLOWED.sub("", text))]


def _click_move(driver, wait: WebDriverWait, index: int = 0) -> None:
    """Click a highlighted move and wait for the next state."""
    turn = driver.find_element(By.TAG_NAME, "body").get_attribute("data-turn")
    driver.find_elements(By.CSS_SELECTOR, "#moves button.move.legal")[index].click()
    wait.until(lambda d, t=turn: d.find_element(By.TAG_NAME, "body").get_attribute("data-turn") != t)


def _play_by_clicking(
    driver, url: str, game: str, seat: int, seed: int, lang: str = "en", screen: Path | None = None
) -> tuple[list[float], list[str], int]:
    wait = _start(driver, url, f"game={game}&seat={seat}&seed={seed}&options={{}}", lang)
    if screen is not None:
        _check_screen(driver, f"{game}-{lang}", screen)
    clicks = 0
    while not driver.find_element(By.ID, "summary-box").is_displayed():
        turn = driver.find_element(By.TAG_NAME, "body").get_attribute("data-turn")
        legal = driver.find_elements(By.CSS_SELECTOR, "#moves button.move.legal")
        assert legal, "the person is to act but no legal move is highlighted"
        cards = driver.find_elements(By.CSS_SELECTOR, "#hand .card.legal")  # Kakeya: playable cards
        assert len(cards) == sum(b.get_attribute("data-card") is not None for b in legal)
        (cards[0] if cards and clicks % 2 else legal[0]).click()  # a card every other time
        clicks += 1
        wait.until(lambda d, t=turn: d.find_element(By.TAG_NAME, "body").get_attribute("data-turn") != t)
        assert clicks < 200
    error = driver.find_element(By.ID, "error").text
    assert not error, error
    totals = [
        float(li.get_attribute("data-total")) for li in driver.find_elements(By.CSS_SELECTOR, "#summary li")
    ]
    result = [li.get_attribute("data-text") for li in driver.find_elements(By.CSS_SELECTOR, "#result li")]
    shown = [li.text for li in driver.find_elements(By.CSS_SELECTOR, "#result li")]
    if lang == "ja":  # written again in Japanese, every line
        assert all(JAPANESE.search(line) for line in shown), shown
        assert not_japanese(driver) == []
    else:  # in English, seats and spreads counted from 1 (the server's lines count from 0)
        assert not any("player_" in line or "spread 0" in line for line in shown), shown
    return totals, result, clicks


@pytest.mark.parametrize("lang", ["en", "ja"])
@pytest.mark.parametrize(("game", "seat", "seed"), [("oicho_kabu", 1, 4), ("kakeya", 0, 2)])
def test_a_whole_game_clicked_in_the_browser_matches_the_engine(
    server, browser, game, seat, seed, lang, tmp_path
):
    url, records = server
    before = set(records.iterdir())
    totals, result, clicks = _play_by_clicking(browser, url, game, seat, seed, lang, tmp_path)
    assert clicks >= 1
    [path] = set(records.iterdir()) - before
    record = read_record(path)
    assert record.game == game and record.seed == seed and record.viewer == seat and record.complete
    env, engine_totals = replay(record)  # checks every action and the recorded rewards
    assert totals == pytest.approx(engine_totals)
    final = viewer_for(game).seat_view(env, seat)["result"]
    assert final and result[: len(final)] == final
    shown = browser.find_element(By.ID, "record-file").text
    assert str(path) in shown


def test_the_replay_viewer_steps_through_a_record(server, browser, tmp_path):
    url, _ = server
    match = Match("kakeya", ["random", HUMAN, "random", "random"], seed=5)  # its own record: xdist may
    while not match.over:  # run this test on another worker than the games above
        match.advance()
        if not match.over:
            match.play(match.legal_moves()[0]["action"])
    path = write_record(match.record(), tmp_path / "kakeya.json")
    record = read_record(path)
    browser.get(f"{url}/?delay=0&lang=en")
    WebDriverWait(browser, WAIT).until(
        lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-ready")
    )
    browser.find_element(By.ID, "tab-replay").click()
    browser.find_element(By.ID, "replay-file").send_keys(str(path))
    browser.find_element(By.ID, "replay-load").click()
    WebDriverWait(browser, WAIT).until(lambda d: d.find_element(By.ID, "replay-controls").is_displayed())
    assert browser.find_element(By.ID, "replay-pos").text == f"move 0 / {len(record.actions)}"
    browser.find_element(By.ID, "replay-last").click()
    assert (
        browser.find_element(By.ID, "replay-pos").text
        == f"move {len(record.actions)} / {len(record.actions)}"
    )
    env, _ = replay(record)
    final = viewer_for(record.game).seat_view(env, record.viewer)
    title = re.fullmatch(r"Kakeya \((\d+) players\), deal (\d+)/(\d+)", final["title"])
    assert title is not None
    players, deal, deals = title.groups()
    shown = browser.find_element(By.CSS_SELECTOR, "#replay-table h2").text
    assert shown == f"Kakeya ({players} players), deal {deal} of {deals}"


def test_a_two_deal_game_clears_the_last_result_at_the_next_deal(server, browser):
    """The result box showed the first deal's result all through the second (issue #25); now it is
    cleared at the person's first move of the next deal and names the deal it shows."""
    url, _ = server
    wait = _start(browser, url, 'game=kakeya&seat=0&seed=3&options={"max_deals":2}')
    shown = []
    while not browser.find_element(By.ID, "summary-box").is_displayed():
        box = browser.find_element(By.ID, "result-box")
        shown.append(browser.find_element(By.ID, "result-title").text if box.is_displayed() else None)
        _click_move(browser, wait)
        assert len(shown) < 200
    runs = [k for i, k in enumerate(shown) if i == 0 or k != shown[i - 1]]
    assert runs[:3] == [None, "Result of deal 1", None], runs  # shown, then cleared in deal 2
    assert browser.find_element(By.ID, "result-title").text == "Result of deal 2"


def test_a_game_saved_in_progress_replays_only_as_its_seat_and_continues(live, browser, tmp_path):
    url, _, srv = live
    wait = _start(browser, url, "game=kakeya&seat=0&seed=12345&opponents=scripted")
    for _ in range(3):
        _click_move(browser, wait)
    token = browser.execute_script("return token")
    href = browser.find_element(By.ID, "save").get_attribute("href")
    assert href.endswith(f"/api/record?token={token}")
    with urllib.request.urlopen(href, timeout=30) as r:
        saved = json.loads(r.read())
    assert saved["seed"] is None and saved["sealed"]
    path = tmp_path / "saved.json"
    path.write_text(json.dumps(saved))
    browser.find_element(By.ID, "tab-replay").click()
    browser.find_element(By.ID, "replay-file").send_keys(str(path))
    browser.find_element(By.ID, "replay-seat").send_keys("2")  # (seats count from 1 on the page)
    browser.find_element(By.ID, "replay-load").click()
    WebDriverWait(browser, WAIT).until(lambda d: d.find_element(By.ID, "replay-error").text)
    assert "seat 1's game in progress" in browser.find_element(By.ID, "replay-error").text
    browser.get_log("browser")  # (Chromium logs the 403 of that refusal: expected, not an error)
    browser.find_element(By.ID, "replay-seat").clear()
    browser.find_element(By.ID, "replay-load").click()
    WebDriverWait(browser, WAIT).until(lambda d: d.find_element(By.ID, "replay-controls").is_displayed())
    assert browser.find_element(By.ID, "replay-error").text == ""
    browser.find_element(By.ID, "replay-last").click()
    n = len(saved["actions"])
    last = f"move {n} / {n}"
    WebDriverWait(browser, WAIT).until(lambda d: d.find_element(By.ID, "replay-pos").text == last)
    turn = browser.find_element(By.TAG_NAME, "body").get_attribute("data-turn")
    browser.find_element(By.ID, "replay-resume").click()
    WebDriverWait(browser, WAIT).until(
        lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-turn") != turn
    )
    assert browser.find_element(By.ID, "table").is_displayed()
    assert browser.execute_script("return token") != token
    _click_move(browser, wait)  # the game goes on
    srv.app.store._entries.clear()  # the server forgets it (idle too long, or restarted)
    browser.find_elements(By.CSS_SELECTOR, "#moves button.move.legal")[0].click()
    WebDriverWait(browser, WAIT).until(lambda d: d.find_element(By.ID, "setup").is_displayed())
    assert "no longer on the server" in browser.find_element(By.ID, "error").text
    browser.get_log("browser")  # (the 404 of that move is logged by Chromium: expected)


def test_a_long_record_is_stepped_through_in_pages(server, browser, tmp_path):
    url, _ = server
    match = Match("kakeya", ["random"] * 4, {"max_deals": 8}, seed=2)
    match.advance()
    n = len(match.record().actions)
    assert n > 300  # several pages of 100 frames
    path = write_record(match.record(), tmp_path / "long.json")
    browser.get(f"{url}/?delay=0&lang=en")
    WebDriverWait(browser, WAIT).until(
        lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-ready")
    )
    browser.find_element(By.ID, "tab-replay").click()
    browser.find_element(By.ID, "replay-file").send_keys(str(path))
    browser.find_element(By.ID, "replay-seat").send_keys("3")  # (seat 2 of the server's)
    browser.find_element(By.ID, "replay-load").click()
    pos = browser.find_element(By.ID, "replay-pos")
    WebDriverWait(browser, WAIT).until(lambda d: pos.text == f"move 0 / {n}")
    assert [b.text for b in browser.find_elements(By.CSS_SELECTOR, "#replay-controls button")][:4] == [
        "First",
        "Back",
        "Next",
        "Last",
    ]  # fmt: skip (words, not glyphs a font may lack)
    browser.find_element(By.ID, "replay-last").click()
    WebDriverWait(browser, WAIT).until(lambda d: pos.text == f"move {n} / {n}")
    browser.find_element(By.ID, "replay-prev").click()
    WebDriverWait(browser, WAIT).until(lambda d: pos.text == f"move {n - 1} / {n}")
    frames = replay_frames(read_record(path), 2)
    shown = browser.find_element(By.ID, "replay-move")
    assert shown.get_attribute("data-text") == (frames[n - 1]["move"] or "")
    assert shown.text and "player_" not in shown.text and "[" not in shown.text
    pages = browser.execute_script("return [...replay.pages.keys()].sort((a, b) => a - b)")
    assert pages == [0, (n - 1) // 100 * 100] or pages == [0, (n - 1) // 100 * 100, n // 100 * 100]


def test_agents_are_watched_through_a_whole_game_with_pause_and_step(server, browser, tmp_path):
    """Watch mode: scripted agents on every Kakeya seat, seen as seat 2; paused, stepped one move,
    sped up to the end; the page's totals are the engine's (the record written is replayed)."""
    url, records = server
    before = set(records.iterdir())
    browser.set_window_size(*WINDOW)
    browser.get(f"{url}/?game=kakeya&seed=7&delay=250&anim=0&lang=en")
    WebDriverWait(browser, WAIT).until(
        lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-ready")
    )
    browser.find_element(By.ID, "tab-watch").click()
    agents = browser.find_elements(By.CSS_SELECTOR, "#watch-agents select")
    assert len(agents) == 4
    browser.execute_script("arguments[0].value = 'random'", agents[1])  # one seat another agent
    browser.execute_script("document.getElementById('watch-view').value = '2'")
    browser.find_element(By.ID, "watch-start").click()
    log = browser.find_elements(By.CSS_SELECTOR, "#log")[0]
    WebDriverWait(browser, WAIT).until(lambda d: log.find_elements(By.TAG_NAME, "li"))
    browser.find_element(By.ID, "watch-pause").click()
    moved = _settled(lambda: len(log.find_elements(By.TAG_NAME, "li")))  # (a move in flight lands)
    time.sleep(1.0)
    assert len(log.find_elements(By.TAG_NAME, "li")) == moved  # paused: nothing moves
    browser.find_element(By.ID, "watch-step").click()
    WebDriverWait(browser, WAIT).until(lambda d: len(log.find_elements(By.TAG_NAME, "li")) == moved + 1)
    browser.execute_script(
        "const s = document.getElementById('watch-speed'); s.value = '4'; s.dispatchEvent(new Event('input'))"
    )
    browser.find_element(By.ID, "watch-pause").click()  # go on, at full speed
    WebDriverWait(browser, WAIT).until(lambda d: d.find_element(By.ID, "summary-box").is_displayed())
    [path] = set(records.iterdir()) - before
    record = read_record(path)
    assert [s["agent"] for s in record.seats] == ["scripted", "random", "scripted", "scripted"]
    assert record.viewer is None and record.complete and record.seed == 7
    _, engine_totals = replay(record)
    totals = [
        float(li.get_attribute("data-total")) for li in browser.find_elements(By.CSS_SELECTOR, "#summary li")
    ]
    assert totals == pytest.approx(engine_totals)
    assert not browser.find_element(By.ID, "moves-box").is_displayed()  # nobody's moves to click
    assert browser.find_element(By.CSS_SELECTOR, ".seat.me").get_attribute("data-seat") == "2"
    # the watched seat is "seat 3" (counted from 1), never "you"; no Pause once the game is over
    table = browser.find_element(By.ID, "table").text
    assert not re.search(r"\b(you|your)\b", table, re.IGNORECASE), table
    assert "seat 3" in table and "Seat 3" in "\n".join(li.text for li in log.find_elements(By.TAG_NAME, "li"))
    assert not browser.find_element(By.ID, "watch-pause").is_displayed()
    assert not browser.find_element(By.ID, "save").is_displayed()
    options = [o.get_attribute("value") for o in agents[0].find_elements(By.TAG_NAME, "option")]
    assert len(options) == len(set(options)) and "random" in options  # (each agent once)
    browser.execute_script("document.getElementById('record-file').textContent = ''")  # (a temp path)
    _check_screen(browser, "watch-kakeya", tmp_path)


def test_the_table_fits_a_phone_and_keys_play_the_moves(server, browser, tmp_path):
    """390 px wide: nothing sticks out sideways; number keys pick moves, Enter continues."""
    url, _ = server
    wait = _start(browser, url, 'game=oicho_kabu&seat=1&seed=4&options={"deck":"hanafuda"}')
    browser.set_window_size(390, 844)
    width = browser.execute_script("return document.documentElement.scrollWidth")
    assert width <= browser.execute_script("return window.innerWidth"), width
    _check_screen(browser, "oicho_kabu-hanafuda-phone", tmp_path)
    turn = browser.find_element(By.TAG_NAME, "body").get_attribute("data-turn")
    first = browser.find_elements(By.CSS_SELECTOR, "#moves button.move")[1].text  # "2Bet 1 on spread 2"
    browser.find_element(By.TAG_NAME, "body").send_keys("2")
    wait.until(lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-turn") != turn)
    assert re.fullmatch(r"2Bet 1 on spread [1-4]", first), first
    assert browser.find_elements(By.CSS_SELECTOR, "#log li")[-1].text.startswith("You bet 1 on spread ")
    body = browser.find_element(By.TAG_NAME, "body")
    for _ in range(100):  # the round to its end by the keys alone
        if browser.find_element(By.ID, "summary-box").is_displayed():
            break
        turn = body.get_attribute("data-turn")
        body.send_keys("1")
        wait.until(lambda d, t=turn: d.find_element(By.TAG_NAME, "body").get_attribute("data-turn") != t)
    assert browser.find_element(By.ID, "summary-box").is_displayed()
    body.send_keys("\n")  # Enter: a new game
    wait.until(lambda d: d.find_element(By.ID, "setup").is_displayed())


def _in_view(driver, css: str) -> bool:
    """True when the first element matching ``css`` lies wholly inside the window."""
    return driver.execute_script(
        "const r = document.querySelector(arguments[0]).getBoundingClientRect();"
        "return r.height > 0 && r.top >= 0 && r.bottom <= window.innerHeight",
        css,
    )


def test_a_kakeya_hand_and_its_moves_stay_in_view_on_a_phone(server, browser, tmp_path):
    """390 px: the hand and the moves are docked at the foot of the screen (they were ~1,050 and
    ~1,220 px down the page, a scroll every turn), all through a deal played by the keys."""
    url, _ = server
    wait = _start(browser, url, "game=kakeya&seat=0&seed=2&options={}", "ja")
    browser.set_window_size(390, 844)
    body = browser.find_element(By.TAG_NAME, "body")
    _check_screen(browser, "kakeya-phone-ja", tmp_path)
    for _ in range(60):
        if browser.find_element(By.ID, "summary-box").is_displayed():
            break
        assert _in_view(browser, "#hand") and _in_view(browser, "#hand .card.legal, #moves button.move.legal")
        turn = body.get_attribute("data-turn")
        keys = browser.find_elements(By.CSS_SELECTOR, "#moves kbd")
        body.send_keys(keys[-1].get_attribute("textContent"))  # the last move (a card's: on its card)
        wait.until(lambda d, t=turn: d.find_element(By.TAG_NAME, "body").get_attribute("data-turn") != t)
    assert browser.find_element(By.ID, "summary-box").is_displayed()
    assert not_japanese(browser) == []


def test_every_legal_move_has_a_key(server, browser):
    """Ten and more moves (a Kakeya lead from a full hand): 1-9, 0, then a, b, c ... on the buttons;
    the key of the 13th plays the 13th card, and the log credits the card to the person."""
    url, _ = server
    wait = _start(browser, url, "game=kakeya&seat=0&seed=2&options={}")
    body = browser.find_element(By.TAG_NAME, "body")
    for _ in range(20):
        moves = browser.find_elements(By.CSS_SELECTOR, "#moves button.move")
        if len(moves) >= 11:
            break
        _click_move(browser, wait)
    keys = [m.find_element(By.TAG_NAME, "kbd").text for m in moves]
    assert keys == list("1234567890abcdefghijklmnopqrstuvwxyz"[: len(moves)]), keys
    label = moves[-1].get_attribute("data-label")  # "Play 7♠"
    assert label.startswith("Play ")
    turn = body.get_attribute("data-turn")
    body.send_keys(keys[-1])
    wait.until(lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-turn") != turn)
    mine = [li.text for li in browser.find_elements(By.CSS_SELECTOR, "#log li.mine")]
    assert mine[-1] == f"You play {label[5:]}", mine


def test_a_language_switch_writes_the_log_again_and_the_history_keeps_each_round(server, browser, tmp_path):
    """Three rounds in English with the showdowns held; then Japanese: the log, the result, the history
    (each round's result and final table) and the rules panel (this rule set's yaku) are in Japanese."""
    url, _ = server
    wait = _start(browser, url, 'game=oicho_kabu&seat=1&seed=4&opponents=expert&options={"max_rounds":3}')
    body = browser.find_element(By.TAG_NAME, "body")
    showdowns = 0
    for _ in range(300):
        if browser.find_element(By.ID, "summary-box").is_displayed():
            break
        if browser.find_element(By.ID, "result-continue").is_displayed():
            showdowns += 1
            if showdowns == 1:  # the first round's showdown, held: a whole round on the table
                browser.execute_script("window.scrollTo(0, 0)")  # (a click scrolled to the moves)
                _check_screen(browser, "oicho_kabu-showdown-en", tmp_path)
            turn = body.get_attribute("data-turn")
            browser.find_element(By.ID, "result-continue").click()
            wait.until(
                lambda d, t=turn: (
                    d.find_element(By.TAG_NAME, "body").get_attribute("data-turn") != t
                    or d.find_element(By.ID, "result-continue").is_displayed()
                )
            )
            continue
        legal = browser.find_elements(By.CSS_SELECTOR, "#moves button.move.legal")
        if legal:
            turn = body.get_attribute("data-turn")
            legal[min(1, len(legal) - 1)].click()  # (a bet, a draw: a showdown with stakes)
            wait.until(
                lambda d, t=turn: (
                    d.find_element(By.TAG_NAME, "body").get_attribute("data-turn") != t
                    or d.find_element(By.ID, "result-continue").is_displayed()
                )
            )
        else:  # the others' turns: wait for one of mine, a showdown or the end (event-driven)
            _until_mine(browser)
    assert showdowns == 2
    english = [li.text for li in browser.find_elements(By.CSS_SELECTOR, "#log li")]
    assert not any(" -> " in line or "player_" in line for line in english), english
    assert any("(dealt: " in line for line in english), english  # the cards a move turned up, and where
    browser.find_element(By.ID, "lang").click()
    log = [li.text for li in browser.find_elements(By.CSS_SELECTOR, "#log li")]
    assert len(log) == len(english) and all(JAPANESE.search(line) for line in log), log
    browser.find_element(By.CSS_SELECTOR, "#history-box summary").click()
    rounds = browser.find_elements(By.CSS_SELECTOR, "#history > li")
    assert [r.find_element(By.CLASS_NAME, "h-head").text for r in rounds] == [
        "第1勝負の結果",
        "第2勝負の結果",
        "第3勝負の結果",
    ]
    rounds[0].find_element(By.CLASS_NAME, "h-show").click()
    shown = browser.find_element(By.ID, "history-table")
    assert shown.is_displayed() and shown.find_elements(By.CSS_SELECTOR, ".zone .card")
    browser.find_element(By.CSS_SELECTOR, "#rules-box summary").click()
    yaku = [td.text for td in browser.find_elements(By.CSS_SELECTOR, "#rules-body table.yaku td:first-child")]
    assert yaku == ["アラシカブ", "アラシ", "クッピン", "シッピン"], yaku  # the standard rules' yaku
    assert not_japanese(browser) == []


@pytest.mark.parametrize("deck", ["hanafuda", "kabufuda"])
def test_a_whole_oicho_kabu_round_in_japanese(server, browser, deck, tmp_path):
    """A round of each Japanese deck to its showdown, in Japanese: the final table (hands named,
    results) compared with its reference."""
    url, _ = server
    options = json.dumps({"deck": deck, "max_rounds": 2}, separators=(",", ":"))
    wait = _start(browser, url, f"game=oicho_kabu&seat=1&seed=4&opponents=expert&options={options}", "ja")
    body = browser.find_element(By.TAG_NAME, "body")
    for _ in range(100):
        if browser.find_element(By.ID, "result-continue").is_displayed():
            break
        turn = body.get_attribute("data-turn")
        legal = browser.find_elements(By.CSS_SELECTOR, "#moves button.move.legal")
        legal[min(1, len(legal) - 1)].click()  # (a bet: a round nobody stakes on has no showdown)
        wait.until(
            lambda d, t=turn: (
                d.find_element(By.TAG_NAME, "body").get_attribute("data-turn") != t
                or d.find_element(By.ID, "result-continue").is_displayed()
            )
        )
    assert browser.find_element(By.ID, "result-continue").is_displayed()
    notes = " ".join(z.text for z in browser.find_elements(By.CSS_SELECTOR, ".zone .note"))
    named = r"(ブタ|ピン|ニゾウ|サンタ|ヨツヤ|ゴケ|ロッポウ|ナキ|おいちょ|カブ) \(\d\)"  # a hand by its name
    assert re.search(named, notes), notes
    assert not_japanese(browser) == []
    browser.execute_script("window.scrollTo(0, 0)")  # (a click scrolled to the moves)
    _check_screen(browser, f"oicho_kabu-{deck}-showdown-ja", tmp_path)


def test_a_kakeya_deal_to_its_end_in_japanese(server, browser, tmp_path):
    url, _ = server
    wait = _start(browser, url, "game=kakeya&seat=0&seed=2&options={}", "ja")
    while not browser.find_element(By.ID, "summary-box").is_displayed():
        _click_move(browser, wait)
    trick = browser.find_element(By.CSS_SELECTOR, '.zone[data-label="last trick"] .note').text
    assert trick.count("、") >= 3 and "出した札" in trick, trick  # who played which card
    browser.execute_script("document.getElementById('record-file').textContent = ''")  # (a temp path)
    assert not_japanese(browser) == []
    _check_screen(browser, "kakeya-deal-ja", tmp_path)


def test_a_finished_game_is_listed_under_saved_games_and_replays(server, browser):
    """The replay tab lists this browser's games (kept in localStorage when they end or are saved):
    the newest, just finished, loads without a file."""
    url, records = server
    before = set(records.iterdir())
    wait = _start(browser, url, "game=oicho_kabu&seat=1&seed=4&options={}")
    while not browser.find_element(By.ID, "summary-box").is_displayed():
        _click_move(browser, wait)
    [path] = set(records.iterdir()) - before
    n = len(read_record(path).actions)
    browser.find_element(By.ID, "tab-replay").click()
    WebDriverWait(browser, WAIT).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#saved li"))
    newest = browser.find_elements(By.CSS_SELECTOR, "#saved li")[0]
    assert "Oicho-Kabu (standard rules)" in newest.text and "(finished)" in newest.text, newest.text
    newest.find_element(By.CLASS_NAME, "saved-load").click()
    pos = browser.find_element(By.ID, "replay-pos")
    WebDriverWait(browser, WAIT).until(lambda d: pos.text == f"move 0 / {n}")
    browser.find_element(By.ID, "lang").click()  # the tabs of the Japanese page: Japanese too
    assert browser.find_element(By.ID, "replay-pos").text == f"0手目 / 全{n}手"
    for name in ["replay", "watch", "play"]:
        browser.find_element(By.ID, f"tab-{name}").click()
        assert not_japanese(browser) == [], name
    browser.find_element(By.ID, "lang").click()


def test_a_game_saved_before_titles_were_messages_is_listed_in_japanese(server, browser):
    """An entry of this browser's saved games kept by an older page (its title an English line, not a
    message) is still listed, in the page's language, and its record replays."""
    url, _ = server
    match = Match("kakeya", ["random"] * 4, seed=3)
    match.advance()
    old = [{"token": "t", "title": "Kakeya (4 players), deal 1/1", "when": "2026-01-02T03:04:05Z",
            "record": match.record().to_json()}]  # fmt: skip
    browser.get(f"{url}/?delay=0&lang=ja")
    WebDriverWait(browser, WAIT).until(
        lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-ready")
    )
    browser.execute_script("localStorage.setItem('kabu-saved-games', JSON.stringify(arguments[0]))", old)
    browser.get(f"{url}/?delay=0&lang=ja")
    WebDriverWait(browser, WAIT).until(
        lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-ready")
    )
    browser.find_element(By.ID, "tab-replay").click()
    entry = browser.find_element(By.CSS_SELECTOR, "#saved li")
    assert "カケヤ (4人) 第1回 / 全1回" in entry.text and "(終局)" in entry.text, entry.text
    entry.find_element(By.CLASS_NAME, "saved-load").click()
    WebDriverWait(browser, WAIT).until(lambda d: d.find_element(By.ID, "replay-pos").text.startswith("0手目"))
    assert not_japanese(browser) == []
    browser.execute_script("localStorage.removeItem('kabu-saved-games')")


def test_the_page_remembers_its_language(server, browser):
    url, _ = server
    browser.get(f"{url}/?delay=0&lang=ja")
    WebDriverWait(browser, WAIT).until(
        lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-ready")
    )
    assert browser.find_element(By.ID, "start").text == "対局開始"
    browser.get(f"{url}/?delay=0")  # no lang= : the stored choice
    WebDriverWait(browser, WAIT).until(
        lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-ready")
    )
    assert browser.find_element(By.ID, "start").text == "対局開始"
    browser.find_element(By.ID, "lang").click()
    assert browser.find_element(By.ID, "start").text == "Start a game"
    browser.get(f"{url}/?delay=0")
    WebDriverWait(browser, WAIT).until(
        lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-ready")
    )
    assert browser.find_element(By.ID, "start").text == "Start a game"


def test_the_screen_comparison_passes_anti_aliasing_and_fails_a_layout_change(tmp_path):
    """The tolerance: noise of a glyph edge's size passes; the table moved by 24 px fails."""
    reference = SCREENS / "kakeya-en.png"
    image = np.asarray(Image.open(reference).convert("RGB"), dtype=np.int16)
    rng = np.random.default_rng(0)
    noisy = np.clip(image + rng.integers(-40, 41, image.shape), 0, 255).astype(np.uint8)
    edges = noisy.copy()
    mask = rng.random(image.shape[:2]) < 0.005  # a few pixels fully different (a glyph drawn shifted)
    edges[mask] = 255 - edges[mask]
    Image.fromarray(edges).save(tmp_path / "aa.png")
    assert screen_difference(tmp_path / "aa.png", reference) <= MAX_DIFFERENT
    moved = np.roll(image, 24, axis=0).astype(np.uint8)
    Image.fromarray(moved).save(tmp_path / "moved.png")
    assert screen_difference(tmp_path / "moved.png", reference) > MAX_DIFFERENT


def test_moves_are_animated_unless_switched_off(server, browser):
    """With animations on, a card played slides from its seat and a stake lands (``el.animate``);
    the switch turns them off and is remembered."""
    url, _ = server
    browser.set_window_size(*WINDOW)
    browser.get(f"{url}/?game=oicho_kabu&seed=4&delay=60&lang=en")
    body = browser.find_element(By.TAG_NAME, "body")
    WebDriverWait(browser, WAIT).until(lambda d: body.get_attribute("data-ready"))
    if not browser.find_element(By.ID, "anim").is_selected():
        browser.find_element(By.ID, "anim").click()
    browser.find_element(By.ID, "tab-watch").click()
    browser.find_element(By.ID, "watch-start").click()
    WebDriverWait(browser, WAIT).until(lambda d: d.find_element(By.ID, "summary-box").is_displayed())
    assert int(body.get_attribute("data-animations") or 0) > 3
    browser.find_element(By.ID, "anim").click()  # off, remembered
    browser.get(f"{url}/?game=oicho_kabu&seed=4&delay=0&lang=en")
    WebDriverWait(browser, WAIT).until(
        lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-ready")
    )
    assert not browser.find_element(By.ID, "anim").is_selected()
    browser.find_element(By.ID, "tab-watch").click()
    browser.find_element(By.ID, "watch-start").click()
    WebDriverWait(browser, WAIT).until(lambda d: d.find_element(By.ID, "summary-box").is_displayed())
    assert not browser.find_element(By.TAG_NAME, "body").get_attribute("data-animations")


def test_each_rounds_showdown_is_held_until_the_player_continues(server, browser):
    """Oicho-Kabu's round-ending frame showed the next deal (hardening #9): the page now shows the
    round's final table and holds it (Next round, or Enter) before the next deal."""
    url, _ = server
    wait = _start(browser, url, 'game=oicho_kabu&seat=1&seed=4&opponents=expert&options={"max_rounds":3}')
    held = 0
    body = browser.find_element(By.TAG_NAME, "body")
    for _ in range(300):
        if browser.find_element(By.ID, "summary-box").is_displayed():
            break
        button = browser.find_element(By.ID, "result-continue")
        if button.is_displayed():  # held: the showdown of a round, the next deal not drawn yet
            held += 1
            title = browser.find_element(By.ID, "result-title").text
            assert title == f"Result of round {held}", title
            lines = [li.text for li in browser.find_elements(By.CSS_SELECTOR, "#result li")]
            assert any(line.startswith("round result:") for line in lines), lines
            assert not browser.find_elements(By.CSS_SELECTOR, "#moves button.move")
            turn = body.get_attribute("data-turn")
            (button.click if held % 2 else lambda: body.send_keys("\n"))()
            wait.until(
                lambda d, t=turn: (
                    d.find_element(By.TAG_NAME, "body").get_attribute("data-turn") != t
                    or d.find_element(By.ID, "result-continue").is_displayed()
                )
            )
            continue
        moves = browser.find_elements(By.CSS_SELECTOR, "#moves button.move.legal")
        if moves:
            turn = body.get_attribute("data-turn")
            moves[0].click()
            WebDriverWait(browser, WAIT).until(
                lambda d, t=turn: (
                    d.find_element(By.TAG_NAME, "body").get_attribute("data-turn") != t
                    or d.find_element(By.ID, "result-continue").is_displayed()
                )
            )
        else:  # the others' turns: wait for one of mine, a showdown or the end (event-driven)
            _until_mine(browser)
    assert held == 2 and browser.find_element(By.ID, "summary-box").is_displayed()


WATCHED_GAMES = [
    ("oicho_kabu", {"rules": "standard", "deck": "hanafuda", "max_rounds": 3}, "0"),
    ("oicho_kabu", {"rules": "kansai", "deck": "kabufuda", "max_rounds": 3}, "god"),
    ("oicho_kabu", {"rules": "kabufuda_site", "deck": "western", "max_rounds": 3}, "1"),
    ("kakeya", {"num_players": 6, "max_deals": 2}, "god"),
    ("toy_card", {}, "1"),
]


@pytest.mark.parametrize(
    ("game", "options", "view"), WATCHED_GAMES, ids=lambda x: x if isinstance(x, str) else None
)
def test_whole_games_of_every_game_watched_in_japanese_have_no_english(server, browser, game, options, view):
    """Every game and rule set watched to its end in Japanese (a seat's view or the god view): the
    whole log, the table, the result and the history are Japanese; no message lacks a template (the
    page would write ``[key]`` and complain on the console, which the fixture checks)."""
    url, _ = server
    browser.set_window_size(*WINDOW)
    query = f"game={game}&seed=3&delay=0&anim=0&lang=ja&options={json.dumps(options, separators=(',', ':'))}"
    browser.get(f"{url}/?{query}")
    WebDriverWait(browser, WAIT).until(
        lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-ready")
    )
    browser.find_element(By.ID, "tab-watch").click()
    browser.execute_script(f"document.getElementById('watch-view').value = '{view}'")
    browser.find_element(By.ID, "watch-start").click()
    WebDriverWait(browser, WAIT).until(lambda d: d.find_element(By.ID, "summary-box").is_displayed())
    assert browser.find_element(By.ID, "watch-error").text == ""
    log = [li.text for li in browser.find_elements(By.CSS_SELECTOR, "#log li")]
    assert len(log) >= 2 and all(JAPANESE.search(line) for line in log), log
    assert not any("[" in line and "." in line.split("[", 1)[1] for line in log), log  # (no [key])
    browser.find_element(By.CSS_SELECTOR, "#history-box summary").click()
    browser.execute_script("document.getElementById('record-file').textContent = ''")  # (a temp path)
    assert not_japanese(browser) == []


def test_the_servers_errors_are_written_in_japanese(server, browser, tmp_path):
    """Errors from the server, on the Japanese page: an unknown agent, a record that is not one, an
    illegal move (its legal moves named), a game gone; each a Japanese sentence (the Latin left is an
    argument: the name as typed, a record's own explanation)."""
    url, _ = server
    _start(browser, url, "game=kakeya&seat=0&seed=2&options={}", "ja")
    answer = browser.execute_async_script(
        """const done = arguments[arguments.length - 1];
        api("/api/move", { token, action: 9999 })
          .then(() => done("no error"), (e) => done(errorMessage(e)));"""
    )
    assert answer.startswith("今はその手は打てません。打てる手: ") and "を出す" in answer, answer
    gone = browser.execute_async_script(
        """const done = arguments[arguments.length - 1];
        api("/api/move", { token: "nope", action: 1 })
          .then(() => done("no error"), (e) => done(errorMessage(e)));"""
    )
    assert gone.startswith("この対局はもうサーバーにありません"), gone
    error = browser.execute_async_script(
        """const done = arguments[arguments.length - 1];
        api("/api/new", { game: "kakeya", seat: 0, opponents: ["alphago"] })
          .then(() => done("no error"), (e) => done(errorMessage(e)));"""
    )
    assert error.startswith("カケヤに「alphago」というエージェントはいません"), error
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "a shopping list"}')
    browser.find_element(By.ID, "tab-replay").click()
    browser.find_element(By.ID, "replay-file").send_keys(str(bad))
    browser.find_element(By.ID, "replay-load").click()
    WebDriverWait(browser, WAIT).until(lambda d: d.find_element(By.ID, "replay-error").text)
    error = browser.find_element(By.ID, "replay-error").text
    assert error.startswith("この棋譜は使えません ("), error
    too_many = browser.execute_script(
        "return renderMsg({key: 'error.too_many_games', args: {capacity: 64, protect: '10', minutes: 3}})"
    )
    assert "約3分後" in too_many and "64局" in too_many, too_many
    refused = [e for e in browser.get_log("browser") if e["level"] in ("SEVERE", "WARNING")]
    assert all(
        e["source"] == "network" and "the server responded with a status of 4" in e["message"]
        for e in refused
    )


def test_the_page_writes_each_message_as_the_server_would(server, browser):
    """The page's renderer (i18n.js) and the library's (kabu_envs.core.messages) agree on every message
    of a whole game, in both languages, as a person's game and as a watched seat."""
    from kabu_envs.core.messages import render
    from kabu_envs.play.web import messages_table

    url, _ = server
    browser.get(f"{url}/?lang=en")
    WebDriverWait(browser, WAIT).until(
        lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-ready")
    )
    table = {k: ("", v["en"], v["ja"]) for k, v in messages_table().items()}
    messages = []
    for game, options in [
        ("oicho_kabu", {"deck": "hanafuda", "max_rounds": 2}),
        ("kakeya", {}),
        ("toy_card", {}),
    ]:
        n = len(
            Match(
                game, ["random"] * 2 if game == "toy_card" else ["random"] * 4, options, 1
            ).env.possible_agents
        )
        match = Match(game, ["random"] * n, options, seed=1)
        frames = match.advance()
        for f in frames[:: max(1, len(frames) // 40)]:
            messages += [
                f["say"],
                f["view"]["say"]["title"],
                *f["view"]["say"]["status"],
                *f["view"]["say"]["result"],
            ]
            messages += [
                m for z in f["view"]["zones"] for m in [z["say"].get("label"), *z["say"].get("note", [])]
            ]
    messages = [m for m in messages if m is not None]
    cases = [
        (m, lang, me, person)
        for m in messages
        for lang in ("en", "ja")
        for me, person in ((0, True), (1, False))
    ]
    script = """
      const out = [];
      for (const [m, l, me, person] of arguments[0]) {
        lang = l; speaker = { me, person }; out.push(renderMsg(m));
      }
      lang = "en";
      return out;
    """
    page = browser.execute_script(script, cases)
    expected = [render(m, table, lang, me=me, person=person) for m, lang, me, person in cases]
    assert len(page) == len(expected) > 200
    assert page == expected
