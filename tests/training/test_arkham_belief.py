"""The Arkham belief trainer: its config, its labels are the truth, a tiny run resumes and repeats."""

from __future__ import annotations

import csv
import dataclasses
import json
import re
from pathlib import Path

import numpy as np
import pytest
import yaml

from club_envs.arkham_decoders import actions as A
from club_envs.arkham_decoders.belief_agent import BeliefAgent
from club_envs.arkham_decoders.belief_model import BeliefModel, advisor_slots
from club_envs.arkham_decoders.bots import HeuristicAgent
from club_envs.arkham_decoders.engine import State
from club_envs.arkham_decoders.rules import NUM_BOOKS, Config
from club_envs.arkham_decoders.vote_value import VOTES, BlackManAgent, VoteValueModel
from club_envs.cli import main
from club_envs.training import arkham_belief
from club_envs.training import config as configs
from club_envs.training import train as trainer
from club_envs.training.config import ConfigFileError
from club_envs.training.settings import ArkhamBeliefConfig
from club_envs.training.arkham_belief_vector import play_table
from club_envs.training.curves import read_evaluations
from tests.differential import LONG

CONFIG_DIR = Path(__file__).resolve().parents[2] / "configs"
TINY = {"recipe": "arkham_belief_iteration", "game": {"num_players": [4, 6]},
        "selfplay": {"generations": 2, "games": 3}, "model": {"hidden": [8]},
        "training": {"epochs": 1, "validation_share": 0.5}, "evaluation": {"games": 2}}


def test_labels_name_the_black_mans_advisor_slot_and_the_true_book():
    config = Config(num_players=5)
    played = arkham_belief.play_game(config, BeliefAgent(BeliefModel.untrained((8,))), HeuristicAgent(), seed=3)
    observations, views, labels = played.observations, played.views, played.labels
    assert labels and len(labels) == len(views) == len(observations)
    truth = State(config, seed=3)
    for view, label in zip(views, labels):
        slot, book = divmod(label, NUM_BOOKS)
        assert view.advisors[advisor_slots(view)[slot]] == truth.black_man_seat
        assert book == truth.true_book
        assert view.seat != truth.black_man_seat


def test_the_black_mans_examples_are_his_votes_and_the_outcome():
    """Every vote of the Black Man is kept, in order, with the vote he cast and whether the team
    won; the game's record, played again with the same agents and seed, says the same."""
    from club_envs.arkham_decoders.match import play_match

    config = Config(num_players=6)
    black_man = BlackManAgent(VoteValueModel.untrained((8,)), exploration=0.5)
    team = BeliefAgent(BeliefModel.untrained((8,)))
    for seed in range(4):
        played = arkham_belief.play_game(config, team, black_man, seed=seed)
        record = play_match(config, lambda seat, role: black_man if role == "black_man" else team, seed=seed)
        seat = State(config, seed=seed).black_man_seat
        votes = [("agree", "oppose").index(e["vote"]) for e in record["events"] if e["type"] == "vote" and e["seat"] == seat]
        assert played.bm_votes == votes and len(played.bm_views) == len(votes) == len(played.bm_observations)
        assert all(v.identity == "black_man" and v.seat == seat for v in played.bm_views)
        assert played.team_won == (record["result"]["winner"] == "team")
    assert VOTES == (A.AGREE, A.OPPOSE)


