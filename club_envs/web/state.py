"""What every route of the server shares, in one object: the settings, the database, the games in
memory, who is asking (:class:`~club_envs.web.auth.Auth`), the agents people may choose, the
study (if the server runs one) and the page templates.

:func:`create_app <club_envs.web.app.create_app>` opens it once and sets it on the app; each route
receives it as a FastAPI dependency (``server: ServerDep``).
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources
from typing import Annotated, Any

import jinja2
from fastapi import Depends, Request
from fastapi.templating import Jinja2Templates

from club_envs.play.catalogue import AgentCatalogue
from club_envs.store import Store, default_url
from club_envs.web.auth import Auth
from club_envs.web.live import LiveGames
from club_envs.web.settings import Settings
from club_envs.web.throttle import Throttle


class PageTemplates(jinja2.Environment):
    """The pages' templates, drawn from the plain dicts of :mod:`club_envs.web.tables`.

    Jinja reads ``t.seats`` by trying the attribute first and the key only after the attribute
    lookup has failed; a table page reads a few thousand keys, so for a plain dict the key is
    tried first here (any other object is read as Jinja reads it). The templates are read once:
    the installed pages do not change while the server runs.
    """

    def __init__(self, directory: str) -> None:
        super().__init__(loader=jinja2.FileSystemLoader(directory), autoescape=jinja2.select_autoescape(),
                         auto_reload=False)

    def getattr(self, obj: Any, attribute: str) -> Any:
        if type(obj) is dict:
            try:
                return obj[attribute]
            except KeyError:
                pass
        return super().getattr(obj, attribute)


@dataclass
class Server:
    settings: Settings
    store: Store
    auth: Auth
    catalogue: AgentCatalogue
    games: LiveGames
    templates: Jinja2Templates
    study: Any = None  # a club_envs.study.plan.StudyPlan: free play is off, participants play its schedule

    @classmethod
    def open(cls, settings: Settings, *, database: str | None, agents_dir: Any, study: Any,
             throttle: Throttle | None = None) -> Server:
        """The state of a server: the database (default: SQLite beside the records folder) with
        its keys, the study's participants registered in it, and every ended game's record file."""
        store = Store(database or default_url(settings.records_dir))
        auth = Auth.from_store(store, study, throttle)
        catalogue = AgentCatalogue(agents_dir)
        if study is not None:
            store.ensure_participants(study.codes)
        templates = Jinja2Templates(env=PageTemplates(str(resources.files("club_envs.web") / "templates")))
        games = LiveGames(store, catalogue, settings, study)
        games.write_missing_records()  # of games that ended just before a previous server stopped
        return cls(settings, store, auth, catalogue, games, templates, study)


async def server_of(request: Request) -> Server:
    return request.app.state.server


ServerDep = Annotated[Server, Depends(server_of)]
