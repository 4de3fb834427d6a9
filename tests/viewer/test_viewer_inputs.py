"""``club-envs view`` and the viewer's routes refuse bad input with one line: files that are not
records, too large, of an unknown game, that do not replay; a bad ``--seat`` or ``--port``; a game,
view or step a client names that does not exist or is not theirs; a request under another host name."""

from __future__ import annotations

import json
import warnings

import pytest

from club_envs import records
from club_envs.cli import main
from club_envs.cli.view import build_app
from tests.play.web_client import BASE
from tests.viewer.records_made import ARKHAM, MEMBERS_ONLY, record

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient


def _view(capsys, *args) -> tuple[int, str]:
    code = main(["view", *map(str, args), "--no-browser"])
    err = capsys.readouterr().err
    return code, err


def _write(path, data) -> str:
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return path


def _tampered() -> dict:
    rec = record(MEMBERS_ONLY)
    bet = next(e for e in rec["events"] if e["type"] == "bet")
    bet["space"] = "<=1" if bet["space"] != "<=1" else ">=8"
    return rec


@pytest.mark.parametrize("content, message", [
    ("{not json", "not a JSON record"),
    ({"format": "club-envs-record", "game": "chess"}, "'game' must be one of"),
    ({**record(MEMBERS_ONLY), "seats": "everyone"}, "invalid members_only record at seats"),
    (_tampered(), "differs"),
    ("[" * 100 + "]" * 100, "nests deeper"),
])
def test_a_file_that_is_not_a_good_record_is_refused_in_one_line(tmp_path, capsys, content, message):
    code, err = _view(capsys, _write(tmp_path / "bad.json", content))
    assert code == 2 and message in err and err.count("\n") == 1, err


def test_a_record_over_the_size_limit_is_refused_before_it_is_read(tmp_path, capsys, monkeypatch):
    path = _write(tmp_path / "big.json", record(MEMBERS_ONLY))
    monkeypatch.setattr(records, "MAX_BYTES", 1000)
    code, err = _view(capsys, path)
    assert code == 2 and "larger than 1000 bytes" in err


@pytest.mark.parametrize("args, message", [
    (["--seat", "north"], "--seat 'north' is not allowed; expected a seat number (0, 1, ...), 'public' or 'all'"),
    (["--seat", "7"], "view '7' is not one of this game's views; expected a seat 0..2"),
    (["--port", "70000"], "--port must be 1..65535, got 70000"),
])
def test_bad_options_are_refused_in_one_line(tmp_path, capsys, args, message):
    code, err = _view(capsys, _write(tmp_path / "ok.json", record(MEMBERS_ONLY)), *args)
    assert code == 2 and message in err, err


def test_a_missing_file_or_an_empty_folder_is_named(tmp_path, capsys):
    code, err = _view(capsys, tmp_path / "nothing.json")
    assert code == 2 and "no such record file" in err
    code, err = _view(capsys, tmp_path)
    assert code == 2 and "holds no record files (*.json)" in err


def test_a_folder_lists_its_good_records_and_names_the_bad_ones(tmp_path):
    _write(tmp_path / "a.json", record(MEMBERS_ONLY))
    _write(tmp_path / "b.json", "{broken")
    (tmp_path / "sub").mkdir()
    _write(tmp_path / "sub" / "c.json", record(ARKHAM))
    app, files = build_app(tmp_path, "all")
    assert [f.name for f in files] == ["a.json", "b.json", "c.json"]
    with TestClient(app, base_url=BASE) as client:
        page = client.get("/replays").text
        assert "Members Only" in page and "Arkham Decoders Club" in page
        assert "not a JSON record" in page and "b.json" in page
        assert client.get("/replays?game=Members+Only").text.count('class="watch"') == 5  # 3 seats, public, all
        assert client.get("/replays/1").status_code == 422
        assert client.get("/api/replays/2/steps/0?view=3").status_code == 200


def test_the_routes_refuse_what_does_not_exist_or_is_not_served(tmp_path):
    _write(tmp_path / "a.json", record(MEMBERS_ONLY))
    app, _ = build_app(tmp_path, "1")  # only seat 1's view is served
    with TestClient(app, base_url=BASE) as client:
        assert client.get("/api/replays/0/steps/0?view=1").status_code == 200
        r = client.get("/api/replays/0/steps/0?view=all")
        assert r.status_code == 403 and "you may see 1" in r.json()["error"]
        assert client.get("/api/replays/0/steps/0").json()["view"] == "1"  # the served view by default
        r = client.get("/api/replays/0/steps/0?view=north")
        assert r.status_code == 400 and "expected a seat 0..2" in r.json()["error"]
        r = client.get("/api/replays/0/steps/99999?view=1")
        assert r.status_code == 404 and "steps 0.." in r.json()["error"]
        assert client.get("/api/replays/5/steps/0").status_code == 404
        for key in ("..%2Fa.json", "%2Fetc%2Fpasswd", "a.json"):
            assert client.get(f"/replays/{key}").status_code == 404, key
        assert client.get("/replays/0", headers={"host": "attacker.example"}).status_code == 400
        headers = client.get("/replays/0?view=1").headers
        assert "frame-ancestors 'none'" in headers["content-security-policy"]


def test_nothing_from_a_record_reaches_the_page_as_html(tmp_path):
    rec = record(MEMBERS_ONLY)
    rec["seats"][0]["controller"] = "<script>alert(1)</script>"
    rec["started_at"] = "<img src=x onerror=alert(2)>"
    _write(tmp_path / "a.json", rec)
    app, _ = build_app(tmp_path, "all")
    with TestClient(app, base_url=BASE) as client:
        listing = client.get("/replays").text
        assert "<script>alert" not in listing and "&lt;script&gt;" in listing
        assert "<img src=x" not in listing
        for n in (0, 1, 2):
            body = client.get(f"/api/replays/0/steps/{n}?view=all").json()
            assert "<script>" not in body["table_html"] and "&lt;script&gt;" in body["table_html"]


def test_the_command_serves_loopback_only_and_opens_the_served_view(tmp_path, capsys, monkeypatch):
    import uvicorn
    import webbrowser

    served, opened = {}, []
    monkeypatch.setattr(uvicorn, "run", lambda app, **kw: served.update(kw, app=app))
    monkeypatch.setattr(webbrowser, "open", opened.append)
    path = _write(tmp_path / "ok.json", record(ARKHAM))
    assert main(["view", str(path), "--seat", "public", "--port", "8123"]) == 0
    assert served["host"] == "127.0.0.1" and served["port"] == 8123
    assert opened == ["http://127.0.0.1:8123/replays/0?view=public"]
    assert "open http://127.0.0.1:8123/replays/0?view=public" in capsys.readouterr().out
    assert main(["view", str(tmp_path), "--no-browser"]) == 0
    assert opened == ["http://127.0.0.1:8123/replays/0?view=public"] and 0 < served["port"] < 65536
    assert "/replays (Ctrl-C stops)" in capsys.readouterr().out
