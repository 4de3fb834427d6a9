"""One local Ray for the whole module: starting it is the slow part of every RLlib test."""

from __future__ import annotations

import os

import pytest


@pytest.fixture(scope="session")
def local_ray():
    import ray

    from club_envs.training.rllib_backend.run import start_ray

    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    started = start_ray("local", num_cpus=2)
    yield ray
    if started:
        ray.shutdown()
