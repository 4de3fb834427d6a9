"""End-to-end: a real headless Chromium steps through a Members Only and an Arkham record from the
first move to the last by keyboard, as a researcher would in ``club-envs view``.

The browser is Debian's ``chromium`` driven by Playwright (:mod:`tests.browser`); the viewer's app
runs in a uvicorn server on a free loopback port.
"""

from __future__ import annotations

import json

import pytest
from playwright.sync_api import expect

from club_envs.web.app import LOCAL_HOSTS
from club_envs.web.viewer import FolderSource, create_viewer_app
from tests.browser import served, watched_page
from tests.viewer.records_made import ARKHAM, MEMBERS_ONLY, record

pytestmark = pytest.mark.browser
RECORDS = {"0": MEMBERS_ONLY, "1": ARKHAM}


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    folder = tmp_path_factory.mktemp("viewer_records")
    paths = []
    for key, which in RECORDS.items():
        path = folder / f"{key}_{which[0]}.json"
        path.write_text(json.dumps(record(which)))
        paths.append(path)
    app = create_viewer_app(FolderSource(paths), LOCAL_HOSTS)
    with served(app, "the viewer") as base:
        yield base


@pytest.fixture
def page(browser):
    with watched_page(browser) as pg:
        yield pg


@pytest.mark.parametrize("key", list(RECORDS))
def test_keyboard_steps_from_the_first_move_to_the_last(server, page, key):
    rec = record(RECORDS[key])
    page.goto(f"{server}/replays/{key}?view=all")
    total = int(page.locator("#viewer").get_attribute("data-total"))
    expect(page.locator("#step")).to_have_text(f"0 / {total}")
    expect(page.locator("#view-title")).to_contain_text("Researcher")
    page.keyboard.press("ArrowRight")
    expect(page.locator("#step")).to_have_text(f"1 / {total}")
    # the first move is an agent's: its top actions, the one it played marked
    expect(page.locator("#thinking-panel")).to_be_visible()
    assert page.locator("#thinking tbody tr").count() >= 1
    expect(page.locator("#thinking tbody tr.played")).to_have_count(1)
    expect(page.locator("#log li.current")).to_have_count(1)
    expect(page.locator("#log li.current")).to_have_attribute("data-step", "1")
    for _ in range(2, total + 1):
        page.keyboard.press("ArrowRight")
    expect(page.locator("#step")).to_have_text(f"{total} / {total}")
    expect(page.locator("#final")).to_be_visible()
    final = page.locator("#final-lines").inner_text().splitlines()
    for seat, score in enumerate(rec["result"]["scores"]):
        assert any(line.startswith(f"seat {seat} ") and line.endswith(f": {score}") for line in final), (seat, final)
    winners = next(line for line in final if line.startswith("Winners:"))
    assert all(f"seat {w} " in winners for w in rec["result"]["winners"]), winners
    expect(page.locator("#log li.current")).to_have_attribute("data-step", str(total))
    page.keyboard.press("ArrowRight")  # past the end: stays at the last step
    expect(page.locator("#step")).to_have_text(f"{total} / {total}")
    page.keyboard.press("Home")
    expect(page.locator("#step")).to_have_text(f"0 / {total}")
    expect(page.locator("#final")).to_be_hidden()
    page.keyboard.press("PageDown")  # the next heat or round
    second = int(page.locator("#chapter option").nth(1).get_attribute("value"))
    expect(page.locator("#step")).to_have_text(f"{second} / {total}")
    page.keyboard.press("End")
    expect(page.locator("#step")).to_have_text(f"{total} / {total}")


def test_a_seat_view_shows_its_own_hand_and_no_hidden_panel(server, page):
    page.goto(f"{server}/replays/0?view=1")
    expect(page.locator("#step")).to_have_text(f"0 / {page.locator('#viewer').get_attribute('data-total')}")
    expect(page.locator("#view-title")).to_contain_text("Seat 1")
    expect(page.locator("#hidden-panel")).to_be_hidden()
    page.click("#next")
    expect(page.locator("#step")).to_contain_text("1 / ")
    expect(page.locator("#thinking-panel")).to_be_hidden()  # seat 0 moved: not seat 1's to know


def test_the_folder_lists_its_games_with_filters(server, page):
    page.goto(f"{server}/replays")
    expect(page.locator("#replays tbody tr")).to_have_count(2)
    page.select_option("select[name=game]", "Arkham Decoders Club")
    page.click(".filters button")
    expect(page.locator("#replays tbody tr")).to_have_count(1)
    page.click("#replays a.watch >> text=researcher")
    expect(page.locator("#view-title")).to_contain_text("Researcher")
