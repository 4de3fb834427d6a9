"""The ``arkham_heuristic`` inputs computed from the batched engine's arrays are the reference's:
every seat's 94 numbers at every position of many games equal ``features.heuristic_inputs`` of
the same seat's view, as ``float32``, byte for byte; and they read nothing a seat may not know.

The games are those of :mod:`tests.arkham_decoders.test_vector_heuristic` (the compiled bot in
every seat, random moves mixed in), replayed move by move on the reference engine. ``CLUB_ENVS_LONG=1``
plays many more; the check runs once more with ``NUMBA_DISABLE_JIT=1`` in a subprocess.
"""

from __future__ import annotations

import numpy as np
import pytest

from club_envs.agents.batched import GameRows
from club_envs.arkham_decoders import actions as A
from club_envs.arkham_decoders.engine import State
from club_envs.arkham_decoders.features import HEURISTIC_SIZE, heuristic_inputs, slices
from club_envs.arkham_decoders.observer import Observer
from club_envs.arkham_decoders.rules import Config
from club_envs.arkham_decoders.vector_engine import ADVISOR_ROLE, VectorGames, apply_action
from club_envs.arkham_decoders.vector_features import heuristic_extras, heuristic_inputs_rows
from club_envs.arkham_decoders.vector_observer import VectorObserver
from tests.arkham_decoders.test_vector_heuristic import CASES, play_with_the_bot
from tests.differential import LONG, NO_JIT, passes_without_jit

GAMES = 300 if LONG else (2 if NO_JIT else 12)  # per case


def differing(got: np.ndarray, expected: np.ndarray) -> str:
    """The named pieces in which two rows of inputs differ (for the failure message)."""
    return ", ".join(name for name, piece in slices().items() if got[piece].tobytes() != expected[piece].tobytes())


def seat_masks(state: State) -> np.ndarray:
    """(n, 30): the legal actions of the seat to move, none for the others."""
    masks = np.zeros((state.num_players, A.NUM_ACTIONS), np.bool_)
    if not state.is_over:
        masks[state.current_player, state.legal_actions()] = True
    return masks


@pytest.mark.long
@pytest.mark.parametrize("case", list(CASES))
def test_every_seats_inputs_are_the_reference_inputs_at_every_position(case):
    config, seed = CASES[case], 7 + 100 * list(CASES).index(case)
    n = config.num_players
    first, played = play_with_the_bot(config, GAMES, seed)
    games = VectorGames(config, GAMES, seed=seed)
    rows = 0
    for g, actions in enumerate(played):
        state = State(config, setup=first.setup(g), reshuffle_decks=first.reshuffle_decks(g))
        for step in range(len(actions) + 1):
            masks = seat_masks(state)
            got = heuristic_extras(games, np.full(n, g), np.arange(n), masks)
            for seat in range(n):
                expected = heuristic_inputs(np.zeros(0, np.float32), state.player_view(seat), masks[seat])
                assert got[seat].tobytes() == expected.tobytes(), (
                    f"{case}, game {g}, position {step}, seat {seat}: differs in {differing(got[seat], expected)}")
            rows += n
            if step < len(actions):
                state.apply_action(actions[step])
                apply_action(games.tables[g], games.rules, actions[step])
    assert rows > 60 * GAMES * n


def test_the_same_inputs_with_the_jit_disabled():
    passes_without_jit(__file__, "test_every_seats_inputs_are_the_reference_inputs_at_every_position[6p]")


def test_a_batched_policy_gets_each_rows_observation_and_inputs():
    """``heuristic_inputs_rows`` -- what a policy with ``reads_state`` calls -- puts each row's
    observation before its inputs, for any rows and seats in any order."""
    config = Config(num_players=5)
    games, played = play_with_the_bot(config, 4, 3)
    games = VectorGames(config, 4, seed=3)
    for g in range(4):  # halfway through each game
        for action in played[g][: len(played[g]) // 2]:
            apply_action(games.tables[g], games.rules, action)
    rows, seats = np.array([3, 0, 3, 1]), np.array([2, 4, 0, 1])
    masks = np.zeros((4, A.NUM_ACTIONS), np.bool_)
    observations = VectorObserver(config).observe_games(games, rows, seats)
    out = heuristic_inputs_rows(observations, masks, GameRows(games, rows, seats))
    assert out.shape == (4, Observer().size + HEURISTIC_SIZE) and out.dtype == np.float32
    assert out[:, : Observer().size].tobytes() == observations.tobytes()
    assert out[:, Observer().size :].tobytes() == heuristic_extras(games, rows, seats, masks).tobytes()
    assert not np.array_equal(out[0], out[2])  # two seats of one game see it differently


def hide_differently(games: VectorGames, other: VectorGames, g: int, seat: int, rng: np.random.Generator) -> None:
    """``other``'s game ``g``: ``games``'s with what ``seat`` may not know dealt otherwise when it
    is a leader or member that has not peeked -- the advisors' identities (and so the true book)
    swapped, every other hand's cards exchanged with cards of the deck, the deck reordered."""
    other.tables[g] = games.tables[g]
    t = other.tables
    t.black_man[g], t.investigator[g] = t.investigator[g], t.black_man[g]
    t.true_book[g] = t.grimoire[g, t.black_man[g]]
    size = int(t.deck_size[g])
    for hand in range(other.num_players):
        if hand != seat and t.roles[g, hand] != ADVISOR_ROLE:
            for i, card in enumerate(np.flatnonzero(t.hands[g, hand])[:size]):
                t.hands[g, hand, card], t.hands[g, hand, t.deck[g, i]] = 0, 1
                t.deck[g, i] = card
    t.deck[g, :size] = rng.permutation(t.deck[g, :size])


def test_a_seat_reads_nothing_it_may_not_know():
    """What a leader or member that has not peeked may not know -- who the Black Man is (so which
    book is true), the other hands, the deck order -- changes nothing in its inputs; the advisors'
    inputs do change with their identities, so the comparison is not vacuous."""
    config = Config(num_players=6)
    _, played = play_with_the_bot(config, 6, 5)
    games, other = VectorGames(config, 6, seed=5), VectorGames(config, 6, seed=5)
    rng = np.random.default_rng(0)
    masks = np.zeros((1, A.NUM_ACTIONS), np.bool_)
    compared = changed = 0
    for g in range(6):
        for action in played[g][: len(played[g]) // 3]:
            apply_action(games.tables[g], games.rules, action)
        for seat in range(6):
            hide_differently(games, other, g, seat, rng)
            a = heuristic_extras(games, np.array([g]), np.array([seat]), masks)
            b = heuristic_extras(other, np.array([g]), np.array([seat]), masks)
            if games.tables.roles[g, seat] == ADVISOR_ROLE:
                changed += not np.array_equal(a, b)
            elif not games.tables.peeked[g, seat]:
                assert a.tobytes() == b.tobytes(), f"game {g}, seat {seat}"
                compared += 1
    assert compared >= 12 and changed >= 6
