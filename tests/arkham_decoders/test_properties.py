"""Property tests: no observation leaks hidden information, cards are conserved, records replay."""

from __future__ import annotations

import random

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from club_envs import records
from club_envs.arkham_decoders import Observer, replay
from club_envs.arkham_decoders.engine import State
from club_envs.arkham_decoders.rules import ADVISOR, BLACK_MAN, INVESTIGATOR, Config

games = st.tuples(
    st.sampled_from([4, 5, 6]),
    st.integers(0, 2**31 - 1),
    st.lists(st.integers(0, 10_000), max_size=150),
)


def _play(n: int, seed: int, choices: list[int]) -> State:
    state = State(Config(num_players=n), seed=seed)
    for choice in choices:
        if state.is_terminal:
            break
        legal = state.legal_actions()
        state.apply_action(legal[choice % len(legal)])
    return state


def _hide_differently(state: State, seat: int, rng: random.Random) -> State:
    """A state that differs from ``state`` only in what ``seat`` may not know."""
    other = state.clone()
    # 1. the cards nobody at this seat can see: the deck and the other leader/member hands
    holders = [s for s in other.proposers if s != seat]
    pool = list(other.deck) + [card for s in holders for card in other.hands[s]]
    rng.shuffle(pool)
    sizes = [len(other.hands[s]) for s in holders]
    other.deck = pool[: len(other.deck)]
    start = len(other.deck)
    for s, size in zip(holders, sizes):
        other.hands[s] = pool[start : start + size]
        other._hand_views[s] = tuple(sorted(other.hands[s]))
        start += size
    is_advisor = other.roles[seat] == ADVISOR
    # 2. the identities, unless this seat is an advisor or has peeked
    if not is_advisor and seat not in other.peeked:
        a, b = other.advisors
        other.identities = {a: other.identities[b], b: other.identities[a]}
        other.black_man_seat = next(s for s, v in other.identities.items() if v == BLACK_MAN)
        other.investigator_seat = next(s for s, v in other.identities.items() if v == INVESTIGATOR)
    # 3. the books not face up and not this seat's own grimoire
    hidden_owners = [s for s in other.advisors if s != seat]
    hidden_unowned = [i for i, b in enumerate(other.unowned) if b not in other.face_up_books]
    books = [other.grimoires[s] for s in hidden_owners] + [other.unowned[i] for i in hidden_unowned]
    rng.shuffle(books)
    for s in hidden_owners:
        other.grimoires[s] = books.pop()
    for i in hidden_unowned:
        other.unowned[i] = books.pop()
    other.true_book = other.grimoires[other.black_man_seat]
    if is_advisor and other.identities[seat] == BLACK_MAN:
        assert other.true_book == state.true_book
    # 4. another advisor's pending vote
    for s in list(other.pending_votes):
        if s != seat:
            other.pending_votes[s] = 1 - other.pending_votes[s]
    return other


@settings(max_examples=150, deadline=None)
@given(games, st.integers(0, 5), st.integers(0, 2**31 - 1))
def test_no_observation_leaks_identity_book_hand_or_pending_vote(game, seat, rng_seed):
    n, seed, choices = game
    state = _play(n, seed, choices)
    seat %= n
    other = _hide_differently(state, seat, random.Random(rng_seed))
    assert state.player_view(seat) == other.player_view(seat)
    # fresh observers, so that no cached piece of the first observation can stand in for the second
    assert np.array_equal(
        Observer(state.config).observe(state.player_view(seat)),
        Observer(state.config).observe(other.player_view(seat)),
    )


@settings(max_examples=20, deadline=None)
@given(games)
def test_the_hidden_parts_do_change_something_in_the_global_state(game):
    """Sanity check of the leak test: the perturbation is real (the god's-eye state sees it)."""
    from club_envs.arkham_decoders.observer import global_state

    n, seed, choices = game
    state = _play(n, seed, choices)
    seat = state.proposers[0]
    rng = random.Random(seed)
    observer = Observer(state.config)
    changed = any(
        not np.array_equal(global_state(state, observer), global_state(_hide_differently(state, seat, rng), observer))
        for _ in range(10)
    )
    assert changed


@settings(max_examples=60, deadline=None)
@given(games)
def test_all_24_cards_stay_accounted_for_and_the_mover_has_a_legal_action(game):
    n, seed, choices = game
    state = State(Config(num_players=n), seed=seed)
    for choice in choices + [0] * 200:
        assert sorted(state.all_cards()) == list(range(24))
        if state.is_terminal:
            break
        legal = state.legal_actions()
        assert legal, "the player to move always has a legal action"
        state.apply_action(legal[choice % len(legal)])
    assert state.is_terminal


@settings(max_examples=40, deadline=None)
@given(games)
def test_records_validate_and_replay_to_the_same_result(game):
    n, seed, choices = game
    state = State(Config(num_players=n), seed=seed)
    rng = random.Random(seed)
    for choice in choices:
        if state.is_terminal:
            break
        legal = state.legal_actions()
        state.apply_action(legal[choice % len(legal)])
    while not state.is_terminal:
        legal = state.legal_actions()
        state.apply_action(legal[rng.randrange(len(legal))])
    record = state.record(["random"] * n)
    records.validate(record)
    assert replay(record) == record["result"]
