"""Snapshots are frozen copies: training moves the learner and leaves the league alone."""

from __future__ import annotations

import numpy as np
import pytest

from club_envs.training.rllib_backend.algorithm import build_config
from club_envs.training.config import from_mapping
from club_envs.training.rllib_backend.run import copy_into_snapshot, fill_league


def module_weights(algo, module_id: str, where: str) -> dict[str, np.ndarray]:
    """The acting half of a module (what snapshots are for), on the learner or the env runner."""
    state = algo.learner_group.get_state(components=f"learner/rl_module/{module_id}", inference_only=True)
    acting = state["learner"]["rl_module"][module_id]
    if where == "learner":
        return acting
    on_runner = algo.env_runner.module[module_id].get_state()
    return {k: on_runner[k] for k in acting}


def same(a: dict, b: dict) -> bool:
    return a.keys() == b.keys() and all(np.array_equal(a[k], b[k]) for k in a)


@pytest.fixture(scope="module")
def algo(local_ray):
    cfg = from_mapping({
        "backend": "rllib",
        "rllib": {"num_env_runners": 0, "num_envs_per_env_runner": 1, "train_batch_size": 128},
        "game": {"name": "members_only", "num_players": 3},
        "algorithm": {"batch_size": 64, "n_epochs": 1, "learning_rate": 0.01},
        "network": {"hidden": [16]},
        "selfplay": {"pool_size": 2},
    })
    algorithm = build_config(cfg).build_algo()
    fill_league(algorithm, "members_only", 2)
    yield algorithm
    algorithm.stop()


def test_a_new_league_starts_as_copies_of_the_untrained_learner(algo):
    learner = module_weights(algo, "main", "learner")
    for slot in ("main_snap0", "main_snap1"):
        assert same(module_weights(algo, slot, "learner"), learner)
        assert same(module_weights(algo, slot, "runner"), learner)


def test_training_moves_the_learner_and_not_its_snapshots_then_a_snapshot_copies_it(algo):
    before = {m: module_weights(algo, m, "learner") for m in ("main", "main_snap0", "main_snap1")}
    algo.train()
    after = {m: module_weights(algo, m, "learner") for m in before}
    assert not same(after["main"], before["main"])
    assert same(after["main_snap0"], before["main_snap0"]) and same(after["main_snap1"], before["main_snap1"])
    copy_into_snapshot(algo, "main", 1)
    assert same(module_weights(algo, "main_snap1", "learner"), after["main"])
    assert same(module_weights(algo, "main_snap1", "runner"), after["main"])
    assert same(module_weights(algo, "main_snap0", "runner"), before["main_snap0"])
