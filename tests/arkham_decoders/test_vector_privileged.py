"""The privileged critic's hidden-state rows built from the batched engine's arrays equal the
one-game view's ``privileged_state()`` -- the reference's global state and the seat -- in the same
position, at every move of games replayed on the reference engine, for every seat."""

from __future__ import annotations

import numpy as np
import pytest

from club_envs.arkham_decoders.gym_env import PRIVILEGED_SIZE
from club_envs.arkham_decoders.observer import MAX_SEATS, global_state
from club_envs.arkham_decoders.vector_game import ArkhamDecodersVectorGame
from club_envs.arkham_decoders.vector_privileged import SIZE, privileged_rows
from tests.arkham_decoders.test_vector_game import play_out, reference_envs


@pytest.mark.parametrize("options", [{"num_players": 4}, {"num_players": 5}, {"num_players": 6}])
def test_hidden_state_rows_are_the_reference_global_state(options, monkeypatch):
    assert SIZE == PRIVILEGED_SIZE
    count, seed = 6, options["num_players"]
    first = ArkhamDecodersVectorGame(count, autoreset=False, **options)
    play_out(first, seed)
    envs = reference_envs(first, options, monkeypatch)
    game = ArkhamDecodersVectorGame(count, autoreset=False, **options)
    playing = np.ones(count, bool)
    compared = [0]
    n = options["num_players"]

    def on_step(before, actions, step):
        for g in np.flatnonzero(playing):  # both engines after the move (the batched one has played it)
            env = envs[g]
            env.step(int(actions[g]))
            hidden = global_state(env.game, env.observer)[env.observer.size:]
            for seat in range(n):
                row = privileged_rows(game.games, np.array([g]), np.array([seat]))[0]
                expected = np.concatenate([hidden, np.eye(MAX_SEATS, dtype=np.float32)[seat]])
                assert row.tobytes() == expected.tobytes(), f"game {g}, seat {seat}"
            compared[0] += 1
            if env.game.is_over:
                playing[g] = False

    play_out(game, seed, on_step)
    assert compared[0] > 100
