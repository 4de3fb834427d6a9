"""Your games and their records: ``/results`` (the owner: every game and the report against
agents), ``/records/{name}`` (a record as JSON) and ``/results/chart.png`` (the owner's chart).

A participant sees only their own games, and in a blind study neither the agents' names nor the
records (which name them).
"""

from __future__ import annotations

import re
import tempfile
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import HTMLResponse, JSONResponse, Response

from club_envs import records as record_io
from club_envs import store as db
from club_envs.games import get_spec
from club_envs.report import summarise, write_chart
from club_envs.web.errors import ApiError
from club_envs.web.pages import page
from club_envs.web.state import ServerDep

RECORD_NAME = re.compile(r"^[A-Za-z0-9_.-]{1,200}\.json$")

def add_routes(app: FastAPI) -> None:
    """The results page, the records and the owner's chart."""
    app.add_api_route("/results", results, methods=["GET"], response_class=HTMLResponse)
    app.add_api_route("/records/{name}", record_file, methods=["GET"])
    app.add_api_route("/results/chart.png", results_chart, methods=["GET"])


def results(request: Request, server: ServerDep) -> Response:
    admin = server.auth.is_admin(request)
    me = server.auth.principal(request)
    study = server.study
    records_dir = server.settings.records_dir
    rows_db = server.store.games() if admin else (server.store.games(owner=me) if me else [])
    rows = [game_row(r, admin or (study is None or study.show_agents)) for r in rows_db]
    rows.sort(key=lambda r: r["when"], reverse=True)
    report = summarise([records_dir]) if admin and records_dir.is_dir() else None
    return page(server, request, "results.html",
                {"rows": rows, "report": report, "show_records": admin or study is None})


def record_file(request: Request, name: str, server: ServerDep) -> Response:
    missing = ApiError(404, f"no record named {name[:200]!r}")
    if not RECORD_NAME.match(name):
        raise missing
    row = server.store.by_record_name(name)
    if server.auth.is_admin(request):
        if row is not None and row.record is not None:
            return JSONResponse(row.record)
        path = server.settings.records_dir / name
        if path.is_file():
            try:
                return JSONResponse(record_io.load(path))
            except (record_io.RecordError, ValueError, RecursionError):
                raise ApiError(422, f"record {name} is malformed") from None
        raise missing
    # a participant: only their own games, and not in a blind study
    study = server.study
    if row is None or row.record is None or row.owner != server.auth.principal(request) or \
            (study is not None and not study.show_agents):
        raise missing
    return JSONResponse(row.record)


def results_chart(request: Request, server: ServerDep) -> Response:
    server.auth.require_admin(request)
    records_dir = server.settings.records_dir
    with tempfile.TemporaryDirectory() as folder:
        chart = write_chart(summarise([records_dir]) if records_dir.is_dir() else summarise([]),
                            Path(folder) / "chart.png")
        return Response(chart.read_bytes(), media_type="image/png")


def game_row(row: db.StoredGame, show_agents: bool) -> dict[str, Any]:
    """One line of the results page, from the stored game (and its record once it has one)."""
    record = row.record
    outcome = {db.PLAYING: "in progress", db.ABANDONED: "unfinished"}.get(row.status, "")
    opponents, role, score = "", None, None
    if record is not None:
        seats = record.get("seats", [])
        human = row.human_seat
        if show_agents:
            opponents = ", ".join(f"{s['seat']}: {s['controller']}" for s in seats if s.get("seat") != human)
        if 0 <= human < len(seats):
            role = seats[human].get("role")
        result = record.get("result")
        if result is not None:
            winners = result.get("winners", [])
            if human in winners:
                outcome = "won" if len(winners) == 1 or not get_spec(record["game"]).shared_wins else "shared win"
            else:
                outcome = "lost"
            scores = result.get("scores")
            score = scores[human] if isinstance(scores, list) and 0 <= human < len(scores) else None
    return {
        "file": row.record_name, "game": row.game, "players": row.num_players, "seat": row.human_seat,
        "role": role, "opponents": opponents, "outcome": outcome, "score": score,
        "condition": row.condition, "participant": row.participant,
        "when": (row.ended_at or row.started_at or "")[:16].replace("T", " "),
    }
