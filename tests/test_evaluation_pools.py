"""The held-out evaluation pool: what it holds, that training configs refuse it, and --pool."""

from __future__ import annotations

import json

import pytest

from club_envs.agents.registry import SHIPPED, shipped_names
from club_envs.cli import main
from club_envs.evaluation_pools import (PoolMember, evaluate_pool, format_rows, holdout_names_in, holdout_pool, is_holdout,
                                       pool)
from club_envs.games import load_game
from club_envs.training.config import ConfigFileError, bots_table, from_mapping
from club_envs.training.settings import ArkhamBeliefConfig, BeliefConfig


@pytest.mark.parametrize("game_name", ["members_only", "arkham_decoders"])
def test_the_holdout_pool_holds_the_games_holdout_bots_ismcts_and_its_shipped_agents(game_name):
    game = load_game(game_name)
    members = {m.name: m for m in holdout_pool(game)}
    holdouts = [b for b in game.SPEC.bots if b.startswith("holdout_")]
    assert len(holdouts) == 3 and all(h in members for h in holdouts)
    assert "ismcts" in members
    mine = [n for n in shipped_names() if SHIPPED[n][0] == game.RECORD_NAME]
    assert mine and all(n in members for n in mine)
    assert not [n for n in shipped_names() if SHIPPED[n][0] != game.RECORD_NAME and n in members]
    assert not any(b in members for b in ("heuristic", "random")) and not any("style" in n for n in members)
    if "arkham_black_man" in members:
        assert members["arkham_black_man"].roles == ("black_man",)
    assert pool("holdout", game) == holdout_pool(game)
    with pytest.raises(ValueError, match="unknown evaluation pool 'heldout'; expected one of holdout"):
        pool("heldout", game)


def test_holdout_names_are_found_anywhere_in_a_config():
    assert is_holdout("holdout_margin") and is_holdout("Holdout_Prover:greedy") and not is_holdout("heuristic")
    raw = {"selfplay": {"bots": ["heuristic", "holdout_gambler"]}, "evaluation": {"opponents": ["holdout_greedy"]}}
    assert holdout_names_in(raw) == [("selfplay.bots", "holdout_gambler"), ("evaluation.opponents", "holdout_greedy")]


@pytest.mark.parametrize("raw, key", [
    ({"game": {"name": "members_only", "num_players": 4}, "selfplay": {"bots": ["heuristic", "holdout_margin"]}},
     "selfplay.bots"),
    ({"game": {"name": "members_only", "num_players": 4}, "evaluation": {"opponents": ["holdout_prover"]}},
     "evaluation.opponents"),
    ({"game": {"name": "arkham_decoders", "num_players": 5}, "selfplay": {"bots": ["holdout_impostor"]}},
     "selfplay.bots"),
    ({"recipe": BeliefConfig.RECIPE, "selfplay": {"opponents": ["holdout_gambler"], "opponent_share": 0.5}},
     "selfplay.opponents"),
    ({"recipe": ArkhamBeliefConfig.RECIPE, "evaluation": {"opponents": ["holdout_counter"]}}, "evaluation.opponents"),
])
def test_training_configs_refuse_holdout_bots_with_one_clear_line(raw, key):
    with pytest.raises(ConfigFileError, match=rf"^x\.yaml: {key}: 'holdout_\w+' belongs to the held-out evaluation "
                                              r"pool .*no training run may use"):
        from_mapping(raw, "x.yaml")


def test_training_configs_take_the_style_bots_and_never_list_holdout_bots_as_allowed():
    config = from_mapping({"game": {"name": "members_only", "num_players": 4},
                           "selfplay": {"bots": ["heuristic", "members_only_style_mix", "members_only_style_bold"]}}, "x")
    assert config.selfplay.bots == ("heuristic", "members_only_style_mix", "members_only_style_bold")
    from_mapping({"game": {"name": "arkham_decoders", "num_players": 5}, "selfplay": {"bots": ["arkham_style_mix"]}}, "x")
    assert all(not is_holdout(b) for bots in bots_table().values() for b in bots)
    with pytest.raises(ConfigFileError, match="'arkham_style_mix' is not a members_only bot"):
        from_mapping({"game": {"name": "members_only", "num_players": 4}, "selfplay": {"bots": ["arkham_style_mix"]}}, "x")


def test_belief_configs_take_the_style_mixes_as_data_opponents():
    mo = from_mapping({"recipe": BeliefConfig.RECIPE,
                       "selfplay": {"opponents": ["members_only_style_mix"], "opponent_share": 0.5}}, "x")
    assert mo.opponents == ("members_only_style_mix",)
    ak = from_mapping({"recipe": ArkhamBeliefConfig.RECIPE,
                       "selfplay": {"opponents": ["heuristic", "arkham_style_mix", "arkham_style_bluffer"]}}, "x")
    assert ak.opponents == ("heuristic", "arkham_style_mix", "arkham_style_bluffer")


