"""``algorithm.overlap``: the learner plays rollout k + 1 with the weights from before update k while
update k runs in a second thread, learns from every rollout, repeats exactly, and saves a plain
MaskablePPO checkpoint."""

from __future__ import annotations

import threading

import gymnasium as gym
import numpy as np
import pytest
import torch
import yaml
from sb3_contrib import MaskablePPO
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.vec_env import DummyVecEnv

from club_envs.training import config as configs
from club_envs.training import examples
from club_envs.training.config import ConfigFileError
from club_envs.training.overlap import OverlappedMaskablePPO
from tests.training.test_train import assert_repeats_and_resumes


class Bandit(gym.Env):
    """Three arms; the observation says which one pays (a one-step game, its own generator)."""

    def __init__(self, seed: int) -> None:
        self.observation_space = gym.spaces.Box(0.0, 1.0, (3,), np.float32)
        self.action_space = gym.spaces.Discrete(3)
        self._rng = np.random.default_rng(seed)
        self._obs = np.zeros(3, np.float32)

    def _draw(self) -> np.ndarray:
        self._obs = np.eye(3, dtype=np.float32)[self._rng.integers(3)]
        return self._obs

    def reset(self, *, seed=None, options=None):
        return self._draw(), {}

    def step(self, action):
        reward = float(self._obs[int(action)])
        return self._draw(), reward, True, False, {}

    def action_masks(self) -> np.ndarray:
        return np.ones(3, bool)


def _learner(cls, seed: int = 0):
    env = DummyVecEnv([lambda i=i: Bandit(i) for i in range(4)])
    return cls("MlpPolicy", env, n_steps=32, batch_size=64, n_epochs=2, learning_rate=3e-3, seed=seed, device="cpu",
               policy_kwargs={"net_arch": [16]})


def _weights(policy) -> np.ndarray:
    return torch.cat([p.detach().flatten() for p in policy.parameters()]).numpy().copy()


class Played(BaseCallback):
    """The weights each rollout is played with, and the thread it is played in."""

    def __init__(self) -> None:
        super().__init__()
        self.weights: list[np.ndarray] = []
        self.threads: set[str] = set()

    def _on_rollout_start(self) -> None:
        self.weights.append(_weights(self.model.policy))
        self.threads.add(threading.current_thread().name)

    def _on_step(self) -> bool:
        return True


def test_each_rollout_is_played_with_the_weights_from_before_the_update_running_beside_it(monkeypatch):
    updates: list[np.ndarray] = []
    model = _learner(OverlappedMaskablePPO)
    train = MaskablePPO.train

    def recorded(self):  # the weights each update starts from, in the thread it runs in
        updates.append(_weights(self.policy))
        assert threading.current_thread().name == "ppo-update" or len(updates) in (4, 5)
        train(self)

    played, start = Played(), _weights(model.policy)
    monkeypatch.setattr(MaskablePPO, "train", recorded)
    model.learn(4 * 128, callback=played)
    assert len(played.weights) == len(updates) == 4  # every rollout learned from, the last after the collection
    assert played.threads == {threading.main_thread().name}  # callbacks and signals stay in the calling thread
    np.testing.assert_array_equal(played.weights[0], start)
    np.testing.assert_array_equal(played.weights[1], start)  # played while update 1 ran on rollout 1
    np.testing.assert_array_equal(played.weights[2], updates[1])  # after update 1: its result, one update of lag
    np.testing.assert_array_equal(played.weights[3], updates[2])
    assert not np.array_equal(updates[1], start)
    learned = _weights(model.policy)
    again = Played()
    model.learn(128, callback=again, reset_num_timesteps=False)
    np.testing.assert_array_equal(again.weights[0], learned)  # a new call starts from everything learned


def test_the_turn_taking_loop_plays_each_rollout_with_the_newest_weights():
    played = Played()
    model = _learner(MaskablePPO)
    model.learn(3 * 128, callback=played)
    assert not np.array_equal(played.weights[1], played.weights[0])


def test_overlapped_runs_repeat_and_learn():
    a = _learner(OverlappedMaskablePPO).learn(20 * 128)  # each learner seeds the global generators anew
    b = _learner(OverlappedMaskablePPO).learn(20 * 128)
    np.testing.assert_array_equal(_weights(a.policy), _weights(b.policy))
    assert a._n_updates == _learner(MaskablePPO).learn(20 * 128)._n_updates
    obs = torch.eye(3)
    chosen = a.policy.get_distribution(obs).distribution.probs.argmax(1)
    assert chosen.tolist() == [0, 1, 2]  # it learned the bandit


def test_the_checkpoint_holds_the_learner_and_loads_into_either_loop(tmp_path):
    model = _learner(OverlappedMaskablePPO)
    model.learn(3 * 128)
    model.save(tmp_path / "ckpt.zip")
    for cls in (MaskablePPO, OverlappedMaskablePPO):
        loaded = cls.load(tmp_path / "ckpt.zip", env=model.env, device="cpu")
        np.testing.assert_array_equal(_weights(loaded.policy), _weights(model.policy))
        assert loaded.num_timesteps == model.num_timesteps
        loaded.learn(128, reset_num_timesteps=False)


def test_an_error_in_the_update_reaches_the_caller(monkeypatch):
    model = _learner(OverlappedMaskablePPO)

    def broken(self):
        raise RuntimeError("update failed")

    monkeypatch.setattr(MaskablePPO, "train", broken)
    with pytest.raises(RuntimeError, match="update failed"):
        model.learn(4 * 128)


def _config(tmp_path, **algorithm) -> dict:
    cfg = yaml.safe_load(examples.path_of("members_only_smoke").read_text())
    cfg["algorithm"].update(algorithm)
    return cfg


def test_overlap_with_more_update_threads_or_on_rllib_is_refused(tmp_path):
    with pytest.raises(ConfigFileError, match=r"algorithm.update_threads: 2 with algorithm.overlap.*allowed values"):
        configs.from_mapping(_config(tmp_path, overlap=True, update_threads=2))
    cfg = _config(tmp_path, overlap=True)
    cfg["backend"] = "rllib"
    with pytest.raises(ConfigFileError, match=r"algorithm.overlap: true belongs to the stable-baselines3 backend"):
        configs.from_mapping(cfg)
    with pytest.raises(ConfigFileError, match="algorithm.overlap"):
        configs.from_mapping(_config(tmp_path, overlap="yes"))


def test_an_overlapped_training_run_repeats_and_resumes(tmp_path):
    cfg = _config(tmp_path, overlap=True)
    cfg["game"]["num_players"] = [4]
    cfg["envs"] = {"n_envs": 8}
    cfg["budget"]["total_steps"] = 2048
    cfg["evaluation"]["every"] = 1024
    assert_repeats_and_resumes(tmp_path, cfg, 3072)
