"""The batched engine plays the reference engine's game: every game it plays with random legal
moves, replayed move by move on :class:`~club_envs.arkham_decoders.engine.State` from the same
setup and reshuffles, gives the same player to move, phase, legal actions, every seat's view
(:func:`~club_envs.arkham_decoders.vector_views.view_of`, field for field), observations (byte for
byte, for the seat to move, another seat, and every seat once the game is over), scores, winners
and end at every step.

The batched games are played twice from the same seed: the first time to learn each game's
setup and reshuffled decks (the inputs of ``State(config, setup=..., reshuffle_decks=...)``), the
second time in step with the reference games -- which also checks that a seed gives the same games.

Short by default; ``CLUB_ENVS_LONG=1`` plays 10,000+ games. The same check runs once more with
``NUMBA_DISABLE_JIT=1`` (the compiled functions as plain Python), in a subprocess because numba
reads the setting when it is imported.
"""

from __future__ import annotations


import numpy as np
import pytest

from club_envs.arkham_decoders import actions as A
from club_envs.arkham_decoders.engine import PHASES, State
from club_envs.arkham_decoders.observer import Observer
from club_envs.arkham_decoders.rules import Config
from club_envs.arkham_decoders.vector_engine import MAX_ADVICES, MAX_PASSES, PHASE_NAMES, REASONS, VectorGames
from club_envs.arkham_decoders.vector_observer import VectorObserver
from club_envs.arkham_decoders.vector_views import view_of
from club_envs.errors import IllegalActionError
from tests.differential import LONG, NO_JIT, passes_without_jit

GAMES = 2_600 if LONG else (2 if NO_JIT else 40)  # per case; 4 cases
BATCH = 64
SLICES = Observer().slices

CASES = {
    "4p": Config(num_players=4),
    "5p": Config(num_players=5),
    "6p": Config(num_players=6),
    # Fixed public roles and the first game's penalty of 0.
    "5p-fixed-roles": Config(num_players=5, roles=("member", "advisor", "leader", "advisor", "member"), insanity_penalty=0),
}


def first_difference(batched: np.ndarray, reference: np.ndarray) -> str:
    """The observation slices in which two vectors differ (for the failure message)."""
    return ", ".join(name for name, s in SLICES.items() if batched[s].tobytes() != reference[s].tobytes())


def same_tables(a: np.recarray, b: np.recarray) -> bool:
    """Every field of every game equal (padding bytes between the fields aside)."""
    return all((a[name] == b[name]).all() for name in a.dtype.names)


def play(games: VectorGames, seed: int, on_step=None) -> None:
    """Random legal moves (from ``seed``) in every game until all are over; ``on_step(masks,
    actions)`` before each step (``masks``, ``actions`` None once all are over)."""
    rng = np.random.default_rng(seed)
    while not games.is_over.all():
        masks = games.legal_masks().copy()
        actions = np.full(games.num_games, -1, np.int64)
        for g in np.flatnonzero(~games.is_over):
            actions[g] = rng.choice(np.flatnonzero(masks[g]))
        if on_step is not None:
            on_step(masks, actions)
        games.step(actions)
    if on_step is not None:
        on_step(None, None)


def check_views(games, observer, refs, ref_observers, seats, where) -> None:
    """Every game's observation for ``seats[g]`` (None: the seat to move) against the reference's."""
    rows = observer.observe(games, None if seats is None else seats)
    for g, ref in enumerate(refs):
        seat = ref.current_player if seats is None else int(seats[g])
        if seat is None:
            continue
        expected = ref_observers[g].observe(ref.player_view(seat))
        assert rows[g].tobytes() == expected.tobytes(), (
            f"{where(g)}, seat {seat}: differs in {first_difference(rows[g], expected)}"
        )


def play_batch(config: Config, count: int, seed: int) -> int:
    """Plays ``count`` games on both engines; returns the decisions checked."""
    n = config.num_players
    first = VectorGames(config, count, seed=seed)
    setups = [first.setup(g) for g in range(count)]
    play(first, seed)
    refs = [State(config, setup=setups[g], reshuffle_decks=first.reshuffle_decks(g)) for g in range(count)]
    ref_observers = [Observer(config) for _ in range(count)]
    games = VectorGames(config, count, seed=seed)
    observer = VectorObserver(config)
    other = np.random.default_rng(seed + 1)
    checked = {"step": 0, "decisions": 0}
    ended = np.zeros(count, bool)

    def on_step(masks, actions):
        step = checked["step"]
        where = lambda g: f"{n} players, game {g}, step {step}"  # noqa: E731
        t = games.tables
        for g, ref in enumerate(refs):
            assert t.current[g] == (-1 if ref.current_player is None else ref.current_player), where(g)
            ends = (games.is_over[g], games.is_terminal[g], games.is_truncated[g])
            assert ends == (ref.is_over, ref.is_terminal, ref.is_truncated), where(g)
            assert PHASE_NAMES[t.phase[g]] in (*PHASES, "end"), where(g)
            assert PHASE_NAMES[t.phase[g]] == ref.phase, where(g)
            if masks is not None:
                assert (masks[g] == ref.legal_mask().astype(bool)).all(), where(g)
            for seat in range(n):
                assert view_of(games, g, seat) == ref.player_view(seat), f"{where(g)}, seat {seat}"
        check_views(games, observer, refs, ref_observers, None, where)
        check_views(games, observer, refs, ref_observers, other.integers(n, size=count), where)
        newly = games.is_over & ~ended
        if newly.any():
            for seat in range(n):
                check_views(games, observer, refs, ref_observers, np.full(count, seat), where)
            totals, scores, winners = games.scores()
            for g in np.flatnonzero(newly):
                result = refs[g].result
                assert REASONS[t.reason[g]] == result["reason"], where(g)
                assert scores[g].tolist() == result["scores"] and totals[g] == result["total"], where(g)
                assert np.flatnonzero(winners[g]).tolist() == result["winners"], where(g)
            ended[newly] = True
        if actions is not None:
            for g in np.flatnonzero(actions >= 0):
                refs[g].apply_action(int(actions[g]))
                checked["decisions"] += 1
        checked["step"] += 1

    play(games, seed, on_step)
    assert ended.all()
    return checked["decisions"]


