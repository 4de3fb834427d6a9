"""The ``rllib:`` block of a training config: where Ray runs and how RLlib samples.

A config that says ``backend: rllib`` keeps every other section (game, algorithm, network,
self-play, evaluation, checkpoint, budget, seed) and adds this block; every key has a default::

    backend: rllib
    rllib:
      address: local               # start Ray here; or a cluster's head "HOST:6379" ("auto" on a node)
      num_cpus: 2                  # CPUs a local Ray may use (ignored when joining a cluster)
      num_env_runners: 2           # sampling processes (Ray actors), one CPU each; 0: the driver
      num_envs_per_env_runner: 8   # games each runner plays at once (one batched forward pass)
      rollout_fragment_length: auto  # steps per game copy a runner hands in at a time ("auto":
                                   # train_batch_size / (runners x games per runner))
      train_batch_size: 4000       # environment steps per PPO update
      self_play_share: 0.5         # chance an opponent seat is played by the learner itself

The PPO hyper-parameters come from the shared ``algorithm`` section (``batch_size`` is the
minibatch, ``n_epochs`` the passes over each batch); ``algorithm.n_steps`` and ``envs`` belong to
the stable-baselines3 backend and are replaced here by the sampling keys above.

This module imports nothing from Ray, so the training config can be validated without it
(:mod:`club_envs.training.config` checks the block and its sizes).
"""

from __future__ import annotations

from typing import Any

RLLIB_DEFAULTS: dict[str, Any] = {
    "address": "local",
    "num_cpus": 2,
    "num_env_runners": 2,
    "num_envs_per_env_runner": 8,
    "rollout_fragment_length": "auto",
    "train_batch_size": 4000,
    "self_play_share": 0.5,
}

RLLIB_SCHEMA: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "properties": {
        "address": {"type": "string", "minLength": 1},
        "num_cpus": {"type": "integer", "minimum": 1, "maximum": 1024},
        "num_env_runners": {"type": "integer", "minimum": 0, "maximum": 1024},
        "num_envs_per_env_runner": {"type": "integer", "minimum": 1, "maximum": 256},
        # a whole number of steps, or "auto" (one schema for both keeps the error messages plain)
        "rollout_fragment_length": {"type": ["integer", "string"], "minimum": 1, "maximum": 2**20, "pattern": "^auto$"},
        "train_batch_size": {"type": "integer", "minimum": 2, "maximum": 2**26},
        "self_play_share": {"type": "number", "minimum": 0, "maximum": 1},
    },
}

BACKENDS = ("sb3", "rllib")
LOCAL = "local"

