"""The owner's page: ``/admin`` (the owner link's login, every game, the study's progress) and
``/admin/outcomes.csv`` (the study's export, one row per game)."""

from __future__ import annotations

import io
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import HTMLResponse, Response

from club_envs import store as db
from club_envs.study.export import outcome_rows, write_outcomes
from club_envs.web.pages import page
from club_envs.web.state import Server, ServerDep

def add_routes(app: FastAPI) -> None:
    """The owner's page and the study's export."""
    app.add_api_route("/admin", admin_page, methods=["GET"], response_class=HTMLResponse)
    app.add_api_route("/admin/outcomes.csv", outcomes_csv, methods=["GET"])


def admin_page(request: Request, server: ServerDep, token: str | None = None) -> Response:
    if token is not None:
        return server.auth.owner_login(request, token)
    server.auth.require_admin(request)
    games = server.store.games()
    progress = study_progress(server, games) if server.study is not None else []
    return page(server, request, "admin.html", {"progress": progress, "games": games,
                                                "playing": server.store.count_playing(),
                                                "database": server.store.url.split("://")[0]})


def outcomes_csv(request: Request, server: ServerDep) -> Response:
    server.auth.require_admin(request)
    buffer = io.StringIO()
    write_outcomes(outcome_rows(server.store.games()), buffer)
    return Response(buffer.getvalue(), media_type="text/csv",
                    headers={"content-disposition": "attachment; filename=outcomes.csv"})


def study_progress(server: Server, games: list[db.StoredGame]) -> list[dict[str, Any]]:
    """Per participant: how far they are through the study's schedule."""
    study = server.study
    rows = []
    for code, position, consented in server.store.participants():
        mine = [g for g in games if g.participant == code]
        rows.append({
            "code": code, "position": position, "consented": consented,
            "finished": sum(g.status == db.FINISHED for g in mine),
            "abandoned": sum(g.status == db.ABANDONED for g in mine),
            "playing": sum(g.status == db.PLAYING for g in mine),
            "total": study.total_games,
            "order": ", ".join(c.name for c in study.condition_order(position)),
        })
    return rows
