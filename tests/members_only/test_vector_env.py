"""``gymnasium.make_vec(..., vectorization_mode="vector_entry_point")`` gives the batched Members
Only environment, and each of its games is the one-game Gymnasium environment's game: given the
same decks and the same opponent moves, the same observations, masks, rewards and ends."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest

import club_envs  # noqa: F401  (registers the environment ids)
from club_envs.errors import ConfigError, IllegalActionError
from club_envs.members_only import gym_env
from club_envs.members_only.gym_env import MembersOnlyGymEnv
from club_envs.members_only.vector_env import MembersOnlyVectorEnv
from club_envs.members_only.vector_rng import draw, seed_states
from tests.members_only.helpers import random_decks, reference_game


def make(num_envs: int, **kwargs) -> MembersOnlyVectorEnv:
    return gymnasium.make_vec(
        "club_envs/MembersOnly-v0", num_envs=num_envs, vectorization_mode="vector_entry_point", **kwargs
    )


def test_make_vec_returns_the_batched_environment_with_masks_that_always_hold_a_legal_action():
    envs = make(16, num_players=4, opponents="random")
    assert isinstance(envs, MembersOnlyVectorEnv)
    assert envs.metadata["autoreset_mode"] == gymnasium.vector.AutoresetMode.SAME_STEP
    obs, _ = envs.reset(seed=3)
    assert obs.shape == (16, envs.single_observation_space.shape[0]) and obs.dtype == np.float32
    rng = np.random.default_rng(0)
    finished = 0
    for _ in range(1_500):
        masks = envs.action_masks()
        assert masks.shape == (16, 101) and masks.dtype == bool and masks.any(axis=1).all()
        obs, rewards, terminated, truncated, info = envs.step([rng.choice(np.flatnonzero(m)) for m in masks])
        done = terminated | truncated
        assert (rewards[~done] == 0).all()  # the "win" reward comes at the end only
        if done.any():
            assert (info["_final_obs"] == done).all() and all(o.shape == obs[0].shape for o in info["final_obs"][done])
            finished += done.sum()
    assert finished > 16


def test_a_random_seat_changes_from_game_to_game():
    envs = make(64, num_players=5, seat="random")
    obs, info = envs.reset(seed=1)
    assert set(info["seat"].tolist()) == set(range(5))
    assert (envs.games.current_player == info["seat"]).all()


def test_the_sync_mode_still_gives_one_game_environments():
    envs = gymnasium.make_vec("club_envs/MembersOnly-v0", num_envs=2, vectorization_mode="sync", opponents="random")
    assert isinstance(envs, gymnasium.vector.SyncVectorEnv)


def test_opponents_the_vector_environment_lacks_are_named():
    with pytest.raises(ConfigError, match="opponent 'ismcts' is not available.*heuristic_sampled.*random.*sync"):
        make(2, opponents="ismcts")


def test_an_illegal_action_names_the_game_and_its_legal_actions_and_moves_no_game():
    envs = make(3, num_players=3)
    envs.reset(seed=0)
    before = [a.copy() for a in envs.games.tables]
    with pytest.raises(IllegalActionError, match=r"game 2: action 95 .* legal actions: .*80"):
        envs.step(np.array([80, 80, 95]))
    assert all((a == b).all() for a, b in zip(envs.games.tables, before))
    with pytest.raises(IllegalActionError, match="one per game"):
        envs.step(np.array([80, 80]))


@pytest.mark.parametrize(
    "options",
    [
        {"num_players": 3, "seat": 0},
        {"num_players": 4, "seat": 2, "reward_mode": "score", "heat_shaping": 0.25},
        {"num_players": 5, "seat": 4, "max_heats": 2},
    ],
    ids=["3p-win", "4p-score-shaped", "5p-truncated"],
)
def test_each_game_is_the_one_game_environments_game(options, monkeypatch):
    """The one-game environments get the vector environment's decks, and opponents that draw from
    the same per-game generators (the vector environment seeds them from ``reset``'s seed)."""
    count, seed = 6, 11
    envs = make(count, **options)
    config = envs.config
    rng = np.random.default_rng(5)
    decks = random_decks(rng, count, config.max_heats)
    states = seed_states(np.random.SeedSequence(seed).spawn(2)[1], count)
    singles = []
    for g in range(count):
        def opponent(obs, g=g):
            legal = np.flatnonzero(obs["action_mask"])
            return legal[draw(states, g, len(legal))]

        monkeypatch.setattr(gym_env, "State", lambda config, seed=None, g=g: reference_game(config, decks[g], 0))
        env = MembersOnlyGymEnv(opponents=opponent, **options)
        singles.append((env, *env.reset(seed=g)))
    obs, _ = envs.reset(seed=seed, options={"decks": decks})
    playing = np.ones(count, bool)
    for g, (env, first, _) in enumerate(singles):
        assert obs[g].tobytes() == first.tobytes()
    while playing.any():
        masks = envs.action_masks()
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        obs, rewards, terminated, truncated, info = envs.step(actions)
        for g in np.flatnonzero(playing):
            env = singles[g][0]
            assert (masks[g] == env.action_masks()).all()
            expected, reward, term, trunc, _ = env.step(actions[g])
            assert (rewards[g], terminated[g], truncated[g]) == (reward, term, trunc), f"game {g}"
            seen = info["final_obs"][g] if term or trunc else obs[g]
            assert seen.tobytes() == expected.tobytes(), f"game {g}"
            playing[g] = not (term or trunc)


def test_maskable_ppo_learns_on_the_vector_environment():
    """sb3-contrib's MaskablePPO through the public stable-baselines3 adapter (club_envs.sb3)."""
    from sb3_contrib import MaskablePPO

    from club_envs.sb3 import SB3VecEnv

    model = MaskablePPO("MlpPolicy", SB3VecEnv(make(8, max_heats=1)), n_steps=32, batch_size=64, n_epochs=1, seed=0)
    model.learn(256)
    assert model.num_timesteps >= 256
    assert model.ep_info_buffer and all({"r", "l"} <= set(e) for e in model.ep_info_buffer)
