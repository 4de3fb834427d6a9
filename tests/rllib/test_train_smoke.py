"""End to end on a local Ray with 2 env runners: train a few iterations, checkpoint, export, evaluate.

``club-envs train`` runs the shipped ``configs/*_rllib_smoke.yaml`` (``backend: rllib``); Ray is
started once for the module.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np
import pytest
import yaml

from club_envs.agents.policy import load_policy_file
from club_envs.cli import main as club_envs
from club_envs.training.rllib_backend.export import export_checkpoint
from club_envs.training.rllib_backend.run import read_league_state

CONFIGS = Path(__file__).resolve().parents[2] / "configs"


def train(config: Path, runs_dir: Path) -> Path:
    """``club-envs train CONFIG``, as a user runs it; the run folder it made."""
    assert club_envs(["train", str(config), "--runs-dir", str(runs_dir), "--no-progress"]) == 0
    (run_dir,) = runs_dir.iterdir()
    return run_dir


@pytest.fixture(scope="module")
def members_only_run(local_ray, tmp_path_factory):
    return train(CONFIGS / "members_only_rllib_smoke.yaml", tmp_path_factory.mktemp("runs"))


@pytest.fixture(scope="module")
def arkham_run(local_ray, tmp_path_factory):
    return train(CONFIGS / "arkham_rllib_smoke.yaml", tmp_path_factory.mktemp("runs"))


def evaluate(tmp_path: Path, *args: str) -> dict:
    out = tmp_path / "evaluation.json"
    assert club_envs(["evaluate", *args, "--games", "12", "--no-progress", "--json", str(out)]) == 0
    return json.loads(out.read_text())


def same_weights(a: Path, b: Path) -> bool:
    (net_a, _), (net_b, _) = load_policy_file(a), load_policy_file(b)
    return all(np.array_equal(wa, wb) and np.array_equal(ba, bb)
               for (wa, ba), (wb, bb) in zip(net_a.layers, net_b.layers))


def test_members_only_run_trains_with_two_env_runners_and_writes_a_checkpoint(members_only_run):
    summary = json.loads((members_only_run / "summary.json").read_text())
    assert summary["num_env_runners"] == 2 and summary["env_steps"] >= 1200
    league = read_league_state(members_only_run / "checkpoints" / "rllib")
    assert league["env_steps"] == summary["env_steps"] and league["iteration"] >= 3
    assert len(league["snapshots"]) == 2  # a snapshot every 400 steps, kept in 2 slots: the last two
    rows = list(csv.DictReader((members_only_run / "logs" / "progress.csv").open()))
    assert [int(r["iteration"]) for r in rows] == list(range(1, len(rows) + 1))
    # the learner's win rate in self-play, once a game has ended (a game is ~500 steps)
    rates = [float(r["main_win_rate"]) for r in rows if r["main_win_rate"] != "nan"]
    assert all(0.0 <= rate <= 1.0 for rate in rates)
    assert bool(rates) == any(int(r["episodes"]) > 0 for r in rows)


def test_members_only_checkpoint_exports_and_evaluate_plays_it_against_random(members_only_run, tmp_path):
    (policy,) = export_checkpoint(members_only_run / "checkpoints" / "rllib", tmp_path / "export")
    assert policy.name == "policy.pt"
    assert same_weights(policy, members_only_run / "latest" / "policy.pt")
    result = evaluate(tmp_path, "members_only", "--players", "4", "--agents", f"{policy},random,random,random")
    by_agent = {a["agent"]: a for a in result["agents"]}
    assert by_agent[str(policy)]["seats"] == 12 and by_agent["random"]["seats"] == 36
    assert sum(a["wins"] for a in result["agents"]) == pytest.approx(12)
    # the run folder itself is an agent too (its best/), as for a stable-baselines3 run
    run_as_agent = evaluate(tmp_path, "members_only", "--players", "3", "--agents", f"{members_only_run},random,random")
    assert {a["agent"] for a in run_as_agent["agents"]} == {str(members_only_run), "random"}


def test_arkham_checkpoint_exports_both_sides_and_evaluate_plays_them_against_random(arkham_run, tmp_path):
    exported = export_checkpoint(arkham_run / "checkpoints" / "rllib", tmp_path / "export")
    assert sorted(p.name for p in exported) == ["black_man.pt", "team.pt"]
    for path in exported:
        assert same_weights(path, arkham_run / "latest" / path.name)
    folder = str(tmp_path / "export")
    team = evaluate(tmp_path, "arkham_decoders", "--players", "5", "--agents",
                    f"leader={folder},member={folder},investigator={folder},black_man=random")
    roles = {(r["agent"], r["role"]): r for r in team["roles"]}
    assert roles[(folder, "leader")]["seats"] == 12 and roles[("random", "black_man")]["seats"] == 12
    black_man = evaluate(tmp_path, "arkham_decoders", "--players", "4", "--agents",
                         f"leader=random,member=random,investigator=random,black_man={folder}")
    roles = {(r["agent"], r["role"]): r for r in black_man["roles"]}
    assert roles[(folder, "black_man")]["seats"] == 12


def test_arkham_run_evaluates_both_sides_against_the_heuristic_bots(arkham_run):
    rows = list(csv.DictReader((arkham_run / "evaluations.csv").open()))
    assert {r["side"] for r in rows} == {"team", "black_man"}
    assert {r["players"] for r in rows} == {"4", "5", "6"}
    assert all(0.0 <= float(r["win_share"]) <= 1.0 for r in rows)
    assert (arkham_run / "best" / "team.pt").is_file() and (arkham_run / "best" / "black_man.pt").is_file()


def test_a_resumed_run_continues_from_its_checkpoint_with_its_league(members_only_run):
    before = read_league_state(members_only_run / "checkpoints" / "rllib")
    config = yaml.safe_load((members_only_run / "config.yaml").read_text())
    config["budget"]["total_steps"] = before["env_steps"] + 400
    (members_only_run / "config.yaml").write_text(yaml.safe_dump(config))
    assert club_envs(["train", "--resume", str(members_only_run), "--no-progress"]) == 0
    after = read_league_state(members_only_run / "checkpoints" / "rllib")
    assert after["env_steps"] >= before["env_steps"] + 400
    assert after["iteration"] == before["iteration"] + 1
    # the league went on where it stopped: the next snapshot replaced the oldest slot
    assert after["snapshots"][-1] == {"slot": before["next_slot"], "env_steps": after["env_steps"]}
    assert len(after["snapshots"]) == 2
