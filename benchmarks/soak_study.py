"""A study under a crowd and crashes: participants play at once while the server is killed.

    python benchmarks/soak_study.py [--participants 30] [--seconds 300] [--kills 6] [--database URL]

Starts ``club-envs study`` (a real process on a loopback port) for a study of two short
conditions, lets ``--participants`` people play through its JSON API at the same time, each as
fast as the server answers (``--think-ms`` adds a pause before every move), and kills the server
(SIGKILL) ``--kills`` times at random moments, starting it again each time. Afterwards the
export, the records folder and the report must agree: every game the database holds exported
once, every ended game one record file, the report counting each finished game once, and every
move the server acknowledged stored. Prints the figures: participants, moves, kills, the latency
of the answers (p50, p95, max) and the games and acknowledged moves lost (0).
``tests/play/test_web_soak.py`` runs a short version of it.
"""

from __future__ import annotations

import argparse
import csv
import os
import random
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import yaml

CONDITIONS = [
    {"name": "mo3", "game": "members_only", "players": 3, "seat": 0, "opponents": "random"},
    {"name": "ak4", "game": "arkham_decoders", "players": 4, "role": "leader", "opponents": "random"},
]


class StudyServer:
    """``club-envs study`` in its own process, started again after each kill."""

    def __init__(self, study: Path, records_dir: Path, database: str | None) -> None:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        self.base = f"http://127.0.0.1:{port}"
        self.extra = ["--database", database] if database else []
        self.command = [str(Path(sys.executable).parent / "club-envs"), "study", str(study), "--records",
                        str(records_dir), *self.extra]
        self.port = port
        self.process: subprocess.Popen | None = None

    def start(self) -> None:
        self.process = subprocess.Popen([*self.command, "--port", str(self.port)], stdout=subprocess.DEVNULL,
                                        stderr=subprocess.PIPE)
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"the study server stopped: {self.process.stderr.read().decode()[-2000:]}")
            try:
                with urllib.request.urlopen(self.base + "/study", timeout=5) as r:
                    if r.status == 200:
                        return
            except OSError:
                time.sleep(0.2)
        raise RuntimeError("the study server did not start within 120 s")

    def kill(self) -> None:
        self.process.send_signal(signal.SIGKILL)
        self.process.wait()

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=60)


@dataclass
class Person:
    """One participant: their browser, and what the server acknowledged to them."""

    code: str
    base: str
    think: float
    rng: random.Random
    latencies: list[float] = field(default_factory=list)
    acked: dict[str, list[tuple[int, int]]] = field(default_factory=dict)  # game -> (ply, action) answered
    refused: list[str] = field(default_factory=list)  # answers other than 200 that are not crashes
    dealt: set[str] = field(default_factory=set)  # the games the server sent this person to
    done: bool = False

    def run(self, stop: threading.Event) -> None:
        client = httpx.Client(base_url=self.base, timeout=60, follow_redirects=True)
        entered = False
        while not stop.is_set() and not self.done:
            try:
                if not entered:
                    token = client.get("/study").text.split('name="csrf-token" content="')[1].split('"')[0]
                    client.headers["x-csrf-token"] = token
                    client.post("/study/enter", data={"code": self.code, "csrf": token})
                    entered = True
                self._play(client, stop)
            except httpx.TransportError:  # the server is down: try again shortly, as a person reloads
                time.sleep(0.3)
        client.close()

    def _play(self, client: httpx.Client, stop: threading.Event) -> None:
        while not stop.is_set():
            r = client.post("/study/next", data={"csrf": client.headers["x-csrf-token"]})
            if not r.url.path.startswith("/games/"):
                self.done = True
                return
            gid = r.url.path.rsplit("/", 1)[1]
            self.dealt.add(gid)
            state = client.get(f"/api/games/{gid}").json()
            while not state["finished"] and not stop.is_set():
                if state["your_turn"]:
                    if self.think:
                        time.sleep(self.rng.uniform(0, 2 * self.think))
                    action = self.rng.choice(state["moves"])["action"]
                    body = {"game_id": gid, "seat": state["seat"], "action": action, "step": state["step"]}
                    url, ply = f"/api/games/{gid}/move", state["step"]
                else:
                    body, url, ply, action = {"step": state["step"]}, f"/api/games/{gid}/advance", None, None
                started = time.perf_counter()
                r = client.post(url, json=body)
                if r.status_code != 200:
                    self.refused.append(f"{url}: {r.status_code} {r.text[:200]}")
                    state = client.get(f"/api/games/{gid}").json()
                    continue
                self.latencies.append(time.perf_counter() - started)
                if ply is not None:
                    self.acked.setdefault(gid, []).append((ply, action))
                state = r.json()["state"]


