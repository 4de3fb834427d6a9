"""The one error a route raises to refuse a request: a status and a sentence saying why.

:mod:`club_envs.web.pages` turns it into JSON for the ``/api/`` routes and into the error page
for the others.
"""

from __future__ import annotations

from typing import Any


class ApiError(Exception):
    def __init__(self, status: int, message: str, headers: dict[str, str] | None = None, **extra: Any) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.headers = headers or {}  # of the answer (``Retry-After`` of a 429)
        self.extra = extra
