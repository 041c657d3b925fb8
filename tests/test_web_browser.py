"""End to end in a real headless Chromium: ``allfives serve`` in its own process, a whole hand
played by clicks, and the page checked against the server after every move; then watching and
replaying through the page's controls.

Needs Chromium and its driver (Debian: ``apt install chromium chromium-driver``; ``.ci/run``
installs them). Without them the test is skipped, unless ``ALLFIVES_REQUIRE_BROWSER=1`` (set by
CI) makes that a failure. ``ALLFIVES_SCREENSHOT=PATH`` saves a picture of the table mid-hand.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi")
webdriver = pytest.importorskip("selenium.webdriver")

from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import Select, WebDriverWait  # noqa: E402

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
DRIVER = shutil.which("chromedriver")

if not (CHROMIUM and DRIVER):
    if os.environ.get("ALLFIVES_REQUIRE_BROWSER") == "1":
        raise RuntimeError("Chromium and chromedriver are required (apt install chromium "
                           "chromium-driver)")  # fmt: skip
    pytest.skip("no Chromium and chromedriver here", allow_module_level=True)

SLOTS = {0: "W", 1: "E", 2: "N", 3: "S"}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "allfives_env", "serve", "--port", str(port)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while True:
        try:
            urllib.request.urlopen(f"{url}/api/options", timeout=2).read()
            break
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                proc.kill()
                raise RuntimeError(f"allfives serve did not start: {proc.communicate()}") from None
            time.sleep(0.2)
    yield url
    proc.terminate()
    proc.wait(timeout=20)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage",
                "--window-size=1200,1000"):  # fmt: skip
        options.add_argument(arg)
    driver = webdriver.Chrome(service=Service(DRIVER), options=options)
    yield driver
    driver.quit()


def server_state(url: str, gid: str) -> dict[str, Any]:
    with urllib.request.urlopen(f"{url}/api/games/{gid}", timeout=10) as r:
        out: dict[str, Any] = json.loads(r.read())
        return out


def page_state(browser: Any) -> dict[str, Any]:
    out: dict[str, Any] = browser.execute_script("return window.allfivesState")
    return out


def wait_for_change(browser: Any, before: str) -> dict[str, Any]:
    WebDriverWait(browser, 30).until(
        lambda d: d.execute_script("return JSON.stringify(window.allfivesState)") != before
    )
    assert not browser.find_element(By.ID, "error").is_displayed(), browser.find_element(
        By.ID, "error"
    ).text
    return page_state(browser)


def check_page_agrees(browser: Any, url: str, state: dict[str, Any]) -> None:
    """What the page shows is what the server holds, and no hidden tile."""
    assert server_state(url, state["id"]) == state
    assert browser.find_element(By.ID, "count").text == str(state["layout"]["count"])
    assert browser.find_element(By.ID, "boneyard").text == str(state["boneyard"])
    shown = [td.text for td in browser.find_elements(By.CSS_SELECTOR, "#scores td[data-side]")]
    assert shown == [str(x) for x in state["scores"]]
    hand = [
        e.get_attribute("data-tile") for e in browser.find_elements(By.CSS_SELECTOR, "#hand svg")
    ]
    assert hand == [f"{a}-{b}" for a, b in state["seats"][state["you"]]["tiles"]]
    for seat in state["seats"]:
        if seat["seat"] != state["you"]:
            assert seat["tiles"] is None
            box = browser.find_element(
                By.CSS_SELECTOR, f'#others .seat[data-seat="{seat["seat"]}"]'
            )
            assert len(box.find_elements(By.CSS_SELECTOR, "rect.back")) == seat["hand_size"]
            assert not box.find_elements(By.CSS_SELECTOR, "rect.face")


def test_a_whole_hand_played_by_clicks(server: str, browser: Any, tmp_path: Path) -> None:
    browser.get(server)
    WebDriverWait(browser, 20).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#preset option"))
    Select(browser.find_element(By.ID, "preset")).select_by_value("pagat")
    Select(browser.find_element(By.ID, "agent-1")).select_by_value("greedy")
    browser.find_element(By.ID, "seed").send_keys("11")
    browser.find_element(By.ID, "start").click()
    WebDriverWait(browser, 20).until(lambda d: d.execute_script("return !!window.allfivesState"))
    state = page_state(browser)
    rng = random.Random(11)
    moves = 0
    shot = os.environ.get("ALLFIVES_SCREENSHOT")
    while state["status"] == "your_turn":
        check_page_agrees(browser, server, state)
        before = browser.execute_script("return JSON.stringify(window.allfivesState)")
        action = rng.choice(state["legal"])
        if action["kind"] == "place":
            tile = "{}-{}".format(*action["tile"])
            browser.find_element(By.CSS_SELECTOR, f'#hand svg[data-tile="{tile}"]').click()
            name = (
                "lead"
                if not state["layout"]["line"]
                else SLOTS.get(action["slot"], f"@{action['slot']}")
            )
            targets = browser.find_elements(By.CSS_SELECTOR, "rect.target.legal")
            wanted = [t for t in targets if t.get_attribute("data-slot") == name]
            assert wanted, (action, [t.get_attribute("data-slot") for t in targets])
            if shot and moves == 4:
                browser.save_screenshot(shot)
            wanted[0].click()
        else:
            browser.find_element(By.ID, action["kind"]).click()
        state = wait_for_change(browser, before)
        moves += 1
    assert state["status"] in ("hand_over", "match_over")
    assert server_state(server, state["id"]) == state
    assert moves >= 3
    banner = browser.find_element(By.ID, "banner")
    assert banner.is_displayed() and banner.text.startswith("Hand 1:")
    assert len(state["results"]) == 1
    assert browser.find_element(By.ID, "count").text == str(state["layout"]["count"])
    href = browser.find_element(By.ID, "download").get_attribute("href")
    record = urllib.request.urlopen(href, timeout=10).read()
    (tmp_path / "record.json").write_bytes(record)

    # the record replays in the page, step by step
    browser.find_element(By.CSS_SELECTOR, '#tabs button[data-tab="replay"]').click()
    browser.find_element(By.ID, "record-file").send_keys(str(tmp_path / "record.json"))
    browser.find_element(By.ID, "open").click()
    WebDriverWait(browser, 20).until(lambda d: page_state(d)["mode"] == "replay")
    replay = page_state(browser)
    assert replay["at"] == 0 and replay["moves"] == []
    before = browser.execute_script("return JSON.stringify(window.allfivesState)")
    browser.find_element(By.ID, "last").click()
    end = wait_for_change(browser, before)
    assert end["scores"] == state["scores"] and end["at"] == end["steps"] - 1
    before = browser.execute_script("return JSON.stringify(window.allfivesState)")
    browser.find_element(By.ID, "back").click()
    assert wait_for_change(browser, before)["at"] == end["steps"] - 2


def test_watching_agents_step_by_step(server: str, browser: Any) -> None:
    browser.get(server)
    WebDriverWait(browser, 20).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#preset option"))
    browser.find_element(By.CSS_SELECTOR, '#tabs button[data-tab="watch"]').click()
    Select(browser.find_element(By.ID, "players")).select_by_value("4")
    browser.find_element(By.ID, "start").click()
    WebDriverWait(browser, 20).until(lambda d: page_state(d) and page_state(d)["mode"] == "watch")
    state = page_state(browser)
    assert state["rules"]["players"] == 4 and state["rules"]["partnerships"]
    for k in range(3):
        before = browser.execute_script("return JSON.stringify(window.allfivesState)")
        browser.find_element(By.ID, "step").click()
        state = wait_for_change(browser, before)
        assert len(state["moves"]) == k + 1
        assert server_state(server, state["id"]) == state
    faces = browser.find_elements(By.CSS_SELECTOR, "#others rect.face")
    assert len(faces) == sum(s["hand_size"] for s in state["seats"])  # watching shows hands
