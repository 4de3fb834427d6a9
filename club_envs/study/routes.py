"""The study's pages: ``/study`` (enter your participant code, then your schedule),
``POST /study/enter`` (the code and the consent) and ``POST /study/next`` (deal your next game
of the schedule, or return to the one in progress).

Part of every server (:func:`club_envs.web.app.create_app`); a server that runs no study answers
these pages with 404. Each participant plays the games of
:meth:`StudyPlan.schedule <club_envs.study.plan.StudyPlan.schedule>` in order, one at a time.
"""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI, Form, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from club_envs import store as db
from club_envs.web.auth import browser_id, ensure_browser
from club_envs.web.errors import ApiError
from club_envs.web.pages import page
from club_envs.games import get_spec
from club_envs.web.state import Server, ServerDep

def add_routes(app: FastAPI) -> None:
    """The study's pages (a server without a study answers them with 404)."""
    app.add_api_route("/study", study_page, methods=["GET"], response_class=HTMLResponse)
    app.add_api_route("/study/enter", study_enter, methods=["POST"])
    app.add_api_route("/study/next", study_next, methods=["POST"])


def study_page(request: Request, server: ServerDep) -> Response:
    if server.study is None:
        raise ApiError(404, "this server runs no study; start a game at /")
    fresh = ensure_browser(request)
    code = None if fresh else server.auth.participant(request)
    if code is None:
        return page(server, request, "study_enter.html", {"error": None}, new_browser=fresh)
    return page(server, request, "study.html", study_context(server, code))


def study_context(server: Server, code: str) -> dict[str, Any]:
    """The participant's schedule: each game's title, players and status."""
    _, position, _ = server.store.participant(code)
    mine = {g.slot: g for g in server.store.games(participant=code)}
    slots = []
    for slot in server.study.schedule(position):
        g = mine.get(slot.number)
        slots.append({"number": slot.number + 1, "title": get_spec(slot.condition.game).title,
                      "players": slot.condition.players,
                      "status": g.status if g else "to play", "id": g.id if g else None})
    done = sum(s["status"] in (db.FINISHED, db.ABANDONED) for s in slots)
    return {"code": code, "slots": slots, "done": done, "total": len(slots)}


def study_enter(request: Request, server: ServerDep, code: str = Form(""), consent: str = Form(""),
                csrf: str = Form("")) -> Response:
    server.auth.check_token(request, csrf)
    study = server.study
    if study is None:
        raise ApiError(404, "this server runs no study")
    code = code.strip()[:40]
    try:
        server.auth.hold_back(request, "participant code")
    except ApiError as exc:  # the same page, saying how long to wait
        response = page(server, request, "study_enter.html", {"error": exc.message}, exc.status)
        response.headers.update(exc.headers)
        return response
    if server.store.participant(code) is None:
        server.auth.wrong(request)
        return page(server, request, "study_enter.html",
                    {"error": "unknown participant code; type the code you were given"}, 400)
    if study.consent and consent != "yes":
        return page(server, request, "study_enter.html",
                    {"error": "please read the information and tick the box to take part"}, 400)
    server.store.bind_browser(browser_id(request), code, consented=bool(study.consent))
    return RedirectResponse("/study", status_code=303)


def study_next(request: Request, server: ServerDep, csrf: str = Form("")) -> Response:
    server.auth.check_token(request, csrf)
    study = server.study
    if study is None:
        raise ApiError(404, "this server runs no study")
    code = server.auth.participant(request)
    if code is None:
        return RedirectResponse("/study", status_code=303)
    _, position, _ = server.store.participant(code)
    mine = {g.slot: g for g in server.store.games(participant=code)}
    for g in mine.values():
        if g.status == db.PLAYING:
            return RedirectResponse(f"/games/{g.id}", status_code=303)
    slot = next((s for s in study.schedule(position) if s.number not in mine), None)
    if slot is None:
        return RedirectResponse("/study", status_code=303)
    c = slot.condition
    try:
        entry = server.games.start(f"p:{code}", c.game, c.players, slot.seat, c.role, c.opponents, slot.seed,
                                   show_agents=study.show_agents, participant_code=code, slot=slot)
    except db.SlotTaken:  # the same click twice: the first one made the game
        return RedirectResponse("/study", status_code=303)
    with entry.lock:
        server.games.persist(entry)
    return RedirectResponse(f"/games/{entry.game.game_id}", status_code=303)
