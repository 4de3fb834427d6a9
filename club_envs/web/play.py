"""Free play and the table: the start page, the table page and the JSON API the table page uses.

Pages: ``GET /`` new game and your games in progress (a study sends you to ``/study``),
``POST /games`` deal a new game, ``GET /games/{id}`` the table. API: ``GET /api/games/{id}``,
``POST /api/games/{id}/advance``, ``/move`` and ``/quit`` (see :mod:`club_envs.web.app`).
A move is accepted only from the owner of the game, for the person's seat, at the current
step, and only if legal.
"""

from __future__ import annotations

import re
from typing import Any

from fastapi import FastAPI, Form, Request
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from pydantic import BaseModel, ConfigDict, StrictInt, StrictStr

from club_envs import store as db
from club_envs.games import load_game, spec_of, specs
from club_envs.play.human_game import Frame, HumanGame
from club_envs.web.auth import ensure_browser
from club_envs.web.errors import ApiError
from club_envs.web.live import Live
from club_envs.web.pages import page
from club_envs.web.state import Server, ServerDep
from club_envs.web.tables import table_context



def playable_games() -> list[dict[str, Any]]:
    """The games a person can start here (those whose spec gives a presenter and a page table), as
    the start page's forms read them."""
    return [{"key": s.record_name, "name": s.title, "players": s.player_counts, "default_players": s.default_players,
             "roles": s.roles} for s in specs() if s.has_hook("presenter") and s.has_hook("web_table")]


def titles() -> dict[str, str]:
    """Record name -> display title of every playable game."""
    return {g["key"]: g["name"] for g in playable_games()}

def add_routes(app: FastAPI) -> None:
    """The start page, the table page and the table's JSON API."""
    app.add_api_route("/", index, methods=["GET"], response_class=HTMLResponse)
    app.add_api_route("/games", new_game, methods=["POST"])
    app.add_api_route("/games/{game_id}", game_page, methods=["GET"], response_class=HTMLResponse)
    app.add_api_route("/api/games/{game_id}", get_game, methods=["GET"])
    app.add_api_route("/api/games/{game_id}/advance", advance, methods=["POST"])
    app.add_api_route("/api/games/{game_id}/move", move, methods=["POST"])
    app.add_api_route("/api/games/{game_id}/quit", quit_game, methods=["POST"])


class MoveRequest(BaseModel):
    """The body of a move: every field required, exact types, nothing else."""

    model_config = ConfigDict(extra="forbid")
    game_id: StrictStr
    seat: StrictInt
    action: StrictInt
    step: StrictInt


class StepRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")
    step: StrictInt


# ---------------------------------------------------------------------------------------------- pages


def index(request: Request, server: ServerDep) -> Response:
    if server.study is not None:
        return RedirectResponse("/study", status_code=303)
    return index_page(server, request)


def index_page(server: Server, request: Request, error: str | None = None, status: int = 200) -> Response:
    fresh = ensure_browser(request)
    me = server.auth.principal(request)
    mine = [r for r in server.store.games(owner=me, status=db.PLAYING)] if me else []
    games = playable_games()
    agents = {g["key"]: server.catalogue.choices(load_game(g["key"])) for g in games}
    return page(server, request, "index.html", {"games": games, "agents": agents, "mine": mine, "error": error,
                                                "titles": titles()}, status if error else 200, new_browser=fresh)


def new_game(
    request: Request,
    server: ServerDep,
    game: str = Form(...),
    players: int = Form(...),
    seat: str = Form("random"),
    role: str = Form(""),
    opponent: str = Form("heuristic"),
    opponents_custom: str = Form(""),
    seed: str = Form(""),
    csrf: str = Form(""),
) -> Response:
    server.auth.check_token(request, csrf)
    if server.study is not None:
        raise ApiError(403, "this server runs a study: its games are dealt at /study")
    opponents = opponents_custom.strip() or opponent
    try:
        if game not in titles():
            raise ValueError(f"unknown game {game[:40]!r}; expected one of {', '.join(titles())}")
        where = {"role": role} if role else {"seat": None if seat in ("", "random") else _int(seat, "seat")}
        entry = server.games.start(server.auth.principal(request), game, players, where.get("seat"),
                                   where.get("role"), opponents, _int(seed, "seed") if seed.strip() else None,
                                   show_agents=True)
    except ValueError as exc:
        return index_page(server, request, error=str(exc), status=400)
    except ApiError as exc:
        return index_page(server, request, error=exc.message, status=exc.status)
    with entry.lock:
        server.games.persist(entry)
    return RedirectResponse(f"/games/{entry.game.game_id}", status_code=303)


def game_page(request: Request, game_id: str, server: ServerDep, delay: int | None = None) -> Response:
    entry = find(server, request, game_id)
    g = entry.game
    with entry.lock:
        state = state_json(server, request, entry)
        log = [line for frame in g.history for line in frame.lines]
    frame_delay = server.settings.frame_delay_ms if delay is None else max(0, min(delay, 10_000))
    return page(
        server, request, "game.html",
        {"g": g, "state": state, "log": log, "delay": frame_delay,
         "rules": g.presenter.help_text.split("\n\nMoves:")[0].replace("\n", " "),
         "title": spec_of(g.game).title},
    )


# ---------------------------------------------------------------------------------------------- API


def get_game(request: Request, game_id: str, server: ServerDep) -> Response:
    entry = find(server, request, game_id)
    with entry.lock:
        return answer(state_json(server, request, entry))


