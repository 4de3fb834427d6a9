"""End-to-end: a real headless Chromium plays complete games through the page, as a person would.

The browser is Debian's ``chromium`` driven by Playwright for Python (:mod:`tests.browser`); the app
runs in a uvicorn server on a free local port.
"""

from __future__ import annotations

import json
import random

import pytest

from club_envs import records
from club_envs.web.app import create_app
from tests.browser import served, watched_page

pytestmark = pytest.mark.browser

SETTLED = "#game[data-state='your-turn'], #game[data-state='over'], #game[data-state='error']"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    records_dir = tmp_path_factory.mktemp("browser_records")
    with served(create_app(records_dir)) as base:
        yield base, records_dir


@pytest.fixture
def page(browser):
    with watched_page(browser, no_delay=True) as pg:  # agents at full speed
        yield pg


def start_game(page, base: str, game: str, **fields: str) -> None:
    page.goto(base + "/")
    form = f"#new-{game}"
    for name, value in fields.items():
        selector = f"{form} [name={name}]"
        if page.locator(selector).evaluate("el => el.tagName") == "SELECT":
            page.select_option(selector, value)
        else:
            page.fill(selector, value)
    page.click(f"{form} button.start")
    page.wait_for_selector(SETTLED)


def click_until_over(page, seed: int, limit: int = 400) -> int:
    """Click a seeded choice among the offered moves (board and panel) until the game is over."""
    rng = random.Random(seed)
    clicks = 0
    while page.get_attribute("#game", "data-state") == "your-turn":
        buttons = page.locator("button.move:not([disabled])")
        count = buttons.count()
        assert count > 0, "your turn but no move offered"
        buttons.nth(rng.randrange(count)).click()
        clicks += 1
        assert clicks < limit
        page.wait_for_selector(SETTLED)
    assert page.get_attribute("#game", "data-state") == "over", page.inner_text("#status")
    return clicks


def saved_record(page, records_dir):
    name = page.inner_text("#record-link")
    return records.load(records_dir / name)


def test_members_only_complete_game_in_the_browser(server, page):
    base, records_dir = server
    start_game(page, base, "members_only", players="4", seat="1", opponent="heuristic", seed="22")
    # the table as seat 1 sees it: board with every space, display, tracks with the 5+ zone, the hand
    assert page.locator("#board tbody tr").count() == 5
    assert page.locator("#board tbody tr").first.locator("td.space").count() == 8
    assert page.locator("#tracks thead th.scoring").count() == 6
    assert page.locator("#display tbody tr").count() == 5
    assert page.locator("#hand .handcard").count() >= 1
    assert "you (seat 1)" in page.inner_text("table.players")
    assert page.locator("#board button.bet").count() > 0  # bets are placed on the board itself
    clicks = click_until_over(page, seed=0)
    assert clicks >= 10
    result = page.inner_text("#result")
    assert "Only markers at 5 or more score" in result
    assert "You win!" in result or "You lose." in result or "You share the win!" in result
    record = saved_record(page, records_dir)
    assert record["human_seat"] == 1 and record["interface"] == "browser"
    assert [s["controller"] for s in record["seats"]] == ["heuristic", "human", "heuristic", "heuristic"]
    assert records.replay(record)["winners"] == record["result"]["winners"]
    page.click("text=Your games")
    assert page.inner_text("#results").count("members_only") >= 1


def test_arkham_complete_game_in_the_browser_as_leader(server, page):
    base, records_dir = server
    start_game(page, base, "arkham_decoders_club", players="5", role="leader", opponent="heuristic", seed="25")
    assert "You are the Leader." in page.inner_text(".you-panel")
    assert page.locator("#books .book").count() == 4
    assert page.locator("#players tbody tr").count() == 5
    clicks = click_until_over(page, seed=0)
    assert clicks >= 5
    result = page.inner_text("#result")
    assert "The true grimoire was" in result and "Total SAN" in result
    record = saved_record(page, records_dir)
    assert record["seats"][record["human_seat"]] == {
        "seat": record["human_seat"], "agent": f"player_{record['human_seat']}", "controller": "human", "role": "leader",
    }
    log = page.locator("#log li").all_inner_texts()
    assert any(line.startswith("Advice revealed") for line in log)


def test_advisor_sees_identity_and_book_and_agents_move_one_by_one(server, page):
    base, _ = server
    page.context.add_init_script("window.localStorage.setItem('clubEnvsDelay', '120')")
    start_game(page, base, "arkham_decoders_club", players="4", role="black_man", opponent="heuristic", seed="3")
    panel = page.inner_text(".you-panel")
    assert "You are an Advisor: the Black Man." in panel and "true grimoire" in panel
    # Watch the log: each agent move must arrive as its own update, not all at once.
    page.evaluate("""() => {
        window.__logUpdates = 0;
        new MutationObserver(() => { window.__logUpdates += 1; })
            .observe(document.getElementById('log'), {childList: true});
    }""")
    steps_before = int(page.get_attribute("#game", "data-step"))
    page.locator("button.move").first.click()
    page.wait_for_selector(SETTLED)
    steps_after = int(page.get_attribute("#game", "data-step"))
    assert steps_after - steps_before >= 3  # the vote, then several agent moves
    assert page.evaluate("window.__logUpdates") >= 3


def test_refused_click_shows_the_error_and_keeps_the_game(server, page):
    base, _ = server
    start_game(page, base, "members_only", players="3", seat="0", opponent="random", seed="1")
    step = page.get_attribute("#game", "data-step")
    # A forged button: an action that is not legal now (a discard while betting).
    page.evaluate("document.querySelector('button.move').dataset.action = '95'")
    page.locator("button.move").first.click()
    page.wait_for_selector(SETTLED)
    assert "is not a legal move now" in page.inner_text("#status")
    assert page.get_attribute("#game", "data-step") == step
    page.locator("button.move").first.click()  # the page is still playable
    page.wait_for_selector(SETTLED)
    assert page.get_attribute("#game", "data-step") != step


def test_unknown_game_page_says_so(server, page):
    base, _ = server
    response = page.goto(base + "/games/does-not-exist")
    assert response.status == 404
    assert "unknown game id" in page.inner_text("#error-message")
    api = page.request.get(base + "/api/games/does-not-exist")
    assert api.status == 404 and api.json()["error"] == "unknown game id 'does-not-exist'"
    # a request that changes something needs the page's token first
    api = page.request.post(base + "/api/games/does-not-exist/move",
                            data=json.dumps({"game_id": "x", "seat": 0, "action": 0, "step": 0}),
                            headers={"content-type": "application/json"})
    assert api.status == 403 and "open the start page" in api.json()["error"]
