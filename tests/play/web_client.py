"""A test browser for the web app: it keeps its cookie and sends its page token, as the pages do."""

from __future__ import annotations

import re
import warnings

with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # the test client warns about its HTTP library, not about us
    from fastapi.testclient import TestClient

BASE = "http://127.0.0.1"


def page_token(html: str) -> str:
    return re.search(r'<meta name="csrf-token" content="([^"]*)">', html).group(1)


def browser(app, start: str = "/") -> TestClient:
    """A client that has opened ``start`` (its cookie) and sends the page's token on every request."""
    client = TestClient(app, base_url=BASE)
    client.token = page_token(client.get(start).text)
    client.headers["x-csrf-token"] = client.token
    return client


def new_game(client, **form) -> str:
    data = {"game": "members_only", "players": 4, "seat": "0", "opponent": "random", "seed": "7",
            "csrf": client.token, **form}
    r = client.post("/games", data=data, follow_redirects=False)
    assert r.status_code == 303, r.text
    return r.headers["location"].rsplit("/", 1)[1]
