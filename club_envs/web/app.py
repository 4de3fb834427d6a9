"""The browser front end: pick a game, play it by clicking, see the results.

Pages (HTML): ``/`` new game and your games in progress, ``/games/{id}`` the table,
``/results`` the finished games and the report. JSON API used by the table page:

=======================================  =====================================================
``GET  /api/games/{id}``                 the table, your legal moves, the log so far
``POST /api/games/{id}/advance``         let the agents play until you must move
``POST /api/games/{id}/move``            ``{"game_id", "seat", "action", "step"}``: your move,
                                         then the agents' moves until you must move again
``POST /api/games/{id}/quit``            leave the game unfinished (its record is saved)
=======================================  =====================================================

A move is accepted only from the browser that created the game (a cookie), for that game, for
the person's seat, at the current step, and only if legal; anything else gets a 4xx JSON
``{"error": ...}`` and changes nothing. Each game has its own lock, so games are independent.
"""

from __future__ import annotations

import secrets
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Form, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, HTMLResponse, JSONResponse, RedirectResponse, Response
from fastapi.staticfiles import StaticFiles
from fastapi.templating import Jinja2Templates
from pydantic import BaseModel, ConfigDict, StrictInt, StrictStr
from starlette.exceptions import HTTPException as StarletteHTTPException

from club_envs import records as record_io
from club_envs.games import load_game
from club_envs.play.agents import agent_choices
from club_envs.play.human_game import Frame, HumanGame
from club_envs.web.tables import table_context

BROWSER_COOKIE = "club_envs_browser"
MAX_GAMES = 200  # games kept in memory; the oldest finished ones are dropped first
GAMES = (
    {"key": "members_only", "name": "Members Only", "players": (3, 4, 5), "default_players": 4,
     "roles": ()},
    {"key": "arkham_decoders_club", "name": "Arkham Decoders Club", "players": (4, 5, 6), "default_players": 5,
     "roles": ("leader", "member", "investigator", "black_man")},
)


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


class ApiError(Exception):
    def __init__(self, status: int, message: str, **extra: Any) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.extra = extra


@dataclass
class Seat:
    """A game in the server: the game, who may play it, and its lock."""

    game: HumanGame
    owner: str
    lock: threading.Lock = field(default_factory=threading.Lock)


