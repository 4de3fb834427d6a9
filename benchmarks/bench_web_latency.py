"""Latency of the study server under a crowd that never pauses.

    python benchmarks/bench_web_latency.py [--crowds 1,5,20,30] [--seconds 20] [--database URL]

Starts ``club-envs study`` (a real process on a loopback port, SQLite by default) for a study of
two conditions played against the shipped agents -- Members Only with four players against the
shipped ``members_only`` agent, and Arkham Decoders Club with four players against the shipped
``arkham_decoders`` team -- and lets each crowd of participants play through the JSON API at
the same time, every person sending their next move (or ``advance``) the moment the previous
answer arrives: no thinking time. For each crowd it prints the latency of those answers (p50,
p95, max), the answers per second, the server's CPU time per answer (which the rest of the
machine's load does not change) and the participants' own (this process's threads, sharing the
machine with the server); the one-participant line is the reference measured in the same run,
the cost of one request when nobody queues beside it.

``--compare TREE`` measures a second server beside this one, run from another source tree of
club-envs (say ``git archive <commit> | tar -x -C /tmp/before``): each crowd plays on one server
and then on the other, so that both meet the same load from the rest of the machine.
To see where the server's time goes, attach a sampling profiler to it while a crowd plays
(``py-spy record --gil -p PID``: the server is the ``club-envs study`` process).
"""

from __future__ import annotations

import argparse
import os
import random
import signal
import socket
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
    {"name": "mo4", "game": "members_only", "players": 4, "seat": 0, "opponents": "members_only"},
    {"name": "ak4", "game": "arkham_decoders", "players": 4, "role": "leader", "opponents": "arkham_decoders"},
]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(study: Path, records: Path, database: str | None, tree: Path | None = None) -> tuple[subprocess.Popen, str]:
    """The study server on a free loopback port; with ``tree``, the club-envs of that source tree."""
    port = free_port()
    command = [str(Path(sys.executable).parent / "club-envs"), "study", str(study), "--records", str(records),
               "--port", str(port), *(["--database", database] if database else [])]
    env = dict(os.environ)
    if tree is not None:
        env["PYTHONPATH"] = str(tree.resolve())
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the study server stopped: {process.stderr.read().decode()[-2000:]}")
        try:
            with urllib.request.urlopen(base + "/study", timeout=5) as r:
                if r.status == 200:
                    return process, base
        except OSError:
            time.sleep(0.2)
    process.kill()
    raise RuntimeError("the study server did not start within 120 s")


@dataclass
class Person:
    """One participant, moving the moment each answer arrives; times every move and advance."""

    code: str
    base: str
    rng: random.Random
    latencies: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    def run(self, measure: threading.Event, stop: threading.Event) -> None:
        with httpx.Client(base_url=self.base, timeout=120, follow_redirects=True) as client:
            token = client.get("/study").text.split('name="csrf-token" content="')[1].split('"')[0]
            client.headers["x-csrf-token"] = token
            client.post("/study/enter", data={"code": self.code, "csrf": token})
            while not stop.is_set():
                r = client.post("/study/next", data={"csrf": token})
                if not r.url.path.startswith("/games/"):
                    return  # the schedule is played out
                self._play(client, r.url.path.rsplit("/", 1)[1], measure, stop)

    def _play(self, client: httpx.Client, gid: str, measure: threading.Event, stop: threading.Event) -> None:
        state = client.get(f"/api/games/{gid}").json()
        while not (state["finished"] or state["abandoned"] or stop.is_set()):
            if state["your_turn"]:
                action = self.rng.choice(state["moves"])["action"]
                url, body = f"/api/games/{gid}/move", {"game_id": gid, "seat": state["seat"], "action": action,
                                                       "step": state["step"]}
            else:
                url, body = f"/api/games/{gid}/advance", {"step": state["step"]}
            started = time.perf_counter()
            r = client.post(url, json=body)
            took = time.perf_counter() - started
            if r.status_code != 200:
                self.errors.append(f"{url}: {r.status_code} {r.text[:200]}")
                state = client.get(f"/api/games/{gid}").json()
                continue
            if measure.is_set() and not stop.is_set():
                self.latencies.append(took)
            state = r.json()["state"]


