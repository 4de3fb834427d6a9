"""Study mode: the file is checked, participants enter a code, play their counterbalanced
schedule (fixed deals where the study fixes seeds), see only their own games, and the owner
exports every game exactly once and reports per condition and role."""

from __future__ import annotations

import csv
import io
import random
from collections import Counter
from itertools import pairwise

import pytest
import yaml

from club_envs import records
from club_envs.cli import main
from club_envs.study import plan as plans
from club_envs.study.plan import StudyFileError, balanced_latin_square
from club_envs.study.report import condition_rows
from club_envs.web.app import create_app
from tests.play.databases import cli_args
from tests.play.web_client import browser

STUDY = {
    "name": "pilot",
    "participants": ["alpha-1", "bravo-2", "charlie-3"],
    "games_per_condition": 1,
    "consent": "You will play two short games.\n\nYour games are recorded without your name.",
    "conditions": [
        {"name": "mo_random", "game": "members_only", "players": 3, "seat": 0, "opponents": "random",
         "seeds": [22]},
        {"name": "ak_black_man", "game": "arkham_decoders", "players": 4, "role": "black_man",
         "opponents": {"leader": "random", "member": "random", "investigator": "heuristic"}},
    ],
}


@pytest.fixture
def study_file(tmp_path):
    path = tmp_path / "study.yaml"
    path.write_text(yaml.safe_dump(STUDY))
    return path


@pytest.fixture
def app(tmp_path, study_file, database):
    return create_app(tmp_path / "records", study=plans.load(study_file), database=database)


def enter(app, code: str, consent: bool = True):
    client = browser(app, start="/study")
    r = client.post("/study/enter", data={"code": code, "consent": "yes" if consent else "", "csrf": client.token},
                    follow_redirects=False)
    assert r.status_code == 303, r.text
    return client


def next_game(client) -> str:
    r = client.post("/study/next", data={"csrf": client.token}, follow_redirects=False)
    assert r.status_code == 303
    assert r.headers["location"].startswith("/games/"), r.headers["location"]
    return r.headers["location"].rsplit("/", 1)[1]


def play_to_end(client, gid, seed=0) -> dict:
    rng = random.Random(seed)
    state = client.get(f"/api/games/{gid}").json()
    while not state["finished"]:
        if not state["your_turn"]:
            state = client.post(f"/api/games/{gid}/advance", json={"step": state["step"]}).json()["state"]
            continue
        body = {"game_id": gid, "seat": state["seat"], "action": rng.choice(state["moves"])["action"],
                "step": state["step"]}
        r = client.post(f"/api/games/{gid}/move", json=body)
        assert r.status_code == 200, r.text
        state = r.json()["state"]
    return state


# ---------------------------------------------------------------------------- the file

@pytest.mark.parametrize("change,message", [
    ({"colour": "red"}, "unknown key 'colour'; allowed keys:"),
    ({"participants": 0}, "participants: 0 is not allowed; allowed values: 1..10000"),
    ({"order": "random"}, "order: 'random' is not allowed; allowed values: latin_square, as_listed"),
    ({"games_per_condition": 2}, "conditions[0].seeds: lists 1 seeds; give exactly games_per_condition (2)"),
    ({"conditions": [{"name": "a", "game": "members_only", "players": 6, "opponents": "random"}]},
     "conditions[0].players: 6 is not allowed for members_only; allowed values: 3, 4, 5"),
    ({"conditions": [{"name": "a", "game": "members_only", "players": 3, "seat": 3, "opponents": "random"}]},
     "conditions[0].seat: 3 is not allowed; allowed values: 0..2 or random"),
    ({"conditions": [{"name": "a", "game": "members_only", "players": 3, "role": "leader", "opponents": "random"}]},
     "members_only has no roles"),
    ({"conditions": [{"name": "a", "game": "go", "players": 3, "opponents": "random"}]},
     "conditions[0].game: 'go' is not allowed"),
])
def test_a_bad_study_file_is_refused_with_the_key_and_what_is_allowed(tmp_path, change, message):
    path = tmp_path / "bad.yaml"
    path.write_text(yaml.safe_dump({**STUDY, **change}))
    with pytest.raises(StudyFileError) as err:
        plans.load(path)
    assert message in str(err.value)


