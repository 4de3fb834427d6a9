"""What a training run shows while it runs: a line at once, a bar or plain lines per long phase, a
line per finished generation and evaluation -- flushed, without carriage returns in a file -- and
the same results with or without them."""

from __future__ import annotations

import csv
import io
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import yaml

from club_envs.cli import main
from club_envs.members_only.belief_model import BeliefModel
from club_envs.training import launch
from club_envs.training.progress import Reporter

ROOT = Path(__file__).resolve().parents[2]
CONFIG_DIR = ROOT / "configs"
TINY_BELIEF = {"recipe": "belief_iteration", "game": {"num_players": [3]},
               "selfplay": {"generations": 1, "games": 3}, "model": {"hidden": [8]},
               "evaluation": {"games": 2, "opponents": ["random"]}, "seed": 5}
RATE = r"\([\d.,]+ {units}/s\)"  # "(3.65 games/s)", "(1,204 steps/s)"


def write(path: Path, cfg: dict) -> Path:
    path.write_text(yaml.safe_dump(cfg))
    return path


class FakeTerminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_file_gets_plain_lines_with_count_rate_and_time_left():
    out = io.StringIO()
    report = Reporter(stream=out, every=0.0)  # a line at every update
    with report.phase("demo phase", 4, unit="batch", units="batches") as phase:
        for _ in range(4):
            phase.update()
    lines = out.getvalue().splitlines()
    assert "\r" not in out.getvalue()
    assert lines[0] == "demo phase: 4 batches"
    assert re.fullmatch(r"demo phase: 1/4 batches \(25%\), [\d.,]+ batches/s, 00:00 elapsed, 00:00 left", lines[1])
    assert re.fullmatch(r"demo phase: 4 batches in 00:00 " + RATE.format(units="batches"), lines[-1])
    assert len(lines) == 6


def test_a_terminal_gets_a_bar_that_gives_way_to_one_line():
    out = FakeTerminal()
    report = Reporter(stream=out)
    with report.phase("games", 3) as phase:
        phase.update(3)
    text = out.getvalue()
    assert "\r" in text and "| 0/3 [" in text  # tqdm's bar, drawn in place
    assert re.search(r"games: 3 games in 00:00 " + RATE.format(units="games") + r"\n$", text)


def test_no_bars_keeps_the_end_lines_and_quiet_writes_nothing():
    out = io.StringIO()
    with Reporter(bars=False, stream=out).phase("fit", 2, unit="batch", units="batches") as phase:
        phase.update(2)
    assert out.getvalue().splitlines() == [out.getvalue().strip()] and out.getvalue().startswith("fit: 2 batches in ")
    quiet = Reporter.quiet()
    with quiet.phase("fit", 2) as phase:
        phase.update(2)
    quiet.say("nothing")
    assert not Reporter.of(False).lines and Reporter.of(True).bars


def test_a_belief_run_to_a_file_shows_every_phase_at_once_and_learns_the_same(tmp_path):
    """``club-envs train`` with its output in a file (not a terminal): the lines of every phase,
    flushed, no carriage returns; the same run in-process with ``--quiet`` gives the same files."""
    config = write(tmp_path / "tiny_belief.yaml", TINY_BELIEF)
    log = tmp_path / "train.log"
    with log.open("w") as fh:
        subprocess.run([sys.executable, "-m", "club_envs", "train", str(config), "--runs-dir", str(tmp_path / "a")],
                       stdout=fh, stderr=subprocess.STDOUT, check=True, cwd=ROOT, timeout=300)
    text = log.read_text()
    assert "\r" not in text
    lines = text.splitlines()
    assert lines[0].startswith(f"{config}: Members Only belief iteration at 3 players, 1 generation of 3 self-play games")
    assert lines[1].startswith("new run in ")
    expected = [  # in this order
        r"generation 0/1: evaluation of the untrained model \(the heuristic's play\) vs random: 2 games",
        r"generation 0/1: evaluation of the untrained model .*: 2 games in \d\d:\d\d " + RATE.format(units="games")
        + r" \[random 3p=[\d.]+\]",
        r"generation 1/1: self-play: 3 games",
        r"generation 1/1: self-play: 3 games in \d\d:\d\d " + RATE.format(units="games") + r"; [\d,]+ examples"
        + r" \([\d,]+ near-ties settled by the reference code\)",  # the batched engine's count
        r"generation 1/1: fit: \d+ batches in \d\d:\d\d " + RATE.format(units="batches") + r"; 4 epochs over .*",
        r"generation 1/1: evaluation of its model vs random: 2 games in .*\[random 3p=[\d.]+\]",
        r"generation 1/1: \d+ examples, held-out nats/category .*; random 3p [\d.]+; \d+ s",
        r"run folder: .* \(best generation 1; \d+ s this time\)",
    ]
    at = 0
    for pattern in expected:
        at = next((i for i in range(at, len(lines)) if re.fullmatch(pattern, lines[i])), None)
        assert at is not None, f"no line {pattern!r} in order in:\n{text}"

    assert main(["train", str(config), "--runs-dir", str(tmp_path / "b"), "--quiet"]) == 0
    (a,), (b,) = (tmp_path / "a").iterdir(), (tmp_path / "b").iterdir()
    assert (a / "evaluations.csv").read_text() == (b / "evaluations.csv").read_text()
    la, lb = BeliefModel.load(a / "best" / "belief.npz").layers, BeliefModel.load(b / "best" / "belief.npz").layers
    assert all(np.array_equal(x, y) for pa, pb in zip(la, lb) for x, y in zip(pa, pb))
    assert _without_seconds(a / "progress.csv") == _without_seconds(b / "progress.csv")


def test_quiet_prints_no_progress(tmp_path, capsys):
    config = write(tmp_path / "tiny_belief.yaml", {**TINY_BELIEF, "evaluation": {"games": 0}})
    assert main(["train", str(config), "--runs-dir", str(tmp_path), "--quiet"]) == 0
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err == ""


def test_ppo_shows_its_steps_and_each_evaluation_and_learns_the_same(tmp_path):
    cfg = yaml.safe_load((CONFIG_DIR / "members_only_smoke.yaml").read_text())
    cfg["envs"]["subprocess"] = False
    cfg["budget"]["total_steps"] = cfg["evaluation"]["every"] = cfg["checkpoint"]["every"] = 128
    cfg["selfplay"]["snapshot_every"] = 64
    cfg["evaluation"]["games"] = 2
    cfg["game"]["num_players"] = [3, 4]
    config = write(tmp_path / "tiny_ppo.yaml", cfg)
    out = io.StringIO()
    a = launch.run(config, runs_dir=tmp_path / "a", progress=Reporter(stream=out, every=0.0))
    text = out.getvalue()
    assert "\r" not in text
    assert "train members_only: 128 steps\n" in text
    assert re.search(r"train members_only: 64/128 steps \(50%\), [\d.,]+ steps/s, \d\d:\d\d elapsed, \d\d:\d\d left", text)
    assert re.search(r"evaluation of player@128 vs random: 4 games in \d\d:\d\d " + RATE.format(units="games")
                     + r" \[random 3p=[\d.]+, random 4p=[\d.]+\]", text)
    assert re.search(r"train members_only: 128 steps in \d\d:\d\d " + RATE.format(units="steps"), text)
    b = launch.run(config, runs_dir=tmp_path / "b", progress=False)
    from tests.training.test_train import assert_same_runs

    assert_same_runs(a, b)


def _without_seconds(path: Path) -> list[dict[str, str]]:
    return [{k: v for k, v in row.items() if "seconds" not in k} for row in csv.DictReader(path.open())]
