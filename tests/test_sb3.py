"""The stable-baselines3 adapter (:mod:`club_envs.sb3`): its transitions are the vector
environment's, translated to stable-baselines3's autoreset and infos, and MaskablePPO trains on it
directly, logging episode statistics."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode

import club_envs  # noqa: F401  (registers the environment ids)
from club_envs.sb3 import SB3VecEnv, unbatch_info

pytest.importorskip("sb3_contrib")

ID = "club_envs/MembersOnly-v0"


def batched(num_envs: int, **kwargs):
    return gymnasium.make_vec(ID, num_envs=num_envs, vectorization_mode="vector_entry_point", **kwargs)


def sync(num_envs: int, mode: AutoresetMode, **kwargs):
    return gymnasium.make_vec(ID, num_envs=num_envs, vectorization_mode="sync", vector_kwargs={"autoreset_mode": mode},
                              **kwargs)


def random_actions(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    return np.array([rng.choice(np.flatnonzero(m)) for m in masks])


@pytest.mark.parametrize("options", [{"num_players": 4, "max_heats": 2, "heat_shaping": 0.1},
                                     {"num_players": 3, "reward_mode": "score", "seat": "random"}],
                         ids=["4p-truncated-shaped", "3p-score-random-seat"])
def test_the_adapters_transitions_are_the_vector_environments(options):
    raw, adapter = batched(6, **options), SB3VecEnv(batched(6, **options))
    adapter.seed(5)
    obs, (expected, info) = adapter.reset(), raw.reset(seed=5)
    assert (obs == expected).all()
    assert [i["seat"] for i in adapter.reset_infos] == info["seat"].tolist()
    rng, returns, lengths, finished = np.random.default_rng(0), np.zeros(6), np.zeros(6, int), 0
    for _ in range(700):
        masks = raw.action_masks()
        assert (np.stack(adapter.env_method("action_masks")) == masks).all()
        actions = random_actions(masks, rng)
        expected, rewards, terminated, truncated, info = raw.step(actions)
        adapter.step_async(actions)
        obs, got_rewards, dones, infos = adapter.step_wait()
        assert (obs == expected).all() and got_rewards.dtype == np.float32
        assert (got_rewards == rewards.astype(np.float32)).all() and (dones == (terminated | truncated)).all()
        returns += got_rewards
        lengths += 1
        for g in np.flatnonzero(dones):
            finished += 1
            assert (infos[g]["terminal_observation"] == info["final_obs"][g]).all()
            assert infos[g]["TimeLimit.truncated"] == bool(truncated[g] and not terminated[g])
            assert infos[g]["episode"]["r"] == pytest.approx(returns[g]) and infos[g]["episode"]["l"] == lengths[g]
            assert infos[g]["scores"].tolist() == info["final_info"]["scores"][g].tolist()
            assert adapter.reset_infos[g]["seat"] == info["seat"][g]
        for g in np.flatnonzero(~dones):
            assert "episode" not in infos[g] and infos[g]["seat"] == info["seat"][g]
        returns[dones], lengths[dones] = 0, 0
    assert finished >= 6


def test_disabled_autoreset_is_restarted_by_the_adapter_as_same_step_autoreset():
    """Over one-game environments (vectorization_mode="sync") the adapter gives the same
    transitions whether the vector env resets in the same step or leaves that to the adapter."""
    same, disabled = (SB3VecEnv(sync(3, mode, num_players=3, max_heats=1, opponents="random"))
                      for mode in (AutoresetMode.SAME_STEP, AutoresetMode.DISABLED))
    for adapter in (same, disabled):
        adapter.seed(2)
    assert (same.reset() == disabled.reset()).all()
    rng, finished = np.random.default_rng(3), 0
    for _ in range(120):
        masks = same.action_masks()
        assert (masks == disabled.action_masks()).all() and masks.any(axis=1).all()
        actions = random_actions(masks, rng)
        a, b = same.step(actions), disabled.step(actions)
        for x, y in zip(a[:3], b[:3]):
            assert (x == y).all()
        for g in np.flatnonzero(a[2]):
            finished += 1
            assert (a[3][g]["terminal_observation"] == b[3][g]["terminal_observation"]).all()
            assert a[3][g]["episode"] == {**b[3][g]["episode"], "t": a[3][g]["episode"]["t"]}
    assert finished >= 3


def test_next_step_autoreset_is_refused_with_the_way_out():
    with pytest.raises(ValueError, match="NextStep.*SameStep or Disabled.*vector_kwargs"):
        SB3VecEnv(gymnasium.make_vec(ID, num_envs=2, vectorization_mode="sync"))
    with pytest.raises(TypeError, match="gymnasium.vector.VectorEnv"):
        SB3VecEnv(gymnasium.make(ID))


def test_maskable_ppo_trains_on_the_adapter_with_masks_and_episode_statistics(monkeypatch):
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable import utils

    seen = []
    original = utils.get_action_masks
    monkeypatch.setattr("sb3_contrib.ppo_mask.ppo_mask.get_action_masks",
                        lambda env: seen.append(original(env)) or seen[-1])
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # a small network: one thread is faster than several fighting
    runs = []
    try:
        for _ in range(2):
            model = MaskablePPO("MlpPolicy", SB3VecEnv(batched(8, num_players=4, max_heats=1)), n_steps=32,
                                batch_size=64, n_epochs=1, seed=0)
            model.learn(256)
            runs.append([e["r"] for e in model.ep_info_buffer])
            assert model.num_timesteps == 256
    finally:
        torch.set_num_threads(threads)
    assert runs[0] and runs[0] == runs[1]  # episodes were logged, and the same seed gave the same run
    assert seen and all(m.shape == (8, 101) and m.any(axis=1).all() for m in seen)


def test_an_info_is_split_per_game_by_its_masks():
    info = {"seat": np.array([2, 0]), "final_info": {"scores": np.array([[1], [2]]), "_scores": np.array([False, True])},
            "_final_info": np.array([False, True])}
    assert unbatch_info(info, 0, 2) == {"seat": 2}
    assert unbatch_info(info, 1, 2)["final_info"]["scores"].tolist() == [2]
