"""``pretrain.from_policy``: a side's learner starts as a trained policy (a shipped agent or a file)."""

from __future__ import annotations

import pytest
import torch

from club_envs.agents.registry import SHIPPED_DIR
from club_envs.cli import main
from club_envs.training import config as configs
from club_envs.training.settings import NetworkSettings
from club_envs.training.start_policy import check_fits, start_file

TINY = {
    "game": {"name": "members_only", "num_players": 3},
    "algorithm": {"n_steps": 16, "batch_size": 16, "n_epochs": 1},
    "network": {"hidden": [16]},
    "envs": {"n_envs": 2, "subprocess": False},
    "selfplay": {"snapshot_every": 1000, "pool_size": 3},
    "evaluation": {"every": 1000, "games": 2, "opponents": ["random"]},
    "checkpoint": {"every": 1000},
    "budget": {"total_steps": 32},
    "seed": 5,
}


def test_the_config_names_the_sides_and_one_way_to_start():
    with pytest.raises(configs.ConfigFileError, match="'team' is not a side of members_only; allowed values: player"):
        configs.from_mapping({**TINY, "pretrain": {"from_policy": {"team": "members_only"}}}, "x")
    with pytest.raises(configs.ConfigFileError, match="pretrain.games: 10 imitates for the sides not in "
                                                      "pretrain.from_policy, and every side starts from a policy"):
        configs.from_mapping({**TINY, "pretrain": {"games": 10, "from_policy": {"player": "members_only"}}}, "x")
    arkham = {**TINY, "game": {"name": "arkham_decoders", "num_players": 5}}
    one_side = configs.from_mapping({**arkham, "pretrain": {"games": 10, "from_policy": {"team": "arkham_neural"}}}, "x")
    assert one_side.pretrain.from_policy == {"team": "arkham_neural"} and one_side.pretrain.games == 10
    with pytest.raises(configs.ConfigFileError, match="leaves a privileged critic unfitted.*from_policy: 1 or more"):
        configs.from_mapping({**TINY, "algorithm": {**TINY["algorithm"], "critic": "privileged"},
                              "pretrain": {"from_policy": {"player": "members_only"}}}, "x")
    ok = configs.from_mapping({**TINY, "pretrain": {"from_policy": {"player": "members_only"}}}, "x")
    assert ok.pretrain.from_policy == {"player": "members_only"}
    assert configs.from_mapping(TINY, "x").pretrain.from_policy == {}


def test_shipped_agents_and_files_resolve_to_one_network_per_side(tmp_path):
    assert start_file("arkham_decoders", "team", "arkham_neural") == SHIPPED_DIR / "arkham_neural_team.pt"
    assert start_file("arkham_decoders", "black_man", "arkham_neural") == SHIPPED_DIR / "arkham_neural_black_man.pt"
    assert start_file("members_only", "player", "members_only") == SHIPPED_DIR / "members_only.pt"
    with pytest.raises(ValueError, match="'members_only' plays members_only, not arkham_decoders"):
        start_file("arkham_decoders", "team", "members_only")
    with pytest.raises(ValueError, match="'nobody' is neither a shipped agent of members_only.*members_only_neural"):
        start_file("members_only", "player", "nobody")
    with pytest.raises(ValueError, match="'members_only_belief' is not a policy network"):
        start_file("members_only", "player", "members_only_belief")
    broken = tmp_path / "broken.pt"
    broken.write_bytes(b"not a policy")
    with pytest.raises(ValueError, match="pretrain.from_policy.player: .*broken.pt: not a policy file"):
        check_fits(start_file("members_only", "player", str(broken)), "members_only", "player",
                   NetworkSettings((16,), "tanh", "none"))
    with pytest.raises(ValueError, match=r"does not fit this config's learner: hidden \[256, 256\] \(the config: \[16\]\)"):
        check_fits(SHIPPED_DIR / "members_only.pt", "members_only", "player", NetworkSettings((16,), "tanh",
                                                                                             "members_only_heuristic"))
    check_fits(SHIPPED_DIR / "members_only.pt", "members_only", "player",
               NetworkSettings((256, 256), "tanh", "members_only_heuristic"))


def test_a_run_starts_as_the_policy_and_refuses_one_that_does_not_fit(tmp_path, capsys):
    import yaml

    first = tmp_path / "first.yaml"
    first.write_text(yaml.safe_dump(TINY))
    assert main(["train", str(first), "--runs-dir", str(tmp_path / "a"), "--quiet"]) == 0
    source = sorted((tmp_path / "a").glob("*/pool/player/snap-*.pt"))[-1]
    second = tmp_path / "second.yaml"
    second.write_text(yaml.safe_dump({**TINY, "seed": 6, "pretrain": {"from_policy": {"player": str(source)}}}))
    assert main(["train", str(second), "--runs-dir", str(tmp_path / "b"), "--quiet"]) == 0
    start = sorted((tmp_path / "b").glob("*/pool/player/snap-000000000.pt"))
    assert len(start) == 1  # the pool's first member: the learner as it started
    expected = torch.load(source, weights_only=True)["weights"]
    got = torch.load(start[0], weights_only=True)["weights"]
    assert expected.keys() == got.keys() and all(torch.equal(expected[k], got[k]) for k in expected)
    wrong = tmp_path / "wrong.yaml"
    wrong.write_text(yaml.safe_dump({**TINY, "network": {"hidden": [8]}, "pretrain": {"from_policy": {"player": str(source)}}}))
    capsys.readouterr()
    assert main(["train", str(wrong), "--runs-dir", str(tmp_path / "c"), "--quiet"]) == 2
    assert r"hidden [16] (the config: [8])" in capsys.readouterr().err
    assert not (tmp_path / "c").exists() or not any((tmp_path / "c").iterdir())  # refused before a run folder
