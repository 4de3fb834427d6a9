"""The PettingZoo AEC environment: PettingZoo's own tests, rewards, illegal actions, state()."""

from __future__ import annotations

import numpy as np
import pettingzoo
import pytest
from pettingzoo.test import api_test, render_test, seed_test

import club_envs  # noqa: F401  (registers the ids)
from club_envs import arkham_decoders_v0
from club_envs.arkham_decoders import actions as A
from club_envs.errors import IllegalActionError


@pytest.mark.parametrize("n", [4, 5, 6])
def test_pettingzoo_api_test(n):
    api_test(arkham_decoders_v0.env(num_players=n), num_cycles=300)


@pytest.mark.parametrize("n", [4, 5, 6])
def test_pettingzoo_seed_test(n):
    seed_test(lambda: arkham_decoders_v0.env(num_players=n), num_cycles=300)


@pytest.mark.parametrize("n", [4, 5, 6])
def test_pettingzoo_render_test(n):
    render_test(lambda render_mode=None: arkham_decoders_v0.env(num_players=n, render_mode=render_mode))


def test_pettingzoo_registry_and_metadata():
    env = pettingzoo.make("aec", "club_envs/arkham_decoders-v0", num_players=6)
    assert env.metadata["name"] == "arkham_decoders_v0"
    env.reset(seed=1)
    assert env.agents == [f"player_{i}" for i in range(6)]
    assert env.action_space("player_0").n == A.NUM_ACTIONS


def _play_random(env, seed=0):
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, info = env.last()
        action = None if terminated or truncated else int(rng.choice(np.flatnonzero(obs["action_mask"])))
        env.step(action)


@pytest.mark.parametrize("mode", ["win", "san"])
def test_rewards_at_the_end_team_against_black_man(mode):
    for seed in range(5):
        env = arkham_decoders_v0.raw_env(num_players=5, reward_mode=mode)
        env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        totals = {a: 0.0 for a in env.agents}
        while not all(env.terminations.values()):
            agent = env.agent_selection
            env.step(int(rng.choice(np.flatnonzero(env.observe(agent)["action_mask"]))))
            for a in env.agents:
                totals[a] += env.rewards[a]
        game = env.game
        bm = f"player_{game.black_man_seat}"
        total = game.result["total"]
        team = 1.0 if total >= 1 else -1.0
        if mode == "san":
            team = float(np.clip((total - 0.5) / 10, -1, 1))
        for a, r in totals.items():
            assert r == pytest.approx(-team if a == bm else team)


def test_illegal_action_is_penalized_by_default_and_recorded():
    env = arkham_decoders_v0.env(num_players=4)
    env.reset(seed=3)
    agent = env.agent_selection
    mask = env.observe(agent)["action_mask"]
    illegal = int(np.flatnonzero(mask == 0)[0])
    env.step(illegal)
    assert env.rewards[agent] == -1.0
    assert all(r == 0.0 for a, r in env.rewards.items() if a != agent)
    assert all(env.terminations.values())
    record = env.unwrapped.record()
    assert record["events"][-1]["reason"] == "illegal_action"
    assert record["result"]["offender"] == int(agent.split("_")[1])


def test_illegal_action_raises_when_asked_and_changes_nothing():
    env = arkham_decoders_v0.env(num_players=4, illegal_action="raise")
    env.reset(seed=3)
    agent = env.agent_selection
    mask = env.observe(agent)["action_mask"]
    before = len(env.unwrapped.game.events)
    with pytest.raises(IllegalActionError, match="legal:"):
        env.step(int(np.flatnonzero(mask == 0)[0]))
    assert len(env.unwrapped.game.events) == before and env.agent_selection == agent


def test_action_outside_the_space_raises():
    env = arkham_decoders_v0.raw_env(num_players=4)
    env.reset(seed=0)
    with pytest.raises(ValueError, match="outside the action space"):
        env.step(A.NUM_ACTIONS)


def test_mask_is_zero_for_agents_not_to_move():
    env = arkham_decoders_v0.env(num_players=5)
    env.reset(seed=2)
    for agent in env.agents:
        mask = env.observe(agent)["action_mask"]
        assert (mask.sum() > 0) == (agent == env.agent_selection)


def test_state_is_a_global_array_of_the_declared_space():
    env = arkham_decoders_v0.raw_env(num_players=6)
    env.reset(seed=4)
    state = env.state()
    assert env.state_space.contains(state)
    assert state[env.observer.size + env.game.true_book] == 1.0


def test_ansi_render_is_the_table_seen_by_the_seat_to_move():
    env = arkham_decoders_v0.env(num_players=5, render_mode="ansi")
    env.reset(seed=8)
    text = env.render()
    seat = int(env.agent_selection.split("_")[1])
    assert f"seen by seat {seat}" in text and "phase: proposal" in text


def test_bad_options_are_rejected_with_allowed_values():
    with pytest.raises(ValueError, match="win, san"):
        arkham_decoders_v0.env(reward_mode="score")
    with pytest.raises(ValueError, match="penalize, raise"):
        arkham_decoders_v0.env(illegal_action="ignore")
    with pytest.raises(ValueError, match="4, 5, 6"):
        arkham_decoders_v0.env(num_players=7)


def test_fixed_roles_option_reaches_the_game():
    roles = ("leader", "member", "advisor", "member", "advisor")
    env = arkham_decoders_v0.raw_env(num_players=5, roles=roles)
    env.reset(seed=0)
    assert env.game.roles == roles and env.agent_selection == "player_0"
