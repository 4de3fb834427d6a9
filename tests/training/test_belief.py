"""Belief iteration: its config, its labels, a run that resumes and repeats, and that it learns."""

from __future__ import annotations

import json
import os
from collections import Counter
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
import yaml

from club_envs.members_only.belief_model import BeliefModel
from club_envs.members_only.bots import make_agent
from club_envs.members_only.observer import SLICES
from club_envs.members_only.rules import CATEGORIES, NUM_CATEGORIES, Config, parse_card
from club_envs.training import belief
from club_envs.training import train as trainer
from club_envs.training import config as configs
from club_envs.training.config import ConfigFileError
from club_envs.training.settings import BeliefConfig
from club_envs.training.selfplay_vec import drive_all

CONFIG_DIR = Path(__file__).resolve().parents[2] / "configs"
LONG = os.environ.get("CLUB_ENVS_LONG") == "1"
TINY = {"recipe": "belief_iteration", "game": {"num_players": [3, 4]},
        "selfplay": {"generations": 2, "games": 6}, "model": {"hidden": [16]}, "evaluation": {"games": 6}, "seed": 1}


def write(tmp_path: Path, cfg: dict, name: str = "tiny.yaml") -> Path:
    path = tmp_path / name
    path.write_text(yaml.safe_dump(cfg))
    return path


@pytest.mark.parametrize("change, message", [
    ({"selfplay": {"generations": 0}}, "selfplay.generations: 0 is not allowed; allowed values: 1..1000"),
    ({"selfplay": {"gamez": 3}}, "unknown key 'gamez'"),
    ({"game": {"num_players": 6}}, "game.num_players: 6 is not allowed; allowed values: 3, 4, 5"),
    ({"evaluation": {"opponents": ["ismcts"]}}, "is not allowed; allowed values: heuristic, random"),
    ({"selfplay": {"opponent_share": 0.5}}, "selfplay.opponent_share: 0.5 needs selfplay.opponents"),
    ({"training": {"learning_rate": 0}}, "training.learning_rate: 0 is not allowed"),
    ({"training": {"precision": "float16"}}, "training.precision: 'float16' is not allowed; allowed values: "
                                             "float32, bfloat16"),
])
def test_a_bad_config_is_refused_naming_the_key(change, message):
    raw = {**TINY, **change}
    with pytest.raises(ConfigFileError, match=message.replace(".", r"\.").replace("(", r"\(")):
        configs.from_mapping(raw, "x.yaml", kind=BeliefConfig)


def test_the_shipped_example_config_is_valid_and_self_play_only():
    cfg = configs.load(CONFIG_DIR / "members_only_belief.yaml")
    assert isinstance(cfg, BeliefConfig)
    assert cfg.opponents == () and cfg.opponent_share == 0.0
    assert cfg.num_players == (3, 4, 5)


@pytest.mark.parametrize("num_players", [3, 4, 5])
def test_labels_are_what_the_other_players_really_showed(num_players):
    """Checked against the game record, independently of the trainer's arithmetic: at a heat's
    first-round bets nothing is revealed yet, so the label is everything the other players put in
    the display during that heat (their reveals and the two cards each kept at the end)."""
    config = Config(num_players=num_players)
    agents = [make_agent("heuristic") for _ in range(num_players)]

    def game():
        result = yield from belief.game_examples(config, agents, seed=40 + num_players)
        return result

    (observations, targets), = drive_all([game()])
    from club_envs.members_only.match import play_match

    record = play_match(config, [make_agent("heuristic") for _ in range(num_players)], seed=40 + num_players)
    heat, shown = 0, {}
    for event in record["events"]:
        if event["type"] == "heat_start":
            heat = event["heat"]
            shown[heat] = [Counter() for _ in range(num_players)]
        elif event["type"] == "reveal":
            shown[heat][event["seat"]].update(parse_card(c) for c in event["cards"])
        elif event["type"] == "discard":
            shown[heat][event["seat"]].update(parse_card(c) for c in event["kept"])
    checked = 0
    max_heats = Config(num_players=num_players).max_heats
    for obs, target in zip(observations.astype(np.float32), targets):
        if obs[SLICES["round"]][0] != 1 or obs[SLICES["phase"]][0] != 1:
            continue
        h = int(round(float(obs[SLICES["heat"]][0]) * max_heats))
        seat = int(np.argmax(obs[SLICES["current_player"]]))  # relative: 0 is the observing seat
        assert seat == 0
        me = next(s for s in range(num_players) if _is_me(obs, s, record, h))
        others = Counter()
        for s in range(num_players):
            if s != me:
                others.update(shown[h][s])
        expected = [others[c] - others[NUM_CATEGORIES + c] + 2 for c in range(NUM_CATEGORIES)]
        assert list(target) == expected
        checked += 1
    assert checked >= 3
    assert set(np.unique(targets)) <= set(range(14)) and len(CATEGORIES) == NUM_CATEGORIES


