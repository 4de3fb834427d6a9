"""evaluate and league: statistics on agents whose strength is known, seat rotation, outputs."""

from __future__ import annotations

import json

import pytest

from club_envs.agents.base import RandomAgent
from club_envs.cli import main
from club_envs.evaluation import play_series
from club_envs.games import load_game


def test_heuristic_wins_clearly_more_than_its_share_against_random_bots():
    game = load_game("members_only")
    result = play_series(game, game.Config(num_players=4), seat_agents=["heuristic", "random", "random", "random"],
                         games=30, seed=1)
    heuristic = result.by_agent["heuristic"]
    lo, hi = heuristic.interval
    assert heuristic.seats == 30 and lo > 0.25  # a quarter is what seat luck alone would give
    assert result.by_agent["random"].seats == 90
    assert heuristic.mean_score > result.by_agent["random"].mean_score


def test_equal_agents_share_the_wins_evenly_within_the_interval():
    game = load_game("members_only")
    result = play_series(game, game.Config(num_players=3), seat_agents=["random"] * 3, games=150, seed=2)
    tally = result.by_agent["random"]
    lo, hi = tally.interval
    assert tally.seats == 450 and lo < 1 / 3 < hi


def test_seats_rotate_so_every_agent_sits_everywhere_equally():
    game = load_game("members_only")

    def make(name, seed):
        agent = RandomAgent(seed)
        agent.name = name
        return agent

    result = play_series(game, game.Config(num_players=4), seat_agents=["a", "b", "c", "d"], games=8, seed=3,
                         make=make, keep_records=True)
    seats_of_a = [next(s["seat"] for s in r["seats"] if s["controller"] == "a") for r in result.records]
    assert seats_of_a == [0, 3, 2, 1, 0, 3, 2, 1]
    assert all(t.seats == 8 for t in result.by_agent.values())


def test_arkham_per_role_figures_show_the_heuristic_team_beats_a_random_one():
    game = load_game("arkham")
    config = game.Config(num_players=5)
    heuristic = play_series(game, config, role_agents={"leader": "heuristic", "member": "heuristic",
                                                       "investigator": "heuristic", "black_man": "random"},
                            games=150, seed=4)
    random_team = play_series(game, config, role_agents={"leader": "random", "member": "random",
                                                         "investigator": "random", "black_man": "random"},
                              games=150, seed=4)
    h_lo, _ = heuristic.by_role[("heuristic", "leader")].interval
    _, r_hi = random_team.by_role[("random", "leader")].interval
    assert h_lo > r_hi
    assert {role for (_, role) in heuristic.by_role} == {"leader", "member", "investigator", "black_man"}
    # a team wins or loses together: the Black Man's win share is the team's complement
    assert heuristic.by_role[("random", "black_man")].win_share == pytest.approx(
        1 - heuristic.by_role[("heuristic", "leader")].win_share)


def test_evaluate_cli_writes_json_and_records(tmp_path, capsys):
    out, records = tmp_path / "summary.json", tmp_path / "records"
    code = main(["evaluate", "arkham_decoders", "--players", "4", "--agents", "heuristic,random,random,random",
                 "--games", "5", "--seed", "1", "--json", str(out), "--records", str(records), "--no-progress"])
    assert code == 0
    summary = json.loads(out.read_text())
    assert summary["games"] == 5 and {a["agent"] for a in summary["agents"]} == {"heuristic", "random"}
    row = next(a for a in summary["agents"] if a["agent"] == "heuristic")
    assert row["seats"] == 5 and len(row["win_share_95ci"]) == 2
    assert any(r["role"] == "black_man" for r in summary["roles"])
    assert len(list(records.glob("*.json"))) == 5
    assert "95% interval" in capsys.readouterr().out


def test_evaluate_cli_rejects_an_unknown_agent_naming_the_choices(capsys):
    assert main(["evaluate", "members_only", "--players", "4", "--agents", "grandmaster", "--games", "2"]) == 2
    err = capsys.readouterr().err
    assert "unknown agent 'grandmaster'" in err and "random, heuristic" in err


def test_evaluate_cli_rejects_a_player_count_naming_the_allowed_ones(capsys):
    assert main(["evaluate", "members_only", "--players", "7", "--agents", "random", "--games", "2"]) == 2
    assert "takes 3, 4, 5 players, not 7" in capsys.readouterr().err


