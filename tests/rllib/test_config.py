"""The ``rllib`` block of a training config: defaults, and errors that name the key and what is allowed."""

from __future__ import annotations

from pathlib import Path

import pytest

from club_envs.training.config import ConfigFileError
from club_envs.training.rllib_backend.options import RLLIB_DEFAULTS
from club_envs.training.config import load, unused_settings
from club_envs.training.config import validate as resolve_config
from club_envs.training.settings import RllibConfig

CONFIGS = Path(__file__).resolve().parents[2] / "configs"
BASE = {"backend": "rllib", "game": {"name": "members_only", "num_players": 4}}


@pytest.mark.parametrize("name", ["members_only_rllib_smoke.yaml", "arkham_rllib_smoke.yaml"])
def test_smoke_configs_resolve_to_two_local_env_runners(name):
    settings = load(CONFIGS / name)
    assert isinstance(settings, RllibConfig) and settings.rllib.num_env_runners == 2
    cfg = settings.raw
    assert cfg["backend"] == "rllib"
    assert cfg["rllib"]["address"] == "local" and cfg["rllib"]["num_env_runners"] == 2
    assert set(cfg["rllib"]) == set(RLLIB_DEFAULTS)


def test_an_empty_rllib_block_takes_every_default():
    assert resolve_config(BASE)["rllib"] == RLLIB_DEFAULTS


def test_an_unknown_rllib_key_is_named_with_the_allowed_keys():
    with pytest.raises(ConfigFileError, match=r"rllib: unknown key 'num_workers'; allowed keys: address, "):
        resolve_config({**BASE, "rllib": {"num_workers": 2}})


def test_a_wrong_type_is_named_by_its_dotted_key():
    with pytest.raises(ConfigFileError, match=r"rllib\.num_env_runners: 'two' has the wrong type; expected integer"):
        resolve_config({**BASE, "rllib": {"num_env_runners": "two"}})


def test_more_local_env_runners_than_cpus_is_refused_before_ray_starts():
    with pytest.raises(ConfigFileError, match=r"rllib\.num_env_runners: 3 runners need one CPU each .* 0\.\.2"):
        resolve_config({**BASE, "rllib": {"num_env_runners": 3, "num_cpus": 2}})
    # a cluster brings its own CPUs
    assert resolve_config({**BASE, "rllib": {"num_env_runners": 3, "address": "auto"}})["rllib"]["num_env_runners"] == 3


def test_a_minibatch_larger_than_the_training_batch_is_refused():
    with pytest.raises(ConfigFileError, match=r"algorithm\.batch_size: 512 is larger than rllib\.train_batch_size 256"):
        resolve_config({**BASE, "algorithm": {"batch_size": 512}, "rllib": {"train_batch_size": 256}})


def test_the_shared_sections_are_still_checked_for_an_rllib_config():
    with pytest.raises(ConfigFileError, match=r"game\.num_players"):
        resolve_config({**BASE, "game": {"name": "members_only", "num_players": 7}})


def test_settings_only_the_stable_baselines3_backend_uses_are_named_when_set():
    cfg = resolve_config({**BASE, "envs": {"n_envs": 16}, "selfplay": {"bot_share": 0.0, "pool_size": 3}})
    assert unused_settings(cfg) == ["envs", "selfplay.bot_share"]
    assert unused_settings(resolve_config(BASE)) == []



@pytest.mark.parametrize("key, value, allowed", [
    ("num_cpus", 10**9, "1..1024"),
    ("rollout_fragment_length", 2**40, ">= 1 and <= 1048576"),  # "auto" or a whole number
    ("train_batch_size", 10**12, "2..67108864"),
])
def test_sizes_have_a_maximum_named_with_what_is_allowed(key, value, allowed):
    with pytest.raises(ConfigFileError, match=rf"rllib\.{key}: {value} is not allowed; allowed values: {allowed}"):
        resolve_config({**BASE, "rllib": {key: value, "address": "auto"}})
