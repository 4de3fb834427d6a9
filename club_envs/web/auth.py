"""Who is asking: the browser's cookie, the study participant bound to it, the owner's token,
and the page token every state-changing request must carry.

A browser is known by a random id in a cookie; in a study, that browser is bound to the
participant code typed at ``/study``. The owner (the person who started the server) holds a
token printed at start: ``/admin?token=...`` swaps it for a cookie, or a script sends it as
``Authorization: Bearer ...``. The server's key and the owner's token are kept in the database,
so a restarted server keeps every cookie valid. Wrong participant codes and owner tokens are
rate-limited per client and overall (:mod:`club_envs.web.throttle`).
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from typing import Any

from fastapi import Request
from fastapi.responses import RedirectResponse, Response

from club_envs.store import Store
from club_envs.web.errors import ApiError
from club_envs.web.security import csrf_token, same_token
from club_envs.web.throttle import Throttle, Throttled

BROWSER_COOKIE = "club_envs_browser"
ADMIN_COOKIE = "club_envs_owner"
CSRF_HEADER = "x-csrf-token"
BROWSER_ID = re.compile(r"^[A-Za-z0-9_-]{16,64}$")
BROWSER_COOKIE_DAYS = 400


def new_browser_id() -> str:
    """A fresh browser id (128 random bits)."""
    return secrets.token_urlsafe(16)


def browser_id(request: Request) -> str | None:
    value = request.cookies.get(BROWSER_COOKIE)
    return value if value and BROWSER_ID.match(value) else None


def ensure_browser(request: Request) -> str | None:
    """A fresh browser id when the request has none (set as a cookie by the page answering a GET)."""
    return None if browser_id(request) else new_browser_id()


def set_browser_cookie(response: Response, browser: str) -> None:
    response.set_cookie(BROWSER_COOKIE, browser, httponly=True, samesite="lax", max_age=BROWSER_COOKIE_DAYS * 86400)


def client_address(request: Request) -> str | None:
    return request.client.host if request.client else None


class Auth:
    """The server's keys and the questions asked of every request about who sent it."""

    def __init__(self, key: str, admin_token: str, store: Store, study: Any, throttle: Throttle | None = None) -> None:
        self.key = key  # signs the page tokens and the owner's cookie
        self.admin_token = admin_token
        self.throttle = throttle or Throttle()
        self.owner_cookie = hmac.new(key.encode(), b"owner:" + admin_token.encode(), hashlib.sha256).hexdigest()
        self.store = store
        self.study = study

    @classmethod
    def from_store(cls, store: Store, study: Any, throttle: Throttle | None = None) -> Auth:
        """The keys kept in the database, made on the server's first start."""
        key = store.meta("key", lambda: secrets.token_hex(32))
        admin_token = store.meta("admin_token", lambda: secrets.token_urlsafe(24))
        return cls(key, admin_token, store, study, throttle)

    def hold_back(self, request: Request, what: str) -> None:
        """Refuse (429 with ``Retry-After``) a client that got ``what`` wrong too often lately."""
        try:
            self.throttle.check(client_address(request))
        except Throttled as exc:
            raise ApiError(429, f"too many wrong {what}s from this computer; wait {exc.retry_after} seconds "
                                "and try again", headers={"Retry-After": str(exc.retry_after)}) from None

    def wrong(self, request: Request) -> None:
        """Count a wrong participant code or owner token of this client."""
        self.throttle.failed(client_address(request))

    def page_token(self, browser: str | None) -> str:
        return csrf_token(self.key, browser) if browser else ""

    def participant(self, request: Request) -> str | None:
        browser = browser_id(request)
        return self.store.participant_of(browser) if self.study is not None and browser else None

    def principal(self, request: Request) -> str | None:
        """Who owns games made by this request: the study participant, else the browser."""
        if self.study is not None:
            code = self.participant(request)
            return f"p:{code}" if code else None
        browser = browser_id(request)
        return f"b:{browser}" if browser else None

    def is_admin(self, request: Request) -> bool:
        """The owner's cookie, or the owner's token as ``Authorization: Bearer``; a wrong token
        counts against the client's limit, and a client over it is refused (429) once per request."""
        known = getattr(request.state, "is_admin", None)
        if known is not None:
            return known
        request.state.is_admin = False
        cookie = request.cookies.get(ADMIN_COOKIE, "")
        if cookie and hmac.compare_digest(cookie.encode(), self.owner_cookie.encode()):
            request.state.is_admin = True
            return True
        auth = request.headers.get("authorization", "")
        if not auth.startswith("Bearer "):
            return False
        self.hold_back(request, "owner token")
        request.state.is_admin = hmac.compare_digest(auth[7:].encode(), self.admin_token.encode())
        if not request.state.is_admin:
            self.wrong(request)
        return request.state.is_admin

    def require_admin(self, request: Request) -> None:
        if not self.is_admin(request):
            raise ApiError(403, "only the server's owner may see this page; open the owner link printed "
                                "when the server started")

    def check_token(self, request: Request, given: str | None) -> None:
        """Every state-changing request: the page's token for this browser, or 403."""
        browser = browser_id(request)
        if browser is None:
            raise ApiError(403, "no session cookie: open the start page of this server first")
        if not same_token(csrf_token(self.key, browser), given or request.headers.get(CSRF_HEADER)):
            raise ApiError(403, "missing or wrong page token: reload the page and try again")

    def owner_login(self, request: Request, token: str) -> Response:
        """The owner link: the token becomes the owner's cookie and leaves the address bar."""
        self.hold_back(request, "owner token")
        if not hmac.compare_digest(token.encode(), self.admin_token.encode()):
            self.wrong(request)
            raise ApiError(403, "wrong owner token")
        response = RedirectResponse("/admin", status_code=303)
        response.set_cookie(ADMIN_COOKIE, self.owner_cookie, httponly=True, samesite="lax")
        if not browser_id(request):
            set_browser_cookie(response, new_browser_id())
        return response
