"""The ``arkham_belief_inputs`` policy inputs: the ``arkham_heuristic`` inputs and a frozen learned
belief's posterior. On the batched engine every seat's row at every position equals the one-game
inputs of the same seat's view (byte for byte up to the network's forward pass, whose last bits
depend on the batch); the learned part is the frozen model's own prediction; and the inputs read
nothing a seat may not know."""

from __future__ import annotations

import numpy as np

from club_envs.agents.batched import GameRows
from club_envs.agents.features import get as get_features
from club_envs.arkham_decoders import actions as A
from club_envs.arkham_decoders.engine import State
from club_envs.arkham_decoders.features import HEURISTIC_SIZE, LEARNED_SIZE, belief_model, heuristic_inputs, learned_inputs
from club_envs.arkham_decoders.observer import Observer
from club_envs.arkham_decoders.rules import Config
from club_envs.arkham_decoders.vector_belief import learned_inputs_rows
from club_envs.arkham_decoders.vector_engine import ADVISOR_ROLE, VectorGames, apply_action
from club_envs.arkham_decoders.vector_observer import VectorObserver
from tests.arkham_decoders.test_vector_features import hide_differently, seat_masks
from tests.arkham_decoders.test_vector_heuristic import CASES, play_with_the_bot
from tests.differential import LONG

GAMES = 40 if LONG else 4  # per table size


def test_the_named_inputs_are_the_heuristic_inputs_then_the_frozen_beliefs_posterior():
    features = get_features("arkham_belief_inputs")
    assert features.extra == LEARNED_SIZE == HEURISTIC_SIZE + 12
    state = State(Config(num_players=5), seed=3)
    rng = np.random.default_rng(0)
    for _ in range(30):
        state.apply_action(int(rng.choice(state.legal_actions())))
    for seat in range(5):
        view = state.player_view(seat)
        observation = Observer(state.config).observe(view)
        mask = seat_masks(state)[seat]
        out = features.transform(observation, view, mask)
        assert out.dtype == np.float32 and out.shape == (observation.size + LEARNED_SIZE,)
        assert out[: observation.size + HEURISTIC_SIZE].tobytes() == heuristic_inputs(observation, view, mask).tobytes()
        posterior = belief_model().predict(observation[None], [view])[0]
        np.testing.assert_array_equal(out[-12:-4], posterior.ravel().astype(np.float32))
        np.testing.assert_allclose(out[-4:], posterior.sum(axis=0), rtol=1e-6)
        assert abs(float(out[-4:].sum()) - 1.0) < 1e-5


def test_every_seats_row_on_the_batched_engine_is_the_one_game_row():
    rows = 0
    for case, config in CASES.items():
        n, seed = config.num_players, 11 + 100 * list(CASES).index(case)
        first, played = play_with_the_bot(config, GAMES, seed)
        games = VectorGames(config, GAMES, seed=seed)
        observer = VectorObserver(config)
        for g, actions in enumerate(played):
            state = State(config, setup=first.setup(g), reshuffle_decks=first.reshuffle_decks(g))
            for step in range(len(actions) + 1):
                masks = seat_masks(state)
                at = np.full(n, g), np.arange(n)
                observations = observer.observe_games(games, *at)
                got = learned_inputs_rows(observations, masks, GameRows(games, *at))
                for seat in range(n):
                    expected = learned_inputs(observations[seat], state.player_view(seat), masks[seat])
                    where = f"{case}, game {g}, position {step}, seat {seat}"
                    # the observation and heuristic inputs byte for byte; the network's forward pass
                    # over a batch may round its last bits otherwise than over one row
                    assert got[seat, :-12].tobytes() == expected[:-12].tobytes(), where
                    np.testing.assert_allclose(got[seat, -12:], expected[-12:], rtol=1e-5, atol=1e-6, err_msg=where)
                rows += n
                if step < len(actions):
                    state.apply_action(actions[step])
                    apply_action(games.tables[g], games.rules, actions[step])
    assert rows > 100 * GAMES


def test_a_seat_reads_nothing_it_may_not_know():
    """Who the Black Man is (so the true book), the other hands and the deck order, dealt otherwise,
    change nothing in a leader's or member's learned inputs until it has peeked; the advisors'
    inputs do change, so the comparison is not vacuous."""
    config = Config(num_players=5)
    _, played = play_with_the_bot(config, 6, 5)
    games, other = VectorGames(config, 6, seed=5), VectorGames(config, 6, seed=5)
    rng, observer = np.random.default_rng(1), VectorObserver(config)
    compared = advisors_changed = 0
    for g in range(6):
        for action in played[g][: len(played[g]) // 3]:
            apply_action(games.tables[g], games.rules, action)
        for seat in range(config.num_players):
            hide_differently(games, other, g, seat, rng)
            at = np.array([g]), np.array([seat])
            masks = np.zeros((1, A.NUM_ACTIONS), np.bool_)
            mine = learned_inputs_rows(observer.observe_games(games, *at), masks, GameRows(games, *at))
            theirs = learned_inputs_rows(observer.observe_games(other, *at), masks, GameRows(other, *at))
            if games.tables.roles[g, seat] == ADVISOR_ROLE:
                advisors_changed += not np.array_equal(mine, theirs)
            elif not games.tables.peeked[g, seat]:
                assert mine.tobytes() == theirs.tobytes(), f"game {g}, seat {seat}"
                compared += 1
    assert compared > 10 and advisors_changed > 0