def create_app(records_dir: str | Path = "runs/human", frame_delay_ms: int = 700) -> FastAPI:
    """The web app; finished and abandoned games are saved under ``records_dir``."""
    records_dir = Path(records_dir)
    package = resources.files("club_envs.web")
    templates = Jinja2Templates(directory=str(package / "templates"))
    app = FastAPI(title="club-envs", docs_url=None, redoc_url=None, openapi_url=None)
    app.mount("/static", StaticFiles(directory=str(package / "static")), name="static")
    games: OrderedDict[str, Seat] = OrderedDict()
    games_lock = threading.Lock()
    app.state.games = games
    app.state.records_dir = records_dir

    # ------------------------------------------------------------------ errors
    @app.exception_handler(ApiError)
    async def _api_error(request: Request, exc: ApiError) -> JSONResponse:
        return JSONResponse({"error": exc.message, **exc.extra}, status_code=exc.status)

    @app.exception_handler(RequestValidationError)
    async def _malformed(request: Request, exc: RequestValidationError) -> JSONResponse:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e.get('loc', ()) if p != 'body') or 'body'}: {e.get('msg')}"
            for e in exc.errors()
        )
        return JSONResponse({"error": f"malformed request: {problems}"}, status_code=422)

    @app.exception_handler(StarletteHTTPException)
    async def _http_error(request: Request, exc: StarletteHTTPException) -> Response:
        if request.url.path.startswith("/api/"):
            return JSONResponse({"error": str(exc.detail)}, status_code=exc.status_code)
        return templates.TemplateResponse(
            request, "error.html", {"status": exc.status_code, "message": str(exc.detail)}, status_code=exc.status_code
        )

    # ------------------------------------------------------------------ helpers
    def browser_id(request: Request) -> str | None:
        return request.cookies.get(BROWSER_COOKIE)

    def find(request: Request, game_id: str) -> Seat:
        with games_lock:
            seat = games.get(game_id)
        if seat is None:
            raise ApiError(404, f"unknown game id {game_id!r}")
        if browser_id(request) != seat.owner:
            raise ApiError(403, "this game belongs to another browser; start your own game at /")
        return seat

    def render_table(g: HumanGame, view: Any, legal: set[int]) -> str:
        context = table_context(g.game.RECORD_NAME, view, g.presenter, legal)
        return templates.get_template(f"{g.game.RECORD_NAME}_table.html").render(t=context, legal=legal)

    def frame_json(g: HumanGame, frame: Frame) -> dict[str, Any]:
        return {"lines": frame.lines, "table_html": render_table(g, frame.view, set())}

    def state_json(g: HumanGame) -> dict[str, Any]:
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
            "table_html": render_table(g, g.view(), legal),
            "moves": [{"code": m.code, "action": m.action, "label": m.label, "group": m.group} for m in moves],
            "moves_html": templates.get_template("moves.html").render(
                moves=moves, game=g.game.RECORD_NAME, finished=g.finished, abandoned=g.abandoned,
                result_lines=g.result_lines() if g.over else [],
                record=g.saved_path.name if g.saved_path else None,
                seed=g.seed if g.over else None,  # the seed would tell the deal: shown only at the end
            ),
        }

    def save_if_over(g: HumanGame) -> None:
        if g.over:
            g.save(records_dir)

    def drop_old_games() -> None:
        while len(games) > MAX_GAMES:
            victim = next((k for k, v in games.items() if v.game.over), next(iter(games)))
            del games[victim]

    # ------------------------------------------------------------------ pages
    @app.get("/", response_class=HTMLResponse)
    def index(request: Request, error: str | None = None) -> Response:
        me = browser_id(request)
        with games_lock:
            mine = [s.game for s in games.values() if s.owner == me and not s.game.over]
        agents = {g["key"]: agent_choices(load_game(g["key"])) for g in GAMES}
        response = templates.TemplateResponse(
            request, "index.html", {"games": GAMES, "agents": agents, "mine": mine, "error": error},
            status_code=400 if error else 200,
        )
        if me is None:
            response.set_cookie(BROWSER_COOKIE, secrets.token_urlsafe(16), httponly=True, samesite="strict")
        return response

    @app.post("/games")
    def new_game(
        request: Request,
        game: str = Form(...),
        players: int = Form(...),
        seat: str = Form("random"),
        role: str = Form(""),
        opponent: str = Form("heuristic"),
        opponents_custom: str = Form(""),
        seed: str = Form(""),
    ) -> Response:
        me = browser_id(request) or secrets.token_urlsafe(16)
        opponents = opponents_custom.strip() or opponent
        try:
            where = {"role": role} if role else {"seat": None if seat in ("", "random") else _int(seat, "seat")}
            g = HumanGame.create(
                game, num_players=players, opponents=opponents, interface="browser",
                seed=_int(seed, "seed") if seed.strip() else None, **where,
            )
        except ValueError as exc:
            return index(request, error=str(exc))
        with games_lock:
            games[g.game_id] = Seat(g, me)
            drop_old_games()
        response = RedirectResponse(f"/games/{g.game_id}", status_code=303)
        response.set_cookie(BROWSER_COOKIE, me, httponly=True, samesite="strict")
        return response

    @app.get("/games/{game_id}", response_class=HTMLResponse)
    def game_page(request: Request, game_id: str, delay: int | None = None) -> Response:
        try:
            seat = find(request, game_id)
        except ApiError as exc:
            return templates.TemplateResponse(
                request, "error.html", {"status": exc.status, "message": exc.message}, status_code=exc.status
            )
        g = seat.game
        with seat.lock:
            state = state_json(g)
            log = [line for frame in g.history for line in frame.lines]
        return templates.TemplateResponse(
            request, "game.html",
            {"g": g, "state": state, "log": log, "delay": frame_delay_ms if delay is None else max(0, delay),
             "rules": g.presenter.help_text.split("\n\nMoves:")[0].replace("\n", " "),
             "title": next(x["name"] for x in GAMES if x["key"] == g.game.RECORD_NAME)},
        )

    @app.get("/results", response_class=HTMLResponse)
    def results(request: Request) -> Response:
        from club_envs.report import summarise

        rows = _finished_rows(records_dir)
        report = summarise([records_dir]) if records_dir.is_dir() else None
        return templates.TemplateResponse(request, "results.html", {"rows": rows, "report": report})

    @app.get("/records/{name}")
    def record_file(name: str) -> Response:
        path = records_dir / name
        if "/" in name or "\\" in name or not name.endswith(".json") or not path.is_file():
            raise ApiError(404, f"no record named {name!r}")
        return FileResponse(path, media_type="application/json")

    @app.get("/results/chart.png")
    def results_chart() -> Response:
        from club_envs.report import summarise, write_chart

        chart = records_dir / ".report_chart.png"
        write_chart(summarise([records_dir]) if records_dir.is_dir() else summarise([]), chart)
        return FileResponse(chart, media_type="image/png")

    # ------------------------------------------------------------------ API
    @app.get("/api/games/{game_id}")
    def get_game(request: Request, game_id: str) -> dict[str, Any]:
        seat = find(request, game_id)
        with seat.lock:
            return state_json(seat.game)

    @app.post("/api/games/{game_id}/advance")
    def advance(request: Request, game_id: str, body: StepRequest) -> dict[str, Any]:
        seat = find(request, game_id)
        with seat.lock:
            g = seat.game
            check_step(g, body.step)
            frames = g.advance()
            save_if_over(g)
            return {"frames": [frame_json(g, f) for f in frames], "state": state_json(g)}

    @app.post("/api/games/{game_id}/move")
    def move(request: Request, game_id: str, body: MoveRequest) -> dict[str, Any]:
        seat = find(request, game_id)
        with seat.lock:
            g = seat.game
            if body.game_id != game_id:
                raise ApiError(400, f"the move names game {body.game_id!r} but was sent to game {game_id!r}")
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
            frames = [g.play(body.action), *g.advance()]
            save_if_over(g)
            return {"frames": [frame_json(g, f) for f in frames], "state": state_json(g)}

    @app.post("/api/games/{game_id}/quit")
    def quit_game(request: Request, game_id: str) -> dict[str, Any]:
        seat = find(request, game_id)
        with seat.lock:
            g = seat.game
            if not g.over:
                g.quit()
                g.save(records_dir)
            return state_json(g)

    def check_step(g: HumanGame, step: int) -> None:
        if step != g.step:
            raise ApiError(409, f"stale request: the game is at step {g.step}, the request names step {step}",
                           step=g.step)

    return app


def _int(text: str, what: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise ValueError(f"{what} {text!r} is not a number") from None


def _finished_rows(records_dir: Path) -> list[dict[str, Any]]:
    """One row per saved human game, newest first, for the results page."""
    if not records_dir.is_dir():
        return []
    rows = []
    for path in sorted(records_dir.glob("*.json")):
        try:
            record = record_io.load(path)
        except record_io.RecordError:
            continue
        human = record.get("human_seat")
        if human is None:
            continue
        result = record.get("result")
        seats = record["seats"]
        opponents = ", ".join(f"{s['seat']}: {s['controller']}" for s in seats if s["seat"] != human)
        role = seats[human].get("role")
        if result is None:
            outcome = "unfinished"
        elif human in result.get("winners", []):
            outcome = "won" if len(result["winners"]) == 1 or record["game"] != "members_only" else "shared win"
        else:
            outcome = "lost"
        score = result["scores"][human] if result and "scores" in result else None
        rows.append({
            "file": path.name, "game": record["game"], "players": len(seats), "seat": human, "role": role,
            "opponents": opponents, "outcome": outcome, "score": score,
            "when": (record.get("ended_at") or "")[:16].replace("T", " "),
        })
    return sorted(rows, key=lambda r: r["when"], reverse=True)
