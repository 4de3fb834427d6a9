"""Forged requests against the web app, one per defence: each is refused with a clear message and
changes nothing (no game, no move, no cookie)."""

from __future__ import annotations

import json
import re

import pytest

from club_envs import records
from club_envs.play.human_game import HumanGame
from club_envs.web.app import allowed_hosts_for, create_app
from tests.play.conftest import play_out
from tests.play.web_client import BASE, browser, new_game


@pytest.fixture
def app(tmp_path):
    return create_app(tmp_path / "records")


def stored(app):
    store = app.state.store
    return [(g.id, g.status, len(store.moves(g.id))) for g in store.games()]


def ready(client, gid) -> dict:
    state = client.get(f"/api/games/{gid}").json()
    if not state["your_turn"] and not state["finished"]:
        state = client.post(f"/api/games/{gid}/advance", json={"step": state["step"]}).json()["state"]
    return state


# ---------------------------------------------------------------------------- Host header

def test_an_unknown_host_header_is_refused(app):
    client = browser(app)
    for method in ("get", "post"):
        r = client.request(method, "/", headers={"host": "attacker.example"})
        assert r.status_code == 400
    assert client.get("/", headers={"host": "localhost:8000"}).status_code == 200


def test_a_wildcard_address_needs_the_names_participants_use():
    with pytest.raises(ValueError, match="--allowed-host"):
        allowed_hosts_for("0.0.0.0")
    assert "192.168.1.20" in allowed_hosts_for("0.0.0.0", ["192.168.1.20"])
    assert "10.0.0.5" in allowed_hosts_for("10.0.0.5")


# ---------------------------------------------------------------------------- CSRF

def state_changing_requests(gid: str, step: int) -> list[tuple[str, dict]]:
    return [
        ("/games", {"data": {"game": "members_only", "players": 3, "seat": "0", "opponent": "random"}}),
        (f"/api/games/{gid}/advance", {"json": {"step": step}}),
        (f"/api/games/{gid}/move", {"json": {"game_id": gid, "seat": 0, "action": 0, "step": step}}),
        (f"/api/games/{gid}/quit", {}),
    ]


def test_every_state_changing_route_is_covered_here(app):
    posts = sorted(r.path for r in app.routes if "POST" in getattr(r, "methods", ()))
    assert posts == ["/api/games/{game_id}/advance", "/api/games/{game_id}/move", "/api/games/{game_id}/quit",
                     "/games", "/study/enter", "/study/next"]  # the study routes: tests/play/test_study.py


@pytest.mark.parametrize("forgery", ["no token", "another browser's token", "foreign origin", "null origin",
                                     "foreign referer", "cross-site fetch"])
def test_state_changing_requests_without_the_page_token_or_from_another_site_are_refused(app, forgery):
    client = browser(app)
    gid = new_game(client, seat="1")
    step = client.get(f"/api/games/{gid}").json()["step"]
    before = stored(app)
    other = browser(app)
    for url, kwargs in state_changing_requests(gid, step):
        headers = {"x-csrf-token": client.token}
        if forgery == "no token":
            headers = {"x-csrf-token": ""}
        elif forgery == "another browser's token":
            headers = {"x-csrf-token": other.token}
        elif forgery == "foreign origin":
            headers["origin"] = "http://attacker.example"
        elif forgery == "null origin":
            headers["origin"] = "null"
        elif forgery == "foreign referer":
            headers["referer"] = "http://attacker.example/page"
        else:
            headers["sec-fetch-site"] = "cross-site"
        if "data" in kwargs:
            kwargs = {"data": {**kwargs["data"], "csrf": headers.get("x-csrf-token", "")}}
        r = client.post(url, headers=headers, follow_redirects=False, **kwargs)
        assert r.status_code == 403, (url, r.text)
        assert "set-cookie" not in r.headers
    assert stored(app) == before
    # the same requests from the page itself work
    r = client.post(f"/api/games/{gid}/advance", json={"step": step}, headers={"origin": BASE})
    assert r.status_code == 200


