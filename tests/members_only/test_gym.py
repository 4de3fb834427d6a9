"""The Gymnasium single-agent view: env checkers, opponents, masks, MaskablePPO."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env as gym_check_env
from stable_baselines3.common.env_checker import check_env as sb3_check_env

import club_envs  # noqa: F401  (registers the environments)
from club_envs import records
from club_envs.agents.base import RandomAgent
from club_envs.members_only import actions as A
from club_envs.members_only.bots import HeuristicAgent
from club_envs.members_only.gym_env import MembersOnlyGymEnv
from club_envs.members_only.observer import SIZE


def run_episode(env, seed=0):
    rng = np.random.default_rng(seed)
    obs, info = env.reset(seed=seed)
    total, done = 0.0, False
    while not done:
        action = int(rng.choice(np.flatnonzero(env.action_masks())))
        obs, reward, terminated, truncated, info = env.step(action)
        total += reward
        done = terminated or truncated
    return total, info


@pytest.mark.parametrize("num_players", [3, 4, 5])
def test_passes_gymnasium_env_checker(num_players):
    gym_check_env(MembersOnlyGymEnv(num_players=num_players, opponents="heuristic", seat="random"), skip_render_check=True)


@pytest.mark.parametrize("num_players", [3, 4, 5])
def test_passes_stable_baselines3_env_checker(num_players):
    sb3_check_env(MembersOnlyGymEnv(num_players=num_players), warn=True)


def test_gymnasium_make_with_named_opponents():
    env = gymnasium.make("club_envs/MembersOnly-v0", num_players=4, opponents="random")
    obs, info = env.reset(seed=0)
    assert obs.shape == (SIZE,) and obs.dtype == np.float32
    assert info["action_mask"].dtype == bool and info["action_mask"].any()
    assert np.array_equal(env.unwrapped.action_masks(), info["action_mask"])


def test_learner_gets_win_reward_at_the_end():
    env = MembersOnlyGymEnv(num_players=4, opponents="random", seat=2)
    total, info = run_episode(env, seed=4)
    winners = info["winners"]
    expected = (1 / len(winners)) if 2 in winners else (-1 / (4 - len(winners)) if len(winners) < 4 else 0.0)
    assert total == pytest.approx(expected)
    record = env.record()
    assert record["seats"][2]["controller"] == "learner"
    assert records.replay(record) == record["result"]


def test_random_seat_changes_between_episodes_and_opponents_fill_the_rest():
    env = MembersOnlyGymEnv(num_players=5, opponents="random", seat="random")
    seats = set()
    for seed in range(12):
        obs, info = env.reset(seed=seed)
        seats.add(info["seat"])
        assert env.game.current_player == info["seat"]
    assert len(seats) > 1


def test_opponents_can_be_agents_callables_or_a_list_one_per_other_seat():
    calls = []

    def first_legal(observation):
        calls.append(observation["observation"].shape)
        return int(np.flatnonzero(observation["action_mask"])[0])

    env = MembersOnlyGymEnv(num_players=4, opponents=[HeuristicAgent(seed=1), first_legal, "random"])
    run_episode(env, seed=1)
    assert calls and calls[0] == (SIZE,)
    controllers = [s["controller"] for s in env.record()["seats"]]
    assert controllers == ["learner", "heuristic", "first_legal", "random"]
    with pytest.raises(ValueError, match="4 players need 3"):
        MembersOnlyGymEnv(num_players=4, opponents=["random", "random"]).reset(seed=0)


def test_set_opponents_swaps_them_from_the_next_episode():
    env = MembersOnlyGymEnv(num_players=3, opponents="random")
    env.reset(seed=0)
    env.set_opponents("heuristic")
    run_episode(env, seed=0)
    assert [s["controller"] for s in env.record()["seats"]] == ["learner", "heuristic", "heuristic"]


def _make_opponents():
    return [RandomAgent(seed=3), "heuristic"]


def test_opponent_factory_is_called_lazily_at_the_first_reset():
    env = MembersOnlyGymEnv(num_players=3, opponent_factory=_make_opponents)
    assert env._opponents is None
    env.reset(seed=0)
    assert [a.name for a in env._opponents] == ["random", "heuristic"]


def test_illegal_learner_action_ends_the_episode_with_minus_one():
    env = MembersOnlyGymEnv(num_players=4)
    obs, info = env.reset(seed=0)
    illegal = int(np.flatnonzero(~info["action_mask"])[0])
    obs, reward, terminated, truncated, info = env.step(illegal)
    assert (reward, terminated, truncated) == (-1.0, True, False)
    assert env.record()["result"]["reason"] == "illegal_action"


def test_max_heats_truncates_the_episode():
    env = MembersOnlyGymEnv(num_players=3, max_heats=1, opponents="random")
    obs, info = env.reset(seed=0)
    done = False
    while not done:
        obs, reward, terminated, truncated, info = env.step(A.NO_BET if info["action_mask"][A.NO_BET] else int(np.flatnonzero(info["action_mask"])[0]))
        done = terminated or truncated
    assert truncated and not terminated
    assert not env.action_masks().any()


def test_env_is_deterministic_for_a_seed():
    a = MembersOnlyGymEnv(num_players=4, opponents="heuristic")
    b = MembersOnlyGymEnv(num_players=4, opponents="heuristic")
    run_episode(a, seed=11)
    run_episode(b, seed=11)
    assert a.record()["events"] == b.record()["events"]


def test_maskable_ppo_trains_on_the_gym_view():
    from sb3_contrib import MaskablePPO

    model = MaskablePPO("MlpPolicy", MembersOnlyGymEnv(num_players=4), n_steps=64, batch_size=64, n_epochs=1, seed=0)
    model.learn(total_timesteps=192)
    assert model.num_timesteps >= 192


def _make_env():
    return MembersOnlyGymEnv(num_players=4, opponents="heuristic")


def test_maskable_ppo_trains_inside_subproc_vec_env():
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import SubprocVecEnv

    venv = SubprocVecEnv([_make_env, _make_env])
    try:
        model = MaskablePPO("MlpPolicy", venv, n_steps=32, batch_size=64, n_epochs=1, seed=0)
        model.learn(total_timesteps=128)
        assert model.num_timesteps >= 128
        masks = np.stack(venv.env_method("action_masks"))
        assert masks.shape == (2, A.NUM_ACTIONS) and masks.any(axis=1).all()
    finally:
        venv.close()
