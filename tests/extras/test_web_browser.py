"""End to end in a real headless Chromium: ``allfives serve`` in its own process, hands played
by clicks with the page checked against the server after every move, the table measured on a
laptop (1366×768) and a phone (390×844), an expired game, watching and replaying.

Needs Chromium and its driver (Debian: ``apt install chromium chromium-driver``; ``.ci/run``
installs them). Without them the test is skipped, unless ``ALLFIVES_REQUIRE_BROWSER=1`` (set by
CI) makes that a failure. ``ALLFIVES_SCREENSHOTS=DIR`` saves the pictures of the table that the
README shows (``web-laptop.png``, ``web-phone.png``: a line of 22 tiles and more, a tile chosen).
"""

from __future__ import annotations

import json
import os
import random
import shutil
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi")
webdriver = pytest.importorskip("selenium.webdriver")

from live_server import Server, call, start  # noqa: E402
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import Select, WebDriverWait  # noqa: E402

from allfives_env.core.game import Game  # noqa: E402
from allfives_env.core.rules import PRESETS, Rules  # noqa: E402
from allfives_web.table import layout_json  # noqa: E402

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
DRIVER = shutil.which("chromedriver")

if not (CHROMIUM and DRIVER):
    if os.environ.get("ALLFIVES_REQUIRE_BROWSER") == "1":
        raise RuntimeError("Chromium and chromedriver are required (apt install chromium "
                           "chromium-driver)")  # fmt: skip
    pytest.skip("no Chromium and chromedriver here", allow_module_level=True)

SLOTS = {0: "W", 1: "E", 2: "N", 3: "S"}
LAPTOP = (1366, 768)
PHONE = (390, 844)
SHOTS = os.environ.get("ALLFIVES_SCREENSHOTS")


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    s: Server = start()
    yield s.url
    s.stop()


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                "--disable-background-networking", "--disable-component-update",
                "--no-first-run", "--window-size=1366,768"):  # fmt: skip
        options.add_argument(arg)
    driver = webdriver.Chrome(service=Service(DRIVER), options=options)
    yield driver
    driver.quit()


def screen(browser: Any, size: tuple[int, int]) -> None:
    """Make the page's viewport exactly ``size`` CSS pixels (a phone: touch, no scrollbars)."""
    w, h = size
    browser.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride",
        {"width": w, "height": h, "deviceScaleFactor": 1, "mobile": w < 700},
    )


def page_state(browser: Any) -> dict[str, Any]:
    out: dict[str, Any] = browser.execute_script("return window.allfivesState")
    return out


def open_page(browser: Any, url: str, delay_ms: int = 0) -> None:
    """Load the page fresh (a first visit: nothing remembered), agents' pause ``delay_ms``."""
    browser.get(url + "/static/index.html")  # same origin, to clear what the page stored
    browser.execute_script("localStorage.clear()")
    browser.get(url)
    WebDriverWait(browser, 20).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#preset option"))
    set_delay(browser, delay_ms)


def set_delay(browser: Any, ms: int) -> None:
    browser.execute_script(
        "const d = document.getElementById('delay'); d.value = arguments[0];"
        "d.dispatchEvent(new Event('input'));",
        ms,
    )


def settled(browser: Any, before: str) -> dict[str, Any]:
    """The page's state once it changed from ``before`` and waits for nobody but the person
    (the agents' paced moves done); no error shown."""

    def ready(d: Any) -> bool:
        s = d.execute_script("return window.allfivesState")
        return bool(s) and json.dumps(s) != before and s["status"] != "agent_turn"

    WebDriverWait(browser, 60).until(ready)
    error = browser.find_element(By.ID, "game-error")
    assert not error.is_displayed(), error.text
    return page_state(browser)


def snapshot(browser: Any) -> str:
    return json.dumps(page_state(browser))


def check_page_agrees(browser: Any, url: str, state: dict[str, Any]) -> None:
    """What the page shows is what the server holds, and no hidden tile."""
    assert call(url, "GET", f"/api/games/{state['id']}") == state
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