def test_a_cross_site_form_cannot_replace_the_players_cookie(app):
    client = browser(app)
    gid = new_game(client)
    cookie = client.cookies["club_envs_browser"]
    # the attacker's page posts a form: the browser sends no cookie (SameSite) and an Origin
    attacker = browser(app)
    attacker.cookies.clear()
    r = attacker.post("/games", data={"game": "members_only", "players": 3, "seat": "0", "opponent": "random"},
                      headers={"origin": "http://attacker.example"}, follow_redirects=False)
    assert r.status_code == 403 and "set-cookie" not in r.headers
    r = attacker.post("/games", data={"game": "members_only", "players": 3, "seat": "0", "opponent": "random"},
                      follow_redirects=False)
    assert r.status_code == 403 and "set-cookie" not in r.headers
    # a link followed from another site brings the cookie (SameSite=Lax) and keeps it
    r = client.get("/", headers={"referer": "http://attacker.example/"})
    assert "set-cookie" not in r.headers
    assert client.cookies["club_envs_browser"] == cookie
    assert client.get(f"/api/games/{gid}").status_code == 200


# ---------------------------------------------------------------------------- body size

def test_a_large_body_is_refused_with_413_before_it_is_read(app):
    client = browser(app)
    gid = new_game(client)
    before = stored(app)
    big = b'{"step": 0, "pad": "' + b"x" * (300 * 1024) + b'"}'
    r = client.post(f"/api/games/{gid}/advance", content=big, headers={"content-type": "application/json"})
    assert r.status_code == 413 and "larger than the limit" in r.json()["error"]

    def chunks():  # no Content-Length: the server counts as it reads
        for _ in range(100):
            yield b"x" * 8192

    r = client.post(f"/api/games/{gid}/advance", content=chunks(), headers={"content-type": "application/json"})
    assert r.status_code == 413
    r = client.post("/games", content=b"a=" + b"x" * (200 * 1024),
                    headers={"content-type": "application/x-www-form-urlencoded"})
    assert r.status_code == 413
    assert stored(app) == before


# ---------------------------------------------------------------------------- opponents

def test_opponents_are_names_never_paths_and_errors_tell_nothing_about_files(app, tmp_path):
    client = browser(app)
    secret = tmp_path / "secret.pt"
    secret.write_bytes(b"v" * 10)
    answers = {}
    for name in (str(secret), str(tmp_path / "missing.pt"), "/etc/hostname", "/etc", "../../etc/passwd",
                 str(tmp_path)):
        r = client.post("/games", data={"game": "members_only", "players": 3, "seat": "0", "opponents_custom": name,
                                        "csrf": client.token})
        assert r.status_code == 400
        error = r.text.split('id="form-error">')[1].split("</p>")[0]
        # the name as shown (cut short when long, as under a deep temporary folder), then the rest
        answers[name] = re.sub(r"&#39;.*?&#39;", "NAME", error, count=1)
        assert "exist" not in error and "operand" not in error and "118" not in error
    assert len(set(answers.values())) == 1, answers  # the same words whatever the file system holds
    assert "choose one of: random, heuristic" in next(iter(answers.values()))
    assert app.state.store.games() == []


def test_the_agents_folder_offers_its_entries_by_name(tmp_path):
    agents = tmp_path / "agents"
    agents.mkdir()
    (agents / "broken.pt").write_bytes(b"not a policy")
    app = create_app(tmp_path / "records", agents_dir=agents)
    client = browser(app)
    assert ">broken<" in client.get("/").text
    r = client.post("/games", data={"game": "members_only", "players": 3, "seat": "0", "opponent": "broken",
                                    "csrf": client.token})
    assert r.status_code == 400
    assert "agent &#39;broken&#39; of the agents folder cannot play members_only" in r.text
    assert str(agents) not in r.text


# ---------------------------------------------------------------------------- who sees what

