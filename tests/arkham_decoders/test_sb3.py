"""sb3-contrib's MaskablePPO trains on the batched Arkham Decoders Club environment through the
stable-baselines3 adapter (:mod:`club_envs.sb3`): it only ever plays legal actions (an illegal one
would raise), its updates change the policy, finished games are logged as episodes, and the same
seed gives the same run -- the same episodes and the same weights."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest

import club_envs  # noqa: F401  (registers the environment ids)

pytest.importorskip("sb3_contrib")


def train(seed: int):
    """256 steps of 8 games (two rollouts, two updates); the episodes' returns and the weights."""
    import torch
    from sb3_contrib import MaskablePPO

    from club_envs.sb3 import SB3VecEnv

    envs = gymnasium.make_vec("club_envs/ArkhamDecoders-v0", num_envs=8, vectorization_mode="vector_entry_point",
                              num_players=5, role="any", opponents="random")
    model = MaskablePPO("MlpPolicy", SB3VecEnv(envs), n_steps=32, batch_size=64, n_epochs=2, seed=seed)
    start = [p.detach().clone() for p in model.policy.parameters()]
    model.learn(512)
    assert model.num_timesteps == 512
    weights = [p.detach().clone() for p in model.policy.parameters()]
    assert any(not torch.equal(a, b) for a, b in zip(start, weights))  # the updates moved the policy
    episodes = [(e["r"], e["l"]) for e in model.ep_info_buffer]
    return episodes, weights


def test_maskable_ppo_trains_on_the_arkham_vector_env_and_a_seed_gives_the_same_run():
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # a small network: one thread is faster than several fighting (and deterministic)
    try:
        (episodes, weights), (again, weights_again) = train(0), train(0)
    finally:
        torch.set_num_threads(threads)
    assert len(episodes) >= 8 and all(r in (-1.0, 1.0) and length >= 1 for r, length in episodes)
    assert episodes == again
    assert all(torch.equal(a, b) for a, b in zip(weights, weights_again))
    assert np.isfinite([float(w.abs().sum()) for w in weights]).all()
