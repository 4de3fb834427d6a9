"""The PettingZoo AEC environment: PettingZoo's own tests, rewards, illegal moves, truncation."""

from __future__ import annotations

import numpy as np
import pettingzoo
import pytest
from pettingzoo.test import api_test, render_test, seed_test

import club_envs  # noqa: F401  (registers the environments)
from club_envs import members_only_v0, records
from club_envs.errors import IllegalActionError
from club_envs.members_only import actions as A
from club_envs.members_only.env import relative_to_others, win_rewards
from club_envs.members_only.observer import GLOBAL_SIZE, SIZE


def play_out(env, seed=0, choose=None):
    """Random legal play to the end; returns the summed rewards per agent."""
    rng = np.random.default_rng(seed)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    env.reset(seed=seed)
    for agent in env.agent_iter():
        observation, reward, terminated, truncated, info = env.last()
        totals[agent] += reward
        if terminated or truncated:
            action = None
        elif choose is not None:
            action = choose(observation["action_mask"])
        else:
            action = int(rng.choice(np.flatnonzero(observation["action_mask"])))
        env.step(action)
    return totals


@pytest.mark.parametrize("num_players", [3, 4, 5])
def test_pettingzoo_api_test(num_players):
    api_test(members_only_v0.env(num_players=num_players), num_cycles=200)


@pytest.mark.parametrize("num_players", [3, 4, 5])
def test_pettingzoo_seed_test(num_players):
    seed_test(lambda **kw: members_only_v0.env(num_players=num_players, **kw), num_cycles=200)


@pytest.mark.parametrize("num_players", [3, 4, 5])
def test_pettingzoo_render_test(num_players, capsys):
    render_test(lambda render_mode=None: members_only_v0.env(num_players=num_players, render_mode=render_mode))


def test_registered_with_pettingzoos_own_registry():
    env = pettingzoo.make("aec", "club_envs/members_only-v0", num_players=4)
    env.reset(seed=1)
    assert env.num_agents == 4 and env.metadata["name"] == "members_only_v0"
    assert set(env.metadata["render_modes"]) == {"ansi", "human"}
    assert "is_parallelizable" in env.metadata


def test_quick_start_loop_plays_a_full_game_and_records_it(tmp_path):
    env = members_only_v0.env(num_players=4, render_mode="ansi")
    play_out(env, seed=7)
    record = env.unwrapped.record()
    assert record["result"]["reason"] in ("tracks", "max_heats")
    path = env.unwrapped.save_record(tmp_path / "game.json")
    assert records.replay(records.load(path)) == record["result"]
    assert "Members Only" in env.render()


@pytest.mark.parametrize("num_players", [3, 4, 5])
def test_observation_has_the_same_size_for_every_table_size(num_players):
    env = members_only_v0.env(num_players=num_players)
    env.reset(seed=0)
    space = env.observation_space("player_0")
    assert space["observation"].shape == (SIZE,)
    obs = env.observe("player_0")
    assert space.contains(obs)
    assert env.unwrapped.state().shape == (GLOBAL_SIZE,)


def test_mask_is_all_zero_for_agents_not_to_move():
    env = members_only_v0.env(num_players=4)
    env.reset(seed=0)
    assert env.agent_selection == "player_0"
    assert env.observe("player_0")["action_mask"].sum() > 0
    assert env.observe("player_2")["action_mask"].sum() == 0


def test_win_rewards_winners_share_plus_one_others_minus_one():
    assert win_rewards([1], 4) == [-1 / 3, 1.0, -1 / 3, -1 / 3]
    assert win_rewards([0, 2], 4) == [0.5, -0.5, 0.5, -0.5]
    assert win_rewards([0, 1, 2], 3) == [0.0, 0.0, 0.0]
    assert sum(win_rewards([3], 5)) == pytest.approx(0.0)