def test_league_rates_the_heuristic_above_random_on_each_arkham_side(tmp_path, capsys):
    out = tmp_path / "league.json"
    assert main(["league", "arkham", "--players", "5", "--agents", "random,heuristic", "--games", "60",
                 "--json", str(out), "--no-progress"]) == 0
    table = json.loads(out.read_text())["ratings"]
    for side in ("team", "black_man"):  # one rating per agent and side; they compare within a side
        rows = [row for row in table if row["side"] == side]
        assert [row["agent"] for row in rows] == ["heuristic", "random"]
        assert rows[0]["mu"] > rows[1]["mu"]
    seats = {(row["agent"], row["side"]): row["seats"] for row in table}
    # 2 ordered pairings x 60 games: each agent is the whole team (4 seats) in 60 games, the Black Man in 60
    assert seats == {("heuristic", "team"): 240, ("random", "team"): 240,
                     ("heuristic", "black_man"): 60, ("random", "black_man"): 60}
    printed = capsys.readouterr().out
    assert "as the team" in printed and "as the Black Man" in printed


def test_arkham_league_ratings_follow_win_shares_with_a_lopsided_side(tmp_path):
    """A strong Black Man against weak teams and a weak Black Man against strong teams: with one
    rating per agent the Black Man's side advantage leaked into the ratings; per side, the order of
    the ratings is the order of the win shares. The shipped ``arkham_decoders`` wins every game
    as the Black Man here but is no better a team than the heuristic."""
    out = tmp_path / "league.json"
    assert main(["league", "arkham", "--players", "5", "--agents", "random,heuristic,arkham_decoders",
                 "--games", "12", "--seed", "3", "--json", str(out), "--no-progress"]) == 0
    table = json.loads(out.read_text())["ratings"]
    for side in ("team", "black_man"):
        rows = [row for row in table if row["side"] == side]
        assert rows[-1]["agent"] == "random"
        shares = [row["win_share"] for row in rows]
        assert len(set(shares)) == 3 and shares == sorted(shares, reverse=True)  # listed by rating
        assert [row["mu"] for row in rows] == sorted((row["mu"] for row in rows), reverse=True)
    black_man = {row["agent"]: row for row in table if row["side"] == "black_man"}
    assert black_man["arkham_decoders"]["win_share"] == 1.0  # the lopsided side


def test_members_only_league_plays_every_group_of_players(tmp_path):
    out = tmp_path / "league.json"
    assert main(["league", "members_only", "--players", "3", "--agents", "random,heuristic", "--games", "4",
                 "--json", str(out), "--no-progress"]) == 0
    table = {row["agent"]: row for row in json.loads(out.read_text())["ratings"]}
    assert table["heuristic"]["mu"] > table["random"]["mu"]
    assert table["heuristic"]["seats"] + table["random"]["seats"] == 12


def test_a_series_split_over_worker_processes_gives_the_same_totals():
    from club_envs.evaluation import play_series_parallel

    game = load_game("arkham")
    config = game.Config(num_players=4)
    lineup = ["heuristic", "random", "random", "random"]
    serial = play_series(game, config, seat_agents=lineup, games=12, seed=5)
    parallel = play_series_parallel(game, config, seat_agents=lineup, games=12, seed=5, workers=2)
    assert parallel.as_json() == serial.as_json()


def test_workers_finish_after_the_parent_has_run_torch():
    """A shipped policy is read with torch in the parent before the workers start; forked workers
    could hang on a lock torch's thread pool held at the fork, so they are spawned."""
    import torch

    from club_envs.agents import registry
    from club_envs.evaluation import play_series_parallel

    torch.ones(64, 64) @ torch.ones(64, 64)  # the parent's thread pool is up
    game = load_game("members_only")
    config = game.Config(num_players=4)
    registry.load("members_only", game=game, config=config)
    lineup = ["members_only", "heuristic", "heuristic", "heuristic"]
    serial = play_series(game, config, seat_agents=lineup, games=6, seed=9)
    parallel = play_series_parallel(game, config, seat_agents=lineup, games=6, seed=9, workers=2)
    assert parallel.as_json() == serial.as_json()


