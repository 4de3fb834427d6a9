"""Games outlive the server: every move is stored before it is answered, and a new server on the
same database continues each game exactly where it stood -- the same table, the same log, the
same agents' choices afterwards, the same record as a game never interrupted."""

from __future__ import annotations

import random

import pytest

from club_envs import records
from club_envs.web.app import create_app
from club_envs.store import Store
from tests.play.web_client import BASE, browser, new_game


def move(client, gid, state, rng):
    body = {"game_id": gid, "seat": state["seat"], "action": rng.choice(state["moves"])["action"],
            "step": state["step"]}
    r = client.post(f"/api/games/{gid}/move", json=body)
    assert r.status_code == 200, r.text
    return r.json()["state"]


def start(client, gid):
    state = client.get(f"/api/games/{gid}").json()
    if not state["your_turn"] and not state["finished"]:
        state = client.post(f"/api/games/{gid}/advance", json={"step": state["step"]}).json()["state"]
    return state


def same_browser(app, cookie: str):
    """The person's browser after the restart: the same cookie, a fresh page."""
    client = browser(app)
    client.cookies.set("club_envs_browser", cookie, domain="127.0.0.1")
    client.token = client.get("/").text.split('name="csrf-token" content="')[1].split('"')[0]
    client.headers["x-csrf-token"] = client.token
    return client


@pytest.mark.parametrize("form", [
    {"game": "members_only", "players": 4, "seat": "1", "opponent": "random", "seed": "31"},
    {"game": "arkham_decoders_club", "players": 5, "role": "black_man", "seat": "", "opponent": "random",
     "seed": "12"},
])
def test_a_restarted_server_continues_every_game_exactly(tmp_path, form, database):
    # the reference: one server, never interrupted
    ref_app = create_app(tmp_path / "reference")
    ref = browser(ref_app)
    ref_id = new_game(ref, **form)
    rng = random.Random(5)
    state = start(ref, ref_id)
    ref_states = [state]
    while not state["finished"]:
        state = move(ref, ref_id, state, rng)
        ref_states.append(state)
    ref_record = records.load(next((tmp_path / "reference").glob("*.json")))

    # the same game and the same clicks, with the server replaced every few moves
    app = create_app(tmp_path / "records", database=database)
    client = browser(app)
    cookie = client.cookies["club_envs_browser"]
    gid = new_game(client, **form)
    rng = random.Random(5)
    state = start(client, gid)
    assert state["table_html"] == ref_states[0]["table_html"]
    restarts = 0
    for number in range(1, len(ref_states)):
        if number % 3 == 0:
            page_before = client.get(f"/games/{gid}").text
            state_before = client.get(f"/api/games/{gid}").json()
            # a new process would see just this: the database
            app = create_app(tmp_path / "records", database=database)
            client = same_browser(app, cookie)
            restarts += 1
            assert client.get(f"/api/games/{gid}").json() == state_before
            assert client.get(f"/games/{gid}").text == page_before  # the table and the whole log
        state = move(client, gid, state, rng)
        assert state["table_html"] == ref_states[number]["table_html"]
        assert state["moves"] == ref_states[number]["moves"]
        stored = Store(app.state.store.url)
        assert len(stored.moves(gid)) == app.state.live[gid].game.step  # stored before the answer
        stored.close()
    assert restarts >= 1 and state["finished"]
    record = records.load(next((tmp_path / "records").glob("*.json")))
    for key in ("seed", "seats", "events", "result", "human_seat"):
        assert record[key] == ref_record[key]
    assert records.replay(record)["winners"] == record["result"]["winners"]


