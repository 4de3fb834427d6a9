"""Every smoke config trains, checkpoints, resumes and evaluates; runs repeat; failures are survivable."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
import yaml

from club_envs.agents.policy import load_policy_file
from club_envs.training import evaluations
from club_envs.training import train as trainer

CONFIG_DIR = Path(__file__).resolve().parents[2] / "configs"
# stable-baselines3 smoke configs (configs with `backend: rllib` are tested with that backend)
SMOKE = sorted(p for p in CONFIG_DIR.glob("*_smoke.yaml")
               if (yaml.safe_load(p.read_text()) or {}).get("backend", "sb3") == "sb3")
LONG = os.environ.get("CLUB_ENVS_LONG") == "1"


def bump_budget(run_dir: Path, total: int) -> None:
    cfg = yaml.safe_load((run_dir / "config.yaml").read_text())
    cfg["budget"]["total_steps"] = total
    (run_dir / "config.yaml").write_text(yaml.safe_dump(cfg))


@pytest.fixture(scope="module", params=SMOKE, ids=lambda p: p.stem)
def smoke_run(request, tmp_path_factory):
    """One smoke run per config, shared by the checks below (training is the slow part)."""
    runs = tmp_path_factory.mktemp("runs")
    run_dir = trainer.run(request.param, runs_dir=runs, progress=False)
    return request.param, run_dir


def test_smoke_run_writes_config_checkpoints_pool_logs_and_policies(smoke_run):
    config_path, run_dir = smoke_run
    cfg = yaml.safe_load((run_dir / "config.yaml").read_text())
    assert cfg["game"]["name"] == yaml.safe_load(config_path.read_text())["game"]["name"]
    assert "algorithm" in cfg and "learning_rate" in cfg["algorithm"]  # resolved: defaults written out
    sides = ["player"] if cfg["game"]["name"] == "members_only" else ["team", "black_man"]
    for side in sides:
        assert list((run_dir / "checkpoints").glob(f"{side}-*.zip"))
        pool = json.loads((run_dir / "pool" / side / "pool.json").read_text())
        snaps = [m for m in pool["members"] if m["kind"] == "snapshot"]
        assert 1 <= len(snaps) <= cfg["selfplay"]["pool_size"]
        assert abs(sum(m["prob"] for m in pool["members"]) - 1) < 1e-6
        assert list((run_dir / "logs" / side).glob("events.out.tfevents.*"))
        assert (run_dir / "logs" / side / "progress.csv").read_text().count("\n") >= 2
    state = json.loads((run_dir / "state.json").read_text())
    assert sum(state["steps"].values()) >= cfg["budget"]["total_steps"]
    rows = (run_dir / "evaluations.csv").read_text().splitlines()
    assert rows[0].startswith("total_step,side") and len(rows) > 1
    for f in (run_dir / "best").glob("*.pt"):
        net, meta = load_policy_file(f)  # weights-only, loadable
        assert meta["game"] == cfg["game"]["name"] and net.num_actions >= 2
    # best/ and latest/ act by default as the run's evaluation played them; snapshots sample
    judged = [*(run_dir / "best").glob("*.pt"), *(run_dir / "latest").glob("*.pt")]
    assert judged and all(load_policy_file(f)[1]["deterministic"] is cfg["evaluation"]["greedy"] for f in judged)
    assert all("deterministic" not in load_policy_file(f)[1] for f in (run_dir / "pool").glob("*/*.pt"))


def test_resume_continues_from_the_last_checkpoint_with_the_pool_intact(smoke_run):
    _, run_dir = smoke_run
    before = json.loads((run_dir / "state.json").read_text())["steps"]
    pools_before = {p.parent.name: {m["id"] for m in json.loads(p.read_text())["members"]}
                    for p in (run_dir / "pool").glob("*/pool.json")}
    cfg = yaml.safe_load((run_dir / "config.yaml").read_text())
    bump_budget(run_dir, cfg["budget"]["total_steps"] + 256)
    trainer.run(resume=run_dir, progress=False)
    after = json.loads((run_dir / "state.json").read_text())["steps"]
    assert sum(after.values()) >= sum(before.values()) + 256
    assert all(after[s] >= before[s] for s in before)
    for side, ids in pools_before.items():
        members = [m for m in json.loads((run_dir / "pool" / side / "pool.json").read_text())["members"]]
        now = {m["id"] for m in members}
        # the bots and the newest snapshots survive; older snapshots leave only through pool_size
        assert {i for i in ids if i.startswith("bot:")} <= now
        assert max(m.get("step", -1) for m in members) >= max(int(i[5:14]) for i in ids if i.startswith("snap-"))


def test_start_from_takes_the_learners_snapshots_and_steps_with_the_new_population(smoke_run, tmp_path):
    _, source = smoke_run
    before = json.loads((source / "state.json").read_text())
    cfg = yaml.safe_load((source / "config.yaml").read_text())
    cfg["selfplay"]["bots"] = ["random"]  # a new population
    cfg["budget"]["total_steps"] = sum(before["steps"].values()) + 256
    config = tmp_path / "next.yaml"
    config.write_text(yaml.safe_dump(cfg))
    run_dir = trainer.run(config, runs_dir=tmp_path / "runs", progress=False, start_from=source)
    state = json.loads((run_dir / "state.json").read_text())
    assert state["started_from"] == {"run": str(source), "steps": before["steps"]}
    assert all(state["steps"][s] >= before["steps"][s] for s in before["steps"])
    assert sum(state["steps"].values()) >= sum(before["steps"].values()) + 256
    for side in before["steps"]:
        theirs = {m["id"] for m in json.loads((source / "pool" / side / "pool.json").read_text())["members"]}
        mine = json.loads((run_dir / "pool" / side / "pool.json").read_text())["members"]
        assert {m["id"] for m in mine if m["kind"] == "bot"} == {"bot:random"}  # this config's bots, not the source's
        kept = {m["id"] for m in mine if m["kind"] == "snapshot"} & {i for i in theirs if i.startswith("snap-")}
        assert kept  # the source's snapshots went on (the oldest may leave through pool_size)
    assert json.loads((source / "state.json").read_text()) == before  # the source run is left as it was


def test_start_from_a_run_of_another_shape_is_refused_before_any_folder_is_made(smoke_run, tmp_path):
    _, source = smoke_run
    cfg = yaml.safe_load((source / "config.yaml").read_text())
    cfg["network"]["hidden"] = [7]
    config = tmp_path / "other.yaml"
    config.write_text(yaml.safe_dump(cfg))
    with pytest.raises(ValueError, match=r"--start-from .*network is .* there and .*hidden.*: \[7\].* same shape"):
        trainer.run(config, runs_dir=tmp_path / "runs", progress=False, start_from=source)
    assert not (tmp_path / "runs").exists()
    with pytest.raises(FileNotFoundError, match="not a run folder"):
        trainer.run(config, runs_dir=tmp_path / "runs", progress=False, start_from=tmp_path)


def test_trained_policy_is_evaluated_by_the_cli(smoke_run, tmp_path):
    from club_envs.cli import main

    _, run_dir = smoke_run
    cfg = yaml.safe_load((run_dir / "config.yaml").read_text())
    game, n = cfg["game"]["name"], cfg["game"]["num_players"][0]
    agents = ",".join([str(run_dir)] + ["heuristic"] * (n - 1))
    out = tmp_path / "eval.json"
    assert main(["evaluate", game, "--players", str(n), "--agents", agents, "--games", "6",
                 "--json", str(out), "--no-progress"]) == 0
    summary = json.loads(out.read_text())
    me = next(a for a in summary["agents"] if a["agent"] == str(run_dir))
    assert me["seats"] == 6 and 0.0 <= me["win_share"] <= 1.0


def test_resume_falls_back_to_an_older_checkpoint_and_skips_a_corrupt_snapshot(smoke_run, capsys):
    _, run_dir = smoke_run
    side = json.loads((run_dir / "state.json").read_text())["steps"]
    side = sorted(side)[0]
    newest = trainer.latest_checkpoint(run_dir, side)[0]
    newest.write_bytes(b"not a zip")
    pool_dir = run_dir / "pool" / side
    members = json.loads((pool_dir / "pool.json").read_text())["members"]
    victim = next(m for m in members if m["kind"] == "snapshot")
    (pool_dir / victim["path"]).write_bytes(b"\x00" * 10)
    cfg = yaml.safe_load((run_dir / "config.yaml").read_text())
    bump_budget(run_dir, cfg["budget"]["total_steps"] + 128)
    trainer.run(resume=run_dir, progress=False)
    err = capsys.readouterr().err
    assert f"checkpoint {newest}" in err and "trying an older one" in err
    assert f"skipping snapshot {victim['id']}" in err
    ids = {m["id"] for m in json.loads((pool_dir / "pool.json").read_text())["members"]}
    assert victim["id"] not in ids


def test_a_failing_evaluation_is_reported_and_training_goes_on(tmp_path, monkeypatch, capsys):
    def broken(*args, **kwargs):
        raise RuntimeError("evaluation exploded")

    monkeypatch.setattr(evaluations, "learner_win_share", broken)
    run_dir = trainer.run(SMOKE[0], runs_dir=tmp_path, progress=False)
    assert "failed and was skipped: RuntimeError: evaluation exploded" in capsys.readouterr().err
    state = json.loads((run_dir / "state.json").read_text())
    assert sum(state["steps"].values()) >= yaml.safe_load((run_dir / "config.yaml").read_text())["budget"]["total_steps"]


def test_seeded_runs_repeat(tmp_path):
    config = next(p for p in SMOKE if "arkham" in p.stem)
    a = trainer.run(config, runs_dir=tmp_path / "a", progress=False)
    b = trainer.run(config, runs_dir=tmp_path / "b", progress=False)
    assert_same_runs(a, b)


def assert_repeats_and_resumes(tmp_path: Path, cfg: dict, further: int) -> None:
    """``cfg`` trains twice to the same weights and evaluations, and its first run folder resumes
    to ``further`` steps."""
    path = tmp_path / "config.yaml"
    path.write_text(yaml.safe_dump(cfg))
    a = trainer.run(path, runs_dir=tmp_path / "a", progress=False)
    b = trainer.run(path, runs_dir=tmp_path / "b", progress=False)
    assert_same_runs(a, b)
    bump_budget(a, further)
    trainer.run(resume=a, progress=False)
    assert sum(json.loads((a / "state.json").read_text())["steps"].values()) >= further


def assert_same_runs(a, b) -> None:
    """Two run folders hold the same exported weights and the same evaluations."""
    assert sorted((a / "latest").glob("*.pt"))
    for f in sorted((a / "latest").glob("*.pt")):
        net_a, _ = load_policy_file(f)
        net_b, _ = load_policy_file(b / "latest" / f.name)
        for (wa, ba), (wb, bb) in zip(net_a.layers, net_b.layers):
            assert (wa == wb).all() and (ba == bb).all()
    assert (a / "evaluations.csv").read_text() == (b / "evaluations.csv").read_text()


@pytest.mark.long
def test_members_only_learner_beats_random_bots(tmp_path):
    """Short by default (the loop runs and the learner is measured); CLUB_ENVS_LONG=1 trains for
    real and requires the learner to win clearly more than its 1/4 share against random bots."""
    from club_envs.evaluation import learner_win_share
    from club_envs.agents.policy import PolicyAgent
    from club_envs.games import load_game

    cfg = yaml.safe_load((CONFIG_DIR / "members_only_smoke.yaml").read_text())
    cfg["game"]["num_players"] = [4]
    cfg["budget"]["total_steps"] = 150_000 if LONG else 512
    cfg["envs"]["subprocess"] = False
    if LONG:
        cfg["algorithm"].update(n_steps=256, batch_size=256, n_epochs=4)
        cfg["network"]["hidden"] = [64, 64]
        cfg["envs"]["n_envs"] = 4
        cfg["selfplay"].update(snapshot_every=25_000, bots=["random"], bot_share=1.0)
        cfg["evaluation"].update(every=50_000, games=50)
        cfg["checkpoint"]["every"] = 50_000
    path = tmp_path / "long.yaml"
    path.write_text(yaml.safe_dump(cfg))
    run_dir = trainer.run(path, runs_dir=tmp_path / "runs", progress=False)
    game = load_game("members_only")
    agent = PolicyAgent.from_file(run_dir / "latest" / "policy.pt")
    share, (lo, hi) = learner_win_share(game, game.Config(num_players=4), agent, "random",
                                        games=400 if LONG else 20, seed=5)
    assert 0.0 <= lo <= share <= hi <= 1.0
    if LONG:
        assert lo > 0.25, f"learner won {share:.3f} [{lo:.3f}, {hi:.3f}] against 3 random bots"