def test_the_study_command_names_a_bad_agent_in_one_line(tmp_path, capsys):
    path = tmp_path / "bad.yaml"
    bad = dict(STUDY, conditions=[dict(STUDY["conditions"][0], opponents="/etc/hostname")])
    path.write_text(yaml.safe_dump(bad))
    assert main(["study", str(path), "--check"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "unknown agent '/etc/hostname'; choose one of: random" in err


@pytest.mark.parametrize("k", [2, 3, 4, 5])
def test_the_latin_square_balances_places_and_successions(k):
    rows = balanced_latin_square(k)
    assert all(sorted(row) == list(range(k)) for row in rows)
    for place in range(k):  # each condition equally often at each place
        assert len(set(Counter(row[place] for row in rows).values())) == 1
    follows = Counter(pair for row in rows for pair in pairwise(row))  # and after each other one
    assert len(follows) == k * (k - 1) and len(set(follows.values())) == 1


# ---------------------------------------------------------------------------- participants

def test_a_wrong_code_or_missing_consent_gets_a_clear_page(app):
    client = browser(app, start="/study")
    page = client.get("/study").text
    assert "You will play two short games." in page and 'name="consent"' in page
    r = client.post("/study/enter", data={"code": "nobody", "consent": "yes", "csrf": client.token})
    assert r.status_code == 400 and "unknown participant code" in r.text
    r = client.post("/study/enter", data={"code": "alpha-1", "csrf": client.token})
    assert r.status_code == 400 and "tick the box" in r.text
    assert client.post("/study/next", data={"csrf": client.token}, follow_redirects=False).headers["location"] == "/study"
    r = client.post("/games", data={"game": "members_only", "players": 3, "opponent": "random", "csrf": client.token})
    assert r.status_code == 403 and "runs a study" in r.text


def test_participants_play_their_schedule_and_see_only_their_games(app, tmp_path):
    alpha, bravo = enter(app, "alpha-1"), enter(app, "bravo-2")
    assert "0</b> of <b>2</b> games played" in alpha.get("/study").text
    a1, b1 = next_game(alpha), next_game(bravo)
    assert next_game(alpha) == a1  # an unfinished game is continued, never doubled
    # counterbalanced: the two participants start with different conditions
    store = app.state.store
    assert {store.game(a1).condition, store.game(b1).condition} == {"mo_random", "ak_black_man"}
    assert bravo.get(f"/api/games/{a1}").status_code == 403
    page = alpha.get(f"/games/{a1}").text
    assert "random" not in page.split('id="table"')[1].split("</section>")[0]  # a blind study: no agent names
    final = play_to_end(alpha, a1)
    assert "record-link" not in final["moves_html"] and "Continue the study" in final["moves_html"]
    a2 = next_game(alpha)
    play_to_end(alpha, a2, seed=1)
    assert "You have played every game of the study" in alpha.get("/study").text
    assert alpha.post("/study/next", data={"csrf": alpha.token}, follow_redirects=False).headers["location"] == "/study"
    # the same code in another browser continues the same participant
    again = enter(app, "alpha-1")
    assert "2</b> of <b>2</b> games played" in again.get("/study").text
    assert again.get("/results").text.count("<tr class=") == 2  # their own games only
    assert bravo.get("/results").text.count("<tr class=") == 1
    # fixed seeds: every participant meets the same Members Only deal
    if store.game(b1).condition != "mo_random":
        play_to_end(bravo, b1, seed=2)
        b1 = next_game(bravo)
    mo_games = [g for g in store.games() if g.condition == "mo_random"]
    assert len(mo_games) == 2 and {g.seed for g in mo_games} == {22}
    first_view = [app.state.live[g.id].game.history[0].view for g in mo_games]
    assert first_view[0] == first_view[1]


def test_the_owner_sees_progress_exports_each_game_once_and_reports(app, tmp_path, study_file, capsys, database):
    players = {code: enter(app, code) for code in ("alpha-1", "bravo-2", "charlie-3")}
    for i, (code, client) in enumerate(players.items()):
        gid = next_game(client)
        play_to_end(client, gid, seed=i)
        if code != "charlie-3":  # charlie leaves the second game half-way
            play_to_end(client, next_game(client), seed=10 + i)
        else:
            gid = next_game(client)
            client.post(f"/api/games/{gid}/quit")
    owner = browser(app, start="/study")
    owner.get(f"/admin?token={app.state.admin_token}")
    progress = owner.get("/admin").text
    assert progress.count("<tr><td><code>") == 3
    r = owner.get("/admin/outcomes.csv")
    rows = list(csv.DictReader(io.StringIO(r.text)))
    assert len(rows) == 6 and len({row["game_id"] for row in rows}) == 6
    assert Counter(row["status"] for row in rows) == {"finished": 5, "abandoned": 1}
    assert Counter(row["participant"] for row in rows) == {"alpha-1": 2, "bravo-2": 2, "charlie-3": 2}
    # the command-line export and report read the same database
    out = tmp_path / "export"
    assert main(["study", str(study_file), "--records", str(tmp_path / "records"), *cli_args(database),
                 "--export", str(out)]) == 0
    exported = list(csv.DictReader((out / "outcomes.csv").open()))
    assert sorted(r["game_id"] for r in exported) == sorted(r["game_id"] for r in rows)
    assert len(list((out / "records").glob("*.json"))) == 6
    assert main(["study", str(study_file), "--records", str(tmp_path / "records"), *cli_args(database), "--report",
                 "--baseline-games", "5"]) == 0
    text = capsys.readouterr().out
    assert "ak_black_man" in text and "black_man" in text and "heuristic n=5" in text
    rows = condition_rows(g.record for g in app.state.store.games() if g.record)
    by = {(r.condition, r.role): r for r in rows}
    assert by[("mo_random", None)].games == 3 and by[("mo_random", None)].even_share == pytest.approx(1 / 3)
    assert by[("ak_black_man", "black_man")].games + by[("ak_black_man", "black_man")].unfinished == 3
    assert main(["report", str(tmp_path / "records"), "--no-chart", "--csv", str(tmp_path / "r.csv")]) == 0
    assert "By condition and role" in capsys.readouterr().out
    # a record copied under another name: the files count it once and say so; the database is unmoved
    first = next((tmp_path / "records").glob("*.json"))
    (tmp_path / "records" / "copy.json").write_bytes(first.read_bytes())
    assert main(["report", str(tmp_path / "records"), "--no-chart", "--csv", str(tmp_path / "r.csv")]) == 0
    text = capsys.readouterr().out
    assert text.startswith("5 finished human games read from 7 files; 1 unfinished")
    assert f"counted once: game {records.load(first)['game_id']} is in 2 files" in text and "copy.json" in text
    from club_envs.study.report import rows_from_files

    assert rows_from_files([tmp_path / "records"]) == condition_rows(g.record for g in app.state.store.games())
    out = tmp_path / "export2"
    assert main(["study", str(study_file), "--records", str(tmp_path / "records"), *cli_args(database),
                 "--export", str(out)]) == 0
    assert len(list(csv.DictReader((out / "outcomes.csv").open()))) == 6


def test_generated_codes_are_made_once_and_kept(tmp_path, database):
    from club_envs.store import Store, default_url

    path = tmp_path / "study.yaml"
    path.write_text(yaml.safe_dump({**STUDY, "participants": 4, "records": "records"}))
    for _ in range(2):
        assert main(["study", str(path), *cli_args(database), "--export", str(tmp_path / "out")]) == 0
    store = Store(database or default_url(tmp_path / "records"))
    codes = [code for code, _, _ in store.participants()]
    assert len(codes) == 4 and len(set(codes)) == 4
    assert all(code.startswith("P-") and len(code) == 12 for code in codes)
    plan = plans.load(path)
    plan.codes = codes
    app = create_app(tmp_path / "records", study=plan, database=database)
    client = enter(app, codes[3])
    assert "0</b> of <b>2</b> games played" in client.get("/study").text


def test_the_documented_study_is_sound_with_generated_codes_and_its_own_seeds_per_condition(tmp_path):
    from pathlib import Path

    docs = (Path(__file__).parents[2] / "docs" / "studies.md").read_text(encoding="utf-8")
    example = docs.split("```yaml\n", 1)[1].split("```", 1)[0]
    (tmp_path / "pilot.yaml").write_text(example)
    plan = plans.load(tmp_path / "pilot.yaml")
    assert plan.generate_codes == 12
    seeds = [seed for c in plan.conditions for seed in (c.seeds or [])]
    assert seeds and len(seeds) == len(set(seeds))  # no deal met twice by one participant


def test_export_and_csv_paths_are_checked_before_anything_is_written(tmp_path, study_file, capsys):
    a_file = tmp_path / "taken"
    a_file.write_text("not a folder")
    records = tmp_path / "records"
    for argv, problem in (
        (["--export", str(a_file)], f"--export {a_file}: is a file; give a folder"),
        (["--export", str(a_file / "out")], f"--export {a_file / 'out'}: {a_file} is a file"),
        (["--report", "--csv", str(tmp_path)], f"--csv {tmp_path}: is a folder; give a file name"),
    ):
        assert main(["study", str(study_file), "--records", str(records), *argv]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and err[0].startswith(f"club-envs study: error: {problem}")
    assert not records.exists() and not records.with_name("records.sqlite").exists()
