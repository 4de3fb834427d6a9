"""The web app's HTTP interface: forged and malformed requests are refused with a clear 4xx JSON
error and change no game; real moves play the game to its saved record."""

from __future__ import annotations

import random

import pytest

from club_envs import records
from club_envs.web.app import create_app
from tests.play.web_client import browser, new_game


@pytest.fixture
def app(tmp_path):
    return create_app(tmp_path / "records")


@pytest.fixture
def client(app):
    return browser(app)


def snapshot(app):
    """Every game's progress, in memory and stored: a refused request must leave all as they were."""
    store = app.state.store
    return {gid: (s.game.step, len(s.game.state.events), s.game.view(), len(store.moves(gid)))
            for gid, s in app.state.live.items()}


def ready(client, gid) -> dict:
    state = client.get(f"/api/games/{gid}").json()
    if not state["your_turn"] and not state["finished"]:
        state = client.post(f"/api/games/{gid}/advance", json={"step": state["step"]}).json()["state"]
    return state


def move_body(gid, state, **change):
    return {"game_id": gid, "seat": state["seat"], "action": state["moves"][0]["action"], "step": state["step"], **change}


def test_unknown_game_id_is_404_for_every_endpoint(client):
    for method, url, body in [
        ("get", "/api/games/nope", None),
        ("post", "/api/games/nope/advance", {"step": 0}),
        ("post", "/api/games/nope/move", {"game_id": "nope", "seat": 0, "action": 0, "step": 0}),
        ("post", "/api/games/nope/quit", None),
    ]:
        r = client.request(method, url, json=body)
        assert r.status_code == 404
        assert r.json() == {"error": "unknown game id 'nope'"}
    assert client.get("/games/nope").status_code == 404


def test_move_for_another_seat_is_forbidden_and_changes_nothing(app, client):
    gid = new_game(client)
    state = ready(client, gid)
    before = snapshot(app)
    r = client.post(f"/api/games/{gid}/move", json=move_body(gid, state, seat=1))
    assert r.status_code == 403
    assert r.json()["error"] == "seat 1 is not yours; you play seat 0"
    assert snapshot(app) == before


def test_move_naming_another_game_is_refused(app, client):
    a = new_game(client)
    b = new_game(client, seed="8")
    state_a, state_b = ready(client, a), ready(client, b)
    before = snapshot(app)
    r = client.post(f"/api/games/{a}/move", json=move_body(b, state_b))
    assert r.status_code == 400
    assert "names game" in r.json()["error"]
    assert snapshot(app) == before
    assert state_a["step"] == client.get(f"/api/games/{a}").json()["step"]


def test_another_browser_cannot_see_or_move_in_your_game(app, client):
    gid = new_game(client)
    state = ready(client, gid)
    before = snapshot(app)
    other = browser(app)
    r = other.post(f"/api/games/{gid}/move", json=move_body(gid, state))
    assert r.status_code == 403
    assert "belongs to another browser" in r.json()["error"]
    assert other.get(f"/api/games/{gid}").status_code == 403
    assert other.get(f"/games/{gid}").status_code == 403
    assert snapshot(app) == before


def test_illegal_move_is_refused_with_the_legal_moves(app, client):
    gid = new_game(client)
    state = ready(client, gid)
    legal = {m["action"] for m in state["moves"]}
    illegal = next(a for a in range(101) if a not in legal)
    before = snapshot(app)
    r = client.post(f"/api/games/{gid}/move", json=move_body(gid, state, action=illegal))
    assert r.status_code == 400
    body = r.json()
    assert body["error"] == f"action {illegal} is not a legal move now"
    assert {m["action"] for m in body["legal"]} == legal
    r = client.post(f"/api/games/{gid}/move", json=move_body(gid, state, action=10**9))
    assert r.status_code == 400
    assert snapshot(app) == before


def test_stale_or_repeated_move_is_a_conflict(app, client):
    gid = new_game(client)
    state = ready(client, gid)
    body = move_body(gid, state)
    assert client.post(f"/api/games/{gid}/move", json=body).status_code == 200
    before = snapshot(app)
    r = client.post(f"/api/games/{gid}/move", json=body)  # the same click sent twice
    assert r.status_code == 409
    assert "stale request" in r.json()["error"]
    assert snapshot(app) == before


def test_move_while_the_agents_are_to_play_is_a_conflict(app, client):
    gid = new_game(client, seat="2")
    state = client.get(f"/api/games/{gid}").json()
    assert not state["your_turn"]
    before = snapshot(app)
    r = client.post(f"/api/games/{gid}/move", json={"game_id": gid, "seat": 2, "action": 80, "step": state["step"]})
    assert r.status_code == 409
    assert "not your turn" in r.json()["error"]
    assert snapshot(app) == before


