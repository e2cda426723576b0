"""The web page in a real headless browser (the system Chromium, driven by Selenium).

Plays a whole Oicho-Kabu round and a whole Kakeya deal by clicking the first highlighted move each
time (every other time the first highlighted card of the hand, where there is one), then checks the
result the page shows against the engine: the record the server wrote is replayed
(``kabu_envs.play.records``) and its rewards and final result lines must be what the page says.

Skipped only when /usr/bin/chromium is absent and ``KABU_REQUIRE_BROWSER`` is unset (CI sets it, so
CI fails instead of skipping).
"""

from __future__ import annotations

import os
import shutil
import tempfile
import threading
from pathlib import Path

import pytest

from kabu_envs.play.records import read_record, replay, write_record
from kabu_envs.play.session import HUMAN, Match, viewer_for
from kabu_envs.play.web import make_server

CHROMIUM = Path("/usr/bin/chromium")
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
def server(tmp_path_factory):
    records = tmp_path_factory.mktemp("records")
    srv = make_server("127.0.0.1", 0, records)
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{srv.server_address[1]}", records
    srv.shutdown()
    srv.server_close()


@pytest.fixture(scope="module")
def browser():
    profile = tempfile.mkdtemp(prefix="kabu-chromium-")
    opts = webdriver.ChromeOptions()
    opts.binary_location = str(CHROMIUM)
    for flag in [*FLAGS, f"--user-data-dir={profile}"]:
        opts.add_argument(flag)
    driver = webdriver.Chrome(service=Service(executable_path=str(CHROMEDRIVER)), options=opts)
    driver.set_page_load_timeout(30)
    yield driver
    driver.quit()
    shutil.rmtree(profile, ignore_errors=True)


def _play_by_clicking(
    driver, url: str, game: str, seat: int, seed: int
) -> tuple[list[float], list[str], int]:
    driver.get(f"{url}/?game={game}&seat={seat}&seed={seed}&delay=0")
    wait = WebDriverWait(driver, 30)
    wait.until(lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-ready") == "1")
    driver.find_element(By.ID, "start").click()
    wait.until(lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-turn"))
    clicks = 0
    while not driver.find_element(By.ID, "summary-box").is_displayed():
        turn = driver.find_element(By.TAG_NAME, "body").get_attribute("data-turn")
        legal = driver.find_elements(By.CSS_SELECTOR, "#moves button.move.legal")
        assert legal, "the person is to act but no legal move is highlighted"
        cards = driver.find_elements(By.CSS_SELECTOR, "#hand .card.legal")  # Kakeya: playable cards
        assert len(cards) == sum(b.text.startswith("Play ") for b in legal)
        (cards[0] if cards and clicks % 2 else legal[0]).click()  # a card every other time
        clicks += 1
        wait.until(lambda d, t=turn: d.find_element(By.TAG_NAME, "body").get_attribute("data-turn") != t)
        assert clicks < 200
    error = driver.find_element(By.ID, "error").text
    assert not error, error
    totals = [
        float(li.get_attribute("data-total")) for li in driver.find_elements(By.CSS_SELECTOR, "#summary li")
    ]
    result = [li.text for li in driver.find_elements(By.CSS_SELECTOR, "#result li")]
    return totals, result, clicks


@pytest.mark.parametrize(("game", "seat", "seed"), [("oicho_kabu", 1, 4), ("kakeya", 0, 2)])
def test_a_whole_game_clicked_in_the_browser_matches_the_engine(server, browser, game, seat, seed):
    url, records = server
    before = set(records.iterdir())
    totals, result, clicks = _play_by_clicking(browser, url, game, seat, seed)
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
    browser.get(f"{url}/?delay=0")
    WebDriverWait(browser, 30).until(
        lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-ready")
    )
    browser.find_element(By.ID, "tab-replay").click()
    browser.find_element(By.ID, "replay-file").send_keys(str(path))
    browser.find_element(By.ID, "replay-load").click()
    WebDriverWait(browser, 30).until(lambda d: d.find_element(By.ID, "replay-controls").is_displayed())
    assert browser.find_element(By.ID, "replay-pos").text == f"move 0 / {len(record.actions)}"
    browser.find_element(By.ID, "replay-last").click()
    assert (
        browser.find_element(By.ID, "replay-pos").text
        == f"move {len(record.actions)} / {len(record.actions)}"
    )
    env, _ = replay(record)
    final = viewer_for(record.game).seat_view(env, record.viewer)
    assert browser.find_element(By.CSS_SELECTOR, "#replay-table h2").text == final["title"]
