"""A server deals many games against the same policy file: the file is read and checked once and
its network shared, while a file written again is read again and each agent keeps its own state."""

from __future__ import annotations

import numpy as np
import torch

from club_envs.agents.policy import PolicyAgent, load_policy_file, save_policy
from club_envs.games import load_game
from club_envs.play.catalogue import AgentCatalogue


def write_policy(path, seed: int):
    g = torch.Generator().manual_seed(seed)
    weights = {
        "mlp_extractor.policy_net.0.weight": torch.randn(8, 510, generator=g) * 0.1,
        "mlp_extractor.policy_net.0.bias": torch.zeros(8),
        "action_net.weight": torch.randn(101, 8, generator=g) * 0.1,
        "action_net.bias": torch.zeros(101),
    }
    meta = {"game": "members_only", "side": "player", "roles": None, "obs_size": 510, "num_actions": 101,
            "hidden": [8], "activation": "tanh", "steps": seed}
    return save_policy(path, weights, meta)


def test_an_unchanged_policy_file_is_read_once_and_its_network_shared(tmp_path):
    game = load_game("members_only")
    path = write_policy(tmp_path / "p.pt", seed=1)
    net, meta = load_policy_file(path, game=game)
    again, meta_again = load_policy_file(path, game=game)
    assert again is net  # not read again
    meta["steps"] = "changed by a caller"
    assert meta_again["steps"] == 1 and load_policy_file(path)[1]["steps"] == 1  # each caller its own metadata

    write_policy(path, seed=2)  # the same name written again: read afresh
    fresh, fresh_meta = load_policy_file(path, game=game)
    assert fresh is not net and fresh_meta["steps"] == 2
    assert not np.array_equal(fresh.layers[0][0], net.layers[0][0])


def test_agents_made_for_two_games_share_the_network_but_not_their_random_state(tmp_path):
    game = load_game("members_only")
    write_policy(tmp_path / "mine.pt", seed=3)
    catalogue = AgentCatalogue(tmp_path)
    config = game.Config(num_players=3)
    a = catalogue.make(game, "mine:sample", config, seed=1)
    b = catalogue.make(game, "mine:sample", config, seed=1)
    assert isinstance(a, PolicyAgent) and isinstance(b, PolicyAgent)
    assert a.net is b.net and a is not b
    a.reset(0, seed=5)
    b.reset(0, seed=6)
    assert a._rng.random() != b._rng.random()