def advance(request: Request, game_id: str, body: StepRequest, server: ServerDep) -> Response:
    server.auth.check_token(request, None)
    entry = find(server, request, game_id)
    with entry.lock:
        g = entry.game
        check_step(g, body.step)
        frames = g.advance()
        server.games.persist(entry)
        return answer({"frames": [frame_json(server, g, f) for f in frames],
                       "state": state_json(server, request, entry)})


def move(request: Request, game_id: str, body: MoveRequest, server: ServerDep) -> Response:
    server.auth.check_token(request, None)
    entry = find(server, request, game_id)
    with entry.lock:
        g = entry.game
        if body.game_id != game_id:
            raise ApiError(400, f"the move names game {body.game_id[:40]!r} but was sent to game {game_id!r}")
        if body.seat != g.human_seat:
            raise ApiError(403, f"seat {body.seat} is not yours; you play seat {g.human_seat}")
        if g.over:
            raise ApiError(409, "the game is over")
        check_step(g, body.step)
        if not g.human_to_move:
            raise ApiError(409, "it is not your turn; let the agents move first (advance)")
        legal = {m.action: m.label for m in g.moves()}
        if body.action not in legal:
            raise ApiError(
                400, f"action {body.action} is not a legal move now",
                legal=[{"action": a, "label": label} for a, label in legal.items()],
            )
        frames = [g.play(body.action)]
        try:
            frames += g.advance()
        finally:  # the person's move and the agents' answers in one commit, before the answer (or the error)
            server.games.persist(entry)
        return answer({"frames": [frame_json(server, g, f) for f in frames],
                       "state": state_json(server, request, entry)})


def quit_game(request: Request, game_id: str, server: ServerDep) -> dict[str, Any]:
    server.auth.check_token(request, None)
    entry = find(server, request, game_id)
    with entry.lock:
        g = entry.game
        if not g.over:
            g.quit()
            server.games.persist(entry)
        return state_json(server, request, entry)


# ---------------------------------------------------------------------------------------------- helpers


def find(server: Server, request: Request, game_id: str) -> Live:
    """The game ``game_id`` if this request's browser (or participant) owns it (a game in memory
    is checked against its stored owner without asking the database again)."""
    entry = server.games.entries.get(game_id)
    row = entry.row if entry is not None else server.store.game(game_id) if len(game_id) <= 40 else None
    if row is None:
        raise ApiError(404, f"unknown game id {game_id[:40]!r}")
    if server.auth.principal(request) != row.owner:
        raise ApiError(403, "this game belongs to another browser; start your own game at /")
    try:
        return server.games.load(row)
    except ValueError as exc:
        raise ApiError(503, f"this game cannot be resumed: {exc}") from None


def check_step(g: HumanGame, step: int) -> None:
    if step != g.step:
        raise ApiError(409, f"stale request: the game is at step {g.step}, the request names step {step}",
                       step=g.step)


def render_table(server: Server, g: HumanGame, view: Any, legal: set[int]) -> str:
    context = table_context(g.game.RECORD_NAME, view, g.presenter, legal)
    return server.templates.get_template(f"{g.game.RECORD_NAME}_table.html").render(t=context, legal=legal)


def frame_json(server: Server, g: HumanGame, frame: Frame) -> dict[str, Any]:
    """A frame's lines and its table. The page shows a frame's table only while it waits on the
    frame's lines; a frame without lines is replaced by the next at once, so it is not drawn."""
    return {"lines": frame.lines, "table_html": render_table(server, g, frame.view, set()) if frame.lines else None}


def answer(content: dict[str, Any]) -> Response:
    """The JSON of an answer, made once: the dict holds only strings, numbers, lists and dicts."""
    return JSONResponse(content)


def record_link(server: Server, request: Request, entry: Live) -> str | None:
    """Participants of a blind study do not see the record (it names the agents)."""
    g = entry.game
    study = server.study
    if g.saved_path is None or (study is not None and not study.show_agents and not server.auth.is_admin(request)):
        return None
    return g.saved_path.name


def state_json(server: Server, request: Request, entry: Live) -> dict[str, Any]:
    g = entry.game
    moves = g.moves()
    legal = {m.action for m in moves}
    return {
        "game_id": g.game_id,
        "game": g.game.RECORD_NAME,
        "seat": g.human_seat,
        "role": g.human_role,
        "step": g.step,
        "your_turn": g.human_to_move,
        "finished": g.finished,
        "abandoned": g.abandoned,
        "table_html": render_table(server, g, g.view(), legal),
        "moves": [{"code": m.code, "action": m.action, "label": m.label, "group": m.group} for m in moves],
        "moves_html": server.templates.get_template("moves.html").render(
            moves=moves, game=g.game.RECORD_NAME, finished=g.finished, abandoned=g.abandoned,
            result_lines=g.result_lines() if g.over else [], record=record_link(server, request, entry),
            seed=g.seed if g.over else None,  # the seed would tell the deal: shown only at the end
            study=server.study is not None,
            replay=f"/replays/{g.game_id}?view={g.human_seat}" if g.over else None,  # the own seat's view
        ),
    }


def _int(text: str, what: str) -> int:
    text = text.strip()
    if len(text) > 40 or not re.fullmatch(r"-?[0-9]+", text):
        raise ValueError(f"{what} {text[:40]!r} is not a whole number")
    return int(text)
