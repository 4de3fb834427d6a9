"""Shipped agents load from weights-only files and play full games at every supported player count."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest
import torch

import club_envs  # noqa: F401  -- registers the environments
from club_envs.agents import load
from club_envs.agents.policy import PolicyFileError, load_policy_file
from club_envs.agents.registry import SHIPPED, SHIPPED_DIR
from club_envs.games import load_game


def test_every_shipped_agent_is_installed_with_its_model_card():
    for name, (_, files) in SHIPPED.items():
        for f in set(files.values()):
            assert (SHIPPED_DIR / f).is_file(), f"{name}: {f} missing"
            stem = f.rsplit(".", 1)[0]  # a policy file (.pt) or a belief file (.npz)
            own = SHIPPED_DIR / f"{stem}.md"  # a file's own card, or its agent's (a pair shipped together)
            card = (own if own.is_file() else SHIPPED_DIR / f"{name}.md").read_text()
            assert "## Evaluation" in card and "club-envs train" in card and "## Training config" in card


@pytest.mark.parametrize("name", sorted(SHIPPED))
def test_shipped_agent_plays_full_games_at_every_player_count(name):
    game = load_game(SHIPPED[name][0])
    roles = SHIPPED[name][1]
    for n in game.PLAYER_COUNTS:
        config = game.Config(num_players=n)
        agent = load(name, game=game, config=config, seed=1)
        if "*" in roles:
            players = [agent] + [load("random", game=game, config=config, seed=s) for s in range(n - 1)]
        else:  # the shipped agent plays its roles, random bots the rest
            players = lambda seat, role: agent if role in roles else load("random", game=game, config=config)  # noqa: E731
        record = game.play_match(config, players, seed=n)
        assert record["result"] is not None
        assert record["result"]["reason"] != "illegal_action"  # the policy only ever chose legal actions
        assert game.replay(record) == record["result"]
        controllers = {s["controller"] for s in record["seats"]}
        assert name in controllers


def test_members_only_agent_is_an_opponent_in_the_gym_view():
    env = gymnasium.make("club_envs/MembersOnly-v0", num_players=4, opponents=load("members_only"))
    obs, info = env.reset(seed=0)
    rng = np.random.default_rng(0)
    done = False
    while not done:
        obs, reward, terminated, truncated, info = env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
        done = terminated or truncated
    assert "winners" in info


def test_arkham_agents_are_opponents_in_the_gym_view():
    env = gymnasium.make("club_envs/ArkhamDecoders-v0", num_players=5, role="black_man",
                         opponents={r: load("arkham_team") for r in ("leader", "member", "investigator")})
    obs, info = env.reset(seed=0)
    rng = np.random.default_rng(0)
    done = False
    while not done:
        obs, reward, done, truncated, info = env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
    assert reward in (-1.0, 1.0)


def test_the_full_arkham_agent_plays_whichever_role_it_is_dealt():
    game = load_game("arkham")
    config = game.Config(num_players=6)
    seats = [load("arkham_decoders", game=game, config=config, seed=s) for s in range(6)]
    record = game.play_match(config, seats, seed=11)
    assert record["result"]["reason"] != "illegal_action"
    assert {o.role for o in game.outcomes(record)} == {"leader", "member", "investigator", "black_man"}


def test_a_file_holding_pickled_objects_is_refused(tmp_path):
    path = tmp_path / "evil.pt"
    torch.save({"meta": {"format": "club-envs-policy"}, "weights": {}, "payload": tmp_path}, path)
    with pytest.raises(PolicyFileError, match="holds pickled Python objects .* not loaded"):
        load_policy_file(path)


def test_a_corrupt_policy_file_is_reported_not_loaded(tmp_path):
    path = tmp_path / "broken.pt"
    path.write_bytes(b"\x00" * 64)
    with pytest.raises(PolicyFileError):
        load("" + str(path))
