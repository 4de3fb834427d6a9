"""The privileged critic (``algorithm.critic: privileged``): the critic reads the hidden state, the
actor and every exported policy never do."""

from __future__ import annotations

import functools

import numpy as np
import pytest
import torch
import yaml
from sb3_contrib import MaskablePPO
from stable_baselines3.common.vec_env import DummyVecEnv

from club_envs import members_only
from club_envs.agents.policy import PolicyAgent, load_policy_file
from club_envs.arkham_decoders.gym_env import ArkhamDecodersGymEnv
from club_envs.arkham_decoders.observer import MAX_SEATS
from club_envs.members_only.gym_env import PRIVILEGED_SIZE, MembersOnlyGymEnv
from club_envs.members_only.observer import SIZE, global_state
from club_envs.members_only.rules import MAX_PLAYERS, NUM_CARD_TYPES
from club_envs.training import config as configs
from club_envs.training import ppo
from club_envs.training import train as trainer
from club_envs.training.privileged import PrivilegedCriticPolicy
from club_envs.training.selfplay import SnapshotPool
from club_envs.training.selfplay_vec import SelfPlayVecEnv
from club_envs.training.train import export_policy, make_selfplay_env, make_selfplay_game

GAMES = {
    "members_only": {"name": "members_only", "num_players": [3, 4, 5]},
    "arkham_decoders": {"name": "arkham_decoders", "num_players": [4, 5, 6]},
}


def settings(game: str, critic: str = "privileged", features: str = "none"):
    return configs.from_mapping({"game": GAMES[game], "algorithm": {"critic": critic, "n_steps": 16, "batch_size": 32},
                                 "network": {"hidden": [16], "features": features},
                                 "selfplay": {"bots": ["random"], "bot_share": 1.0}, "envs": {"n_envs": 4}})


def pooled(tmp_path, cfg):
    for side in configs.SIDES[cfg.game.name]:
        SnapshotPool(tmp_path / "pool" / side, "uniform", ["random"], 1.0, 4).write()


def played(env, steps: int, seed: int):
    """``steps`` random legal moves from a seeded reset (new games as the old ones end)."""
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    for _ in range(steps):
        _, _, terminated, truncated, _ = env.step(rng.choice(np.flatnonzero(env.action_masks())))
        if terminated or truncated:
            env.reset()
    return env


# --------------------------------------------------------------------------- the hidden state


@pytest.mark.parametrize("seat", [0, 2, 3])
def test_members_only_privileged_state_is_the_global_state_from_the_learners_seat(seat):
    env = played(MembersOnlyGymEnv(num_players=4, opponents="random", seat=seat), 7, seed=seat)
    game = env.game
    hidden = env.privileged_state()
    assert hidden.shape == (PRIVILEGED_SIZE,) == (env.privileged_size,)
    rows = hidden[: 2 * MAX_PLAYERS * NUM_CARD_TYPES].reshape(2, MAX_PLAYERS, NUM_CARD_TYPES)
    full = global_state(game, env.observer)
    absolute = full[SIZE: SIZE + 2 * MAX_PLAYERS * NUM_CARD_TYPES].reshape(2, MAX_PLAYERS, NUM_CARD_TYPES)
    for k in range(4):  # row k: the seat k places after the learner
        assert np.array_equal(rows[:, k], absolute[:, (seat + k) % 4])
    assert np.array_equal(hidden[2 * MAX_PLAYERS * NUM_CARD_TYPES:], full[SIZE + 2 * MAX_PLAYERS * NUM_CARD_TYPES:])
    assert rows[0, 0].sum() > 0 and np.count_nonzero(rows[0, 0]) == np.count_nonzero(game.hands[seat])
    assert not np.any(rows[:, 4:])  # no fifth seat at a 4-player table


def test_arkham_privileged_state_names_the_hidden_roles_and_the_learners_seat():
    env = played(ArkhamDecodersGymEnv(num_players=5, role="any", opponents="random"), 3, seed=4)
    game, hidden = env.game, env.privileged_state()
    assert hidden.shape == (env.privileged_size,)
    assert hidden[game.true_book] == 1.0 and hidden[:4].sum() == 1.0  # the true grimoire comes first
    assert hidden[4 + game.black_man_seat] == 1.0  # then the Black Man's seat
    seat = hidden[-MAX_SEATS:]  # last, the learner's own seat
    assert seat.sum() == 1.0 and seat.argmax() == env.seat