def test_evaluate_plays_one_agent_against_one_bot_on_the_batched_engine(tmp_path, capsys):
    """The same series on both engines: the batched one says so, both tally every seat, and their
    win shares agree within the intervals (the two engines deal different games for a seed)."""
    args = ["evaluate", "members_only", "--players", "4", "--agents", "members_only_belief,heuristic,heuristic,heuristic",
            "--games", "120", "--seed", "3", "--no-progress"]
    summaries = {}
    for engine in ("vector", "reference"):
        out = tmp_path / f"{engine}.json"
        assert main([*args, "--engine", engine, "--json", str(out)]) == 0
        summaries[engine] = {a["agent"]: a for a in json.loads(out.read_text())["agents"]}
    printed = capsys.readouterr().out
    assert printed.count("120 games on the batched engine") == 1
    for engine, rows in summaries.items():
        assert rows["members_only_belief"]["seats"] == 120 and rows["heuristic"]["seats"] == 360, engine
    (vlo, vhi), (rlo, rhi) = (summaries[e]["members_only_belief"]["win_share_95ci"] for e in ("vector", "reference"))
    assert vlo < rhi and rlo < vhi, "the two series agree within their intervals"
    assert main(["evaluate", "members_only", "--players", "4", "--agents", "heuristic,random,random,heuristic",
                 "--games", "2", "--engine", "vector"]) == 2
    assert "the batched engine cannot play this series: it plays one agent against bots" in capsys.readouterr().err


def test_a_table_of_different_bots_plays_on_the_batched_engine_seat_by_seat(tmp_path, capsys):
    out = tmp_path / "mixed.json"
    assert main(["evaluate", "members_only", "--players", "4", "--agents",
                 "members_only_belief,holdout_margin,holdout_prover,holdout_gambler", "--games", "40", "--seed", "2",
                 "--json", str(out), "--no-progress"]) == 0
    assert "40 games on the batched engine" in capsys.readouterr().out
    rows = {a["agent"]: a for a in json.loads(out.read_text())["agents"]}
    assert {name: row["seats"] for name, row in rows.items()} == {
        "members_only_belief": 40, "holdout_margin": 40, "holdout_prover": 40, "holdout_gambler": 40}
    assert sum(row["win_share"] * row["seats"] for row in rows.values()) == pytest.approx(40), "one win per game"


def test_a_line_up_by_role_plays_on_the_batched_engine_with_every_role_tallied(tmp_path, capsys):
    """Arkham line-ups by role (a policy's side against bots, held-out bots by their reference code
    included) play on the batched engine: per role its seats, a side's win whole for every seat of
    it, and the same figures as the reference engine within the intervals."""
    agents = "leader=arkham_team,member=arkham_team,investigator=arkham_team,black_man=holdout_counter"
    summaries = {}
    for engine in ("auto", "reference"):
        out = tmp_path / f"{engine}.json"
        assert main(["evaluate", "arkham_decoders", "--players", "5", "--agents", agents, "--games", "200",
                     "--seed", "4", "--engine", engine, "--json", str(out), "--no-progress"]) == 0
        summaries[engine] = {(r["agent"], r["role"]): r for r in json.loads(out.read_text())["roles"]}
    assert capsys.readouterr().out.count("200 games on the batched engine") == 1
    for engine, rows in summaries.items():
        seats = {key: row["seats"] for key, row in rows.items()}
        assert seats == {("arkham_team", "leader"): 200, ("arkham_team", "member"): 400,
                         ("arkham_team", "investigator"): 200, ("holdout_counter", "black_man"): 200}, engine
        team = {rows[("arkham_team", r)]["win_share"] for r in ("leader", "member", "investigator")}
        assert len(team) == 1 and team.pop() + rows[("holdout_counter", "black_man")]["win_share"] == pytest.approx(1)
    (vlo, vhi), (rlo, rhi) = (summaries[e][("arkham_team", "leader")]["win_share_95ci"] for e in ("auto", "reference"))
    assert vlo < rhi and rlo < vhi, "the two series agree within their intervals"
    # a Black Man policy against the compiled heuristic team; bots alone stay on the reference engine
    assert main(["evaluate", "arkham_decoders", "--players", "4", "--agents",
                 "leader=heuristic,member=heuristic,investigator=heuristic,black_man=arkham_black_man",
                 "--games", "40", "--seed", "1", "--no-progress"]) == 0
    assert "40 games on the batched engine" in capsys.readouterr().out
    assert main(["evaluate", "arkham_decoders", "--players", "4", "--agents",
                 "leader=heuristic,member=heuristic,investigator=heuristic,black_man=heuristic",
                 "--games", "4", "--engine", "vector"]) == 2
    assert "needs a policy in one of the roles" in capsys.readouterr().err
