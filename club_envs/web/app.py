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

Every game, move and record is in the database (:mod:`club_envs.store`) before a request
is answered; a restarted server re-creates each game from its seed and moves on first use.
A move is accepted only from the browser (or study participant) that owns the game, for that
game, for the person's seat, at the current step, and only if legal; every state-changing request
must carry the page's token and come from this server's own pages (:mod:`club_envs.web.security`).

The routes, by concern: :mod:`~club_envs.web.play` (the start page, the table and its API),
:mod:`~club_envs.web.results`, :mod:`~club_envs.web.admin` and :mod:`club_envs.study.routes`; they
share one :class:`~club_envs.web.state.Server` (the database, the games in memory, who is asking:
:mod:`~club_envs.web.auth`). This module only puts them together.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path
from typing import Any

from fastapi import FastAPI
from fastapi.exceptions import RequestValidationError
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.middleware.trustedhost import TrustedHostMiddleware

from club_envs.study import routes as study_routes
from club_envs.web import admin, play, results, viewer
from club_envs.web.errors import ApiError
from club_envs.web.pages import api_error, http_error, malformed
from club_envs.web.security import DEFAULT_BODY_LIMIT, BodyLimit, SameOrigin, SecurityHeaders
from club_envs.web.settings import KEEP_FINISHED, MAX_GAMES, MAX_GAMES_PER_BROWSER, Settings
from club_envs.web.state import Server
from club_envs.web.throttle import Throttle

LOCAL_HOSTS = ("127.0.0.1", "localhost", "::1", "[::1]")


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
    throttle: Throttle | None = None,
) -> FastAPI:
    """The web app. Games live in ``database`` (default: SQLite beside ``records_dir``); their
    records are also written to ``records_dir``. ``study`` (a :class:`club_envs.study.plan.StudyPlan`)
    turns free play off: participants enter a code and play the study's schedule. ``throttle``
    limits wrong codes and owner tokens (default: :class:`~club_envs.web.throttle.Throttle`'s limits)."""
    settings = Settings(Path(records_dir), frame_delay_ms, max_games, max_games_per_browser, keep_finished)
    server = Server.open(settings, database=database, agents_dir=agents_dir, study=study, throttle=throttle)
    app = FastAPI(title="club-envs", docs_url=None, redoc_url=None, openapi_url=None)
    app.mount("/static", StaticFiles(directory=str(resources.files("club_envs.web") / "static")), name="static")
    app.state.server = server
    # what scripts and tests read from a running app
    app.state.store = server.store
    app.state.admin_token = server.auth.admin_token
    app.state.records_dir = settings.records_dir
    app.state.live = server.games.entries
    app.state.study = study

    app.add_middleware(SameOrigin)
    app.add_middleware(TrustedHostMiddleware, allowed_hosts=allowed_hosts or list(LOCAL_HOSTS))
    app.add_middleware(BodyLimit, limit=body_limit)
    app.add_middleware(SecurityHeaders)
    app.add_exception_handler(ApiError, api_error)
    app.add_exception_handler(RequestValidationError, malformed)
    app.add_exception_handler(StarletteHTTPException, http_error)
    for concern in (play, results, admin, study_routes):
        concern.add_routes(app)
    viewer.add_routes(app, viewer.StoreSource(server), server.templates)  # replays of ended games
    return app