def click_move(browser: Any, state: dict[str, Any], action: dict[str, Any]) -> None:
    """Make ``action`` as a person would: the tile, then its lit end; or Draw, or Pass."""
    if action["kind"] != "place":
        browser.find_element(By.ID, action["kind"]).click()
        return
    tile = "{}-{}".format(*action["tile"])
    svg = browser.find_element(By.CSS_SELECTOR, f'#hand svg[data-tile="{tile}"]')
    if "selected" not in (svg.get_attribute("class") or ""):
        svg.click()
    name = (
        "lead" if not state["layout"]["line"] else SLOTS.get(action["slot"], f"@{action['slot']}")
    )
    lit = [
        t.get_attribute("data-slot")
        for t in browser.find_elements(By.CSS_SELECTOR, "rect.target.legal")
    ]
    assert name in lit, (action, lit)
    # where a click on it lands: the lit end, grown to be easy to touch
    wanted = browser.find_elements(By.CSS_SELECTOR, f'#board rect.hit[data-slot="{name}"]')
    assert wanted, action
    browser.execute_script("arguments[0].scrollIntoView({block: 'center'})", wanted[0])
    wanted[0].click()


def tiles_on_table(layout: dict[str, Any]) -> int:
    return (
        len(layout["line"])
        + len(layout["north"])
        + len(layout["south"])
        + sum(len(b["tiles"]) for b in layout["branches"])
    )