def _is_me(obs, seat, record, heat) -> bool:
    """Which absolute seat an observation belongs to: the start player's relative position."""
    start = next(e["start_player"] for e in record["events"] if e["type"] == "heat_start" and e["heat"] == heat)
    relative_start = int(np.argmax(obs[SLICES["start_player"]]))
    n = len(record["seats"])
    return (start - seat) % n == relative_start


def test_a_run_writes_its_folder_resumes_and_repeats(tmp_path):
    path = write(tmp_path, {**TINY, "selfplay": {"generations": 1, "games": 6}})
    a = trainer.run(path, runs_dir=tmp_path / "a", progress=False)  # `club-envs train` picks the recipe
    for name in ("config.yaml", "state.json", "progress.csv", "evaluations.csv", "best/belief.npz",
                 "generations/0001/belief.npz", "generations/0001/examples.npz", "learning_curve.png"):
        assert (a / name).is_file(), name
    assert json.loads((a / "state.json").read_text())["generation"] == 1
    cfg = yaml.safe_load((a / "config.yaml").read_text())
    cfg["selfplay"]["generations"] = 2
    (a / "config.yaml").write_text(yaml.safe_dump(cfg))
    trainer.run(None, resume=a, runs_dir=tmp_path, progress=False)
    assert json.loads((a / "state.json").read_text())["generation"] == 2
    rows = (a / "progress.csv").read_text().splitlines()
    assert [r.split(",")[0] for r in rows[1:]] == ["1", "2"]
    b = trainer.run(write(tmp_path, TINY, "tiny2.yaml"), runs_dir=tmp_path / "b", progress=False)
    for name in ("generations/0002/belief.npz", "best/belief.npz"):
        la, lb = BeliefModel.load(a / name).layers, BeliefModel.load(b / name).layers
        assert all(np.array_equal(x, y) for (wa, ba), (wb, bb) in zip(la, lb) for x, y in ((wa, wb), (ba, bb)))
    assert (a / "evaluations.csv").read_text() == (b / "evaluations.csv").read_text()


def test_a_failing_evaluation_is_reported_and_the_run_goes_on(tmp_path, monkeypatch, capsys):
    def broken(*args, **kwargs):
        raise RuntimeError("evaluation broke")

    monkeypatch.setattr(belief, "evaluate", broken)
    run_dir = trainer.run(write(tmp_path, {**TINY, "selfplay": {"generations": 1, "games": 4}}), runs_dir=tmp_path,
                          progress=False)
    assert "evaluation of generation 1 failed and was skipped: RuntimeError: evaluation broke" in capsys.readouterr().err
    assert (run_dir / "generations" / "0001" / "belief.npz").is_file()


def test_a_bfloat16_fit_learns_as_the_float32_one_and_writes_float32_models(tmp_path):
    """``training.precision: bfloat16`` changes the fit's arithmetic, not what it learns or writes."""
    settings = configs.from_mapping({**TINY, "game": {"num_players": [4]}, "selfplay": {"generations": 1, "games": 60},
                                     "model": {"hidden": [64, 64]}, "training": {"epochs": 3, "batch_size": 128}},
                                    "x.yaml", kind=BeliefConfig)
    model = BeliefModel.untrained(settings.hidden, seed=settings.seed)
    observations, targets, games = belief.play_generation(model, settings, 1, engine="vector")
    fits = {p: belief.fit(model, observations, targets, games, replace(settings, precision=p), seed=5)
            for p in ("float32", "bfloat16")}
    (exact, a), (fast, b) = fits["float32"], fits["bfloat16"]
    assert a["nll_after"] < a["nll_prior"] - 0.01 and b["nll_after"] < b["nll_prior"] - 0.01, (a, b)
    assert abs(a["nll_after"] - b["nll_after"]) < 0.02, "the same fit to bfloat16's rounding"
    assert not all(np.array_equal(x, y) for (wa, _), (wb, _) in zip(exact.layers, fast.layers) for x, y in [(wa, wb)])
    assert all(w.dtype == np.float32 and c.dtype == np.float32 for w, c in fast.layers)
    path = write(tmp_path, {**TINY, "selfplay": {"generations": 1, "games": 6}, "training": {"precision": "bfloat16"}})
    run_dir = trainer.run(path, runs_dir=tmp_path / "runs", progress=False)
    assert yaml.safe_load((run_dir / "config.yaml").read_text())["training"]["precision"] == "bfloat16"
    assert configs.load(run_dir / "config.yaml").precision == "bfloat16"


