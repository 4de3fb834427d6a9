"""The batched engine plays the reference engine's game: every game it plays with random legal
moves, replayed move by move on :class:`~club_envs.members_only.engine.State` from the same decks,
gives the same player to move, legal actions, observations (byte for byte), scores, winners and
end at every step.

Short by default; ``CLUB_ENVS_LONG=1`` plays 10,000+ games. The same check runs once more with
``NUMBA_DISABLE_JIT=1`` (the compiled functions as plain Python), in a subprocess because numba
reads the setting when it is imported.
"""

from __future__ import annotations


import numpy as np
import pytest

from club_envs.errors import IllegalActionError
from club_envs.members_only import actions as A
from club_envs.members_only.engine import State
from club_envs.members_only.observer import LAYOUT, SLICES, Observer
from club_envs.members_only.rules import Config
from club_envs.members_only.vector_engine import VectorGames
from club_envs.members_only.vector_observer import VectorObserver
from tests.differential import LONG, NO_JIT, passes_without_jit
from tests.members_only.helpers import random_decks, reference_game

GAMES = 2_600 if LONG else (2 if NO_JIT else 50)  # per case; 4 cases
BATCH = 64

CASES = {
    "3p": Config(num_players=3),
    "4p": Config(num_players=4),
    "5p": Config(num_players=5),
    # A reward table of its own, a random start player and a short safety net (truncations).
    "4p-variant": Config(num_players=4, rewards=(7, 0, 2, 1, 1, 2, 0, 9), max_heats=3, random_start_player=True),
}


def first_difference(batched: np.ndarray, reference: np.ndarray) -> str:
    """The observation slices in which two vectors differ (for the failure message)."""
    names = [name for name, _, _ in LAYOUT]
    return ", ".join(n for n in names if batched[SLICES[n]].tobytes() != reference[SLICES[n]].tobytes())


def check_same_position(ends: np.ndarray, t, ref: State, g: int, where: str) -> None:
    """Player to move, end flags (over, terminal, truncated), heat, round and phase."""
    assert t.current[g] == (-1 if ref.current_player is None else ref.current_player), where
    assert tuple(ends[:, g]) == (ref.is_over, ref.is_terminal, ref.is_truncated), where
    assert (t.heat[g], t.round[g], t.phase[g]) == (ref.heat, ref.round, ref.phase), where


def play_batch(config: Config, count: int, rng: np.random.Generator) -> int:
    """Plays ``count`` games on both engines; returns the decisions checked."""
    n = config.num_players
    decks = random_decks(rng, count, config.max_heats)
    starts = rng.integers(n, size=count) if config.random_start_player else np.zeros(count, np.int64)
    games = VectorGames(config, count, seed=int(rng.integers(2**31)))
    games.reset(decks=decks, start_players=starts)
    observer = VectorObserver(config)
    refs = [reference_game(config, decks[g], int(starts[g])) for g in range(count)]
    ref_observers = [Observer(config) for _ in range(count)]
    decisions = step = 0
    checked_end = np.zeros(count, bool)
    while not checked_end.all():
        masks = games.legal_masks().copy()
        scores, winners = games.scores()
        ends = np.stack([games.is_over, games.is_terminal, games.is_truncated])
        other_seats = rng.integers(n, size=count)
        views = {
            "to move": (None, observer.observe(games)),
            "other": (other_seats, observer.observe(games, other_seats)),
        }
        if (ends[0] & ~checked_end).any():  # every seat's view of a finished game
            for seat in range(n):
                seats = np.full(count, seat)
                views[f"seat {seat}"] = (seats, observer.observe(games, seats))
        for g in np.flatnonzero(~checked_end):
            ref = refs[g]
            where = f"{n} players, game {g}, step {step}"
            check_same_position(ends, games.tables, ref, g, where)
            for name, (seats, rows) in views.items():
                seat = ref.current_player if seats is None else int(seats[g])
                if seat is not None:  # a finished game has no player to move
                    expected = ref_observers[g].observe(ref.player_view(seat))
                    assert rows[g].tobytes() == expected.tobytes(), (
                        f"{where}, seat {seat}: differs in {first_difference(rows[g], expected)}"
                    )
            assert (masks[g] == ref.legal_mask().astype(bool)).all(), where
            assert scores[g].tolist() == ref.scores(), where
            if ref.is_over:
                assert np.flatnonzero(winners[g]).tolist() == ref.result["winners"], where
                checked_end[g] = True
        actions = np.full(count, -1, np.int64)
        for g in np.flatnonzero(~ends[0]):
            actions[g] = rng.choice(np.flatnonzero(masks[g]))
            refs[g].apply_action(int(actions[g]))
            decisions += 1
        games.step(actions)
        step += 1
    return decisions


@pytest.mark.long
@pytest.mark.parametrize("case", list(CASES))
def test_batched_games_replay_identically_on_the_reference_engine(case):
    config = CASES[case]
    rng = np.random.default_rng(list(CASES).index(case))
    played = 0
    while played < GAMES:
        count = min(BATCH, GAMES - played)
        assert play_batch(config, count, rng) > 0
        played += count


def test_the_same_replay_passes_with_the_jit_disabled():
    passes_without_jit(__file__, "test_batched_games_replay_identically_on_the_reference_engine")


def test_an_illegal_action_names_the_game_and_its_legal_actions_and_moves_no_game():
    games = VectorGames(Config(num_players=3), 3, seed=1)
    before = [a.copy() for a in games.tables]
    actions = np.full(3, A.NO_BET)
    actions[1] = A.REVEAL_BASE  # a reveal in the bet phase
    with pytest.raises(IllegalActionError, match=r"game 1: action 81 .* legal actions: .*80"):
        games.step(actions)
    assert all((a == b).all() for a, b in zip(games.tables, before))
    with pytest.raises(IllegalActionError, match="one per game"):
        games.step(np.full(3, 80.0))


def test_a_seed_gives_the_same_games_and_each_game_its_own_stream():
    a, b = VectorGames(Config(num_players=4), 4, seed=7), VectorGames(Config(num_players=4), 4, seed=7)
    assert (a.tables.hands == b.tables.hands).all()
    assert not (a.tables.hands[0] == a.tables.hands[1]).all()
    a.reset_games(np.array([True, False, False, False]))
    assert not (a.tables.hands[0] == b.tables.hands[0]).all()
    assert (a.tables.hands[1:] == b.tables.hands[1:]).all()