def cpu_seconds(pid: int) -> float | None:
    """CPU time (user + system) the process has used so far, where ``/proc`` tells it."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def crowd(base: str, size: int, first_code: int, seconds: float, warm: float, seed: int, pid: int) -> dict:
    """``size`` participants (codes from ``first_code``) for ``warm`` + ``seconds``; the first
    ``warm`` seconds (entering, the first deals) are not measured."""
    rng = random.Random(seed)
    people = [Person(f"P-BENCH{first_code + i:04d}", base, random.Random(rng.random())) for i in range(size)]
    measure, stop = threading.Event(), threading.Event()
    threads = [threading.Thread(target=p.run, args=(measure, stop), daemon=True) for p in people]
    for t in threads:
        t.start()
    time.sleep(warm)
    measure.set()
    began, cpu, own = time.perf_counter(), cpu_seconds(pid), time.process_time()
    time.sleep(seconds)
    stop.set()
    elapsed = time.perf_counter() - began
    cpu = cpu_seconds(pid) - cpu if cpu is not None else None
    own = time.process_time() - own
    for t in threads:
        t.join(timeout=180)
    latencies = sorted(x for p in people for x in p.latencies)
    q = (lambda f: 1000 * latencies[min(len(latencies) - 1, int(f * len(latencies)))]) if latencies else (lambda f: 0.0)
    return {"size": size, "answers": len(latencies), "rate": len(latencies) / elapsed, "p50": q(0.5),
            "cpu_ms": 1000 * cpu / len(latencies) if cpu is not None and latencies else float("nan"),
            "client_ms": 1000 * own / len(latencies) if latencies else float("nan"),
            "p95": q(0.95), "max": 1000 * max(latencies, default=0.0), "errors": [e for p in people for e in p.errors]}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--crowds", default="1,5,20,30", help="participants at once, one run each (default 1,5,20,30)")
    p.add_argument("--seconds", type=float, default=20.0, help="measured seconds per crowd (default 20)")
    p.add_argument("--warm", type=float, default=3.0, help="unmeasured seconds before each (default 3)")
    p.add_argument("--database", default=os.environ.get("CLUB_ENVS_TEST_DATABASE"),
                   help="SQLAlchemy URL (default: SQLite beside the records; or $CLUB_ENVS_TEST_DATABASE)")
    p.add_argument("--compare", type=Path, default=None, metavar="TREE",
                   help="also measure the server of this club-envs source tree, crowd by crowd (SQLite)")
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)
    try:
        sizes = [int(x) for x in args.crowds.split(",")]
    except ValueError:
        p.error(f"--crowds {args.crowds!r}: expected whole numbers separated by commas, e.g. 1,5,20,30")
    if not sizes or min(sizes) < 1:
        p.error("--crowds: every crowd needs 1 participant or more")
    if args.compare is not None and not (args.compare / "club_envs" / "web").is_dir():
        p.error(f"--compare {args.compare}: not a club-envs source tree (no club_envs/web in it)")
    trees = {"this": None, **({"compared": args.compare} if args.compare else {})}
    with tempfile.TemporaryDirectory() as folder:
        folder = Path(folder)
        codes = [f"P-BENCH{n:04d}" for n in range(sum(sizes))]
        study = folder / "study.yaml"
        study.write_text(yaml.safe_dump({"name": "latency", "participants": codes, "games_per_condition": 50,
                                         "conditions": CONDITIONS}))
        servers = {}
        try:
            for name, tree in trees.items():
                servers[name] = start_server(study, folder / name / "records",
                                             args.database if len(trees) == 1 else None, tree)
            print(f"{'server':>8} {'participants':>12} {'answers':>8} {'per s':>7} {'p50 ms':>7} {'p95 ms':>7} "
                  f"{'max ms':>7} {'server CPU ms/answer':>20} {'client CPU ms/answer':>20}")
            first = 0
            for i, size in enumerate(sizes):
                for name, (process, base) in servers.items():
                    r = crowd(base, size, first, args.seconds, args.warm, args.seed + i, process.pid)
                    print(f"{name:>8} {r['size']:>12} {r['answers']:>8} {r['rate']:>7.1f} {r['p50']:>7.0f} "
                          f"{r['p95']:>7.0f} {r['max']:>7.0f} {r['cpu_ms']:>20.1f} {r['client_ms']:>20.1f}", flush=True)
                    for line in r["errors"][:5]:
                        print(f"  refused: {line}")
                first += size
        finally:
            for process, _ in servers.values():
                process.send_signal(signal.SIGINT)
                try:
                    process.wait(timeout=60)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