@pytest.mark.parametrize("change, message", [
    ({"selfplay": {"generations": 0}}, "selfplay.generations: 0 is not allowed; allowed values: 1..1000"),
    ({"selfplay": {"gamez": 3}}, "selfplay: unknown key 'gamez'; allowed keys: engine, games, generations, opponents, window"),
    ({"game": {"num_players": [3, 4]}}, "game.num_players[0]: 3 is not allowed; allowed values: 4, 5, 6"),
    ({"game": {"name": "members_only"}}, "game.name: 'members_only' is not allowed; allowed values: arkham_decoders"),
    ({"selfplay": {"opponents": ["arkham_black_man"]}}, "selfplay.opponents[0]: 'arkham_black_man' is not allowed; "
                                                       "allowed values: heuristic, random, arkham_style_mix, arkham_style_honest, "
                                                       "arkham_style_bluffer, arkham_style_cautious, arkham_style_bold, "
                                                       "arkham_style_noisy, self"),
    ({"selfplay": {"opponents": ["self", "self"]}}, "selfplay.opponents: "),
    ({"black_man": {"exploration": 1.5}}, "black_man.exploration: 1.5 is not allowed"),
    ({"black_man": {"epsilon": 0.1}}, "black_man: unknown key 'epsilon'; allowed keys: batch_size, epochs, exploration, "
                                      "hidden, learning_rate, window"),
    ({"black_man": {"window": 0}}, "black_man.window: 0 is not allowed; allowed values: 1..100"),
    ({"evaluation": {"opponents": ["ismcts"]}}, "evaluation.opponents[0]: 'ismcts' is not allowed"),
    ({"training": {"validation_share": 1}}, "training.validation_share: 1 is not allowed"),
    ({"model": {"hidden": []}}, "model.hidden: "),
    ({"selfplay": {"engine": "fast"}}, "selfplay.engine: 'fast' is not allowed; allowed values: auto, vector, reference"),
    ({"training": {"precision": "half"}}, "training.precision: 'half' is not allowed; allowed values: float32, bfloat16"),
])
def test_a_bad_config_is_refused_naming_the_key(change, message):
    raw = {**TINY, **change}
    with pytest.raises(ConfigFileError, match=re.escape(f"x.yaml: {message}")):
        configs.validate(raw, "x.yaml")  # what `club-envs train` reads a config with


def test_the_example_config_is_the_one_of_the_shipped_run():
    cfg = configs.load(CONFIG_DIR / "arkham_team_belief.yaml")
    assert isinstance(cfg, ArkhamBeliefConfig)
    assert cfg.num_players == (4, 5, 6) and cfg.opponents == ("heuristic",) and cfg.generations == 4
    assert (cfg.games, cfg.window, cfg.hidden, cfg.epochs, cfg.batch_size) == (1500, 2, (128, 128), 6, 1024)
    assert (cfg.eval_games, cfg.eval_opponents, cfg.eval_seed, cfg.seed) == (300, ("heuristic",), 18, 0)


def test_the_self_play_config_is_the_one_of_the_shipped_pair():
    cfg = configs.load(CONFIG_DIR / "arkham_selfplay_belief.yaml")
    assert cfg.learns_black_man and cfg.opponents == ("self",) and cfg.generations == 12
    assert (cfg.games, cfg.window, cfg.bm_exploration, cfg.bm_hidden, cfg.bm_epochs) == (1500, 2, 0.2, (128, 128), 6)
    assert (cfg.eval_games, cfg.eval_opponents, cfg.eval_seed, cfg.seed) == (300, ("heuristic",), 18, 0)
    assert not configs.load(CONFIG_DIR / "arkham_team_belief.yaml").learns_black_man
    wide = configs.load(CONFIG_DIR / "arkham_selfplay_belief_bmwindow.yaml")
    assert (wide.window, wide.bm_window, wide.eval_opponents) == (2, 4, ("heuristic", "arkham_style_mix"))
    assert dataclasses.replace(wide, bm_window=2, raw=cfg.raw, eval_opponents=cfg.eval_opponents) == cfg  # nothing else changed


def test_a_tiny_run_writes_its_files_resumes_and_repeats(tmp_path):
    path = tmp_path / "tiny.yaml"
    path.write_text(yaml.safe_dump({**TINY, "selfplay": {**TINY["selfplay"], "generations": 1}}))
    run = trainer.run(path, runs_dir=tmp_path / "a", progress=False)  # `club-envs train` picks the recipe
    for name in ("config.yaml", "state.json", "progress.csv", "evaluations.csv", "best/belief.npz",
                 "gen_001/belief.npz", "gen_001/examples.npz", "learning_curve.png"):
        assert (run / name).is_file(), name
    state = json.loads((run / "state.json").read_text())
    assert state["generation"] == 1 and state["decisions"] > 0 and state["engine"] == "vector"  # auto
    cfg = yaml.safe_load((run / "config.yaml").read_text())
    cfg["selfplay"]["generations"] = 2
    (run / "config.yaml").write_text(yaml.safe_dump(cfg))
    assert main(["train", "--resume", str(run), "--no-progress"]) == 0
    assert json.loads((run / "state.json").read_text())["generation"] == 2
    with open(run / "progress.csv") as fh:
        rows = list(csv.DictReader(fh))
    assert [r["generation"] for r in rows] == ["1", "2"]
    assert all(np.isfinite(float(r["model_nats"])) for r in rows)
    curves = read_evaluations(run)  # the common format: curves.plot draws it
    assert set(curves) == {"team"} and set(curves["team"]) == {("heuristic", 4), ("heuristic", 6)}
    assert all(len(points) == 2 and 0 <= lo <= share <= hi <= 1
               for points in curves["team"].values() for _, share, lo, hi in points)
    model = BeliefModel.load(run / "gen_002" / "belief.npz")
    assert model.meta["generation"] == 2 and model.meta["hidden"] == [8]
    assert model.meta["decisions"] == json.loads((run / "state.json").read_text())["decisions"]
    again = tmp_path / "again.yaml"
    again.write_text(yaml.safe_dump(TINY))
    assert main(["train", "--config", str(again), "--runs-dir", str(tmp_path / "b"), "--no-progress"]) == 0
    (other,) = (tmp_path / "b").iterdir()
    for name in ("gen_002/belief.npz", "best/belief.npz"):
        la, lb = BeliefModel.load(run / name).layers, BeliefModel.load(other / name).layers
        assert all(np.array_equal(x, y) for (wa, ba), (wb, bb) in zip(la, lb) for x, y in ((wa, wb), (ba, bb)))
    assert (run / "evaluations.csv").read_text() == (other / "evaluations.csv").read_text()


