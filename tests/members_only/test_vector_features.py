"""The ``members_only_heuristic`` and ``members_only_belief_inputs`` computed from the batched
engine's arrays are those the one-game path computes from the seat's view: every number to float32
rounding, the heuristic's choice exactly -- at every decision of random games of every table size,
for the seat to move and for a seat waiting its turn (whose choice part is empty). The same with
numba's JIT off."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest

import club_envs  # noqa: F401  (registers the environment ids)
from club_envs.agents.batched import GameRows
from club_envs.agents.features import get as get_features
from club_envs.members_only.vector_views import view_of
from tests.differential import LONG, NO_JIT, passes_without_jit

@pytest.mark.parametrize("name", ["members_only_heuristic", "members_only_belief_inputs"])
@pytest.mark.parametrize("players", [3, 4, 5])
def test_inputs_from_the_arrays_are_the_inputs_from_the_view(players, name):
    FEATURES = get_features(name)
    games = 8 if NO_JIT else (256 if LONG else 48)
    steps = 25 if NO_JIT else (200 if name == "members_only_heuristic" else 60)  # the reference reads cost more
    env = gymnasium.make_vec("club_envs/MembersOnly-v0", num_envs=games, vectorization_mode="vector_entry_point",
                             num_players=players, opponents="heuristic", seat="random").unwrapped
    obs, _ = env.reset(seed=players)
    rng = np.random.default_rng(players)
    rows = np.arange(games)
    decisions = 0
    for _ in range(steps):
        masks = env.action_masks()
        for seats, observed, seat_masks in (
            (env.seats.astype(np.int64), obs, masks),  # the learner, to move
            ((env.seats + 1) % players, None, np.zeros_like(masks)),  # the next seat, waiting
        ):
            if observed is None:
                observed = env.observer.observe_games(env.games, rows, seats)
            batched = FEATURES.state_inputs(observed, seat_masks, GameRows(env.games, rows, seats))
            views = [view_of(env.games, g, int(seats[g])) for g in rows]
            expected = FEATURES.transform_batch(observed, views, seat_masks)
            assert batched.dtype == np.float32 and batched.shape == expected.shape
            np.testing.assert_allclose(batched, expected, rtol=0, atol=1e-6)
            if name == "members_only_heuristic":
                assert (batched[:, -101:] == expected[:, -101:]).all(), "the bot's choice, exactly"
        decisions += games
        obs, *_ = env.step(np.argmax(np.where(masks, rng.random(masks.shape), -1.0), axis=1))
    assert decisions >= games * steps


def test_the_same_without_the_jit():
    passes_without_jit(__file__, "test_inputs_from_the_arrays_are_the_inputs_from_the_view[4-members_only_heuristic]")
