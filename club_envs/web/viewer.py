"""The replay viewer's pages: a record stepped through in a browser, as one seat, a spectator or a
researcher saw it (:mod:`club_envs.play.replay_view` does the work; this module serves it).

Pages and API (every route is a ``GET``; nothing changes on the server):

=========================================  ===================================================
``GET /replays``                           the games one may watch, with filters
``GET /replays/{key}?view=V``              the viewer page of one game (``V``: a seat, ``public``
                                           or ``all``, among the views this client may see)
``GET /api/replays/{key}/steps/{n}?view=V``  the table, the log up to step ``n``, what the mover
                                           weighed, the hidden facts (``all`` only), the result
=========================================  ===================================================

A client names a game by its ``key`` -- the index of a file in the folder given to ``club-envs
view``, or a game's id on the play and study server -- never by a path. Where the records come
from and who may see which view is a :class:`ReplaySource`: :class:`FolderSource` for the command
line (every view, or those ``--seat`` allows), :class:`StoreSource` for the server (a person: the
own seat of an ended game, with no agent named in a blind study; the owner: every game, every view).

Records are untrusted: files are read within the size and schema limits of
:func:`club_envs.records.load`, and nothing from a record reaches a page but as escaped text (the
templates escape; ``viewer.js`` writes text with ``textContent``).
"""

from __future__ import annotations

import re
import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any, Protocol

from fastapi import FastAPI, Request
from fastapi.responses import HTMLResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from fastapi.templating import Jinja2Templates
from starlette.middleware.trustedhost import TrustedHostMiddleware

from club_envs import records
from club_envs.games import get_spec
from club_envs.play.replay_view import OMNISCIENT, PUBLIC, Replay, parse_view, view_names
from club_envs.web.errors import ApiError
from club_envs.web.security import SameOrigin, SecurityHeaders
from club_envs.web.tables import table_context

KEY = re.compile(r"^[A-Za-z0-9_-]{1,40}$")
CACHED_REPLAYS = 8  # records walked through and kept in memory at once
DISPLAY_VIEW = {OMNISCIENT: PUBLIC}  # the table the researcher's view draws (its hidden facts beside)


@dataclass(frozen=True)
class Listed:
    """One game of the list page."""

    key: str
    game: str
    players: int
    agents: str
    winners: str
    date: str
    views: tuple[str, ...]


class ReplaySource(Protocol):
    """Where a viewer's records come from, and which views a request may see of each."""

    def listing(self, request: Request) -> tuple[list[Listed], list[str]]:
        """The games this request may watch, and the files that could not be read (one line each)."""

    def open(self, request: Request, key: str) -> tuple[Replay, tuple[str, ...]]:
        """The replay called ``key`` and the views this request may see; ``ApiError`` otherwise."""


def _winners(record: dict[str, Any]) -> str:
    result = record.get("result")
    if result is None:
        return "unfinished"
    return ", ".join(f"seat {s}" for s in result.get("winners", [])) or "nobody"


def _date(record: dict[str, Any]) -> str:
    return str(record.get("ended_at") or record.get("started_at") or "")[:16].replace("T", " ")


class FolderSource:
    """Record files named on the command line: the key is a file's place in the sorted list."""

    def __init__(self, paths: Sequence[Path], views: str | None = None) -> None:
        self.paths = list(paths)
        self.views = views  # None: every view; else the one view ``--seat`` chose
        self._cache: OrderedDict[int, Replay] = OrderedDict()
        self._summaries: dict[int, Listed | str] = {}
        self._lock = threading.Lock()  # requests are answered on several threads

    def _allowed(self, num_players: int) -> tuple[str, ...]:
        if self.views is None:
            return tuple(view_names(num_players))
        return (parse_view(self.views, num_players),)

    def _summary(self, index: int) -> Listed | str:
        if index not in self._summaries:
            try:
                record = records.load(self.paths[index])
                n = len(record["seats"])
                agents = ", ".join(f"{s['seat']}: {s.get('controller', '')}" for s in record["seats"])
                self._summaries[index] = Listed(str(index), get_spec(record["game"]).title, n, agents,
                                                _winners(record), _date(record), self._allowed(n))
            except (records.RecordError, ValueError) as exc:
                self._summaries[index] = str(exc)
        return self._summaries[index]

    def listing(self, request: Request) -> tuple[list[Listed], list[str]]:
        rows, problems = [], []
        for index in range(len(self.paths)):
            summary = self._summary(index)
            if isinstance(summary, Listed):
                rows.append(summary)
            else:
                problems.append(summary)
        return rows, problems

    def open(self, request: Request, key: str) -> tuple[Replay, tuple[str, ...]]:
        if not key.isdigit() or not 0 <= int(key) < len(self.paths):
            raise ApiError(404, f"no game {key[:40]!r}; the games are numbered 0..{len(self.paths) - 1}")
        index = int(key)
        with self._lock:
            if index not in self._cache:
                try:
                    replay = Replay.from_record(records.load(self.paths[index]))
                except (records.RecordError, ValueError) as exc:
                    raise ApiError(422, str(exc)) from None
                self._cache[index] = replay
                while len(self._cache) > CACHED_REPLAYS:
                    self._cache.popitem(last=False)
            self._cache.move_to_end(index)
            replay = self._cache[index]
        try:
            return replay, self._allowed(replay.num_players)
        except ValueError as exc:
            raise ApiError(400, str(exc)) from None


