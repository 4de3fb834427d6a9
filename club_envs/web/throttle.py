"""Wrong participant codes and owner tokens, rate-limited per client and over the whole server.

Each client (its IP address; an IPv6 address by its /64 network, which one machine usually holds
whole) may get a code or token wrong :data:`CLIENT_BURST` times at once, then once every
:data:`CLIENT_SECONDS`; all clients together :data:`SERVER_BURST` times, then once every
:data:`SERVER_SECONDS`. A client over either limit is answered 429 with ``Retry-After`` for every
attempt, right or wrong -- otherwise the answer would still tell a right guess -- until the
wait has passed. Only wrong attempts count, so a participant who types their code right is never
held back by their own attempts; the server-wide limit holds back only clients that got a code
wrong themselves within the last :data:`CLIENT_SECONDS` x :data:`CLIENT_BURST` seconds.

The counts are kept in memory: a restarted server starts them afresh (a restart takes longer
than the waits it forgets), and behind a reverse proxy every participant has the proxy's
address (so they share one client's limit): give the proxy's clients their own addresses or
raise the limits there.
"""

from __future__ import annotations

import ipaddress
import math
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

CLIENT_BURST = 5  # wrong attempts a client may make at once
CLIENT_SECONDS = 12.0  # then one more every this many seconds (5 a minute)
SERVER_BURST = 60  # wrong attempts all clients together may make at once
SERVER_SECONDS = 1.0  # then one more every this many seconds
MAX_CLIENTS = 10_000  # clients remembered; those fully recovered are forgotten first


@dataclass
class _Bucket:
    """Wrong attempts a client (or the server) may still make: ``room``, as of ``at``."""

    room: float
    at: float


class Throttled(Exception):
    """Too many wrong attempts: try again after ``retry_after`` seconds."""

    def __init__(self, retry_after: int) -> None:
        super().__init__(f"retry after {retry_after} s")
        self.retry_after = retry_after


class Throttle:
    """The wrong attempts of every client and of the server, refilled as time passes."""

    def __init__(self, clock: Callable[[], float] = time.monotonic, client_burst: int = CLIENT_BURST,
                 client_seconds: float = CLIENT_SECONDS, server_burst: int = SERVER_BURST,
                 server_seconds: float = SERVER_SECONDS) -> None:
        self.clock = clock
        self.client_limit = (client_burst, client_seconds)
        self.server_limit = (server_burst, server_seconds)
        self._clients: dict[str, _Bucket] = {}
        self._server = _Bucket(float(server_burst), clock())
        self._lock = threading.Lock()

    def check(self, client: str | None) -> None:
        """Raise :class:`Throttled` if ``client`` must wait before its next attempt."""
        key = client_key(client)
        with self._lock:
            now = self.clock()
            bucket = self._clients.get(key)
            if bucket is None:  # no wrong attempt of its own lately: never held back
                return
            wait = _wait(bucket, self.client_limit, now)
            if _room(bucket, self.client_limit, now) < self.client_limit[0]:  # it has erred lately
                wait = max(wait, _wait(self._server, self.server_limit, now))
            if wait > 0:
                raise Throttled(max(1, math.ceil(wait)))

    def failed(self, client: str | None) -> None:
        """Count a wrong attempt of ``client`` against its limit and the server's."""
        key = client_key(client)
        with self._lock:
            now = self.clock()
            if key not in self._clients and len(self._clients) >= MAX_CLIENTS:
                self._forget(now)
            bucket = self._clients.setdefault(key, _Bucket(float(self.client_limit[0]), now))
            for b, limit in ((bucket, self.client_limit), (self._server, self.server_limit)):
                b.room, b.at = _room(b, limit, now) - 1, now

    def _forget(self, now: float) -> None:
        """Drop the clients whose limit has refilled; if none has, the one that erred longest ago."""
        full = [k for k, b in self._clients.items() if _room(b, self.client_limit, now) >= self.client_limit[0]]
        for key in full or [min(self._clients, key=lambda k: self._clients[k].at)]:
            del self._clients[key]


def _room(bucket: _Bucket, limit: tuple[int, float], now: float) -> float:
    burst, seconds = limit
    return min(float(burst), bucket.room + (now - bucket.at) / seconds)


def _wait(bucket: _Bucket, limit: tuple[int, float], now: float) -> float:
    """Seconds until the bucket has room for one more attempt (0 if it has now)."""
    room = _room(bucket, limit, now)
    return 0.0 if room >= 1 else (1 - room) * limit[1]


def client_key(host: str | None) -> str:
    """A client's address, an IPv6 one cut to its /64 network."""
    if not host:
        return "?"
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return host
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return str(address.ipv4_mapped)
        return str(ipaddress.ip_network(f"{address}/64", strict=False))
    return str(address)