def test_env_pays_win_rewards_at_the_end_only_and_zero_sum():
    env = members_only_v0.env(num_players=4)
    totals = play_out(env, seed=3)
    result = env.unwrapped.record()["result"]
    expected = win_rewards(result["winners"], 4)
    assert [totals[f"player_{i}"] for i in range(4)] == pytest.approx(expected)
    assert sum(totals.values()) == pytest.approx(0.0)


def test_score_mode_pays_score_minus_mean_of_the_others():
    env = members_only_v0.env(num_players=4, reward_mode="score")
    totals = play_out(env, seed=3)
    scores = [float(s) for s in env.unwrapped.record()["result"]["scores"]]
    assert [totals[f"player_{i}"] for i in range(4)] == pytest.approx(relative_to_others(scores))
    assert relative_to_others([10.0, 4.0, 4.0]) == [6.0, -3.0, -3.0]


def test_heat_shaping_pays_track_points_after_every_heat():
    env = members_only_v0.env(num_players=4, heat_shaping=0.1)
    env.reset(seed=5)
    shaped = []
    rng = np.random.default_rng(0)
    for agent in env.agent_iter():
        observation, reward, terminated, truncated, info = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        env.step(int(rng.choice(np.flatnonzero(observation["action_mask"]))))
        raw = env.unwrapped
        if raw.game.is_over:
            continue
        if any(r != 0 for r in raw.rewards.values()):
            settle = next(e for e in reversed(raw.game.events) if e["type"] == "settle")
            points = [0.0] * 4
            for chip in settle["chips"]:
                points[chip["seat"]] += chip["points"]
            expected = [0.1 * v for v in relative_to_others(points)]
            assert [raw.rewards[f"player_{i}"] for i in range(4)] == pytest.approx(expected)
            shaped.append(raw.game.heat)
    assert shaped  # some heat paid shaping rewards


def test_illegal_action_ends_the_game_penalises_the_offender_and_is_recorded():
    env = members_only_v0.env(num_players=4)
    env.reset(seed=0)
    mask = env.observe("player_0")["action_mask"]
    illegal = int(np.flatnonzero(mask == 0)[0])
    env.step(illegal)
    assert all(env.terminations.values())
    assert env.rewards["player_0"] == -1 and env.rewards["player_1"] == 0
    record = env.unwrapped.record()
    assert record["result"]["reason"] == "illegal_action" and record["result"]["offender"] == 0
    records.validate(record)
    assert records.replay(record)["reason"] == "illegal_action"


def test_illegal_action_can_raise_instead():
    env = members_only_v0.env(num_players=4, illegal_action="raise")
    env.reset(seed=0)
    with pytest.raises(IllegalActionError, match="legal actions"):
        env.step(A.encode_reveal(0))  # no reveals in the first round
    assert env.agent_selection == "player_0" and not any(env.terminations.values())


def test_action_outside_the_space_raises():
    env = members_only_v0.env(num_players=4)
    env.reset(seed=0)
    with pytest.raises(AssertionError, match="action space"):
        env.step(A.NUM_ACTIONS)
    raw = members_only_v0.raw_env(num_players=4)
    raw.reset(seed=0)
    with pytest.raises(ValueError, match=r"outside the action space Discrete\(101\)"):
        raw.step(500)


def test_max_heats_is_reported_as_truncation_not_termination():
    env = members_only_v0.env(num_players=4, max_heats=1)
    env.reset(seed=0)
    seen = None
    for agent in env.agent_iter():
        observation, reward, terminated, truncated, info = env.last()
        if terminated or truncated:
            seen = (terminated, truncated)
            env.step(None)
            continue
        env.step(A.NO_BET if observation["action_mask"][A.NO_BET] else int(np.flatnonzero(observation["action_mask"])[0]))
    assert seen == (False, True)
    assert env.unwrapped.record()["result"]["reason"] == "max_heats"


def test_bad_options_are_rejected_with_the_allowed_values():
    with pytest.raises(ValueError, match="reward_mode='points' is not allowed; expected one of win, score"):
        members_only_v0.env(reward_mode="points")
    with pytest.raises(ValueError, match="expected one of 3, 4, 5"):
        members_only_v0.env(num_players=7)
