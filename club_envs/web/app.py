"""The browser front end: pick a game (or take the study's next one), play it by clicking.

Pages (HTML): ``/`` new game and your games in progress (a study sends you to ``/study``),
``/games/{id}`` the table, ``/results`` your games (the owner: every game and the report),
``/admin`` the owner's page (the study's progress, the export). JSON API used by the table page:

=======================================  =====================================================
``GET  /api/games/{id}``                 the table, your legal moves, the log so far
``POST /api/games/{id}/advance``         ``{"step"}``: let the agents play until you must move
``POST /api/games/{id}/move``            ``{"game_id", "seat", "action", "step"}``: your move,
                                         then the agents' moves until you must move again
``POST /api/games/{id}/quit``            leave the game unfinished (its record is saved)
=======================================  =====================================================

Every game, move and record is in the database (:mod:`club_envs.web.store`) before a request
is answered; a restarted server re-creates each game from its seed and moves on first use.
A move is accepted only from the browser (or study participant) that owns the game, for that
game, for the person's seat, at the current step, and only if legal; every state-changing request
must carry the page's token and come from this server's own pages (:mod:`club_envs.web.security`).
"""

from __future__ import annotations

import hashlib
import hmac
import io
import re
import secrets
import tempfile
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Form, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from fastapi.staticfiles import StaticFiles
from fastapi.templating import Jinja2Templates
from pydantic import BaseModel, ConfigDict, StrictInt, StrictStr
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.middleware.trustedhost import TrustedHostMiddleware

from club_envs import records as record_io
from club_envs.games import load_game
from club_envs.play.catalogue import AgentCatalogue
from club_envs.play.human_game import Frame, HumanGame
from club_envs.web import store as db
from club_envs.web.security import DEFAULT_BODY_LIMIT, BodyLimit, SameOrigin, SecurityHeaders, csrf_token, same_token
from club_envs.web.tables import table_context

BROWSER_COOKIE = "club_envs_browser"
ADMIN_COOKIE = "club_envs_owner"
CSRF_HEADER = "x-csrf-token"
LOCAL_HOSTS = ("127.0.0.1", "localhost", "::1", "[::1]")
MAX_GAMES = 200  # games in progress on the whole server
MAX_GAMES_PER_BROWSER = 5  # games in progress per browser (or participant)
KEEP_FINISHED = 256  # finished games kept re-created in memory; older ones are re-created on demand
BROWSER_ID = re.compile(r"^[A-Za-z0-9_-]{16,64}$")
RECORD_NAME = re.compile(r"^[A-Za-z0-9_.-]{1,200}\.json$")
GAMES = (
    {"key": "members_only", "name": "Members Only", "players": (3, 4, 5), "default_players": 4,
     "roles": ()},
    {"key": "arkham_decoders_club", "name": "Arkham Decoders Club", "players": (4, 5, 6), "default_players": 5,
     "roles": ("leader", "member", "investigator", "black_man")},
)
TITLES = {g["key"]: g["name"] for g in GAMES}


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
class Live:
    """A game being played: the re-created game, how many of its moves are stored, its lock."""

    game: HumanGame
    row: db.StoredGame
    saved_moves: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)


def new_browser_id() -> str:
    """A fresh browser id (128 random bits)."""
    return secrets.token_urlsafe(16)


def allowed_hosts_for(host: str, extra: list[str] | tuple[str, ...] = ()) -> list[str]:
    """The Host names a server bound to ``host`` answers to: the local names, the bound address
    (unless it is a wildcard) and ``extra``; a wildcard bind needs ``extra``."""
    hosts = list(LOCAL_HOSTS)
    if host not in ("0.0.0.0", "::", ""):
        hosts.append(host)
    elif not extra:
        raise ValueError(f"--host {host} listens on every address: say which name or address participants "
                         "will type with --allowed-host (e.g. --allowed-host 192.168.1.20)")
    hosts.extend(extra)
    return list(dict.fromkeys(hosts))