class StoreSource:
    """The games of the play and study server: the key is a game's id.

    A person may watch their own ended games, in their own seat's view only, with no agent named
    when the game was blind; the owner may watch every ended game in every view.
    """

    def __init__(self, server: Any) -> None:
        self.server = server
        self._cache: OrderedDict[tuple[str, bool], Replay] = OrderedDict()
        self._lock = threading.Lock()

    def _rows(self, request: Request) -> tuple[list[Any], bool]:
        auth = self.server.auth
        if auth.is_admin(request):
            return self.server.store.games(), True
        me = auth.principal(request)
        return (self.server.store.games(owner=me) if me else []), False

    @staticmethod
    def _views(row: Any, admin: bool) -> tuple[str, ...]:
        return tuple(view_names(row.num_players)) if admin else (str(row.human_seat),)

    def listing(self, request: Request) -> tuple[list[Listed], list[str]]:
        rows, admin = self._rows(request)
        listed = []
        for row in rows:
            if not row.over or row.record is None:
                continue
            agents = ", ".join(f"{s['seat']}: {s.get('controller', '')}" for s in row.record.get("seats", [])) \
                if admin or row.show_agents else "not shown (blind study)"
            listed.append(Listed(row.id, get_spec(row.game).title, row.num_players, agents,
                                 _winners(row.record), _date(row.record), self._views(row, admin)))
        listed.sort(key=lambda r: r.date, reverse=True)
        return listed, []

    def open(self, request: Request, key: str) -> tuple[Replay, tuple[str, ...]]:
        missing = ApiError(404, f"no ended game {key[:40]!r} of yours to watch")
        row = self.server.store.game(key)
        if row is None or not row.over or row.record is None:
            raise missing
        admin = self.server.auth.is_admin(request)
        if not admin and row.owner != self.server.auth.principal(request):
            raise missing
        hide = not admin and not row.show_agents
        with self._lock:
            cached = self._cache.get((key, hide))
            if cached is None:
                try:
                    cached = Replay.from_record(row.record, hide_agents=hide)
                except (records.RecordError, ValueError) as exc:
                    raise ApiError(422, f"this game's record cannot be replayed: {exc}") from None
                self._cache[(key, hide)] = cached
                while len(self._cache) > CACHED_REPLAYS:
                    self._cache.popitem(last=False)
            self._cache.move_to_end((key, hide))
        return cached, self._views(row, admin)


# ---------------------------------------------------------------------------------------------- routes


def add_routes(app: FastAPI, source: ReplaySource, templates: Jinja2Templates) -> None:
    """The list, the viewer page and its API, reading from ``source``."""
    app.state.replays = source
    app.state.replay_templates = templates
    app.add_api_route("/replays", list_page, methods=["GET"], response_class=HTMLResponse)
    app.add_api_route("/replays/{key}", viewer_page, methods=["GET"], response_class=HTMLResponse)
    app.add_api_route("/api/replays/{key}/steps/{number}", step_json, methods=["GET"])


def _open(request: Request, key: str, view: str | None) -> tuple[Replay, tuple[str, ...], str]:
    if not KEY.match(key):
        raise ApiError(404, f"no game {key[:40]!r}")
    replay, allowed = request.app.state.replays.open(request, key)
    if view is None:
        return replay, allowed, allowed[0]
    try:
        chosen = parse_view(view, replay.num_players)
    except ValueError as exc:
        raise ApiError(400, str(exc)) from None
    if chosen not in allowed:
        raise ApiError(403, f"view {chosen!r} is not yours to see; you may see {', '.join(allowed)}")
    return replay, allowed, chosen


def list_page(request: Request, game: str = "", agent: str = "", winner: str = "") -> Response:
    rows, problems = request.app.state.replays.listing(request)
    wanted = {"game": game.strip().lower()[:60], "agents": agent.strip().lower()[:60],
              "winners": winner.strip().lower()[:60]}
    shown = [r for r in rows if all(w in getattr(r, field).lower() for field, w in wanted.items() if w)]
    games = sorted({r.game for r in rows})
    return _render(request, "viewer_list.html", {"rows": shown, "total": len(rows), "problems": problems,
                                                 "games": games, "filters": {"game": game[:60], "agent": agent[:60],
                                                                             "winner": winner[:60]}})


