"""``algorithm.update_threads``: PPO's updates on more torch threads, the rollouts on one."""

import pytest
import torch
import yaml

from club_envs.training import config as configs
from club_envs.training import examples
from club_envs.training import train as trainer
from club_envs.training.callbacks import UpdateThreads
from tests.training.test_train import assert_same_runs


def _config(tmp_path, threads: int):
    """A short run whose minibatches are large enough for a second thread to take part."""
    cfg = yaml.safe_load(examples.path_of("members_only_smoke").read_text())
    cfg["game"]["num_players"] = [4]
    cfg["envs"] = {"n_envs": 8}
    cfg["algorithm"].update(n_steps=64, batch_size=512, n_epochs=2, update_threads=threads)
    cfg["network"]["hidden"] = [256, 256]
    cfg["budget"]["total_steps"] = 1024
    cfg["evaluation"]["every"] = 512
    path = tmp_path / f"threads{threads}.yaml"
    path.write_text(yaml.safe_dump(cfg))
    return path


def test_two_update_threads_repeat_exactly(tmp_path):
    path = _config(tmp_path, 2)
    a = trainer.run(path, runs_dir=tmp_path / "a", progress=False)
    b = trainer.run(path, runs_dir=tmp_path / "b", progress=False)
    assert_same_runs(a, b)
    assert torch.get_num_threads() == 1  # training leaves the process as it set it


def test_updates_get_the_threads_and_rollouts_keep_one(tmp_path, monkeypatch):
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.callbacks import BaseCallback
    from stable_baselines3.common.vec_env import DummyVecEnv

    from club_envs.training.throughput import TrivialEnv

    seen = {"rollout": set(), "update": set()}

    class Rollout(BaseCallback):
        def _on_step(self) -> bool:
            seen["rollout"].add(torch.get_num_threads())
            return True

    train = MaskablePPO.train
    monkeypatch.setattr(MaskablePPO, "train", lambda self: (seen["update"].add(torch.get_num_threads()), train(self)))
    torch.set_num_threads(1)
    model = MaskablePPO("MlpPolicy", DummyVecEnv([lambda: TrivialEnv(8, 3)] * 2), n_steps=16, batch_size=16,
                        n_epochs=1, device="cpu", seed=0)
    model.learn(64, callback=[Rollout(), UpdateThreads(2)])
    assert seen == {"rollout": {1}, "update": {2}}
    assert torch.get_num_threads() == 1


def test_update_threads_out_of_range_or_on_rllib_are_refused():
    base = {"game": {"name": "members_only", "num_players": 4}}
    assert configs.validate(base)["algorithm"]["update_threads"] == 1
    for bad in (0, 17):
        with pytest.raises(configs.ConfigFileError, match=rf"algorithm\.update_threads: {bad} is not allowed; allowed values: 1\.\.16"):
            configs.validate({**base, "algorithm": {"update_threads": bad}})
    with pytest.raises(configs.ConfigFileError, match=r"algorithm\.update_threads: 2 belongs to the stable-baselines3 backend.*allowed values with backend rllib: 1"):
        configs.validate({**base, "backend": "rllib", "algorithm": {"update_threads": 2}})