def test_a_bad_config_stops_the_command_line_in_one_line(tmp_path, capsys):
    path = tmp_path / "bad.yaml"
    path.write_text(yaml.safe_dump({**TINY, "seed": -1}))
    assert main(["train", "--config", str(path), "--runs-dir", str(tmp_path / "runs")]) == 2
    assert "seed: -1 is not allowed" in capsys.readouterr().err
    assert not (tmp_path / "runs").exists()


def test_a_run_too_small_to_hold_out_a_game_still_fits(tmp_path):
    path = tmp_path / "one.yaml"
    path.write_text(yaml.safe_dump({**TINY, "game": {"num_players": 4}, "selfplay": {"generations": 1, "games": 1},
                                    "training": {"epochs": 1, "validation_share": 0.01}, "evaluation": {"games": 0}}))
    run = trainer.run(path, runs_dir=tmp_path / "runs", progress=False)
    assert json.loads((run / "state.json").read_text())["generation"] == 1
    assert len((run / "evaluations.csv").read_text().splitlines()) == 1  # the header: no evaluation games
    BeliefModel.load(run / "best" / "belief.npz")


SELF_PLAY = {**TINY, "selfplay": {"generations": 2, "games": 4, "opponents": ["self"]}, "black_man": {"hidden": [8], "epochs": 1}}


def test_a_self_play_run_learns_both_sides_resumes_and_repeats(tmp_path):
    path = tmp_path / "self.yaml"
    path.write_text(yaml.safe_dump({**SELF_PLAY, "selfplay": {**SELF_PLAY["selfplay"], "generations": 1}}))
    run = trainer.run(path, runs_dir=tmp_path / "a", progress=False)
    for name in ("gen_001/black_man.npz", "best/black_man.npz", "best/belief.npz", "black_man_progress.csv"):
        assert (run / name).is_file(), name
    examples = np.load(run / "gen_001" / "examples.npz")
    assert len(examples["bm_vote"]) == len(examples["bm_x"]) == len(examples["bm_won"]) > 0
    assert set(np.unique(examples["bm_vote"])) <= {0, 1}
    first = VoteValueModel.load(run / "gen_001" / "black_man.npz")
    assert first.meta["generation"] == 1 and first.meta["votes"] == len(examples["bm_vote"])
    cfg = yaml.safe_load((run / "config.yaml").read_text())
    cfg["selfplay"]["generations"] = 2
    (run / "config.yaml").write_text(yaml.safe_dump(cfg))
    assert main(["train", "--resume", str(run), "--no-progress"]) == 0
    state = json.loads((run / "state.json").read_text())
    assert state["generation"] == 2 and state["black_man_votes"] > len(examples["bm_vote"])
    curves = read_evaluations(run)
    assert set(curves) == {"team", "black_man"}
    assert set(curves["black_man"]) == {("heuristic", 4), ("heuristic", 6)}
    # the folder plays every role by name: the team's belief and the learned Black Man
    from club_envs.agents import registry
    from club_envs.agents.policy import RoleDispatchAgent
    from club_envs.games import load_game

    agent = registry.load(str(run), game=load_game("arkham_decoders"), config=Config(num_players=5))
    assert isinstance(agent, RoleDispatchAgent)
    again = tmp_path / "again.yaml"
    again.write_text(yaml.safe_dump(SELF_PLAY))
    assert main(["train", "--config", str(again), "--runs-dir", str(tmp_path / "b"), "--no-progress"]) == 0
    (other,) = (tmp_path / "b").iterdir()
    for name in ("gen_002/black_man.npz", "best/black_man.npz"):
        la, lb = VoteValueModel.load(run / name).layers, VoteValueModel.load(other / name).layers
        assert all(np.array_equal(x, y) for (wa, ba), (wb, bb) in zip(la, lb) for x, y in ((wa, wb), (ba, bb)))
    assert (run / "evaluations.csv").read_text() == (other / "evaluations.csv").read_text()