def viewer_page(request: Request, key: str, view: str | None = None, step: int = 0) -> Response:
    replay, allowed, chosen = _open(request, key, view)
    step = max(0, min(step, replay.total))
    return _render(request, "viewer.html", {
        "key": key, "view": chosen, "views": [(v, _view_title(replay, v)) for v in allowed],
        "title": get_spec(replay.game).title, "total": replay.total, "start": step,
        "chapters": replay.chapters(), "view_title": _view_title(replay, chosen), "omniscient": chosen == OMNISCIENT,
    })


def step_json(request: Request, key: str, number: int, view: str | None = None) -> JSONResponse:
    replay, _, chosen = _open(request, key, view)
    if not 0 <= number <= replay.total:
        raise ApiError(404, f"step {number} does not exist; this game has steps 0..{replay.total}")
    body = step_body(replay, number, chosen, request.app.state.replay_templates)
    return JSONResponse(body, headers={"cache-control": "no-store"})


def step_body(replay: Replay, number: int, chosen: str, templates: Jinja2Templates) -> dict[str, Any]:
    """What the page is sent for step ``number`` in view ``chosen`` (an allowed view)."""
    moment = replay.moment(number)
    shown = DISPLAY_VIEW.get(chosen, chosen)
    context = table_context(replay.game, moment.views[shown], replay.presenters[chosen], set())
    table_html = templates.get_template(f"{replay.game}_table.html").render(t=context, legal=set())
    body: dict[str, Any] = {
        "step": number, "total": replay.total, "view": chosen, "chapter": moment.chapter,
        "table_html": table_html, "log": replay.log(chosen, number),
        "thinking": replay.thinking(number, chosen),
        "hidden": [list(f) for f in moment.hidden] if chosen == OMNISCIENT else None,
        "final": None,
    }
    if number == replay.total:
        result = replay.result or {}
        body["final"] = {"lines": replay.final_lines[chosen], "scores": result.get("scores"),
                         "winners": result.get("winners"), "finished": replay.result is not None}
    return body


def _view_title(replay: Replay, view: str) -> str:
    if view == OMNISCIENT:
        return "Researcher's view: everything, hidden cards included"
    if view == PUBLIC:
        return "Spectator: public information only"
    return f"Seat {view}: only what this seat knew at each moment"


def _render(request: Request, name: str, context: dict[str, Any]) -> Response:
    templates = request.app.state.replay_templates
    server = getattr(request.app.state, "server", None)
    base = {"csrf": "", "study": None, "admin": False, "viewer_only": server is None}
    if server is not None:  # the play server's pages: its header and page token
        from club_envs.web.auth import browser_id

        base = {"csrf": server.auth.page_token(browser_id(request)), "study": server.study,
                "admin": server.auth.is_admin(request), "viewer_only": False}
    return templates.TemplateResponse(request, name, {**base, **context})


# ---------------------------------------------------------------------------------------------- the viewer's own app


def templates() -> Jinja2Templates:
    return Jinja2Templates(directory=str(resources.files("club_envs.web") / "templates"))


def create_viewer_app(source: ReplaySource, allowed_hosts: Sequence[str]) -> FastAPI:
    """``club-envs view``'s app: the viewer alone, with the play server's guards (its Host
    allowlist against DNS rebinding, same-origin checks, security headers) and styles."""
    app = FastAPI(title="club-envs view", docs_url=None, redoc_url=None, openapi_url=None)
    app.mount("/static", StaticFiles(directory=str(resources.files("club_envs.web") / "static")), name="static")
    app.add_middleware(SameOrigin)
    app.add_middleware(TrustedHostMiddleware, allowed_hosts=list(allowed_hosts))
    app.add_middleware(SecurityHeaders)
    add_routes(app, source, templates())

    async def refused(request: Request, exc: ApiError) -> Response:
        if request.url.path.startswith("/api/"):
            return JSONResponse({"error": exc.message}, status_code=exc.status)
        return HTMLResponse(_error_page(request, exc), status_code=exc.status)

    app.add_exception_handler(ApiError, refused)
    app.add_api_route("/", lambda: Response(status_code=307, headers={"location": "/replays"}), methods=["GET"])
    return app


def _error_page(request: Request, exc: ApiError) -> str:
    context = {"request": request, "csrf": "", "study": None, "admin": False, "viewer_only": True,
               "status": exc.status, "message": exc.message}
    return request.app.state.replay_templates.get_template("error.html").render(context)