@pytest.mark.long
def test_one_generation_learns_to_beat_the_heuristic(tmp_path):
    """Short by default (the loop runs and the model fits better than the prior on held-out games);
    CLUB_ENVS_LONG=1 learns from 1,200 self-play games and requires the agent to beat three
    ``heuristic`` bots (4 players, 400 games, lower end of the interval above 0.25)."""
    from club_envs.evaluation import learner_win_share
    from club_envs.games import load_game
    from club_envs.members_only.belief_agent import BeliefAgent

    cfg = {"recipe": "belief_iteration", "game": {"num_players": 4},
           "selfplay": {"generations": 1, "games": 1200 if LONG else 40}, "evaluation": {"games": 0}, "seed": 11}
    run_dir = trainer.run(write(tmp_path, cfg), runs_dir=tmp_path, progress=False)
    progress = (run_dir / "progress.csv").read_text().splitlines()[1].split(",")
    prior, fitted = float(progress[3]), float(progress[5])
    assert np.isfinite(prior) and np.isfinite(fitted)
    game = load_game("members_only")
    agent = BeliefAgent(BeliefModel.load(run_dir / "generations" / "0001" / "belief.npz"))
    share, (lo, hi) = learner_win_share(game, Config(num_players=4), agent, "heuristic",
                                        games=400 if LONG else 8, seed=424242)
    assert 0.0 <= lo <= share <= hi <= 1.0
    if LONG:
        assert fitted < prior - 0.05, f"held-out nats per category {fitted:.4f} vs uniform prior {prior:.4f}"
        assert lo > 0.25, f"belief agent won {share:.3f} [{lo:.3f}, {hi:.3f}] against 3 heuristic bots"


# --------------------------------------------------------------------------- the batched engine

def fixed_belief_model(seed: int) -> BeliefModel:
    """A model whose belief differs from the uniform prior by the same logits everywhere (a zero
    last layer's weights, a random bias): its predictions do not depend on which other rows share
    a forward pass, so both engines' belief agents decide exactly alike."""
    model = BeliefModel.untrained((16,), seed=seed)
    w, b = model.layers[-1]
    model.layers[-1] = (w, np.random.default_rng(seed).normal(0.0, 0.7, b.shape).astype(np.float32))
    return model


@pytest.mark.parametrize("num_players", [3, 4, 5])
def test_the_batched_engine_gives_the_reference_paths_examples_for_the_same_deals_and_decisions(num_players):
    """The same decks on both engines, played by a deterministic line-up -- the belief agent, the
    exact heuristics (compiled on the batched engine) and seeded style and sampled bots (their
    reference code on both): the same examples, byte for byte, game by game."""
    from club_envs.members_only.belief_agent import BeliefAgent
    from club_envs.members_only.match import agent_seeds
    from club_envs.members_only.roster import make_agent as roster_agent
    from club_envs.training.belief_vector import table_examples
    from tests.members_only.helpers import random_decks, reference_game

    config = Config(num_players=num_players)
    count = 6
    decks = random_decks(np.random.default_rng(num_players), count, config.max_heats)
    bots = ["heuristic", "heuristic_bold", "members_only_style_mix", "heuristic_sampled"]
    lineups = [[None if (g + seat) % 3 else bots[(g + seat) % len(bots)] for seat in range(num_players)]
               for g in range(count)]
    lineups[0] = [None] * num_players  # one game of pure self-play
    seeds = [500 + g for g in range(count)]
    learner = BeliefAgent(fixed_belief_model(num_players))

    played = table_examples(learner, config, lineups, [agent_seeds(s, num_players) for s in seeds], seed=0, decks=decks)
    moves = [belief.game_examples(config, [learner if name is None else roster_agent(name, config) for name in lineup],
                                  seed, state=reference_game(config, decks[g], 0))
             for g, (lineup, seed) in enumerate(zip(lineups, seeds))]
    results = drive_all(moves)
    observations = np.concatenate([obs for obs, _ in results])
    targets = np.concatenate([tgt for _, tgt in results])
    games = np.concatenate([np.full(len(tgt), g, np.int32) for g, (_, tgt) in enumerate(results)])
    assert len(targets) > 100 * count
    assert played.observations.dtype == np.float16 and played.targets.dtype == np.int8
    assert played.observations.tobytes() == observations.tobytes()
    assert played.targets.tobytes() == targets.tobytes()
    assert played.games.tobytes() == games.tobytes()