@pytest.mark.long
@pytest.mark.parametrize("case", list(CASES))
def test_batched_games_replay_identically_on_the_reference_engine(case):
    config = CASES[case]
    played = 0
    while played < GAMES:
        count = min(BATCH, GAMES - played)
        assert play_batch(config, count, seed=1_000 * list(CASES).index(case) + played) > 0
        played += count


def test_the_same_replay_passes_with_the_jit_disabled():
    passes_without_jit(__file__, "test_batched_games_replay_identically_on_the_reference_engine")


def test_games_reach_every_ending_and_rule():
    """The random games the replay checks include both reasons to end, reshuffles with flipped
    grimoires, 1-1 votes decided by the leader, passes and fourth-card peeks."""
    games = VectorGames(Config(num_players=5), 256, seed=3)
    seen = {"choose": False, "pass": False}

    def on_step(masks, actions):
        if masks is not None:
            seen["choose"] |= bool(((games.tables.phase == 2) & (actions >= A.DECODE)).any())
            seen["pass"] |= bool((actions == A.PASS).any())

    play(games, 3, on_step)
    t = games.tables
    assert set(t.reason.tolist()) == {1, 2}  # the third reshuffle, and an empty discard pile
    assert (t.reshuffled_flips[t.reshuffles >= 1, 0] >= 0).all() and t.peeked.any()
    assert 10 < t.vote_count.max() <= MAX_ADVICES and 0 < t.pass_count.max() <= MAX_PASSES  # the history's room
    assert seen == {"choose": True, "pass": True}


def test_an_illegal_action_names_the_game_and_its_legal_actions_and_moves_no_game():
    games = VectorGames(Config(num_players=4), 3, seed=1)
    before = games.tables.copy()
    actions = np.array([np.flatnonzero(m)[0] for m in games.legal_masks()])
    actions[1] = A.AGREE  # a vote in the proposal phase
    with pytest.raises(IllegalActionError, match=r"game 1: action 25 is not legal for seat \d in the proposal phase; legal actions: \d+ \(reveal"):
        games.step(actions)
    assert same_tables(games.tables, before)
    with pytest.raises(IllegalActionError, match="one per game"):
        games.step(actions.astype(np.float64))
    with pytest.raises(IllegalActionError, match="one per game"):
        games.step(actions[:2])


def test_check_actions_names_the_game_at_fault_and_corrupts_no_game():
    """The check the batched multi-agent game runs before its compiled moves: legal actions come
    back as int64; an illegal one in any game is named with its seat, phase and legal actions,
    and every game -- the one at fault and the others -- then plays on as an unchecked copy does."""
    games, twin = VectorGames(Config(num_players=5), 4, seed=3), VectorGames(Config(num_players=5), 4, seed=3)
    legal = np.array([np.flatnonzero(m)[0] for m in games.legal_masks()], dtype=np.int32)
    checked = games.check_actions(legal)
    assert checked.dtype == np.int64 and (checked == legal).all()
    bad = legal.copy()
    bad[3] = A.AGREE  # a vote in the proposal phase
    seat = int(games.tables.current[3])
    names = ", ".join(f"{a} ({A.action_to_string(int(a))})" for a in np.flatnonzero(games.legal_masks()[3]))
    with pytest.raises(IllegalActionError) as raised:
        games.check_actions(bad)
    assert str(raised.value) == (f"game 3: action 25 is not legal for seat {seat} in the proposal phase; "
                                 f"legal actions: {names}")
    assert same_tables(games.tables, twin.tables)
    for _ in range(40):  # the same moves in both: every game stays the twin's
        actions = np.array([np.flatnonzero(m)[-1] for m in games.legal_masks()])
        games.step(actions)
        twin.step(actions)
        assert same_tables(games.tables, twin.tables)


def test_a_seed_gives_the_same_games_and_each_game_its_own_stream():
    a, b = VectorGames(Config(num_players=6), 4, seed=7), VectorGames(Config(num_players=6), 4, seed=7)
    assert same_tables(a.tables, b.tables)
    assert a.setup(0) != a.setup(1)
    a.reset_games(np.array([True, False, False, False]))
    assert a.setup(0) != b.setup(0)
    assert [a.setup(g) for g in (1, 2, 3)] == [b.setup(g) for g in (1, 2, 3)]


def test_compiled_code_gets_the_same_tables_as_a_plain_array():
    """``VectorGames.arrays`` is what compiled calls receive: a plain structured array (numba types
    it in C; a recarray went through its Python-level typing on every call) over the very memory
    of ``tables`` -- or, with the JIT disabled, the record view itself (attribute access in Python)."""
    from numba import config as numba_config

    games = VectorGames(Config(num_players=5), 6, seed=3)
    if numba_config.DISABLE_JIT:
        assert games.arrays is games.tables
    else:
        assert type(games.arrays) is np.ndarray and games.arrays.dtype == games.tables.dtype
    assert np.shares_memory(games.arrays, games.tables)
    rng = np.random.default_rng(0)
    for _ in range(40):  # moves made through the plain array are what the record view reads
        masks = games.legal_masks()
        games.step(np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in masks]))  # 0: a finished game
        assert np.array_equal(games.arrays["phase"], games.tables.phase)
        assert np.array_equal(games.arrays["current"], games.current_player)
