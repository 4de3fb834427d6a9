"""The RLlib view of our PettingZoo games: names by side, the masking module's keys, whole games."""

from __future__ import annotations

import numpy as np
import pytest

from club_envs.training.rllib_backend.env_adapter import BLACK_MAN, ClubMultiAgentEnv


def play_random_game(env: ClubMultiAgentEnv, rng: np.random.Generator):
    """Play one game with random legal actions; return every step's observations and the last rewards."""
    obs, _ = env.reset()
    seen = [obs]
    while True:
        actions = {a: int(rng.choice(np.flatnonzero(o["action_mask"]))) for a, o in obs.items()}
        assert len(actions) == 1, "a turn-based game asks one agent at a time"
        obs, rewards, terminateds, truncateds, _ = env.step(actions)
        seen.append(obs)
        if terminateds["__all__"] or truncateds["__all__"]:
            return seen, rewards


def test_observations_carry_the_keys_and_float_mask_the_masking_module_reads():
    env = ClubMultiAgentEnv({"game": "arkham_decoders", "num_players": 5, "seed": 0})
    obs, _ = env.reset()
    (only,) = obs.values()
    assert set(only) == {"observations", "action_mask"}
    assert only["action_mask"].dtype == np.float32
    space = env.observation_spaces[BLACK_MAN]
    assert space["observations"].shape == only["observations"].shape
    assert space["action_mask"].contains(only["action_mask"])


def test_arkham_black_man_seat_is_named_black_man_and_the_rest_team_by_seat():
    env = ClubMultiAgentEnv({"game": "arkham_decoders", "num_players": 6, "seed": 1})
    for _ in range(5):
        env.reset()
        game = env.env.unwrapped.game
        assert env.seat_of(BLACK_MAN) == game.black_man_seat
        team_seats = [env.seat_of(f"team_{i}") for i in range(5)]
        assert team_seats == sorted(team_seats)
        assert game.black_man_seat not in team_seats


def test_every_seat_gets_the_final_reward_and_the_black_man_the_opposite_of_the_team():
    env = ClubMultiAgentEnv({"game": "arkham_decoders", "num_players": 4, "seed": 2})
    _, rewards = play_random_game(env, np.random.default_rng(2))
    assert set(rewards) == {"team_0", "team_1", "team_2", BLACK_MAN}
    team = {rewards[f"team_{i}"] for i in range(3)}
    assert len(team) == 1 and team.pop() == -rewards[BLACK_MAN] != 0


def test_members_only_game_ends_with_a_reward_for_every_seat_and_a_zero_sum():
    env = ClubMultiAgentEnv({"game": "members_only", "num_players": 4, "seed": 3})
    _, rewards = play_random_game(env, np.random.default_rng(3))
    assert set(rewards) == {f"player_{i}" for i in range(4)}
    assert sum(rewards.values()) == pytest.approx(0.0)


def test_members_only_learner_name_sits_at_every_seat_over_episodes():
    env = ClubMultiAgentEnv({"game": "members_only", "num_players": 3, "seed": 4})
    seats = set()
    for _ in range(30):
        env.reset()
        seats.add(env.seat_of("player_0"))
    assert seats == {0, 1, 2}


def test_a_list_of_player_counts_deals_each_count_and_declares_the_largest_tables_names():
    env = ClubMultiAgentEnv({"game": "arkham_decoders", "num_players": [4, 6], "seed": 5})
    assert env.possible_agents == [f"team_{i}" for i in range(5)] + [BLACK_MAN]
    counts = set()
    for _ in range(20):
        env.reset()
        counts.add(len(env.env.possible_agents))
    assert counts == {4, 6}


def test_same_seed_deals_the_same_games():
    def trace(seed):
        env = ClubMultiAgentEnv({"game": "members_only", "num_players": [3, 5], "seed": seed})
        seen, rewards = play_random_game(env, np.random.default_rng(0))
        return [sorted(o) for o in seen], rewards

    assert trace(11) == trace(11)