def test_a_move_is_stored_even_if_the_server_dies_before_the_agents_answer(tmp_path, monkeypatch, database):
    from fastapi.testclient import TestClient

    from club_envs.play.human_game import HumanGame

    app = create_app(tmp_path / "records", database=database)
    client = browser(app)
    cookie = client.cookies["club_envs_browser"]
    gid = new_game(client, seat="0", seed="9")
    state = start(client, gid)

    def die(self, on_frame=None):
        raise RuntimeError("the server dies while the agents think")

    monkeypatch.setattr(HumanGame, "advance", die)
    dying = TestClient(app, base_url=BASE, raise_server_exceptions=False)
    dying.cookies.set("club_envs_browser", cookie, domain="127.0.0.1")
    r = dying.post(f"/api/games/{gid}/move", headers={"x-csrf-token": client.token},
                   json={"game_id": gid, "seat": 0, "action": state["moves"][0]["action"], "step": state["step"]})
    assert r.status_code == 500
    monkeypatch.undo()
    revived = create_app(tmp_path / "records", database=database)
    client = same_browser(revived, cookie)
    state = client.get(f"/api/games/{gid}").json()
    assert state["step"] == 1 and not state["your_turn"]  # the person's move was kept
    state = client.post(f"/api/games/{gid}/advance", json={"step": 1}).json()["state"]
    assert state["your_turn"] and state["step"] > 1


def test_games_are_never_dropped_and_the_listing_survives_a_restart(tmp_path, database):
    app = create_app(tmp_path / "records", database=database, max_games_per_browser=300, max_games=300)
    a, b = browser(app), browser(app)
    cookie_b = b.cookies["club_envs_browser"]
    theirs = new_game(b)
    for i in range(12):
        gid = new_game(a, seed=str(100 + i))
        a.post(f"/api/games/{gid}/quit")
    app = create_app(tmp_path / "records", database=database, max_games_per_browser=300, max_games=300)
    b = same_browser(app, cookie_b)
    assert b.get(f"/api/games/{theirs}").status_code == 200
    assert theirs in b.get("/").text  # listed under the games in progress
    assert len(app.state.store.games()) == 13


def test_the_owner_token_and_page_tokens_survive_a_restart(tmp_path, database):
    from fastapi.testclient import TestClient

    app = create_app(tmp_path / "records", database=database)
    client = browser(app)
    token = app.state.admin_token
    again = create_app(tmp_path / "records", database=database)
    assert again.state.admin_token == token
    # the same browser with the page it loaded before the restart: its token still works
    page = TestClient(again, base_url=BASE)
    page.cookies.set("club_envs_browser", client.cookies["club_envs_browser"], domain="127.0.0.1")
    page.token = client.token
    page.headers["x-csrf-token"] = client.token
    gid = new_game(page)
    assert page.get(f"/api/games/{gid}").status_code == 200


def test_finished_games_leave_memory_but_not_the_database(tmp_path, database):
    app = create_app(tmp_path / "records", database=database, keep_finished=2)
    client = browser(app)
    ids = []
    for i in range(5):
        gid = new_game(client, seed=str(40 + i))
        client.post(f"/api/games/{gid}/quit")
        ids.append(gid)
    assert len(app.state.live) == 2
    for gid in ids:  # every one is re-created from the database when asked for
        state = client.get(f"/api/games/{gid}").json()
        assert state["abandoned"] and "Record saved" in state["moves_html"]
    assert len(app.state.live) == 2


def test_an_ended_game_whose_file_is_missing_gets_it_back_at_the_next_start(tmp_path, database):
    app = create_app(tmp_path / "records", database=database)
    client = browser(app)
    gid = new_game(client)
    client.post(f"/api/games/{gid}/quit")
    row = app.state.store.game(gid)
    path = tmp_path / "records" / row.record_name
    assert row.record_name == records.file_name("members_only", row.started_at, gid)
    assert records.load(path)["game_id"] == gid
    path.unlink()  # as if the server had stopped between the commit and the file
    create_app(tmp_path / "records", database=database)
    assert records.load(path) == row.record
    assert [p.name for p in (tmp_path / "records").iterdir()] == [row.record_name]
