"""``algorithm.precision: bfloat16`` for the stable-baselines3 learner: its actor and critic MLPs compute in
bfloat16 under CPU autocast while every weight, head and checkpoint stays float32; runs repeat and resume."""

from __future__ import annotations

import copy
from dataclasses import replace

import pytest
import torch
from sb3_contrib import MaskablePPO

from club_envs.training import config as configs
from club_envs.training import ppo
from club_envs.training.config import ConfigFileError
from club_envs.training.overlap import OverlappedMaskablePPO
from club_envs.training.torch_mlp import run_in
from tests.training.test_overlap import _config, _learner
from tests.training.test_train import assert_repeats_and_resumes


def test_a_module_set_to_bfloat16_computes_in_it_and_keeps_its_weights_and_names():
    torch.manual_seed(0)
    net = torch.nn.Sequential(torch.nn.Linear(40, 64), torch.nn.Tanh(), torch.nn.Linear(64, 64), torch.nn.Tanh())
    x = torch.randn(128, 40)
    with torch.no_grad():
        exact = net(x)
        names = list(net.state_dict())
        assert run_in(net, "float32") is net and torch.equal(net(x), exact), "float32 changes nothing"
        run_in(net, "bfloat16")
        fast = net(x)
    assert fast.dtype == torch.float32 and not torch.equal(fast, exact) and torch.allclose(fast, exact, atol=0.05)
    assert list(net.state_dict()) == names and all(p.dtype == torch.float32 for p in net.parameters())
    twin = copy.deepcopy(net)  # the overlapped loop plays on a deep copy of the policy
    with torch.no_grad():
        twin[0].weight.mul_(0.0)
        assert torch.equal(net(x), fast), "the copy's forward is bound to the copy's weights, not the original's"
        assert not torch.equal(twin(x), fast)
        assert twin(x).dtype == torch.float32


@pytest.mark.parametrize("cls", [MaskablePPO, OverlappedMaskablePPO])
def test_a_learner_in_bfloat16_learns_and_saves_float32_checkpoints(tmp_path, cls):
    model = ppo.in_precision(_learner(cls), "bfloat16")
    extractor = model.policy.mlp_extractor
    assert extractor.policy_net.hidden_precision == extractor.value_net.hidden_precision == "bfloat16"
    model.learn(20 * 128)
    chosen = model.policy.get_distribution(torch.eye(3)).distribution.probs.argmax(1)
    assert chosen.tolist() == [0, 1, 2], "it learned the bandit"
    model.save(tmp_path / "ckpt.zip")
    loaded = MaskablePPO.load(tmp_path / "ckpt.zip", env=model.env, device="cpu")
    assert all(p.dtype == torch.float32 for p in loaded.policy.parameters())
    assert not hasattr(loaded.policy.mlp_extractor.policy_net, "hidden_precision"), "a checkpoint holds no setting"
    algorithm = replace(configs.DEFAULT_ALGORITHM, precision="bfloat16", overlap=cls is OverlappedMaskablePPO)
    resumed = ppo.load_learner(algorithm, tmp_path / "ckpt.zip", model.env)  # what --resume does
    assert type(resumed) is cls and resumed.policy.mlp_extractor.value_net.hidden_precision == "bfloat16"


def test_a_bfloat16_training_run_repeats_and_resumes(tmp_path):
    cfg = _config(tmp_path, precision="bfloat16", overlap=True)
    cfg["game"]["num_players"] = [4]
    cfg["envs"] = {"n_envs": 8}
    cfg["budget"]["total_steps"] = 2048
    cfg["evaluation"]["every"] = 1024
    assert configs.from_mapping(cfg).algorithm.precision == "bfloat16"
    assert_repeats_and_resumes(tmp_path, cfg, 3072)


def test_a_bad_precision_or_one_on_rllib_is_refused(tmp_path):
    with pytest.raises(ConfigFileError, match=r"algorithm.precision: 'float16' is not allowed; allowed values: "
                                              r"float32, bfloat16"):
        configs.from_mapping(_config(tmp_path, precision="float16"))
    cfg = _config(tmp_path, precision="bfloat16")
    cfg["backend"] = "rllib"
    with pytest.raises(ConfigFileError, match=r"algorithm.precision: 'bfloat16' belongs to the stable-baselines3"):
        configs.from_mapping(cfg)


def test_bfloat16_without_the_instructions_is_named_in_a_warning(monkeypatch):
    from club_envs.training.torch_mlp import precision_warning

    monkeypatch.setattr(torch.ops.mkldnn, "_is_mkldnn_bf16_supported", lambda: False)
    assert precision_warning("ppo.precision", "bfloat16") == (
        "warning: ppo.precision: bfloat16 on a CPU without bfloat16 instructions (AVX512-BF16 or AMX): it trains, "
        "but slower than float32")
    assert precision_warning("ppo.precision", "float32") is None
    monkeypatch.setattr(torch.ops.mkldnn, "_is_mkldnn_bf16_supported", lambda: True)
    assert precision_warning("training.precision", "bfloat16") is None


def test_announce_precision_says_the_setting_and_warns_on_stderr(monkeypatch, capsys):
    from club_envs.training.torch_mlp import announce_precision

    said = []
    monkeypatch.setattr(torch.ops.mkldnn, "_is_mkldnn_bf16_supported", lambda: True)
    announce_precision("training.precision", "float32", said.append)
    announce_precision("training.precision", "bfloat16", said.append)
    assert said == ["hidden layers in bfloat16 (training.precision)"]
    assert capsys.readouterr().err == ""
    monkeypatch.setattr(torch.ops.mkldnn, "_is_mkldnn_bf16_supported", lambda: False)
    announce_precision("ppo.precision", "bfloat16")  # no one to tell: the warning alone
    assert capsys.readouterr().err.strip() == (
        "warning: ppo.precision: bfloat16 on a CPU without bfloat16 instructions (AVX512-BF16 or AMX): it trains, "
        "but slower than float32")