def found(url: str, preset: str, wanted: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
    """A game (through the API) at the person's turn, with a tile to place, in a state
    ``wanted``: the first seed that gets there with random moves."""
    for seed in range(200):
        state = call(url, "POST", "/api/games", {"seats": ["human", "greedy"], "seed": seed,
                                                 "preset": preset})  # fmt: skip
        rng = random.Random(seed)
        while state["status"] == "your_turn":
            if wanted(state) and any(a["kind"] == "place" for a in state["legal"]):
                return state
            action = rng.choice(state["legal"])["text"]
            state = call(url, "POST", f"/api/games/{state['id']}/move", {"action": action})
    raise AssertionError(f"no {preset} game got there")


def long_game(url: str, preset: str, at_least: int) -> dict[str, Any]:
    """A game at the person's turn with ``at_least`` tiles on the table."""
    return found(url, preset, lambda s: tiles_on_table(s["layout"]) >= at_least)


def box(browser: Any, element: Any) -> dict[str, float]:
    out: dict[str, float] = browser.execute_script(
        "const r = arguments[0].getBoundingClientRect();"
        "return {left: r.left, top: r.top, right: r.right, bottom: r.bottom,"
        " width: r.width, height: r.height};",
        element,
    )
    return out


def in_view(browser: Any, element: Any) -> bool:
    b = box(browser, element)
    w, h = browser.execute_script("return [innerWidth, innerHeight]")
    return b["left"] >= 0 and b["top"] >= 0 and b["right"] <= w and b["bottom"] <= h


# ---------------------------------------------------------------------------------- the tests


def test_a_whole_hand_played_by_clicks(server: str, browser: Any, tmp_path: Path) -> None:
    screen(browser, LAPTOP)
    open_page(browser, server)
    Select(browser.find_element(By.ID, "preset")).select_by_value("pagat")
    Select(browser.find_element(By.ID, "agent-1")).select_by_value("greedy")
    browser.find_element(By.ID, "seed").send_keys("11")
    before = "null"
    browser.find_element(By.ID, "start").click()
    state = settled(browser, before)
    assert browser.find_element(By.ID, "hint").is_displayed()  # a first visit: how to play
    rng = random.Random(11)
    moves = 0
    while state["status"] == "your_turn":
        check_page_agrees(browser, server, state)
        before = snapshot(browser)
        click_move(browser, state, rng.choice(state["legal"]))
        state = settled(browser, before)
        moves += 1
        if any(a["kind"] == "place" for a in state["legal"]) and moves > 1:
            assert not browser.find_element(By.ID, "hint").is_displayed()
    assert state["status"] in ("hand_over", "match_over")
    assert call(server, "GET", f"/api/games/{state['id']}") == state
    assert moves >= 3
    banner = browser.find_element(By.ID, "banner")
    assert banner.is_displayed() and banner.text.startswith("Hand 1:")
    assert in_view(browser, banner)
    # the hand is over: every seat's tiles are turned up, as they are counted
    for seat in state["seats"]:
        assert seat["tiles"] is not None
        if seat["seat"] != state["you"]:
            shown = browser.find_elements(
                By.CSS_SELECTOR, f'#others .seat[data-seat="{seat["seat"]}"] rect.face'
            )
            assert len(shown) == len(seat["tiles"])
    assert len(state["results"]) == 1
    href = browser.find_element(By.ID, "download").get_attribute("href")
    record = urllib.request.urlopen(href, timeout=10).read()
    assert len(json.loads(record)["hands"]) == 1
    (tmp_path / "record.json").write_bytes(record)

    # the record replays in the page, step by step
    browser.find_element(By.CSS_SELECTOR, '#tabs button[data-tab="replay"]').click()
    assert not browser.find_element(By.ID, "new-game").is_displayed()  # one form a tab
    browser.find_element(By.ID, "record-file").send_keys(str(tmp_path / "record.json"))
    browser.find_element(By.ID, "open").click()
    WebDriverWait(browser, 20).until(lambda d: page_state(d)["mode"] == "replay")
    replay = page_state(browser)
    assert replay["at"] == 0 and replay["moves"] == []
    before = snapshot(browser)
    browser.find_element(By.ID, "last").click()
    WebDriverWait(browser, 20).until(lambda d: snapshot(d) != before)
    end = page_state(browser)
    assert end["scores"] == state["scores"] and end["at"] == end["steps"] - 1
    before = snapshot(browser)
    browser.find_element(By.ID, "back").click()
    WebDriverWait(browser, 20).until(lambda d: snapshot(d) != before)
    assert page_state(browser)["at"] == end["steps"] - 2


def test_agents_moves_come_paced_and_marked(server: str, browser: Any) -> None:
    screen(browser, LAPTOP)
    open_page(browser, server, delay_ms=700)
    Select(browser.find_element(By.ID, "players")).select_by_value("3")
    browser.find_element(By.ID, "seed").send_keys("4")
    browser.find_element(By.ID, "start").click()
    state = settled(browser, "null")
    you = state["you"]
    places = [a for a in state["legal"] if a["kind"] == "place"]
    while not places:  # draw until a tile fits
        before = snapshot(browser)
        click_move(browser, state, state["legal"][0])
        state = settled(browser, before)
        places = [a for a in state["legal"] if a["kind"] == "place"]
    before = snapshot(browser)
    click_move(browser, state, places[0])
    # first the person's own move, marked as theirs, while the agents wait their pause
    WebDriverWait(browser, 10).until(lambda d: snapshot(d) != before)
    mid = page_state(browser)
    assert mid["status"] == "agent_turn"
    assert browser.find_elements(By.CSS_SELECTOR, f'#board rect.last[data-last-seat="{you}"]')
    assert "Agents to move" in browser.find_element(By.ID, "status").text
    after = settled(browser, json.dumps(mid))
    if after["status"] == "your_turn":  # each agent's last tile marked in its own colour
        for seat, tile in enumerate(after["last_tiles"]):
            if tile is not None:
                marks = browser.find_elements(
                    By.CSS_SELECTOR, f'#board rect.last[data-last-seat="{seat}"]'
                )
                assert len(marks) == 1


@pytest.mark.parametrize("preset", ["pagat", "five_up"])
@pytest.mark.parametrize("size", [LAPTOP, PHONE], ids=["laptop", "phone"])
def test_the_table_reads_on_a_laptop_and_a_phone(
    server: str, browser: Any, size: tuple[int, int], preset: str
) -> None:
    state = long_game(server, preset, 22)
    screen(browser, size)
    open_page(browser, server)
    browser.get(f"{server}/#game={state['id']}")  # a link to a live game opens it
    WebDriverWait(browser, 20).until(lambda d: (page_state(d) or {}).get("id") == state["id"])
    action = next(a for a in state["legal"] if a["kind"] == "place")
    tile = "{}-{}".format(*action["tile"])
    browser.find_element(By.CSS_SELECTOR, f'#hand svg[data-tile="{tile}"]').click()
    w, h = browser.execute_script("return [innerWidth, innerHeight]")
    assert (w, h) == size
    assert browser.execute_script("return document.documentElement.scrollWidth") <= w
    # the tiles keep a readable size however long the line
    faces = browser.find_elements(By.CSS_SELECTOR, "#board rect.face")
    assert len(faces) == tiles_on_table(state["layout"])
    for f in faces:
        b = box(browser, f)
        assert min(b["width"], b["height"]) >= 23.5, b
        assert b["left"] >= 0 and b["right"] <= w, b
    pips = [box(browser, p) for p in browser.find_elements(By.CSS_SELECTOR, "#board circle.pip")]
    assert pips and min(p["width"] for p in pips) >= 4
    # open ends: at least 24 CSS px a side (WCAG 2.5.8); where a lit one can be clicked, 44
    # where no other end is near
    for t in browser.find_elements(By.CSS_SELECTOR, "#board rect.target"):
        b = box(browser, t)
        assert min(b["width"], b["height"]) >= 23.5, b
    hits = [box(browser, t) for t in browser.find_elements(By.CSS_SELECTOR, "#board rect.hit")]
    assert hits and all(min(b["width"], b["height"]) >= 23.5 for b in hits)
    assert any(min(b["width"], b["height"]) >= 43.5 for b in hits)
    # the hand and its buttons in view, without scrolling, with tiles large enough to touch
    hand = browser.find_elements(By.CSS_SELECTOR, "#hand svg")
    assert hand and all(in_view(browser, t) for t in hand)
    assert all(box(browser, t)["width"] >= 40 for t in hand)
    for b in browser.find_elements(By.CSS_SELECTOR, "#actions button"):
        if b.is_displayed():
            assert in_view(browser, b) and box(browser, b)["height"] >= 44
    if size == LAPTOP:  # the last moves and the scores beside the table, not below the fold
        assert in_view(browser, browser.find_element(By.ID, "moves"))
        assert in_view(browser, browser.find_element(By.ID, "scores"))
    if SHOTS and preset == "pagat":
        set_delay(browser, 600)  # as a person first sees it
        Path(SHOTS).mkdir(parents=True, exist_ok=True)
        browser.save_screenshot(
            str(Path(SHOTS) / f"web-{'laptop' if size == LAPTOP else 'phone'}.png")
        )
    # and the lit end takes the tile
    before = snapshot(browser)
    click_move(browser, page_state(browser), action)
    after = settled(browser, before)
    assert tiles_on_table(after["layout"]) > tiles_on_table(state["layout"])


def test_a_long_hand_wraps_on_a_phone(server: str, browser: Any) -> None:
    state = found(server, "dominoes_cc", lambda s: len(s["seats"][s["you"]]["tiles"]) >= 12)
    screen(browser, PHONE)
    open_page(browser, server)
    browser.get(f"{server}/#game={state['id']}")
    WebDriverWait(browser, 20).until(lambda d: (page_state(d) or {}).get("id") == state["id"])
    assert browser.execute_script("return document.documentElement.scrollWidth") <= PHONE[0]
    hand = [box(browser, t) for t in browser.find_elements(By.CSS_SELECTOR, "#hand svg")]
    assert len(hand) >= 12 and len({round(b["top"]) for b in hand}) > 1  # more than one row
    assert all(b["right"] <= PHONE[0] and b["bottom"] <= PHONE[1] for b in hand)


def test_an_expired_game_says_so_where_the_player_looks(server: str, browser: Any) -> None:
    screen(browser, PHONE)
    open_page(browser, server)
    browser.find_element(By.ID, "start").click()
    state = settled(browser, "null")
    assert state["status"] == "your_turn"
    call(server, "DELETE", f"/api/games/{state['id']}")  # as when it expires
    with pytest.raises(urllib.error.HTTPError):
        call(server, "GET", f"/api/games/{state['id']}")
    click_move(browser, state, state["legal"][0])
    error = browser.find_element(By.ID, "game-error")
    WebDriverWait(browser, 10).until(lambda d: error.is_displayed())
    assert "gone" in error.text and "new one" in error.text
    assert in_view(browser, error)
    assert browser.find_element(By.ID, "status").text != "Your turn"
    assert not browser.find_elements(By.CSS_SELECTOR, "#hand svg.playable")
    again = browser.find_element(By.ID, "new-game-button")
    assert in_view(browser, again)
    again.click()
    assert browser.find_element(By.ID, "new-game").is_displayed()
    assert not browser.find_element(By.ID, "open-replay").is_displayed()


def test_watching_agents_step_by_step(server: str, browser: Any) -> None:
    screen(browser, LAPTOP)
    open_page(browser, server)
    browser.find_element(By.CSS_SELECTOR, '#tabs button[data-tab="watch"]').click()
    assert not browser.find_element(By.ID, "open-replay").is_displayed()
    Select(browser.find_element(By.ID, "players")).select_by_value("4")
    browser.find_element(By.ID, "start").click()
    WebDriverWait(browser, 20).until(lambda d: page_state(d) and page_state(d)["mode"] == "watch")
    state = page_state(browser)
    assert state["rules"]["players"] == 4 and state["rules"]["partnerships"]
    for k in range(3):
        before = snapshot(browser)
        browser.find_element(By.ID, "step").click()
        WebDriverWait(browser, 20).until(lambda d, was=before: snapshot(d) != was)
        state = page_state(browser)
        assert len(state["moves"]) == k + 1
        assert call(server, "GET", f"/api/games/{state['id']}") == state
    faces = browser.find_elements(By.CSS_SELECTOR, "#others rect.face")
    assert len(faces) == sum(s["hand_size"] for s in state["seats"])  # watching shows hands


def test_the_board_never_overlaps_or_overflows(browser: Any, server: str) -> None:
    """The page's own layout code, on layouts of real games of every preset, at widths from
    the narrowest up: no two things on the board overlap, none lies outside it."""
    screen(browser, LAPTOP)
    open_page(browser, server)
    rng = random.Random(3)
    layouts = []
    for preset in PRESETS:
        for players in (2, 3, 4, 2, 3, 4):
            game = Game(Rules.preset(preset, players), rng)
            while game.current_player is not None:
                game.apply(rng.choice(game.legal_actions()))
                layouts.append(layout_json(game.layout))
    problems = browser.execute_script(
        """
        const [layouts, widths] = arguments;
        const out = [];
        const meet = (a, b) => a.x < b.x + b.w - 1e-6 && b.x < a.x + a.w - 1e-6
          && a.y < b.y + b.h - 1e-6 && b.y < a.y + a.h - 1e-6;
        for (const layout of layouts) for (const cols of widths) {
          const g = window.allfivesBoard(layout, cols);
          const things = [...g.items, ...g.places];
          for (const t of things) {
            if (t.x < g.x0 - 1e-6 || t.x + t.w > g.x1 + 1e-6) out.push(["outside", cols, t]);
          }
          for (let i = 0; i < things.length; i++) for (let j = i + 1; j < things.length; j++) {
            if (meet(things[i], things[j])) out.push(["overlap", cols, things[i], things[j]]);
          }
          if (g.places.length !== layout.open.length) out.push(["places", cols, layout.open]);
        }
        return out.slice(0, 5);
        """,
        layouts,
        [11, 14, 20, 30, 44],
    )
    assert len(layouts) > 500
    assert problems == []
