"""A study as people take part in it: three participants in real headless Chromium play at the
same time; the server process is killed (SIGKILL) in the middle of their games and started
again; each reloads the page, finds their game where it stood and plays on; at the end the
export holds every game of every participant exactly once, and every record replays.

On the SQLite default: what a restart keeps is the database's part, tested on PostgreSQL too
without a browser (``test_web_crashes.py``, ``test_web_persistence.py``, ``test_web_soak.py``)."""

from __future__ import annotations

import csv
import random
import subprocess

import pytest
import yaml

from club_envs import records
from tests.play.server_process import Server, free_port
from tests.play.test_browser import SETTLED

pytestmark = pytest.mark.browser

CODES = ["amber-11", "birch-22", "cedar-33"]
STUDY = {
    "name": "browser_pilot",
    "participants": CODES,
    "games_per_condition": 1,
    "consent": "You will play two short games against computer players.",
    "conditions": [
        {"name": "leader", "game": "arkham_decoders", "players": 5, "role": "leader", "opponents": "random",
         "seeds": [22]},
        {"name": "ak", "game": "arkham_decoders", "players": 4, "role": "black_man",
         "opponents": {"leader": "random", "member": "random", "investigator": "heuristic"}},
    ],
}


def state(page) -> str:
    return page.get_attribute("#game", "data-state") or ""


def begin(page, base: str, code: str) -> None:
    page.goto(base + "/study")
    page.check("#consent")
    page.fill("#code", code)
    page.click("#enter button.start")
    page.click("#next button.start")
    page.wait_for_selector(SETTLED)


def test_three_participants_a_killed_server_and_a_complete_export(tmp_path, browser):
    study = tmp_path / "study.yaml"
    study.write_text(yaml.safe_dump(STUDY))
    records_dir = tmp_path / "records"
    server = Server(study, records_dir, free_port())
    server.start()
    try:
        pages, errors = [], []
        for code in CODES:
            context = browser.new_context()
            context.add_init_script("window.localStorage.setItem('clubEnvsDelay', '0')")
            page = context.new_page()
            page.on("pageerror", lambda exc: errors.append(str(exc)))
            begin(page, server.base, code)
            pages.append(page)
        rngs = [random.Random(i) for i in range(len(pages))]
        done = [False] * len(pages)
        rounds = killed = 0
        while not all(done):
            rounds += 1
            assert rounds < 2000, "the participants did not finish"
            # everyone clicks at once: three requests in flight together
            clicked = []
            for i, page in enumerate(pages):
                if not done[i] and state(page) == "your-turn":
                    buttons = page.locator("button.move:not([disabled])")
                    buttons.nth(rngs[i].randrange(buttons.count())).click(no_wait_after=True)
                    clicked.append(page)
            for page in clicked:
                page.wait_for_selector(SETTLED)
            for i, page in enumerate(pages):
                if not done[i] and state(page) == "over":
                    page.click("#next-game")
                    if page.locator("#done").count():
                        done[i] = True
                    else:
                        page.click("#next button.start")
                        page.wait_for_selector(SETTLED)
            if rounds == 4:
                # mid-game for everyone: note where each stands, then kill the server
                assert all(state(page) == "your-turn" for page in pages)  # each in a game, to move
                where = [(page.url, page.get_attribute("#game", "data-step")) for page in pages]
                server.kill()
                killed += 1
                # a click while the server is down is refused on the page, and nothing is lost
                page = pages[0]
                if state(page) == "your-turn":
                    page.locator("button.move:not([disabled])").first.click()
                    page.wait_for_selector("#game[data-state='error']")
                server.start()
                for page, (url, step) in zip(pages, where):
                    page.reload()
                    page.wait_for_selector(SETTLED)
                    assert page.url == url  # the same game ...
                    assert page.get_attribute("#game", "data-step") == step  # ... exactly where it stood
                    assert page.locator("#log li").count() > 0  # with its log
        assert killed == 1
        for page in pages:
            assert "You have played every game of the study" in page.inner_text("#done")
            page.context.close()
        assert not errors, f"script errors on the pages: {errors}"
    finally:
        server.stop()

    out = tmp_path / "export"
    export = [*server.command[:3], "--records", str(records_dir), "--export", str(out)]
    exporter = subprocess.run(export, capture_output=True, text=True, check=True)
    assert "6 games exported" in exporter.stdout
    rows = list(csv.DictReader((out / "outcomes.csv").open()))
    assert len(rows) == 6 and len({r["game_id"] for r in rows}) == 6  # every game exactly once
    assert sorted((r["participant"], r["condition"]) for r in rows) == sorted(
        (code, c) for code in CODES for c in ("leader", "ak"))
    assert all(r["status"] == "finished" for r in rows)
    saved = sorted((out / "records").glob("*.json"))
    assert len(saved) == 6
    for path in saved:
        record = records.load(path)
        assert records.replay(record)["winners"] == record["result"]["winners"]
        assert record["study"]["participant"] in CODES
