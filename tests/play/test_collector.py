"""The server process's garbage collector (:mod:`club_envs.web.collector`): what start-up made is
out of the collector's sight, the young generation is collected less often, garbage made later is
still collected, and the server settles it before it listens."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from types import SimpleNamespace

import pytest

from club_envs.cli import serve
from club_envs.web import collector


def run_python(code: str) -> str:
    """``code`` in a fresh interpreter (settling freezes a whole process: not this test runner)."""
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_settle_freezes_what_start_up_made_and_still_collects_later_garbage():
    out = run_python("""
        import gc, weakref
        from club_envs.web.collector import YOUNG_THRESHOLD, settle

        class Node:
            pass

        kept = Node()
        before = gc.get_threshold()
        settle()
        frozen = gc.get_freeze_count()
        tracked = any(o is kept for o in gc.get_objects())
        after = gc.get_threshold()
        a, b = Node(), Node()  # a cycle made after start-up: garbage the collector must still find
        a.other, b.other = b, a
        gone = weakref.ref(a)
        del a, b
        gc.collect()
        print(frozen > 0, tracked, after == (YOUNG_THRESHOLD, before[1], before[2]), gone() is None)
    """)
    assert out == "True False True True"


def test_settle_refuses_a_young_threshold_below_one():
    with pytest.raises(ValueError, match="young_threshold 0 is not allowed; allowed values: 1 or more"):
        collector.settle(0)


def test_the_server_settles_the_collector_before_it_listens(monkeypatch):
    import uvicorn

    calls = []
    monkeypatch.setattr(collector, "settle", lambda: calls.append("settle"))
    monkeypatch.setattr(uvicorn, "run", lambda app, **kw: calls.append(("run", kw["host"], kw["port"])))
    app = SimpleNamespace(state=SimpleNamespace(admin_token="t"))
    serve.serve_app(app, "127.0.0.1", 8123, "a test")
    assert calls == ["settle", ("run", "127.0.0.1", 8123)]
