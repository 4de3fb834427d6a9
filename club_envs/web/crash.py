"""Named points in a game's life where the durability tests stop the server as a crash would.

``CLUB_ENVS_CRASH_AT=POINT[:N]`` in the server's environment makes the process kill itself
(SIGKILL: no clean-up, no flush, as a power cut or the out-of-memory killer) the ``N``-th time
(default 1) it reaches ``POINT``. Without the variable :func:`reached` does nothing. The points,
in the order a move passes them:

* ``move_stored`` -- the moves of a game still playing are committed to the database;
* ``finish_committed`` -- the commit that ends a game (its status and record) is done;
* ``record_written`` -- the record file of an ended game is in the records folder.

The last point of all, the answer sent, needs no hook: the test kills the server from outside
once it holds the answer. Only ``tests/play/test_web_crashes.py`` sets the variable.
"""

from __future__ import annotations

import os
import signal
import threading

POINTS = ("move_stored", "finish_committed", "record_written")
VARIABLE = "CLUB_ENVS_CRASH_AT"


def _parse(text: str) -> tuple[str, int] | None:
    if not text:
        return None
    point, _, count = text.partition(":")
    if point not in POINTS or not (count or "1").isdigit():
        raise ValueError(f"{VARIABLE}={text!r}: expected one of {', '.join(POINTS)}, optionally ':N'")
    return point, int(count or 1)


_TARGET = _parse(os.environ.get(VARIABLE, ""))
_seen = 0
_lock = threading.Lock()


def reached(point: str) -> None:
    """The server has just passed ``point``: die here if this is the crash asked for."""
    global _seen
    if _TARGET is None or point != _TARGET[0]:
        return
    with _lock:
        _seen += 1
        if _seen == _TARGET[1]:
            os.kill(os.getpid(), signal.SIGKILL)