def test_a_generation_on_the_batched_engine_is_the_same_for_the_same_seed_and_labelled_as_the_rules_say():
    opponents = ["random", "heuristic", "members_only_style_noisy"]
    settings = configs.from_mapping({**TINY, "selfplay": {"generations": 1, "games": 5, "opponents": opponents,
                                                         "opponent_share": 0.5}}, kind=BeliefConfig)
    model = BeliefModel.untrained((16,), seed=2)
    first = belief.play_generation(model, settings, 1, engine="vector")
    again = belief.play_generation(model, settings, 1, engine="vector")
    assert all(a.tobytes() == b.tobytes() for a, b in zip(first, again))
    observations, targets, games = first
    assert observations.dtype == np.float16 and targets.dtype == np.int8 and games.dtype == np.int32
    assert set(np.unique(games)) == set(range(10)) and (np.diff(games) >= 0).all()
    assert targets.min() >= 0 and targets.max() <= 13


def test_the_engine_is_auto_by_default_kept_in_the_state_and_old_runs_stay_on_the_reference_engine(tmp_path):
    settings = configs.from_mapping(TINY, kind=BeliefConfig)
    assert settings.engine == "auto"
    assert belief.resolve_engine(settings, {}, begun=False)[0] == "vector"
    reference = configs.from_mapping({**TINY, "selfplay": {"engine": "reference"}}, kind=BeliefConfig)
    assert belief.resolve_engine(reference, {}, begun=False)[0] == "reference"
    assert belief.resolve_engine(reference, {"engine": "vector"}, begun=True)[0] == "vector"
    assert belief.resolve_engine(settings, {"generation": 3}, begun=True)[0] == "reference"
    run_dir = trainer.run(write(tmp_path, {**TINY, "selfplay": {"generations": 1, "games": 3}}), runs_dir=tmp_path,
                          progress=False)
    assert json.loads((run_dir / "state.json").read_text())["engine"] == "vector"


def test_an_engine_that_cannot_play_the_config_is_refused_naming_what_it_cannot_play():
    from dataclasses import replace

    settings = replace(configs.from_mapping({**TINY, "selfplay": {"engine": "vector"}}, kind=BeliefConfig),
                       opponents=("someone_else",))
    with pytest.raises(ConfigFileError, match=r"selfplay\.engine: vector cannot play selfplay\.opponents: "
                                              r"'someone_else' \(the batched engine plays random, .*\); allowed "
                                              r"values for this config: auto, reference"):
        belief.check_before_run(settings, resuming=False)
    assert belief.resolve_engine(replace(settings, engine="auto"), {}, begun=False)[0] == "reference"
    with pytest.raises(ConfigFileError, match=r"selfplay\.engine: 'fast' is not allowed; allowed values: auto, vector, "
                                              r"reference"):
        configs.from_mapping({**TINY, "selfplay": {"engine": "fast"}}, "x.yaml", kind=BeliefConfig)


def test_a_run_on_the_reference_engine_evaluates_there_and_resumes_there(tmp_path):
    path = write(tmp_path, {**TINY, "selfplay": {"generations": 1, "games": 3, "engine": "reference"}})
    run_dir = trainer.run(path, runs_dir=tmp_path, progress=False)
    assert json.loads((run_dir / "state.json").read_text())["engine"] == "reference"
    cfg = yaml.safe_load((run_dir / "config.yaml").read_text())
    cfg["selfplay"].update(generations=2, engine="vector")  # the run keeps the engine it started with
    (run_dir / "config.yaml").write_text(yaml.safe_dump(cfg))
    trainer.run(None, resume=run_dir, runs_dir=tmp_path, progress=False)
    state = json.loads((run_dir / "state.json").read_text())
    assert state["generation"] == 2 and state["engine"] == "reference"