# --------------------------------------------------------------------------- the environments


@pytest.mark.parametrize("game", sorted(GAMES))
def test_vector_inputs_end_with_the_hidden_state_and_agree_with_the_wrapped_path(tmp_path, game):
    cfg = settings(game)
    pooled(tmp_path, cfg)
    side = configs.SIDES[game][0]
    fns = [functools.partial(make_selfplay_game, cfg, side, str(tmp_path), s) for s in range(3)]
    plain, privileged = SelfPlayVecEnv(fns), SelfPlayVecEnv(fns, privileged=True)
    wrapped = DummyVecEnv([functools.partial(make_selfplay_env, cfg, side, str(tmp_path), s) for s in range(3)])
    size = plain.observation_space.shape[0]
    assert privileged.observation_space.shape[0] == size + privileged.envs[0].privileged_size
    assert wrapped.observation_space.shape == privileged.observation_space.shape
    rng = np.random.default_rng(0)
    for venv in (plain, privileged, wrapped):
        venv.seed(5)
    rows = [venv.reset() for venv in (plain, privileged, wrapped)]
    for _ in range(12):
        assert np.array_equal(rows[1][:, :size], rows[0]) and np.array_equal(rows[1], rows[2])
        tails = np.stack([env.privileged_state() for env in privileged.envs])
        assert np.array_equal(rows[1][:, size:], tails)
        masks = privileged.action_masks()
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        rows = [venv.step(actions)[0] for venv in (plain, privileged, wrapped)]
    for venv in (plain, privileged, wrapped):
        venv.close()


# --------------------------------------------------------------------------- the actor never reads it


def learner(tmp_path, game: str = "members_only", features: str = "none"):
    cfg = settings(game, features=features)
    pooled(tmp_path, cfg)
    side = configs.SIDES[game][0]
    venv = SelfPlayVecEnv([functools.partial(make_selfplay_game, cfg, side, str(tmp_path), s) for s in range(4)],
                          features=features, privileged=True)
    return cfg, side, venv, ppo.new_learner(venv, cfg.algorithm, cfg.network, seed=1)


@pytest.mark.parametrize("features", ["none", "members_only_beliefs"])
def test_the_action_distribution_ignores_the_hidden_state_the_value_reads_it(tmp_path, features):
    cfg, _, venv, model = learner(tmp_path, features=features)
    policy = model.policy
    assert isinstance(policy, PrivilegedCriticPolicy)
    venv.seed(2)
    rows = venv.reset()
    masks = venv.action_masks()
    actor = policy.actor_size
    assert actor == rows.shape[1] - venv.envs[0].privileged_size
    other = rows.copy()
    other[:, actor:] = np.random.default_rng(3).random(other[:, actor:].shape)  # other hands, same view
    with torch.no_grad():
        dists = [policy.get_distribution(torch.as_tensor(r), action_masks=masks).distribution.probs for r in (rows, other)]
        values = [policy.predict_values(torch.as_tensor(r)) for r in (rows, other)]
    assert torch.equal(dists[0], dists[1])
    assert not torch.allclose(values[0], values[1])
    changed = rows.copy()
    changed[:, :actor] = np.random.default_rng(4).random(changed[:, :actor].shape)
    with torch.no_grad():
        moved = policy.get_distribution(torch.as_tensor(changed), action_masks=masks).distribution.probs
    assert not torch.allclose(moved, dists[0])  # the actor does read its own inputs
    venv.close()


def test_an_exported_policy_of_a_privileged_learner_plays_as_an_ordinary_policy(tmp_path):
    cfg, side, venv, model = learner(tmp_path)
    venv.seed(6)
    rows, masks = venv.reset(), venv.action_masks()
    path = export_policy(model, cfg, side, tmp_path / "policy.pt", 0)
    net, meta = load_policy_file(path, game=members_only)
    assert meta["obs_size"] == net.obs_size == SIZE  # the observation alone: no room for the state
    with torch.no_grad():
        probs = model.policy.get_distribution(torch.as_tensor(rows), action_masks=masks).distribution.probs.numpy()
    for row, mask, p in zip(rows, masks, probs):
        if mask.any():
            np.testing.assert_allclose(net.masked_probabilities(row[:SIZE], mask), p, atol=1e-5)
    agent = PolicyAgent.from_file(path, deterministic=True)
    env = MembersOnlyGymEnv(num_players=4, opponents=[agent, "heuristic", agent], seat=0)
    rng, games = np.random.default_rng(7), 0
    env.reset(seed=7)
    while games < 2:  # whole games with the policy at two seats
        _, _, terminated, truncated, info = env.step(rng.choice(np.flatnonzero(env.action_masks())))
        if terminated or truncated:
            assert len(info["scores"]) == 4
            games += 1
            env.reset()
    venv.close()