def create_app(
    records_dir: str | Path = "runs/human",
    frame_delay_ms: int = 700,
    *,
    database: str | None = None,
    allowed_hosts: list[str] | None = None,
    agents_dir: str | Path | None = None,
    study: Any = None,
    max_games: int = MAX_GAMES,
    max_games_per_browser: int = MAX_GAMES_PER_BROWSER,
    body_limit: int = DEFAULT_BODY_LIMIT,
    keep_finished: int = KEEP_FINISHED,
) -> FastAPI:
    """The web app. Games live in ``database`` (default: SQLite beside ``records_dir``); their
    records are also written to ``records_dir``. ``study`` (a :class:`club_envs.study.plan.StudyPlan`)
    turns free play off: participants enter a code and play the study's schedule."""
    records_dir = Path(records_dir)
    package = resources.files("club_envs.web")
    templates = Jinja2Templates(directory=str(package / "templates"))
    app = FastAPI(title="club-envs", docs_url=None, redoc_url=None, openapi_url=None)
    app.mount("/static", StaticFiles(directory=str(package / "static")), name="static")
    store = db.Store(database or db.default_url(records_dir))
    key = store.meta("key", lambda: secrets.token_hex(32))
    admin_token = store.meta("admin_token", lambda: secrets.token_urlsafe(24))
    admin_cookie_value = hmac.new(key.encode(), b"owner:" + admin_token.encode(), hashlib.sha256).hexdigest()
    catalogue = AgentCatalogue(agents_dir)
    if study is not None:
        store.ensure_participants(study.codes)
    live: dict[str, Live] = {}
    live_guard = threading.Lock()
    loaders: dict[str, threading.Lock] = {}
    finished: OrderedDict[str, None] = OrderedDict()  # the memory held by finished games stays bounded
    create_guard = threading.Lock()
    app.state.store = store
    app.state.admin_token = admin_token
    app.state.records_dir = records_dir
    app.state.live = live
    app.state.study = study

    app.add_middleware(SameOrigin)
    app.add_middleware(TrustedHostMiddleware, allowed_hosts=allowed_hosts or list(LOCAL_HOSTS))
    app.add_middleware(BodyLimit, limit=body_limit)
    app.add_middleware(SecurityHeaders)

    # ------------------------------------------------------------------ errors
    @app.exception_handler(ApiError)
    async def _api_error(request: Request, exc: ApiError) -> Response:
        if request.url.path.startswith("/api/"):
            return JSONResponse({"error": exc.message, **exc.extra}, status_code=exc.status)
        return page(request, "error.html", {"status": exc.status, "message": exc.message}, exc.status)

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
        return page(request, "error.html", {"status": exc.status_code, "message": str(exc.detail)}, exc.status_code)

    # ------------------------------------------------------------------ who is asking
    def browser_id(request: Request) -> str | None:
        value = request.cookies.get(BROWSER_COOKIE)
        return value if value and BROWSER_ID.match(value) else None

    def participant(request: Request) -> str | None:
        browser = browser_id(request)
        return store.participant_of(browser) if study is not None and browser else None

    def principal(request: Request) -> str | None:
        """Who owns games made by this request: the study participant, else the browser."""
        if study is not None:
            code = participant(request)
            return f"p:{code}" if code else None
        browser = browser_id(request)
        return f"b:{browser}" if browser else None

    def is_admin(request: Request) -> bool:
        cookie = request.cookies.get(ADMIN_COOKIE, "")
        if cookie and hmac.compare_digest(cookie.encode(), admin_cookie_value.encode()):
            return True
        auth = request.headers.get("authorization", "")
        return auth.startswith("Bearer ") and hmac.compare_digest(auth[7:].encode(), admin_token.encode())

    def require_admin(request: Request) -> None:
        if not is_admin(request):
            raise ApiError(403, "only the server's owner may see this page; open the owner link printed "
                                "when the server started")

    def check_token(request: Request, given: str | None) -> None:
        """Every state-changing request: the page's token for this browser, or 403."""
        browser = browser_id(request)
        if browser is None:
            raise ApiError(403, "no session cookie: open the start page of this server first")
        if not same_token(csrf_token(key, browser), given or request.headers.get(CSRF_HEADER)):
            raise ApiError(403, "missing or wrong page token: reload the page and try again")

    def page(request: Request, name: str, context: dict[str, Any], status: int = 200,
             new_browser: str | None = None) -> Response:
        browser = new_browser or browser_id(request)
        context = {"csrf": csrf_token(key, browser) if browser else "", "study": study,
                   "admin": is_admin(request), **context}
        response = templates.TemplateResponse(request, name, context, status_code=status)
        if new_browser:
            response.set_cookie(BROWSER_COOKIE, new_browser, httponly=True, samesite="lax", max_age=400 * 86400)
        return response

    def ensure_browser(request: Request) -> str | None:
        """A fresh browser id when the request has none (set by :func:`page` on a GET)."""
        return None if browser_id(request) else new_browser_id()

    # ------------------------------------------------------------------ games: load, save
    def load_live(row: db.StoredGame) -> Live:
        with live_guard:
            entry = live.get(row.id)
            if entry is not None:
                return entry
            loading = loaders.setdefault(row.id, threading.Lock())
        with loading:  # one game re-created at a time per game; the others play on meanwhile
            with live_guard:
                entry = live.get(row.id)
            if entry is None:
                entry = revive(row)
        if entry.game.over and entry.row.status == db.PLAYING:  # stopped between its last move and its record
            with entry.lock:
                if entry.row.status == db.PLAYING:
                    persist(entry)
        return entry

    def revive(row: db.StoredGame) -> Live:
        """Re-create a stored game: its seed and options, then its stored moves, agents included."""
        g = HumanGame.create(
            row.game, num_players=row.num_players, seat=row.human_seat, opponents=row.opponents,
            seed=row.seed, interface=row.interface, make_agent=catalogue.make, show_agents=row.show_agents,
        )
        g.game_id = row.id
        g.started_at = row.started_at
        g.record_extra = study_tags(row)
        moves = store.moves(row.id)
        g.replay_moves(moves)
        if row.status == db.ABANDONED:
            g.abandoned = True
        if row.ended_at:
            g.ended_at = row.ended_at
        if row.record_name:
            g.saved_path = records_dir / row.record_name
        entry = Live(g, row, saved_moves=len(moves))
        with live_guard:
            live[row.id] = entry
        if row.over:
            forget_finished(row.id)
        return entry

    def forget_finished(game_id: str) -> None:
        """Count a finished game among those kept in memory, dropping the oldest beyond the limit."""
        with live_guard:
            finished[game_id] = None
            while len(finished) > keep_finished:  # stored in full: only the memory copy goes
                live.pop(finished.popitem(last=False)[0], None)

    def persist(entry: Live) -> None:
        """Store the moves played since the last call, and the record once the game is over."""
        g = entry.game
        new = g.move_log[entry.saved_moves:]
        status, record, name = db.PLAYING, None, None
        if g.over:
            status = db.FINISHED if g.finished else db.ABANDONED
            path = g.save(records_dir)
            record, name = g.record(), path.name
        store.save_progress(g.game_id, entry.saved_moves, new, status, g.ended_at if g.over else None, name, record)
        entry.saved_moves = len(g.move_log)
        if g.over:
            entry.row = store.game(g.game_id)
            forget_finished(g.game_id)

    def study_tags(row: db.StoredGame) -> dict[str, Any]:
        if row.participant is None or study is None:
            return {}
        return {"study": {"name": study.name, "participant": row.participant, "condition": row.condition,
                          "game_number": row.slot}}

    def find(request: Request, game_id: str) -> Live:
        row = store.game(game_id) if len(game_id) <= 40 else None
        if row is None:
            raise ApiError(404, f"unknown game id {game_id[:40]!r}")
        if principal(request) != row.owner:
            raise ApiError(403, "this game belongs to another browser; start your own game at /")
        try:
            return load_live(row)
        except ValueError as exc:
            raise ApiError(503, f"this game cannot be resumed: {exc}") from None

    def start_game(owner: str, game: str, players: int, seat: int | None, role: str | None, opponents: str,
                   seed: int | None, show_agents: bool, participant_code: str | None = None,
                   slot: Any = None) -> Live:
        """Deal and store a new game; refused with a clear message at the limits."""
        with create_guard:
            mine = store.count_playing(owner)
            if mine >= max_games_per_browser:
                raise ApiError(429, f"you have {mine} games in progress, the most allowed; finish or leave one "
                                    "before starting another")
            if store.count_playing() >= max_games:
                raise ApiError(503, f"the server has {max_games} games in progress, its limit; "
                                    "try again when some have ended")
            try:
                g = HumanGame.create(game, num_players=players, seat=seat, role=role, opponents=opponents,
                                     seed=seed, interface="browser", make_agent=catalogue.make,
                                     show_agents=show_agents)
            except ValueError as exc:
                raise ApiError(400, str(exc)) from None
            g.game_id = db.new_id()
            row = store.add_game(
                id=g.game_id, owner=owner, participant=participant_code,
                condition=slot.condition.name if slot else None, slot=slot.number if slot else None,
                game=g.game.RECORD_NAME, num_players=players, human_seat=g.human_seat, opponents=opponents,
                seed=g.seed, show_agents=show_agents, interface="browser", started_at=g.started_at,
            )
            g.record_extra = study_tags(row)
            entry = Live(g, row)
            with live_guard:
                live[g.game_id] = entry
            return entry

    # ------------------------------------------------------------------ rendering
    def render_table(g: HumanGame, view: Any, legal: set[int]) -> str:
        context = table_context(g.game.RECORD_NAME, view, g.presenter, legal)
        return templates.get_template(f"{g.game.RECORD_NAME}_table.html").render(t=context, legal=legal)

    def frame_json(g: HumanGame, frame: Frame) -> dict[str, Any]:
        return {"lines": frame.lines, "table_html": render_table(g, frame.view, set())}

    def record_link(request: Request, entry: Live) -> str | None:
        """Participants of a blind study do not see the record (it names the agents)."""
        g = entry.game
        if g.saved_path is None or (study is not None and not study.show_agents and not is_admin(request)):
            return None
        return g.saved_path.name

    def state_json(request: Request, entry: Live) -> dict[str, Any]:
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
            "table_html": render_table(g, g.view(), legal),
            "moves": [{"code": m.code, "action": m.action, "label": m.label, "group": m.group} for m in moves],
            "moves_html": templates.get_template("moves.html").render(
                moves=moves, game=g.game.RECORD_NAME, finished=g.finished, abandoned=g.abandoned,
                result_lines=g.result_lines() if g.over else [], record=record_link(request, entry),
                seed=g.seed if g.over else None,  # the seed would tell the deal: shown only at the end
                study=study is not None,
            ),
        }

    # ------------------------------------------------------------------ pages
    @app.get("/", response_class=HTMLResponse)
    def index(request: Request) -> Response:
        if study is not None:
            return RedirectResponse("/study", status_code=303)
        return index_page(request)

    def index_page(request: Request, error: str | None = None, status: int = 200) -> Response:
        fresh = ensure_browser(request)
        me = principal(request)
        mine = [r for r in store.games(owner=me, status=db.PLAYING)] if me else []
        agents = {g["key"]: catalogue.choices(load_game(g["key"])) for g in GAMES}
        return page(request, "index.html", {"games": GAMES, "agents": agents, "mine": mine, "error": error,
                                            "titles": TITLES}, status if error else 200, new_browser=fresh)

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
        csrf: str = Form(""),
    ) -> Response:
        check_token(request, csrf)
        if study is not None:
            raise ApiError(403, "this server runs a study: its games are dealt at /study")
        opponents = opponents_custom.strip() or opponent
        try:
            if game not in TITLES:
                raise ValueError(f"unknown game {game[:40]!r}; expected one of {', '.join(TITLES)}")
            where = {"role": role} if role else {"seat": None if seat in ("", "random") else _int(seat, "seat")}
            entry = start_game(principal(request), game, players, where.get("seat"), where.get("role"), opponents,
                               _int(seed, "seed") if seed.strip() else None, show_agents=True)
        except ValueError as exc:
            return index_page(request, error=str(exc), status=400)
        except ApiError as exc:
            return index_page(request, error=exc.message, status=exc.status)
        with entry.lock:
            persist(entry)
        return RedirectResponse(f"/games/{entry.game.game_id}", status_code=303)

    @app.get("/games/{game_id}", response_class=HTMLResponse)
    def game_page(request: Request, game_id: str, delay: int | None = None) -> Response:
        entry = find(request, game_id)
        g = entry.game
        with entry.lock:
            state = state_json(request, entry)
            log = [line for frame in g.history for line in frame.lines]
        return page(
            request, "game.html",
            {"g": g, "state": state, "log": log, "delay": frame_delay_ms if delay is None else max(0, min(delay, 10_000)),
             "rules": g.presenter.help_text.split("\n\nMoves:")[0].replace("\n", " "),
             "title": TITLES[g.game.RECORD_NAME]},
        )

    @app.get("/results", response_class=HTMLResponse)
    def results(request: Request) -> Response:
        from club_envs.report import summarise

        admin = is_admin(request)
        me = principal(request)
        rows_db = store.games() if admin else (store.games(owner=me) if me else [])
        rows = [game_row(r, admin or (study is None or study.show_agents)) for r in rows_db]
        rows.sort(key=lambda r: r["when"], reverse=True)
        report = summarise([records_dir]) if admin and records_dir.is_dir() else None
        return page(request, "results.html", {"rows": rows, "report": report, "show_records": admin or study is None})

    @app.get("/records/{name}")
    def record_file(request: Request, name: str) -> Response:
        missing = ApiError(404, f"no record named {name[:200]!r}")
        if not RECORD_NAME.match(name):
            raise missing
        row = store.by_record_name(name)
        if is_admin(request):
            if row is not None and row.record is not None:
                return JSONResponse(row.record)
            path = records_dir / name
            if path.is_file():
                try:
                    return JSONResponse(record_io.load(path))
                except (record_io.RecordError, ValueError, RecursionError):
                    raise ApiError(422, f"record {name} is malformed") from None
            raise missing
        # a participant: only their own games, and not in a blind study
        if row is None or row.record is None or row.owner != principal(request) or \
                (study is not None and not study.show_agents):
            raise missing
        return JSONResponse(row.record)

    @app.get("/results/chart.png")
    def results_chart(request: Request) -> Response:
        from club_envs.report import summarise, write_chart

        require_admin(request)
        with tempfile.TemporaryDirectory() as folder:
            chart = write_chart(summarise([records_dir]) if records_dir.is_dir() else summarise([]),
                                Path(folder) / "chart.png")
            return Response(chart.read_bytes(), media_type="image/png")

    # ------------------------------------------------------------------ the owner
    @app.get("/admin", response_class=HTMLResponse)
    def admin_page(request: Request, token: str | None = None) -> Response:
        if token is not None:
            if not hmac.compare_digest(token.encode(), admin_token.encode()):
                raise ApiError(403, "wrong owner token")
            response = RedirectResponse("/admin", status_code=303)  # the token leaves the address bar
            response.set_cookie(ADMIN_COOKIE, admin_cookie_value, httponly=True, samesite="lax")
            if not browser_id(request):
                response.set_cookie(BROWSER_COOKIE, new_browser_id(), httponly=True, samesite="lax", max_age=400 * 86400)
            return response
        require_admin(request)
        games = store.games()
        progress = study_progress(games) if study is not None else []
        return page(request, "admin.html", {"progress": progress, "games": games, "playing": store.count_playing(),
                                            "database": store.url.split("://")[0]})

    @app.get("/admin/outcomes.csv")
    def outcomes_csv(request: Request) -> Response:
        from club_envs.study.export import outcome_rows, write_outcomes

        require_admin(request)
        buffer = io.StringIO()
        write_outcomes(outcome_rows(store.games()), buffer)
        return Response(buffer.getvalue(), media_type="text/csv",
                        headers={"content-disposition": "attachment; filename=outcomes.csv"})

    def study_progress(games: list[db.StoredGame]) -> list[dict[str, Any]]:
        rows = []
        for code, position, consented in store.participants():
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

    # ------------------------------------------------------------------ study
    @app.get("/study", response_class=HTMLResponse)
    def study_page(request: Request) -> Response:
        if study is None:
            raise ApiError(404, "this server runs no study; start a game at /")
        fresh = ensure_browser(request)
        code = None if fresh else participant(request)
        if code is None:
            return page(request, "study_enter.html", {"error": None}, new_browser=fresh)
        return page(request, "study.html", study_context(code))

    def study_context(code: str) -> dict[str, Any]:
        _, position, _ = store.participant(code)
        mine = {g.slot: g for g in store.games(participant=code)}
        slots = []
        for slot in study.schedule(position):
            g = mine.get(slot.number)
            slots.append({"number": slot.number + 1, "title": TITLES[slot.condition.game],
                          "players": slot.condition.players,
                          "status": g.status if g else "to play", "id": g.id if g else None})
        done = sum(s["status"] in (db.FINISHED, db.ABANDONED) for s in slots)
        return {"code": code, "slots": slots, "done": done, "total": len(slots)}

    @app.post("/study/enter")
    def study_enter(request: Request, code: str = Form(""), consent: str = Form(""), csrf: str = Form("")) -> Response:
        check_token(request, csrf)
        if study is None:
            raise ApiError(404, "this server runs no study")
        code = code.strip()[:40]
        if store.participant(code) is None:
            return page(request, "study_enter.html",
                        {"error": "unknown participant code; type the code you were given"}, 400)
        if study.consent and consent != "yes":
            return page(request, "study_enter.html",
                        {"error": "please read the information and tick the box to take part"}, 400)
        store.bind_browser(browser_id(request), code, consented=bool(study.consent))
        return RedirectResponse("/study", status_code=303)

    @app.post("/study/next")
    def study_next(request: Request, csrf: str = Form("")) -> Response:
        check_token(request, csrf)
        if study is None:
            raise ApiError(404, "this server runs no study")
        code = participant(request)
        if code is None:
            return RedirectResponse("/study", status_code=303)
        _, position, _ = store.participant(code)
        mine = {g.slot: g for g in store.games(participant=code)}
        for g in mine.values():
            if g.status == db.PLAYING:
                return RedirectResponse(f"/games/{g.id}", status_code=303)
        slot = next((s for s in study.schedule(position) if s.number not in mine), None)
        if slot is None:
            return RedirectResponse("/study", status_code=303)
        c = slot.condition
        try:
            entry = start_game(f"p:{code}", c.game, c.players, c.seat, c.role, c.opponents, slot.seed,
                               show_agents=study.show_agents, participant_code=code, slot=slot)
        except db.SlotTaken:  # the same click twice: the first one made the game
            return RedirectResponse("/study", status_code=303)
        with entry.lock:
            persist(entry)
        return RedirectResponse(f"/games/{entry.game.game_id}", status_code=303)

    # ------------------------------------------------------------------ API
    @app.get("/api/games/{game_id}")
    def get_game(request: Request, game_id: str) -> dict[str, Any]:
        entry = find(request, game_id)
        with entry.lock:
            return state_json(request, entry)

    @app.post("/api/games/{game_id}/advance")
    def advance(request: Request, game_id: str, body: StepRequest) -> dict[str, Any]:
        check_token(request, None)
        entry = find(request, game_id)
        with entry.lock:
            g = entry.game
            check_step(g, body.step)
            frames = g.advance()
            persist(entry)
            return {"frames": [frame_json(g, f) for f in frames], "state": state_json(request, entry)}

    @app.post("/api/games/{game_id}/move")
    def move(request: Request, game_id: str, body: MoveRequest) -> dict[str, Any]:
        check_token(request, None)
        entry = find(request, game_id)
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
            persist(entry)  # the person's move is stored before the agents answer it
            frames += g.advance()
            persist(entry)
            return {"frames": [frame_json(g, f) for f in frames], "state": state_json(request, entry)}

    @app.post("/api/games/{game_id}/quit")
    def quit_game(request: Request, game_id: str) -> dict[str, Any]:
        check_token(request, None)
        entry = find(request, game_id)
        with entry.lock:
            g = entry.game
            if not g.over:
                g.quit()
                persist(entry)
            return state_json(request, entry)

    def check_step(g: HumanGame, step: int) -> None:
        if step != g.step:
            raise ApiError(409, f"stale request: the game is at step {g.step}, the request names step {step}",
                           step=g.step)

    return app


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
                outcome = "won" if len(winners) == 1 or record["game"] != "members_only" else "shared win"
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


def _int(text: str, what: str) -> int:
    text = text.strip()
    if len(text) > 40 or not re.fullmatch(r"-?[0-9]+", text):
        raise ValueError(f"{what} {text[:40]!r} is not a whole number")
    return int(text)

