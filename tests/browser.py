"""What the browser tests share: Debian's ``chromium`` (/usr/bin/chromium, installed by ``.ci/run``)
driven by Playwright for Python, never a downloaded browser build, and an app served by uvicorn on a
free loopback port in a thread of the test process. The ``browser`` fixture is in
``tests/conftest.py``."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import uvicorn

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox", "--headless", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run",
]


def launch(playwright: Any) -> Any:
    """Headless Chromium from ``playwright`` (a started ``sync_playwright()``)."""
    return playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)


@contextmanager
def served(app: Any, what: str = "the web app") -> Iterator[str]:
    """``app`` served on a free loopback port while the block runs; yields its base URL."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    srv = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30  # a start-up guard, not a measurement
    while not srv.started:
        assert time.monotonic() < deadline, f"{what} did not start"
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        srv.should_exit = True
        thread.join(timeout=10)


@contextmanager
def watched_page(browser: Any, no_delay: bool = False) -> Iterator[Any]:
    """A page in a fresh context of ``browser`` (1400 x 1000); the block fails if a script on the
    page raised. ``no_delay`` sets the play page's agents to full speed."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    if no_delay:
        context.add_init_script("window.localStorage.setItem('clubEnvsDelay', '0')")
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    yield page
    context.close()
    assert not errors, f"script errors on the page: {errors}"
