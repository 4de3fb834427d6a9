"""The Gymnasium single-agent view: checkers for every role, opponents, masks, MaskablePPO."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from stable_baselines3.common.env_checker import check_env as sb3_check_env

import club_envs  # noqa: F401
from club_envs.agents.base import RandomAgent
from club_envs.arkham_decoders.gym_env import ArkhamDecodersGymEnv
from club_envs.errors import ConfigError

ROLES = ["leader", "member", "investigator", "black_man", "any"]


@pytest.mark.parametrize("role", ROLES)
def test_gymnasium_and_sb3_checkers_pass_for_every_role(role):
    env = gymnasium.make("club_envs/ArkhamDecoders-v0", num_players=5, role=role, opponents="heuristic")
    check_env(env.unwrapped, skip_render_check=True)
    sb3_check_env(ArkhamDecodersGymEnv(num_players=5, role=role, opponents="heuristic"), warn=True)


@pytest.mark.parametrize("role", ["leader", "member", "investigator", "black_man"])
@pytest.mark.parametrize("n", [4, 6])
def test_learner_takes_the_seat_of_its_role(role, n):
    env = ArkhamDecodersGymEnv(num_players=n, role=role, opponents="random")
    for seed in range(5):
        obs, info = env.reset(seed=seed)
        assert info["role"] == role == env.game.role_of(info["seat"])
        assert env.game.current_player == info["seat"]
        assert info["action_mask"].any() and np.array_equal(info["action_mask"], env.action_masks())
        assert env.observation_space.contains(obs)


def _episode(env, seed):
    obs, info = env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    total, done = 0.0, False
    while not done:
        action = int(rng.choice(np.flatnonzero(env.action_masks())))
        obs, reward, done, truncated, info = env.step(action)
        total += reward
    return total, info


def test_reward_is_the_learner_sides_result():
    env = ArkhamDecodersGymEnv(num_players=5, role="black_man", opponents="heuristic")
    for seed in range(5):
        reward, info = _episode(env, seed)
        assert reward == (1.0 if info["result"]["winner"] == "black_man" else -1.0)
    env = ArkhamDecodersGymEnv(num_players=5, role="leader", opponents="random", reward_mode="san")
    reward, info = _episode(env, 0)
    assert reward == pytest.approx(np.clip((info["result"]["total"] - 0.5) / 10, -1, 1))


def test_same_seed_same_episode():
    a = ArkhamDecodersGymEnv(num_players=6, role="any", opponents="heuristic")
    b = ArkhamDecodersGymEnv(num_players=6, role="any", opponents="heuristic")
    _episode(a, 11)
    _episode(b, 11)
    assert a.record()["events"] == b.record()["events"]


def test_opponents_per_role_dict_list_and_policy_objects():
    seen = []

    def always_first_legal(obs):
        seen.append(1)
        return int(np.flatnonzero(obs["action_mask"])[0])

    env = ArkhamDecodersGymEnv(
        num_players=5,
        role="leader",
        opponents={"member": "heuristic", "investigator": always_first_legal, "black_man": RandomAgent(0)},
    )
    _episode(env, 0)
    assert seen  # the investigator's callable was asked
    controllers = {s["role"]: s["controller"] for s in env.record()["seats"]}
    assert controllers["leader"] == "learner" and controllers["black_man"] == "random"
    env = ArkhamDecodersGymEnv(num_players=4, role="member", opponents=["random", "heuristic", "random"])
    _episode(env, 1)


def test_set_opponents_swaps_them_from_the_next_episode():
    env = ArkhamDecodersGymEnv(num_players=4, role="leader", opponents="random")
    env.reset(seed=0)
    env.set_opponents("heuristic")
    assert {getattr(a, "name", None) for a in env._seated if a is not None} == {"random"}
    env.reset(seed=0)
    assert {a.name for a in env._seated if a is not None} == {"heuristic"}


def test_bad_opponents_and_roles_are_rejected_clearly():
    with pytest.raises(ConfigError, match="leader, member, investigator, black_man, any"):
        ArkhamDecodersGymEnv(role="king")
    with pytest.raises(ConfigError, match="unknown opponent 'genius'"):
        ArkhamDecodersGymEnv(opponents="genius")
    with pytest.raises(ConfigError, match="expected 4"):
        ArkhamDecodersGymEnv(num_players=5, opponents=["random"])
    with pytest.raises(ConfigError, match="no policy for role"):
        ArkhamDecodersGymEnv(role="leader", opponents={"member": "random"})


def test_illegal_learner_action_ends_the_episode_with_minus_one():
    env = ArkhamDecodersGymEnv(num_players=5, role="investigator", opponents="random")
    env.reset(seed=0)
    illegal = int(np.flatnonzero(~env.action_masks())[0])
    obs, reward, terminated, truncated, info = env.step(illegal)
    assert terminated and reward == -1.0 and info["result"]["reason"] == "illegal_action"


def test_maskable_ppo_learns_in_subprocesses():
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import SubprocVecEnv

    venv = SubprocVecEnv([_make_black_man_env, _make_black_man_env])
    try:
        model = MaskablePPO("MlpPolicy", venv, n_steps=32, batch_size=32, n_epochs=1, verbose=0, seed=0)
        model.learn(64)
        masks = np.array(venv.env_method("action_masks"))
        assert masks.shape == (2, 30) and masks.any(axis=1).all()
    finally:
        venv.close()


def _make_black_man_env():
    import club_envs  # noqa: F401

    return gymnasium.make("club_envs/ArkhamDecoders-v0", num_players=5, role="black_man", opponents="heuristic")


def test_opponent_factory_is_called_at_the_first_reset():
    calls = []

    def factory():
        calls.append(1)
        return "heuristic"

    env = ArkhamDecodersGymEnv(num_players=5, role="leader", opponents="random", opponent_factory=factory)
    assert calls == []
    env.reset(seed=0)
    env.reset(seed=1)
    assert calls == [1] and {a.name for a in env._seated if a is not None} == {"heuristic"}


def test_an_opponent_choosing_an_illegal_action_raises_naming_it():
    from club_envs.errors import IllegalActionError

    env = ArkhamDecodersGymEnv(num_players=4, role="black_man", opponents=lambda obs: 29)
    with pytest.raises(IllegalActionError, match="chose illegal action 29"):
        env.reset(seed=0)


def test_opponents_dict_may_name_the_learners_own_role_too():
    env = ArkhamDecodersGymEnv(
        num_players=6,
        role="member",
        opponents={"leader": "heuristic", "member": "heuristic", "investigator": "heuristic", "black_man": "random"},
    )
    reward, info = _episode(env, 3)
    assert env.num_players == 6 and info["seat"] in range(6) and "winners" in info
    assert reward == (1.0 if info["seat"] in info["winners"] else -1.0)