def test_evaluate_pool_plays_each_member_on_the_sides_it_can_and_repeats_given_its_seed():
    game = load_game("arkham_decoders")
    config = game.Config(num_players=5)
    members = [PoolMember("holdout_greedy"), PoolMember("holdout_counter", ("leader", "member", "investigator"))]
    rows = evaluate_pool(game, config, "heuristic", members, games=6, seed=3)
    assert [(r.opponent, r.side) for r in rows] == [("holdout_greedy", "team"), ("holdout_greedy", "black_man"),
                                                     ("holdout_counter", "black_man")]
    assert all(r.games == 6 and 0 <= r.win_share <= 1 for r in rows)
    assert [r.wins for r in rows] == [r.wins for r in evaluate_pool(game, config, "heuristic", members, 6, 3)]
    mo = load_game("members_only")
    rows = evaluate_pool(mo, mo.Config(num_players=4), "heuristic", [PoolMember("holdout_gambler"),
                                                                     PoolMember("heuristic")], games=4, seed=1)
    assert [(r.opponent, r.side, r.games) for r in rows] == [("holdout_gambler", None, 4)]  # never against itself


def test_a_policy_meets_arkham_pool_members_on_the_batched_engine(monkeypatch):
    import club_envs.evaluation_pools as pools
    from club_envs.vector_evaluation import role_series
    from club_envs.agents.vector_opponents import seated_by_role

    game = load_game("arkham_decoders")
    config = game.Config(num_players=5)
    members = [PoolMember("holdout_greedy"), PoolMember("holdout_counter", ("leader", "member", "investigator"))]
    reference = evaluate_pool(game, config, "arkham_neural", members, games=8, seed=4, batched=False)

    def refuse(*args, **kwargs):
        raise AssertionError("a series the batched engine plays went to the one-game engine")

    monkeypatch.setattr(pools, "play_series", refuse)
    rows = evaluate_pool(game, config, "arkham_neural", members, games=8, seed=4)
    assert {r.engine for r in rows} == {"vector"} and {r.engine for r in reference} == {"reference"}
    expected = [("holdout_greedy", "team", 8), ("holdout_greedy", "black_man", 8), ("holdout_counter", "black_man", 8)]
    assert [(r.opponent, r.side, r.games) for r in rows] == [(r.opponent, r.side, r.games) for r in reference] == expected
    # the Black Man row is the batched series of that line-up, tallied per game
    roles = {"leader": "holdout_counter", "member": "holdout_counter", "investigator": "holdout_counter",
             "black_man": "arkham_neural"}
    seated, reason = seated_by_role(game, config, roles, 4)
    assert reason is None
    direct = role_series("arkham_decoders", 5, roles, seated, 8, 4)
    tally = direct.by_role[("arkham_neural", "black_man")]
    assert rows[-1].wins == pytest.approx(tally.wins / tally.seats * 8)
    assert [r.wins for r in rows] == [r.wins for r in evaluate_pool(game, config, "arkham_neural", members, 8, 4)]