def test_a_privileged_checkpoint_loads_with_its_critic(tmp_path):
    cfg, side, venv, model = learner(tmp_path)
    model.save(tmp_path / "ckpt.zip")
    again = MaskablePPO.load(tmp_path / "ckpt.zip", env=venv, device="cpu")
    assert isinstance(again.policy, PrivilegedCriticPolicy) and again.policy.actor_size == model.policy.actor_size
    for a, b in zip(model.policy.state_dict().values(), again.policy.state_dict().values()):
        assert torch.equal(a, b)
    venv.close()


# --------------------------------------------------------------------------- config and an end-to-end run


def test_the_critic_option_is_checked_by_the_schema():
    assert settings("members_only", critic="observation").algorithm.critic == "observation"
    assert configs.from_mapping({"game": GAMES["members_only"]}).algorithm.critic == "observation"
    with pytest.raises(configs.ConfigFileError, match=r"algorithm\.critic: 'oracle' is not allowed; allowed values: "
                                                      r"observation, privileged"):
        configs.from_mapping({"game": GAMES["members_only"], "algorithm": {"critic": "oracle"}})
    with pytest.raises(configs.ConfigFileError, match=r"pretrain\.critic_steps: 0 leaves a privileged critic unfitted "
                                                      r"after imitation.*allowed values.*: 1 or more"):
        configs.from_mapping({"game": GAMES["members_only"], "algorithm": {"critic": "privileged"},
                              "pretrain": {"games": 10}})
    imitated = configs.from_mapping({"game": GAMES["members_only"], "algorithm": {"critic": "privileged"},
                                     "pretrain": {"games": 10, "critic_steps": 64}})
    assert imitated.pretrain.games == 10 and imitated.algorithm.critic == "privileged"
    with pytest.raises(configs.ConfigFileError, match=r"algorithm\.critic: 'privileged' belongs to the stable-baselines3"):
        configs.from_mapping({"game": GAMES["members_only"], "backend": "rllib", "algorithm": {"critic": "privileged"}})


@pytest.mark.parametrize("workers", [1, 2])
def test_a_privileged_run_trains_resumes_and_exports_observation_only_policies(tmp_path, workers):
    raw = {"game": {"name": "members_only", "num_players": 4},
           "algorithm": {"critic": "privileged", "n_steps": 16, "batch_size": 32, "n_epochs": 1},
           "network": {"hidden": [16]}, "envs": {"n_envs": 4, "workers": workers},
           "selfplay": {"snapshot_every": 64, "bots": ["random"]},
           "evaluation": {"every": 128, "games": 2, "opponents": ["random"]},
           "checkpoint": {"every": 64}, "budget": {"total_steps": 128}, "seed": 2}
    path = tmp_path / "privileged.yaml"
    path.write_text(yaml.safe_dump(raw))
    run_dir = trainer.run(path, runs_dir=tmp_path / "runs", progress=False)
    assert yaml.safe_load((run_dir / "config.yaml").read_text())["algorithm"]["critic"] == "privileged"
    for policy_file in [run_dir / "latest" / "policy.pt", *sorted((run_dir / "pool" / "player").glob("*.pt"))]:
        net, _ = load_policy_file(policy_file, game=members_only)
        assert net.obs_size == SIZE
    header = (run_dir / "logs" / "player" / "progress.csv").read_text().splitlines()[0].split(",")
    assert "train/advantage_std" in header and "train/explained_variance" in header
    cfg = yaml.safe_load((run_dir / "config.yaml").read_text())
    cfg["budget"]["total_steps"] = 192
    (run_dir / "config.yaml").write_text(yaml.safe_dump(cfg))
    trainer.run(resume=run_dir, progress=False)
    checkpoint = sorted((run_dir / "checkpoints").glob("player-*.zip"))[-1]
    assert int(checkpoint.stem.split("-")[1]) >= 192
    assert isinstance(MaskablePPO.load(checkpoint, device="cpu").policy, PrivilegedCriticPolicy)
