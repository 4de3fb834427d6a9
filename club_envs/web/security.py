"""What stands between the game server and a hostile page or client.

* Host allowlist (Starlette's ``TrustedHostMiddleware``, added by the app): a page served under
  another name (DNS rebinding) gets 400.
* :class:`BodyLimit`: a request body over the limit is refused with 413 before it is read into
  memory, whether it declares its length or streams it in chunks.
* :class:`SameOrigin`: a state-changing request (POST, PUT, PATCH, DELETE) whose ``Origin``,
  ``Referer`` or ``Sec-Fetch-Site`` says it comes from another site is refused with 403.
* :func:`csrf_token`: every page carries a token derived from the browser's cookie and the
  server's key; every state-changing request must send it back (a form field or the
  ``X-CSRF-Token`` header). A page on another site can read neither.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import urlsplit

UNSAFE = {"POST", "PUT", "PATCH", "DELETE"}
DEFAULT_BODY_LIMIT = 64 * 1024

Scope = dict[str, Any]
Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]


def csrf_token(key: str, browser: str) -> str:
    """The token a page of ``browser`` must send back; only the server (holding ``key``) makes it."""
    return hmac.new(key.encode(), b"csrf:" + browser.encode(), hashlib.sha256).hexdigest()[:40]


def same_token(expected: str, given: str | None) -> bool:
    return bool(given) and hmac.compare_digest(expected.encode(), str(given).encode())


async def _json_error(send: Send, status: int, message: str) -> None:
    body = json.dumps({"error": message}).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
                            (b"connection", b"close")]})
    await send({"type": "http.response.body", "body": body})


class BodyLimit:
    """Refuse request bodies larger than ``limit`` bytes with 413."""

    def __init__(self, app: Any, limit: int = DEFAULT_BODY_LIMIT) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        message = f"the request body is larger than the limit of {self.limit} bytes"
        for name, value in scope.get("headers", []):
            if name == b"content-length":
                try:
                    declared = int(value)
                except ValueError:
                    await _json_error(send, 400, "malformed Content-Length header")
                    return
                if declared > self.limit:
                    await _json_error(send, 413, message)
                    return
        # Read the body here, at most limit + 1 bytes, then hand it to the app.
        chunks: list[bytes] = []
        size = 0
        more = True
        while more:
            event = await receive()
            if event["type"] != "http.request":
                await self.app(scope, _replay([event]), send)
                return
            chunk = event.get("body", b"")
            size += len(chunk)
            if size > self.limit:
                await _json_error(send, 413, message)
                return
            chunks.append(chunk)
            more = event.get("more_body", False)
        await self.app(scope, _replay([{"type": "http.request", "body": b"".join(chunks), "more_body": False}],
                                      receive), send)


def _replay(events: list[dict[str, Any]], then: Receive | None = None) -> Receive:
    queue = list(events)

    async def receive() -> dict[str, Any]:
        if queue:
            return queue.pop(0)
        if then is not None:
            return await then()
        return {"type": "http.disconnect"}

    return receive


class SameOrigin:
    """Refuse state-changing requests that a browser says come from another site (403)."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["method"] in UNSAFE:
            headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
            host = headers.get("host", "")
            scheme = scope.get("scheme", "http")
            problem = cross_site(headers, f"{scheme}://{host}")
            if problem:
                await _json_error(send, 403, f"refused: {problem}; use the pages of this server")
                return
        await self.app(scope, receive, send)


def cross_site(headers: dict[str, str], own_origin: str) -> str | None:
    """Why the request looks cross-site, or ``None``."""
    if headers.get("sec-fetch-site") == "cross-site":
        return "the request comes from another site"
    origin = headers.get("origin")
    if origin is not None:
        if origin == "null" or origin.rstrip("/") != own_origin:
            return "the request's Origin is another site"
        return None
    referer = headers.get("referer")
    if referer:
        parts = urlsplit(referer)
        if f"{parts.scheme}://{parts.netloc}" != own_origin:
            return "the request's Referer is another site"
    return None


class SecurityHeaders:
    """Pages may not be framed by other sites, and addresses are not sent to other sites."""

    HEADERS = [
        (b"x-frame-options", b"DENY"),
        (b"x-content-type-options", b"nosniff"),
        (b"referrer-policy", b"same-origin"),
        (b"content-security-policy", b"default-src 'self'; img-src 'self' data:; frame-ancestors 'none'; "
                                     b"form-action 'self'; base-uri 'none'"),
    ]

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", []), *self.HEADERS]}
            await send(message)

        await self.app(scope, receive, send_with_headers)
