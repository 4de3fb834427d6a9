"""The HTML answer of a route (a template with the page token, the study and whether the owner
is asking) and the error answers: JSON under ``/api/``, the error page elsewhere."""

from __future__ import annotations

from typing import Any

from fastapi import Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from starlette.exceptions import HTTPException as StarletteHTTPException

from club_envs.web.auth import browser_id, set_browser_cookie
from club_envs.web.errors import ApiError
from club_envs.web.state import Server


def page(server: Server, request: Request, name: str, context: dict[str, Any], status: int = 200,
         new_browser: str | None = None) -> Response:
    """The template ``name``; ``new_browser`` (a fresh id) is set as the browser's cookie."""
    browser = new_browser or browser_id(request)
    context = {"csrf": server.auth.page_token(browser), "study": server.study,
               "admin": server.auth.is_admin(request), **context}
    response = server.templates.TemplateResponse(request, name, context, status_code=status)
    if new_browser:
        set_browser_cookie(response, new_browser)
    return response


async def api_error(request: Request, exc: ApiError) -> Response:
    if request.url.path.startswith("/api/"):
        return JSONResponse({"error": exc.message, **exc.extra}, status_code=exc.status, headers=exc.headers)
    response = page(request.app.state.server, request, "error.html",
                    {"status": exc.status, "message": exc.message}, exc.status)
    response.headers.update(exc.headers)
    return response


async def malformed(request: Request, exc: RequestValidationError) -> JSONResponse:
    problems = "; ".join(
        f"{'.'.join(str(p) for p in e.get('loc', ()) if p != 'body') or 'body'}: {e.get('msg')}"
        for e in exc.errors()
    )
    return JSONResponse({"error": f"malformed request: {problems}"}, status_code=422)


async def http_error(request: Request, exc: StarletteHTTPException) -> Response:
    if request.url.path.startswith("/api/"):
        return JSONResponse({"error": str(exc.detail)}, status_code=exc.status_code)
    return page(request.app.state.server, request, "error.html",
                {"status": exc.status_code, "message": str(exc.detail)}, exc.status_code)