def test_cli_evaluate_pool_writes_a_row_per_opponent(tmp_path, capsys, monkeypatch):
    import club_envs.cli.evaluate as cli_evaluate

    monkeypatch.setattr(cli_evaluate, "pool", lambda name, game: [PoolMember("holdout_prover"),
                                                                  PoolMember("holdout_margin")])
    out = tmp_path / "pool.json"
    assert main(["evaluate", "members_only", "--players", "3", "--agents", "heuristic", "--pool", "holdout",
                 "--games", "3", "--json", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "heuristic against the pool" in printed and "holdout_margin" in printed
    summary = json.loads(out.read_text())
    assert summary["pool"] == "holdout" and [r["opponent"] for r in summary["rows"]] == ["holdout_prover", "holdout_margin"]
    assert main(["evaluate", "members_only", "--players", "3", "--agents", "heuristic,random,random",
                 "--pool", "holdout"]) == 2
    assert "--agents must name one agent" in capsys.readouterr().err
    assert main(["evaluate", "members_only", "--players", "3", "--agents", "player=heuristic", "--pool", "holdout"]) == 2
    capsys.readouterr()
    # an agent's own options hold "=" and are still one agent
    assert main(["evaluate", "members_only", "--players", "3", "--agents", "members_only_belief:temper=0.5",
                 "--pool", "holdout", "--games", "2"]) == 0


def test_a_baseline_plays_the_same_seats_on_the_same_deals():
    """With a baseline every row also holds the baseline's result in the agent's seats against the
    same member on the same deals: a line-up the batched engine plays for the agent but not for the
    baseline (a bot alone) moves both to the reference engine, where the figures are those of each
    agent's own reference series."""
    game = load_game("arkham_decoders")
    config = game.Config(num_players=5)
    members = [PoolMember("holdout_greedy"), PoolMember("heuristic")]
    rows = evaluate_pool(game, config, "arkham_neural", members, games=8, seed=4, baseline="heuristic")
    alone = evaluate_pool(game, config, "arkham_neural", members[:1], games=8, seed=4, batched=False)
    bar = evaluate_pool(game, config, "heuristic", members[:1], games=8, seed=4, batched=False)
    assert [(r.opponent, r.side, r.engine, r.baseline) for r in rows] == [
        ("holdout_greedy", "team", "reference", "heuristic"), ("holdout_greedy", "black_man", "reference", "heuristic")]
    assert [r.wins for r in rows] == [r.wins for r in alone]
    assert [r.baseline_wins for r in rows] == [r.wins for r in bar]
    row = rows[0].as_json()
    assert row["gain"] == pytest.approx(row["win_share"] - row["baseline_win_share"])
    assert "heuristic in the same seats on the same deals" in format_rows("arkham_neural", rows)


def test_cli_evaluate_pool_with_a_baseline(tmp_path, capsys, monkeypatch):
    import club_envs.cli.evaluate as cli_evaluate

    monkeypatch.setattr(cli_evaluate, "pool", lambda name, game: [PoolMember("holdout_margin")])
    out = tmp_path / "pool.json"
    assert main(["evaluate", "members_only", "--players", "3", "--agents", "random", "--pool", "holdout",
                 "--baseline", "heuristic", "--games", "4", "--json", str(out)]) == 0
    assert "gain" in capsys.readouterr().out
    summary = json.loads(out.read_text())
    assert summary["baseline"] == "heuristic" and summary["rows"][0]["baseline"] == "heuristic"
    assert main(["evaluate", "members_only", "--players", "3", "--agents", "random", "--pool", "holdout",
                 "--baseline", "nobody", "--games", "4"]) == 2
    assert "nobody" in capsys.readouterr().err
    assert main(["evaluate", "members_only", "--players", "3", "--agents", "random,random,heuristic",
                 "--baseline", "heuristic", "--games", "4"]) == 2
    assert "--baseline goes with --pool" in capsys.readouterr().err


@pytest.mark.parametrize(("game_name", "players", "agent", "member", "batched"), [
    ("arkham_decoders", 5, "heuristic", "holdout_counter", False),  # two member seats a game on the team side
    ("arkham_decoders", 6, "arkham_neural", "holdout_greedy", True),
    ("members_only", 4, "members_only", "holdout_margin", True),
    ("members_only", 3, "heuristic", "holdout_gambler", False),
])
def test_a_gain_is_paired_game_by_game_on_the_shared_deals(game_name, players, agent, member, batched):
    """The agent measured against itself as the baseline plays the same games, so every game's
    difference is 0 and the paired interval is [0, 0] -- it would not be if the two series' games
    were out of step (a side's several seats, the batched engine's parts of the series)."""
    game = load_game(game_name)
    config = game.Config(num_players=players)
    rows = evaluate_pool(game, config, agent, [PoolMember(member)], games=12, seed=5, batched=batched, baseline=agent)
    assert rows and {r.engine for r in rows} == {"vector" if batched else "reference"}
    for row in rows:
        assert row.wins == row.baseline_wins and row.gain_interval == (0.0, 0.0)
        assert row.as_json()["gain_95ci"] == [0.0, 0.0]


def test_a_gain_has_a_paired_interval_narrower_than_two_independent_ones():
    """Against the heuristic baseline on the same deals the interval holds the gain, and it is
    narrower than the one two independent series would give (the deals' luck is shared)."""
    from club_envs.stats import wilson_interval
    from club_envs.study_stats import paired_difference

    game = load_game("arkham_decoders")
    config = game.Config(num_players=5)
    row = evaluate_pool(game, config, "arkham_neural", [PoolMember("holdout_greedy")], games=200, seed=6,
                        baseline="heuristic")[0]
    low, high = row.gain_interval
    assert low < row.win_share - row.baseline_share < high
    independent = [wilson_interval(w, row.games) for w in (row.wins, row.baseline_wins)]
    assert high - low < sum(hi - lo for lo, hi in independent) / 2 * 2 ** 0.5
    assert "paired 95%" in format_rows("arkham_neural", [row])
    with pytest.raises(ValueError, match="pairs"):
        paired_difference([1.0, 0.0], [1.0])


def test_cli_evaluate_pool_plays_only_the_members_asked_for(tmp_path, capsys):
    out = tmp_path / "pool.json"
    assert main(["evaluate", "members_only", "--players", "3", "--agents", "random", "--pool", "holdout",
                 "--members", "holdout_prover,holdout_margin", "--baseline", "heuristic", "--games", "4",
                 "--json", str(out)]) == 0
    summary = json.loads(out.read_text())
    assert summary["members"] == [r["opponent"] for r in summary["rows"]] == ["holdout_margin", "holdout_prover"]
    assert all(len(r["gain_95ci"]) == 2 for r in summary["rows"])
    assert (summary["games"], summary["seed"], summary["engine"]) == (4, 0, "auto")  # the command, restated
    capsys.readouterr()
    assert main(["evaluate", "members_only", "--players", "3", "--agents", "random", "--pool", "holdout",
                 "--members", "holdout_margin,nobody", "--games", "4"]) == 2
    err = capsys.readouterr().err
    assert "nobody not in the holdout pool" in err and "holdout_gambler" in err and "ismcts" in err
    assert main(["evaluate", "members_only", "--players", "3", "--agents", "random", "--members", "holdout_margin",
                 "--games", "4"]) == 2
    assert "--members goes with --pool" in capsys.readouterr().err
