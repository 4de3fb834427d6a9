"""Every tutorial script runs, in a short version, exactly as a user runs it: as a program.

Each script runs in a fresh process from an empty folder (so it depends on nothing in the checkout
but the installed package), with options that make it short; its output and files are checked.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

TUTORIALS = Path(__file__).resolve().parents[2] / "docs" / "tutorials"

# script -> (options of the short version, a line its output must contain)
SHORT = {
    "pettingzoo_loop.py": (["--games", "2", "--out", "records"], "arkham_decoders: 2 games"),
    "gymnasium_maskable_ppo.py": (["--steps", "256", "--games", "3"], "MaskablePPO: win share"),
    "custom_opponent.py": (["--games", "8"], "favourite against 3 x heuristic (8 games"),
    "selfplay_from_config.py": (["--steps", "256", "--games", "4", "--runs-dir", "runs"], "4 games"),
    "shipped_agent.py": (["--games", "6"], "the Black Man's reward against the shipped team"),
    "vector_selfplay.py": (["--games", "8", "--iterations", "2", "--eval-games", "16"], "random at every seat"),
    "rllib.py": (["--steps", "400", "--runners", "1", "--games", "4", "--runs-dir", "runs"],
                 "exported policies: ['policy.pt']"),
}


def run_tutorial(script: str, folder: Path) -> subprocess.CompletedProcess:
    options, _ = SHORT[script]
    # One BLAS/OpenMP thread: on a shared, loaded machine torch's thread pools otherwise spin
    # against each other and a few seconds of training take minutes.
    env = {**os.environ, "RAY_USAGE_STATS_ENABLED": "0", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
    return subprocess.run([sys.executable, str(TUTORIALS / script), *options], cwd=folder, env=env,
                          capture_output=True, text=True, timeout=900, stdin=subprocess.DEVNULL)


def test_every_tutorial_has_a_short_version():
    assert sorted(p.name for p in TUTORIALS.glob("*.py")) == sorted(SHORT)


@pytest.mark.parametrize("script", sorted(SHORT))
def test_the_tutorial_runs(script, tmp_path):
    done = run_tutorial(script, tmp_path)
    assert done.returncode == 0, f"{script} failed:\n{done.stdout[-2000:]}\n{done.stderr[-4000:]}"
    assert SHORT[script][1] in done.stdout, done.stdout[-3000:]
    if script == "pettingzoo_loop.py":
        assert len(list((tmp_path / "records").glob("members_only_*.json"))) == 2
        assert len(list((tmp_path / "records").glob("arkham_decoders_*.json"))) == 2
    if script == "selfplay_from_config.py":
        assert list((tmp_path / "runs").glob("tutorial_selfplay-*/best/policy.pt"))
    if script == "rllib.py":
        assert list((tmp_path / "runs").glob("tutorial_rllib-*/latest/policy.pt"))


def test_a_tutorial_says_what_its_options_are(tmp_path):
    done = subprocess.run([sys.executable, str(TUTORIALS / "custom_opponent.py"), "--games", "many"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert "--games: invalid int value: 'many'" in done.stderr
    assert "Traceback" not in done.stderr
