"""What the differential tests of the batched engines share: the replay run once more with numba's
JIT off, and the checks of a batched multi-agent game (:class:`club_envs.vector_game.VectorGame`)
against one PettingZoo environment per game, move by move.

The batched engines' tests play random games on both sides and compare everything a trainer sees;
``CLUB_ENVS_LONG=1`` plays the long version.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numba
import numpy as np

from club_envs.vector_game import VectorGameStep

ROOT = Path(__file__).resolve().parents[1]
LONG = os.environ.get("CLUB_ENVS_LONG") == "1"
NO_JIT = numba.config.DISABLE_JIT  # set when a test runs inside passes_without_jit


def passes_without_jit(test_file: str, test: str) -> None:
    """Run ``test`` of ``test_file`` (a name, with its parameters if any) in a fresh pytest with
    ``NUMBA_DISABLE_JIT=1`` -- the compiled functions as plain Python; numba reads the setting
    when it is imported, hence the subprocess -- in its short version; fail with its output."""
    env = {**os.environ, "NUMBA_DISABLE_JIT": "1", "PYTHONPATH": str(ROOT), "CLUB_ENVS_LONG": "0"}
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", f"{test_file}::{test}"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=600,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]


def check_position(step: VectorGameStep, env, g: int, where: str) -> None:
    """Game ``g``'s player to move, its observation (byte for byte) and legal actions are ``env``'s."""
    assert step.current_player[g] == env.possible_agents.index(env.agent_selection), where
    seen = env.observe(env.agent_selection)
    assert step.observation[g].tobytes() == seen["observation"].tobytes(), where
    assert (step.action_mask[g] == seen["action_mask"].astype(bool)).all(), where


def check_move(step: VectorGameStep, env, g: int, where: str) -> None:
    """After ``env`` took game ``g``'s move: every seat's reward and the end flags are ``env``'s."""
    expected = np.array([env.rewards[a] for a in env.possible_agents], np.float32)
    assert step.rewards[g].tobytes() == expected.tobytes(), f"{where}: {step.rewards[g]} != {expected}"
    assert (step.terminated[g], step.truncated[g]) == (env.game.is_terminal, env.game.is_truncated), where


def check_end(step: VectorGameStep, env, g: int, decisions: int, where: str) -> None:
    """Every seat's final view, the scores, the winners and the decisions of game ``g``, just ended."""
    views = step.info["final_obs"][g]
    for seat, agent in enumerate(env.possible_agents):
        assert views[seat].tobytes() == env.observe(agent)["observation"].tobytes(), f"{where}, seat {seat}"
    final, result = step.info["final_info"], env.game.result
    assert final["_scores"][g] and final["scores"][g].tolist() == result["scores"], where
    assert np.flatnonzero(final["winners"][g]).tolist() == result["winners"], where
    assert final["decisions"][g] == decisions, where


def random_moves(step: VectorGameStep, rng: np.random.Generator) -> np.ndarray:
    """A random legal action in every game."""
    return np.array([rng.choice(np.flatnonzero(m)) for m in step.action_mask])
