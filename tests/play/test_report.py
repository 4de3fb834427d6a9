"""``club-envs report``: agents against people, from the records of human games."""

from __future__ import annotations

import csv

import pytest

from club_envs import records
from club_envs.cli import main
from club_envs.games import load_game
from club_envs.play.human_game import HumanGame
from club_envs.report import ALL_ROLES, summarise
from club_envs.stats import wilson_interval
from tests.play.conftest import play_out


@pytest.fixture(scope="module")
def study(tmp_path_factory):
    """A small study: 4 Members Only games, 3 Arkham games, one quit game, one agents-only game."""
    folder = tmp_path_factory.mktemp("study")
    games = []
    for seed in range(4):
        g = HumanGame.create("members_only", num_players=3, seat=seed % 3, opponents="heuristic,random", seed=seed)
        play_out(g, seed=seed)
        g.save(folder / "mo")
        games.append(g)
    for seed, role in enumerate(["leader", "black_man", "member"]):
        g = HumanGame.create("arkham_decoders", num_players=4, role=role, opponents="heuristic", seed=seed)
        play_out(g, seed=seed)
        g.save(folder / "ak")
        games.append(g)
    quitter = HumanGame.create("members_only", num_players=3, seat=0, opponents="random", seed=9)
    quitter.quit()
    quitter.save(folder / "mo")
    game = load_game("members_only")
    config = game.Config(num_players=3)
    bots = game.play_match(config, [game.make_agent("random", config, seed=s) for s in range(3)], seed=1)
    records.save(bots, folder / "bots" / "bots.json")
    return folder, games


def test_counts_games_wins_and_scores_per_agent(study):
    folder, games = study
    report = summarise([folder])
    assert report.files == 9
    assert report.human_games == 7 and report.unfinished == 1 and report.without_human == 1
    mo = {r.agent: r for r in report.agents if r.game == "members_only"}
    assert set(mo) == {"heuristic", "random"}
    mo_games = [g for g in games if g.game.RECORD_NAME == "members_only"]
    for agent, row in mo.items():
        seats = [(g, s) for g in mo_games for s, name in g.agent_names.items() if name == agent]
        assert row.games == len(mo_games) and row.seats == len(seats)
        human_wins = sum((g.human_seat in g.state.result["winners"]) / len(g.state.result["winners"]) for g in mo_games)
        assert row.human_win_share == pytest.approx(human_wins / len(mo_games))
        agent_wins = sum((s in g.state.result["winners"]) / len(g.state.result["winners"]) for g, s in seats)
        assert row.agent_win_share == pytest.approx(agent_wins / len(seats))
        assert row.agent_interval == pytest.approx(wilson_interval(agent_wins, len(seats)))
        assert row.agent_mean_score == pytest.approx(sum(g.state.result["scores"][s] for g, s in seats) / len(seats))


def test_arkham_rows_per_role_of_the_agent(study):
    folder, games = study
    report = summarise([folder])
    rows = {(r.agent, r.role): r for r in report.agents if r.game == "arkham_decoders_club"}
    assert ("heuristic", ALL_ROLES) in rows
    ak_games = [g for g in games if g.game.RECORD_NAME == "arkham_decoders_club"]
    for role in ("leader", "member", "investigator", "black_man"):
        with_role = [g for g in ak_games if any(g.state.role_of(s) == role for s in g.agent_names)]
        assert rows[("heuristic", role)].games == len(with_role)
        human_wins = sum(g.human_seat in g.state.result["winners"] for g in with_role)
        assert rows[("heuristic", role)].human_win_share == pytest.approx(human_wins / len(with_role))
    people = {h.role: h for h in report.humans if h.game == "arkham_decoders_club"}
    assert people[ALL_ROLES].games == 3
    assert people["black_man"].games == 1 and people["leader"].games == 1


def test_cli_prints_a_table_and_writes_csv_and_png(study, tmp_path, capsys):
    folder, _ = study
    csv_path, png_path = tmp_path / "out" / "report.csv", tmp_path / "out" / "report.png"
    assert main(["report", str(folder / "mo"), str(folder / "ak"), "--csv", str(csv_path), "--png", str(png_path)]) == 0
    out = capsys.readouterr().out
    assert "7 finished human games read from 8 files; 1 unfinished games not scored" in out
    assert "Agents against people" in out and "People" in out
    with csv_path.open() as f:
        rows = list(csv.DictReader(f))
    assert {(r["game"], r["agent"], r["role"]) for r in rows} >= {
        ("members_only", "heuristic", ""), ("members_only", "random", ""),
        ("arkham_decoders_club", "heuristic", "black_man"),
    }
    for r in rows:
        assert float(r["human_win_low"]) <= float(r["human_win_share"]) <= float(r["human_win_high"])
        assert float(r["agent_win_low"]) <= float(r["agent_win_share"]) <= float(r["agent_win_high"])
    assert png_path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_missing_path_is_a_clear_error(capsys, tmp_path):
    assert main(["report", str(tmp_path / "nowhere"), "--no-chart", "--csv", str(tmp_path / "r.csv")]) == 2
    assert "no such record file or folder" in capsys.readouterr().err


def test_corrupt_record_is_reported_not_fatal(tmp_path):
    (tmp_path / "bad.json").write_text("{not json")
    report = summarise([tmp_path])
    assert report.files == 1 and len(report.unreadable) == 1 and "not a JSON record" in report.unreadable[0]


def test_a_game_in_several_files_is_counted_once_and_named(study, tmp_path):
    import json
    import shutil

    folder, games = study
    copy = tmp_path / "copy"
    shutil.copytree(folder, copy)
    first = copy / "mo" / games[0].record_name
    shutil.copy(first, copy / "mo" / "renamed.json")  # the same record under another name
    # the same game finished twice with different moves (an older server, restarted in between)
    again = json.loads((copy / "mo" / games[1].record_name).read_text())
    again["ended_at"] = "2099-01-01T00:00:00+00:00"
    (copy / "again.json").write_text(json.dumps(again))
    report = summarise([copy])
    assert report.files == 11 and report.human_games == 7
    base = summarise([folder])
    assert report.agents == base.agents and report.humans == base.humans  # as if each game were one file
    assert len(report.duplicates) == 2
    same = next(n for n in report.duplicates if "renamed.json" in n)
    assert "same record" in same and str(first) in same and games[0].game_id in same
    different = next(n for n in report.duplicates if "again.json" in n)
    assert "different records" in different and f"from {copy / 'again.json'}" in different


def test_old_records_without_a_game_id_are_counted_once_by_their_deal(study, tmp_path):
    import json

    folder, games = study
    record = json.loads((folder / "mo" / games[0].record_name).read_text())
    del record["game_id"]  # as written before records carried their game's id
    for name in ("members_only_20261129T123157_abcdefgh.json", "members_only_20261129T123210_abcdefgh.json"):
        (tmp_path / name).write_text(json.dumps(record))
    report = summarise([tmp_path])
    assert report.files == 2 and report.human_games == 1
    assert len(report.duplicates) == 1 and "one game is in 2 files" in report.duplicates[0]


def test_the_cli_names_the_files_of_a_game_counted_once(study, tmp_path, capsys):
    import shutil

    folder, games = study
    shutil.copy(folder / "mo" / games[0].record_name, tmp_path / "copy.json")
    shutil.copy(folder / "mo" / games[0].record_name, tmp_path / "copy2.json")
    assert main(["report", str(tmp_path), "--csv", str(tmp_path / "out.csv"), "--no-chart"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("1 finished human games read from 2 files")
    assert "counted once:" in out and "copy.json" in out and "copy2.json" in out