def test_a_failing_evaluation_costs_no_generation(tmp_path, monkeypatch, capsys):
    def broken(*args, **kwargs):
        raise RuntimeError("evaluation series unavailable")

    monkeypatch.setattr(arkham_belief, "evaluate", broken)
    path = tmp_path / "self.yaml"
    path.write_text(yaml.safe_dump(SELF_PLAY))
    run = trainer.run(path, runs_dir=tmp_path / "runs", progress=False)
    assert json.loads((run / "state.json").read_text())["generation"] == 2
    assert "evaluation failed (RuntimeError: evaluation series unavailable)" in capsys.readouterr().err
    VoteValueModel.load(run / "gen_002" / "black_man.npz")


SHIPPED = Path(__file__).resolve().parents[2] / "club_envs" / "agents" / "shipped"
BLACK_MEN = ["heuristic", "self", "random", "arkham_style_mix", "arkham_style_bluffer"]


@pytest.mark.long
@pytest.mark.parametrize("players", [4, 5, 6])
def test_a_batched_game_is_the_reference_paths_game_on_the_same_deal_with_the_same_examples(players):
    """Every game played on the batched engine, set up on the reference engine from its deal and
    reshuffles and played there as the reference path plays (its Black Man reset with the seed
    of the game), is the same game: the same examples, byte for byte and in the same order, with
    every kind of Black Man -- compiled, learned and exploring, and bots by their reference code."""
    config, count = Config(num_players=players), 150 if LONG else 20
    model = BeliefModel.load(SHIPPED / "arkham_team_belief.npz")
    black_man = VoteValueModel.load(SHIPPED / "arkham_selfplay_black_man.npz")
    black_men = [BLACK_MEN[g % len(BLACK_MEN)] for g in range(count)]
    seeds = [97 * players + g for g in range(count)]
    batched, games = play_table(config, model, black_men, seeds, black_man, 0.3, bot_seed=5)
    states = [State(config, setup=games.setup(g), reshuffle_decks=games.reshuffle_decks(g)) for g in range(count)]
    reference = arkham_belief.reference_table(config, model, black_men, seeds, black_man, 0.3, 5, states=states)
    assert set(batched) == set(reference)
    for key in reference:
        got, expected = batched[key], reference[key]
        assert (got.dtype, got.shape) == (expected.dtype, expected.shape), key
        assert got.tobytes() == expected.tobytes(), key
    assert len(set(batched["game"].tolist())) == count and len(batched["bm_vote"]) > 2 * count // len(BLACK_MEN)
    assert set(batched["bm_game"].tolist()) == {g for g in range(count) if black_men[g] == "self"}


def test_the_engine_a_run_starts_with_is_kept_and_old_run_folders_resume_on_the_reference_engine(tmp_path):
    path = tmp_path / "tiny.yaml"
    config = {**TINY, "game": {"num_players": 4}, "selfplay": {"generations": 1, "games": 2, "engine": "reference"},
              "evaluation": {"games": 0}}
    path.write_text(yaml.safe_dump(config))
    run = trainer.run(path, runs_dir=tmp_path / "a", progress=False)
    assert json.loads((run / "state.json").read_text())["engine"] == "reference"
    settings = configs.load(run / "config.yaml")
    assert arkham_belief.resolve_engine(settings, {"generation": 1, "engine": "vector"})[0] == "vector"
    assert arkham_belief.resolve_engine(settings, {})[0] == "reference"
    for engine in ("auto", "vector"):
        moved = dataclasses.replace(settings, engine=engine)
        assert arkham_belief.resolve_engine(moved, {})[0] == "vector"
        assert arkham_belief.resolve_engine(moved, {"generation": 1})[0] == "reference"  # from before the setting
    state = json.loads((run / "state.json").read_text())
    del state["engine"]  # a run folder from before selfplay.engine
    (run / "state.json").write_text(json.dumps(state))
    cfg = yaml.safe_load((run / "config.yaml").read_text())
    cfg["selfplay"]["generations"], cfg["selfplay"]["engine"] = 2, "auto"
    (run / "config.yaml").write_text(yaml.safe_dump(cfg))
    assert main(["train", "--resume", str(run), "--no-progress"]) == 0
    assert json.loads((run / "state.json").read_text())["engine"] == "reference"
    again = tmp_path / "again.yaml"
    again.write_text(yaml.safe_dump({**config, "selfplay": {**config["selfplay"], "generations": 2}}))
    other = trainer.run(again, runs_dir=tmp_path / "b", progress=False)
    for name in ("gen_002/examples.npz", "gen_002/belief.npz"):  # the resumed run went on as it started
        assert (run / name).read_bytes() == (other / name).read_bytes(), name