@dataclass
class Figures:
    participants: int
    moves: int
    answers: int
    kills: int
    p50_ms: float
    p95_ms: float
    max_ms: float
    games: int
    finished: int
    games_lost: int
    moves_lost: int
    refused: list[str]

    def lines(self) -> list[str]:
        return [
            f"participants {self.participants}, answers {self.answers} (person's moves {self.moves}), "
            f"kills {self.kills}",
            f"latency of an answer: p50 {self.p50_ms:.0f} ms, p95 {self.p95_ms:.0f} ms, max {self.max_ms:.0f} ms",
            f"games {self.games} ({self.finished} finished); games lost {self.games_lost}, "
            f"acknowledged moves lost {self.moves_lost}; requests refused {len(self.refused)}",
        ]


def soak(folder: Path, participants: int, seconds: float, kills: int, database: str | None = None,
         think_ms: float = 0.0, seed: int = 0) -> Figures:
    """Run the soak in ``folder``; raises ``AssertionError`` if the export, the records folder and
    the report disagree, and returns the figures."""
    from club_envs import records
    from club_envs.report import summarise
    from club_envs.store import Store, default_url

    rng = random.Random(seed)
    codes = [f"P-SOAK{n:04d}" for n in range(participants)]
    study = folder / "study.yaml"
    study.write_text(yaml.safe_dump({"name": "soak", "participants": codes, "games_per_condition": 2,
                                     "conditions": CONDITIONS}))
    records_dir = folder / "records"
    server = StudyServer(study, records_dir, database)
    server.start()
    stop = threading.Event()
    people = [Person(code, server.base, think_ms / 1000, random.Random(rng.random())) for code in codes]
    threads = [threading.Thread(target=p.run, args=(stop,), daemon=True) for p in people]
    for t in threads:
        t.start()
    ends = sorted(rng.uniform(0.1, 0.9) * seconds for _ in range(kills))
    started, killed = time.monotonic(), 0
    try:
        for at in ends:
            time.sleep(max(0.0, started + at - time.monotonic()))
            server.kill()
            killed += 1
            server.start()
        while time.monotonic() < started + seconds and not all(p.done for p in people):
            time.sleep(0.5)
        stop.set()
        for t in threads:
            t.join(timeout=120)
    finally:
        stop.set()
        server.stop()

    store = Store(database or default_url(records_dir))
    try:
        games = store.games()
        moves_lost = 0
        for person in people:
            for gid, acked in person.acked.items():
                stored = store.moves(gid)
                seat = store.game(gid).human_seat
                moves_lost += sum(1 for ply, action in acked if ply >= len(stored) or stored[ply] != (seat, action))
    finally:
        store.close()
    out = folder / "export"
    subprocess.run([*server.command, "--export", str(out)], check=True, capture_output=True)
    rows = list(csv.DictReader((out / "outcomes.csv").open()))
    ended = [g for g in games if g.over]
    files = sorted(records_dir.glob("*.json"))
    report = summarise([records_dir]) if files else None
    assert sorted(r["game_id"] for r in rows) == sorted(g.id for g in games), "the export is not the database"
    assert sorted(p.name for p in files) == sorted(g.record_name for g in ended), "records folder != ended games"
    for g in ended:
        assert records.load(records_dir / g.record_name)["game_id"] == g.id
    finished = sum(g.status == "finished" for g in games)
    if report is not None:
        assert report.human_games == finished and not report.duplicates and not report.unreadable, report
    assert len({(g.participant, g.slot) for g in games}) == len(games), "a schedule's game exists twice"
    latencies = sorted(x for p in people for x in p.latencies)
    quantile = (lambda q: 1000 * latencies[min(len(latencies) - 1, int(q * len(latencies)))]) if latencies \
        else (lambda q: 0.0)
    return Figures(
        participants=participants, moves=sum(len(a) for p in people for a in p.acked.values()),
        answers=len(latencies), kills=killed, p50_ms=quantile(0.5), p95_ms=quantile(0.95),
        max_ms=1000 * max(latencies, default=0.0), games=len(games), finished=finished,
        games_lost=len(set().union(*(p.dealt for p in people)) - {g.id for g in games}), moves_lost=moves_lost, refused=[r for p in people for r in p.refused],
    )


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--participants", type=int, default=30)
    p.add_argument("--seconds", type=float, default=300.0)
    p.add_argument("--kills", type=int, default=6)
    p.add_argument("--think-ms", type=float, default=0.0, help="mean pause before each move (default 0)")
    p.add_argument("--database", default=os.environ.get("CLUB_ENVS_TEST_DATABASE"),
                   help="SQLAlchemy URL (default: SQLite beside the records; or $CLUB_ENVS_TEST_DATABASE)")
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)
    with tempfile.TemporaryDirectory() as folder:
        figures = soak(Path(folder), args.participants, args.seconds, args.kills, args.database, args.think_ms,
                       args.seed)
    print("\n".join(figures.lines()))
    for line in figures.refused[:10]:
        print(f"  refused: {line}")
    return 0 if figures.games_lost == figures.moves_lost == 0 else 1


if __name__ == "__main__":
    raise SystemExit(main())
