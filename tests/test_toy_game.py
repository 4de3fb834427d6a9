"""A game added through the spec alone runs through the tools: the claim of docs/adding_a_game.md.

High Card Swap (``tests/toy_game``) is registered with one ``register`` call; nothing else in the
package knows it. If a layer still needs to be told about a game by name, these tests fail.
"""

from __future__ import annotations

import json

import gymnasium
import pettingzoo
import pytest

from club_envs import games, records
from club_envs.cli import main
from tests.toy_game import SPEC


@pytest.fixture
def toy(monkeypatch):
    """The toy game registered for one test only (the registry is restored afterwards)."""
    games.specs()  # the built-in games first
    monkeypatch.setattr(games, "_SPECS", dict(games._SPECS))
    monkeypatch.setattr(games, "_NAMES", dict(games._NAMES))
    games.register(SPEC)
    return SPEC


def test_registering_makes_the_game_known_by_name_and_its_environments_buildable(toy):
    assert games.get_spec("toy_high_card") is toy
    assert "toy_high_card" in games.game_names()
    env = gymnasium.make(toy.gym_id, num_players=3, opponents="heuristic", seat="random")
    obs, info = env.reset(seed=3)
    assert obs.shape == (15,) and info["action_mask"].any()
    assert toy.aec_id in pettingzoo.aec_registry


def test_simulate_plays_saves_and_the_records_replay(toy, tmp_path, capsys):
    out = tmp_path / "records"
    assert main(["simulate", "toy_high_card", "--players", "3", "--games", "30", "--agents",
                 "heuristic,random,random", "--seed", "1", "--out", str(out), "--no-progress"]) == 0
    printed = capsys.readouterr().out
    assert "30 games" in printed and "heuristic" in printed
    files = sorted(out.glob("toy_high_card_*.json"))
    assert len(files) == 30
    for path in files:
        record = records.load(path)
        assert records.replay(record) == record["result"]


def test_evaluate_scores_the_heuristic_above_random(toy, tmp_path):
    summary = tmp_path / "summary.json"
    assert main(["evaluate", "toy_high_card", "--players", "2", "--agents", "heuristic,random", "--games", "400",
                 "--seed", "0", "--json", str(summary), "--no-progress"]) == 0
    rows = {row["agent"]: row for row in json.loads(summary.read_text())["agents"]}
    assert rows["heuristic"]["seats"] == rows["random"]["seats"] == 400
    assert rows["heuristic"]["win_share"] + rows["random"]["win_share"] == pytest.approx(1.0)
    # Swapping a low card wins more often: the interval of the heuristic's share lies above one half.
    assert rows["heuristic"]["win_share_95ci"][0] > 0.5


TOY_CONFIG = """\
game: {name: toy_high_card, num_players: [2, 3]}
algorithm: {n_steps: 64, batch_size: 32, n_epochs: 1}
network: {hidden: [16]}
envs: {n_envs: 2}
selfplay: {snapshot_every: 128, bots: [heuristic, random]}
evaluation: {every: 256, games: 10, opponents: [heuristic, random]}
checkpoint: {every: 256}
budget: {total_steps: 512}
seed: 3
"""


def test_a_smoke_training_run_trains_evaluates_and_its_policy_plays(toy, tmp_path):
    config = tmp_path / "toy.yaml"
    config.write_text(TOY_CONFIG)
    assert main(["train", str(config), "--runs-dir", str(tmp_path / "runs"), "--no-progress"]) == 0
    (run_dir,) = (tmp_path / "runs").iterdir()
    rows = (run_dir / "evaluations.csv").read_text().splitlines()
    assert rows[0].startswith("total_step,side,")
    # two evaluations x two opponents x two table sizes
    assert len(rows) == 1 + 2 * 2 * 2 and {r.split(",")[4] for r in rows[1:]} == {"2", "3"}
    assert (run_dir / "best" / "policy.pt").is_file()
    out = tmp_path / "records"
    assert main(["simulate", "toy_high_card", "--players", "2", "--games", "5", "--agents",
                 f"{run_dir},heuristic", "--seed", "0", "--out", str(out), "--no-progress"]) == 0
    for path in out.glob("*.json"):
        record = records.load(path)
        assert record["seats"][0]["controller"] != "heuristic"
        assert records.replay(record) == record["result"]