def test_the_black_mans_window_reads_his_votes_of_that_many_generations(tmp_path):
    """``black_man.window`` (absent: ``selfplay.window``) is how many generations of his own votes
    the learned Black Man is fitted on; the team's fit keeps ``selfplay.window``."""
    assert configs.from_mapping(SELF_PLAY, "x.yaml").bm_window == 2
    assert configs.validate(SELF_PLAY, "x.yaml")["black_man"]["window"] == 2
    wide = {**SELF_PLAY, "game": {"num_players": [4]}, "selfplay": {**SELF_PLAY["selfplay"], "generations": 3, "window": 1},
            "black_man": {**SELF_PLAY["black_man"], "window": 3}}
    path = tmp_path / "wide.yaml"
    path.write_text(yaml.safe_dump(wide))
    run = trainer.run(path, runs_dir=tmp_path / "a", progress=False)
    assert yaml.safe_load((run / "config.yaml").read_text())["black_man"]["window"] == 3
    votes = [len(np.load(run / f"gen_{g:03d}" / "examples.npz")["bm_vote"]) for g in (1, 2, 3)]
    decisions = [len(np.load(run / f"gen_{g:03d}" / "examples.npz")["label"]) for g in (1, 2, 3)]
    with (run / "black_man_progress.csv").open() as f:
        fitted = [int(r["votes"]) + int(r["held_out"]) for r in csv.DictReader(f)]
    with (run / "progress.csv").open() as f:
        team = [int(r["examples"]) + int(r["held_out"]) for r in csv.DictReader(f)]
    assert fitted == [votes[0], votes[0] + votes[1], sum(votes)]
    assert team == decisions  # selfplay.window 1: each generation's own decisions only


def test_bfloat16_fits_run_both_sides_in_it_and_write_float32_models(tmp_path, monkeypatch):
    """``training.precision: bfloat16`` runs both fits' hidden layers in bfloat16 -- the team's and the learned
    Black Man's --, their held-out losses stay those of float32 to bfloat16's rounding, and the models are
    written in float32."""
    used = []
    forward_in = arkham_belief.forward_in

    def spy(net, x, precision):
        used.append((net[-1].out_features, precision))
        return forward_in(net, x, precision)

    monkeypatch.setattr(arkham_belief, "forward_in", spy)
    rows = {}
    for precision in ("float32", "bfloat16"):
        path = tmp_path / f"{precision}.yaml"
        path.write_text(yaml.safe_dump({**SELF_PLAY, "selfplay": {**SELF_PLAY["selfplay"], "generations": 1},
                                        "training": {**SELF_PLAY["training"], "precision": precision}}))
        used.clear()
        run = trainer.run(path, runs_dir=tmp_path / precision, progress=False)
        assert {p for _, p in used} == {precision} and len({width for width, _ in used}) == 2, \
            "both fits (the team's posterior and the Black Man's vote values) in the run's precision"
        team = BeliefModel.load(run / "gen_001" / "belief.npz")
        black_man = VoteValueModel.load(run / "gen_001" / "black_man.npz")
        assert all(w.dtype == np.float32 for m in (team, black_man) for layer in m.layers for w in layer)
        rows[precision] = [list(csv.DictReader((run / name).open()))[-1]
                           for name in ("progress.csv", "black_man_progress.csv")]
    for row32, row16 in zip(rows["float32"], rows["bfloat16"]):
        for key, value in row32.items():
            if "nats" in key and value not in ("", "nan"):
                assert abs(float(value) - float(row16[key])) < 0.05, (key, value, row16[key])