def test_results_and_records_belong_to_their_owner(app, tmp_path):
    alice, bob = browser(app), browser(app)
    gid = new_game(alice)
    state = alice.post(f"/api/games/{gid}/quit").json()
    name = state["moves_html"].split('id="record-link" href="/records/')[1].split('"')[0]
    assert alice.get(f"/records/{name}").status_code == 200
    assert bob.get(f"/records/{name}").status_code == 404
    assert name in alice.get("/results").text and name not in bob.get("/results").text
    assert bob.get(f"/games/{gid}").status_code == 403
    for url in ("/admin", "/results/chart.png", "/admin/outcomes.csv"):
        assert bob.get(url).status_code == 403
    assert bob.get("/admin?token=wrong").status_code == 403
    r = bob.get(f"/admin?token={app.state.admin_token}", follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"] == "/admin"
    assert bob.get("/admin").status_code == 200
    assert bob.get(f"/records/{name}").status_code == 200  # the owner sees every record
    curl = browser(app)
    r = curl.get("/admin/outcomes.csv", headers={"authorization": f"Bearer {app.state.admin_token}"})
    assert r.status_code == 200 and gid in r.text


def test_malformed_records_in_the_folder_are_named_and_skipped(app, tmp_path):
    folder = tmp_path / "records"
    game = HumanGame.create("members_only", num_players=3, seat=0, opponents="random", seed=4)
    play_out(game)
    good = game.save(folder)
    record = records.load(good)
    bad_seat = dict(record, human_seat=99)
    (folder / "seat99.json").write_text(json.dumps(bad_seat))
    (folder / "digits.json").write_text(json.dumps(record).replace('"seed": 4', '"seed": ' + "9" * 5000))
    (folder / "deep.json").write_text("[" * 100_000 + "]" * 100_000)
    (folder / "broken.json").write_text("{not json")
    owner = browser(app)
    owner.get(f"/admin?token={app.state.admin_token}")
    r = owner.get("/results")
    assert r.status_code == 200
    skipped = r.text.split('id="unreadable">')[1].split("</ul>")[0]
    for name in ("seat99.json", "digits.json", "deep.json", "broken.json"):
        assert name in skipped
    assert "human_seat 99 is not a seat" in skipped
    assert "Agents against people" in r.text  # the sound record is still counted
    assert owner.get("/results/chart.png").status_code == 200
    assert owner.get("/records/seat99.json").status_code in (200, 422)
    assert owner.get("/records/deep.json").status_code == 422


# ---------------------------------------------------------------------------- form values

@pytest.mark.parametrize("form,message", [
    ({"seat": "99"}, "seat 99 does not exist; expected 0..3"),
    ({"seat": "-1"}, "seat -1 does not exist; expected 0..3"),
    ({"seat": "1" * 5000}, "is not a whole number"),
    ({"players": 9}, "members_only takes 3, 4, 5 players, not 9"),
    ({"seed": "-5"}, "seed -5 is not allowed"),
    ({"seed": "9" * 5000}, "is not a whole number"),
    ({"game": "chess"}, "unknown game &#39;chess&#39;"),
    ({"role": "king", "game": "arkham_decoders_club", "players": 5}, "unknown role &#39;king&#39;"),
])
def test_out_of_range_form_values_are_refused_with_what_is_allowed(app, form, message):
    client = browser(app)
    data = {"game": "members_only", "players": 4, "seat": "0", "opponent": "random", "csrf": client.token, **form}
    r = client.post("/games", data=data)
    assert r.status_code == 400
    assert message in r.text
    assert app.state.store.games() == []


# ---------------------------------------------------------------------------- limits, no eviction

def test_limits_refuse_new_games_and_never_evict_one(tmp_path):
    app = create_app(tmp_path / "records", max_games=3, max_games_per_browser=2)
    a, b, c = browser(app), browser(app), browser(app)
    mine = [new_game(a), new_game(a, seed="8")]
    r = a.post("/games", data={"game": "members_only", "players": 3, "seat": "0", "opponent": "random",
                               "csrf": a.token})
    assert r.status_code == 429 and "you have 2 games in progress, the most allowed" in r.text
    theirs = new_game(b)
    r = c.post("/games", data={"game": "members_only", "players": 3, "seat": "0", "opponent": "random",
                               "csrf": c.token})
    assert r.status_code == 503 and "the server has 3 games in progress, its limit" in r.text
    for client, gid in [(a, mine[0]), (a, mine[1]), (b, theirs)]:
        assert client.get(f"/api/games/{gid}").status_code == 200
    a.post(f"/api/games/{mine[0]}/quit")  # a game ends: room for one more
    assert new_game(c)
    assert len(app.state.store.games()) == 4


@pytest.mark.parametrize("body", ['{"game_id": "G", "seat": 0, "action": ' + "9" * 5000 + ', "step": 0}',
                                  '{"game_id": "G", "seat": 0, "action": 1, "step": ' + "[" * 5000 + "]" * 5000 + "}"])
def test_huge_numbers_and_deep_nesting_in_a_body_are_refused_not_crashed(app, body):
    client = browser(app)
    gid = new_game(client)
    before = stored(app)
    r = client.post(f"/api/games/{gid}/move", content=body.replace("G", gid),
                    headers={"content-type": "application/json"})
    assert r.status_code == 400 and "error" in r.json()
    assert stored(app) == before
