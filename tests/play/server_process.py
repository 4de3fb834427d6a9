"""``club-envs study`` in its own process, so that a test can kill it as a crash would."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """The study server on a free loopback port, on ``database`` (default: SQLite beside the
    records); ``env`` adds variables to its environment."""

    def __init__(self, study: Path, records_dir: Path, port: int | None = None, database: str | None = None) -> None:
        port = port or free_port()
        self.database = ["--database", database] if database else []
        self.command = [str(Path(sys.executable).parent / "club-envs"), "study", str(study), "--port", str(port),
                        "--records", str(records_dir), *self.database]
        self.base = f"http://127.0.0.1:{port}"
        self.process: subprocess.Popen | None = None

    def start(self, env: dict[str, str] | None = None) -> None:
        self.process = subprocess.Popen(self.command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                        env={**os.environ, "PYTHONUNBUFFERED": "1", **(env or {})})
        deadline = time.monotonic() + 120  # a start-up guard, not a measurement
        while True:
            assert self.process.poll() is None, self.process.stderr.read().decode()
            try:
                with urllib.request.urlopen(self.base + "/study", timeout=5) as r:
                    if r.status == 200:
                        return
            except OSError:
                pass
            assert time.monotonic() < deadline, "the study server did not start"
            time.sleep(0.2)

    def kill(self) -> None:
        self.process.send_signal(signal.SIGKILL)
        self.process.wait()

    def stop(self) -> None:
        if self.process and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=30)