@pytest.mark.parametrize(
    "body",
    [
        "not json",
        {},
        {"seat": 0, "action": 80, "step": 0},
        {"game_id": "X", "seat": "0", "action": 80, "step": 0},
        {"game_id": "X", "seat": 0, "action": 80.0, "step": 0},
        {"game_id": "X", "seat": True, "action": 80, "step": 0},
        {"game_id": "X", "seat": 0, "action": 80, "step": 0, "extra": 1},
        [1, 2, 3],
    ],
)
def test_malformed_moves_are_422_and_change_nothing(app, client, body):
    gid = new_game(client)
    state = ready(client, gid)
    if isinstance(body, dict) and "game_id" in body:
        body = {**body, "game_id": gid, "step": state["step"]}
    before = snapshot(app)
    if isinstance(body, str):
        r = client.post(f"/api/games/{gid}/move", content=body, headers={"content-type": "application/json"})
    else:
        r = client.post(f"/api/games/{gid}/move", json=body)
    assert r.status_code == 422
    assert r.json()["error"].startswith("malformed request")
    assert snapshot(app) == before


def test_bad_new_game_form_shows_the_problem(client):
    r = client.post("/games", data={"game": "members_only", "players": 4, "seat": "6", "opponent": "random",
                                    "csrf": client.token})
    assert r.status_code == 400
    assert "seat 6 does not exist; expected 0..3" in r.text
    r = client.post("/games", data={"game": "arkham_decoders_club", "players": 5, "role": "leader",
                                    "opponents_custom": "leader=random", "csrf": client.token})
    assert r.status_code == 400 and "no agent for role" in r.text


def test_games_are_isolated_and_play_to_saved_records(app, client, tmp_path):
    a = new_game(client, game="arkham_decoders_club", players=5, role="black_man", seat="", seed="1")
    b = new_game(client, seed="22", opponent="heuristic")  # seeds of short games, to keep the test quick
    finished = {}
    for gid in (a, b):
        rng = random.Random(0)
        other = b if gid == a else a
        other_before = snapshot(app)[other]
        state = ready(client, gid)
        seed_line = f"Seed {app.state.live[gid].game.seed} "
        assert seed_line not in client.get(f"/games/{gid}").text  # the seed would tell the deal
        while not state["finished"]:
            action = rng.choice(state["moves"])["action"]
            r = client.post(f"/api/games/{gid}/move", json=move_body(gid, state, action=action))
            assert r.status_code == 200, r.text
            state = r.json()["state"]
        assert snapshot(app)[other] == other_before  # playing one game never moves another
        assert "Record saved" in state["moves_html"] and seed_line in state["moves_html"]
        finished[gid] = state
    saved = sorted((tmp_path / "records").glob("*.json"))
    assert len(saved) == 2
    for path in saved:
        record = records.load(path)
        assert record["interface"] == "browser"
        assert record["seats"][record["human_seat"]]["controller"] == "human"
        r = client.get(f"/records/{path.name}")
        assert r.status_code == 200 and r.json()["seed"] == record["seed"]
    page = client.get("/results")
    assert page.status_code == 200
    assert all(path.name in page.text for path in saved)  # the player's own games
    assert "Agents against people" not in page.text
    assert client.get("/results/chart.png").status_code == 403  # the report is the owner's
    owner = browser(app)
    assert owner.get(f"/admin?token={app.state.admin_token}").status_code == 200
    page = owner.get("/results")
    assert all(path.name in page.text for path in saved)
    assert "Agents against people" in page.text
    assert owner.get("/results/chart.png").headers["content-type"] == "image/png"
    assert client.get("/records/..%2Fsecret.json").status_code == 404
    # a finished game takes no more moves
    r = client.post(f"/api/games/{b}/move", json={"game_id": b, "seat": 0, "action": 80, "step": finished[b]["step"]})
    assert r.status_code == 409 and r.json()["error"] == "the game is over"


def test_quit_saves_the_unfinished_game(app, client, tmp_path):
    gid = new_game(client)
    ready(client, gid)
    state = client.post(f"/api/games/{gid}/quit").json()
    assert state["abandoned"] and not state["finished"]
    record = records.load(next((tmp_path / "records").glob("*.json")))
    assert "result" not in record and record["abandoned"] is True


def test_frames_carry_a_table_only_when_they_have_lines_to_show(app, client):
    """The page shows a frame's table while it waits on the frame's lines; a frame without lines
    is replaced by the next at once, so it is not drawn (and the person's turn is always drawn)."""
    gid = new_game(client, opponent="members_only")
    state = client.get(f"/api/games/{gid}").json()
    rng = random.Random(3)
    seen = {"with": 0, "without": 0}
    while not state["finished"] and sum(seen.values()) < 200:
        if state["your_turn"]:
            action = rng.choice(state["moves"])["action"]
            r = client.post(f"/api/games/{gid}/move", json=move_body(gid, state, action=action))
        else:
            r = client.post(f"/api/games/{gid}/advance", json={"step": state["step"]})
        assert r.status_code == 200, r.text
        body = r.json()
        for frame in body["frames"]:
            if frame["lines"]:
                assert frame["table_html"].startswith('<div class="mo">')
                seen["with"] += 1
            else:
                assert frame["table_html"] is None
                seen["without"] += 1
        state = body["state"]
        assert state["table_html"].startswith('<div class="mo">')
    assert seen["with"] and seen["without"]
