"""The privileged critic's hidden-state rows built from the batched engine's arrays equal the
one-game view's ``privileged_state()`` in the same position, at every learner decision of games
dealt the same decks, whatever the learner's seat."""

from __future__ import annotations

import numpy as np

from club_envs.members_only import gym_env
from club_envs.members_only.gym_env import PRIVILEGED_SIZE, MembersOnlyGymEnv
from club_envs.members_only.vector_privileged import SIZE, privileged_rows
from club_envs.members_only.vector_rng import seed_states
from tests.members_only.helpers import random_decks, reference_game
from tests.members_only.test_vector_opponents import make, single_opponents


def test_hidden_state_rows_are_the_one_game_views(monkeypatch):
    assert SIZE == PRIVILEGED_SIZE
    for players in (3, 4, 5):
        count, seed = 6, players
        envs = make(count, num_players=players, seat="random", opponents="random")
        rng = np.random.default_rng(players)
        decks = random_decks(rng, count, envs.config.max_heats)
        obs, info = envs.reset(seed=seed, options={"decks": decks})
        states = seed_states(np.random.SeedSequence(seed).spawn(2)[1], count)
        singles = []
        for g in range(count):
            monkeypatch.setattr(gym_env, "State", lambda config, seed=None, g=g: reference_game(config, decks[g], 0))
            env = MembersOnlyGymEnv(opponents=single_opponents("random", states, g, envs.config),
                                    num_players=players, seat=int(info["seat"][g]))
            env.reset(seed=g)
            singles.append(env)
        playing = np.ones(count, bool)
        compared = 0
        while playing.any():
            rows = privileged_rows(envs.games, np.arange(count), envs.seats)
            for g in np.flatnonzero(playing):
                assert rows[g].tobytes() == singles[g].privileged_state().tobytes(), f"{players}p game {g}"
                compared += 1
            masks = envs.action_masks()
            actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
            _, _, terminated, truncated, _ = envs.step(actions)
            for g in np.flatnonzero(playing):
                singles[g].step(actions[g])
            playing &= ~(terminated | truncated)
        assert compared > 100
