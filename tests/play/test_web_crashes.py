"""Every game exactly once, whenever the server dies: the study server (a real process) is killed
with SIGKILL at each point of a game's life -- a move stored, the game ended in the database, its
record file written (:mod:`club_envs.web.crash`), an answer sent (killed from outside once the
answer is here) -- and started again each time. After every restart each game exists once, every
ended game is ended with one record file, and every move the server acknowledged is still
played: the person is never asked for it again. At the end the database, the records folder, the
report and the export agree."""

from __future__ import annotations

import csv
import random

import httpx
import yaml

from club_envs import records
from club_envs.cli import main as club_envs
from club_envs.report import summarise
from club_envs.store import Store, default_url
from club_envs.web.crash import VARIABLE
from tests.play.server_process import Server
from tests.play.web_client import page_token

CODE = "alpha-11"
STUDY = {
    "name": "crashes",
    "participants": [CODE],
    "games_per_condition": 1,
    "order": "as_listed",
    "conditions": [
        {"name": "mo3", "game": "members_only", "players": 3, "seat": 0, "opponents": "random", "seeds": [5]},
        {"name": "ak4", "game": "arkham_decoders", "players": 4, "role": "leader", "opponents": "random",
         "seeds": [6]},
        {"name": "mo4", "game": "members_only", "players": 4, "seat": 1, "opponents": "random", "seeds": [7]},
    ],
}


class Participant:
    """One person's browser, driving the JSON API as the table page does, and what the server
    acknowledged to it: per game, the person's moves (ply, action) and the last state."""

    def __init__(self, base: str) -> None:
        self.client = httpx.Client(base_url=base, timeout=60, follow_redirects=True)
        self.rng = random.Random(3)
        self.moves: dict[str, list[tuple[int, int]]] = {}
        self.last: dict[str, dict] = {}
        self.answers = 0

    def enter(self) -> None:
        token = page_token(self.client.get("/study").text)
        self.client.headers["x-csrf-token"] = token
        r = self.client.post("/study/enter", data={"code": CODE, "csrf": token})
        assert r.status_code == 200, r.text

    def post(self, url: str, **kwargs) -> httpx.Response:
        r = self.client.post(url, **kwargs)
        self.answers += 1
        return r

    def play(self, stop_after: int | None = None) -> bool:
        """Play the schedule until it is done (True) or the server dies (False); with
        ``stop_after``, return (False) once that many answers to moves have arrived."""
        try:
            while True:
                r = self.client.post("/study/next", data={"csrf": self.client.headers["x-csrf-token"]})
                if not r.url.path.startswith("/games/"):
                    return True
                gid = r.url.path.rsplit("/", 1)[1]
                state = self.client.get(f"/api/games/{gid}").json()
                while not state["finished"]:
                    if state["your_turn"]:
                        action = self.rng.choice(state["moves"])["action"]
                        body = {"game_id": gid, "seat": state["seat"], "action": action, "step": state["step"]}
                        r = self.post(f"/api/games/{gid}/move", json=body)
                        assert r.status_code == 200, r.text
                        self.moves.setdefault(gid, []).append((state["step"], action))
                    else:
                        r = self.post(f"/api/games/{gid}/advance", json={"step": state["step"]})
                        assert r.status_code == 200, r.text
                    state = self.last[gid] = r.json()["state"]
                    if stop_after is not None and self.answers >= stop_after:
                        return False
        except httpx.TransportError:  # the server died in the middle of the request
            return False


def check_consistent(person: Participant, records_dir, database: str | None) -> list:
    """After a restart: each game once, ended games ended with one file, acknowledged moves kept."""
    store = Store(database or default_url(records_dir))
    try:
        games = store.games()
        assert len({(g.participant, g.slot) for g in games}) == len(games)
        for gid, moves in person.moves.items():
            stored = store.moves(gid)
            for ply, action in moves:  # every acknowledged move of the person is stored as played
                assert stored[ply] == (store.game(gid).human_seat, action)
        for gid, last in person.last.items():
            state = person.client.get(f"/api/games/{gid}").json()
            assert state["step"] >= last["step"]  # never back before what the person was shown
            assert state["finished"] or not last["finished"]
        ended = [g for g in games if g.over]
        files = sorted(records_dir.glob("*.json"))
        assert sorted(p.name for p in files) == sorted(g.record_name for g in ended)
        for g in ended:
            assert g.status == "finished" and records.load(records_dir / g.record_name)["game_id"] == g.id
        return games
    finally:
        store.close()


def test_a_server_killed_at_every_write_point_counts_every_game_once(tmp_path, database):
    study = tmp_path / "study.yaml"
    study.write_text(yaml.safe_dump(STUDY))
    records_dir = tmp_path / "records"
    server = Server(study, records_dir, database=database)
    person = Participant(server.base)
    try:
        # killed by the server itself at a named point, each in a fresh process
        for number, point in enumerate(("move_stored:4", "finish_committed:1", "record_written:1")):
            server.start({VARIABLE: point})
            if number == 0:
                person.enter()
            else:
                check_consistent(person, records_dir, database)
            assert not person.play(), f"the server did not die at {point}"
            assert server.process.wait(timeout=30) == -9  # SIGKILL, at the point named
        # killed from outside just after an answer: mid-game, then after the answer that ends a game
        server.start()
        check_consistent(person, records_dir, database)
        assert not person.play(stop_after=person.answers + 3)
        server.kill()
        server.start()
        check_consistent(person, records_dir, database)
        ended = sum(state["finished"] for state in person.last.values())
        while sum(state["finished"] for state in person.last.values()) == ended:
            assert not person.play(stop_after=person.answers + 1)
        server.kill()
        server.start()
        check_consistent(person, records_dir, database)
        assert person.play()  # and the rest of the study, to its end
        games = check_consistent(person, records_dir, database)
    finally:
        server.stop()

    assert len(games) == 3 and all(g.status == "finished" for g in games)
    report = summarise([records_dir])
    assert report.files == 3 and report.human_games == 3 and not report.duplicates and not report.unreadable
    out = tmp_path / "export"  # exported in this process: the database holds what the server left
    assert club_envs(["study", str(study), "--records", str(records_dir), *server.database, "--export", str(out)]) == 0
    rows = list(csv.DictReader((out / "outcomes.csv").open()))
    assert sorted(r["game_id"] for r in rows) == sorted(g.id for g in games)
    assert all(r["status"] == "finished" for r in rows)
