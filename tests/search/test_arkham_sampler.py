"""Worlds sampled from an Arkham Decoders Club view: consistent with it, uniform, and blind to the rest."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from club_envs.arkham_decoders.engine import VOTE, State, state_from_view
from club_envs.arkham_decoders.rules import NUM_BOOKS, Config
from club_envs.arkham_decoders.sampler import belief_weight, hidden_setups, sample_world, unseen_cards
from tests.arkham_decoders.helpers import make_state, play_round
from tests.search.helpers import assert_matches, play_random


def _position(num_players: int, seed: int, steps: int) -> State:
    return play_random(State(Config(num_players=num_players), seed=seed), steps, seed + 1)


@settings(max_examples=80, deadline=None)
@given(num_players=st.sampled_from([4, 5, 6]), seed=st.integers(0, 10_000), steps=st.integers(0, 150),
       seat=st.integers(0, 5), draw=st.integers(0, 2**32), weighted=st.booleans())
def test_a_sampled_world_shows_the_seat_exactly_its_view(num_players, seed, steps, seat, draw, weighted):
    state = _position(num_players, seed, steps)
    seat %= num_players
    view = state.player_view(seat)
    rng = np.random.default_rng(draw)
    world = sample_world(view, rng, weight=belief_weight(view) if weighted else None)
    assert world.player_view(seat) == view
    assert world.true_book not in view.face_up_books
    if view.black_man is not None:
        assert world.black_man_seat == view.black_man
    finished = play_random(world, 500, draw)
    assert finished.legal_actions()


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), steps=st.integers(0, 120), seat=st.integers(0, 4), draw=st.integers(0, 2**32))
def test_the_sampler_reads_only_the_view(seed, steps, seat, draw):
    state = _position(5, seed, steps)
    view = state.player_view(seat)
    other = sample_world(view, np.random.default_rng(draw + 1))
    a = sample_world(view, np.random.default_rng(draw))
    b = sample_world(other.player_view(seat), np.random.default_rng(draw))
    assert (a.black_man_seat, a.grimoires, a.unowned, a.hands, a.deck, a.pending_votes) == (
        b.black_man_seat, b.grimoires, b.unowned, b.hands, b.deck, b.pending_votes)


def _after_a_reshuffle() -> State:
    """5 players (advisors 2 and 4; seat 2 the Black Man with eibon, seat 4 cthaat), every proposal
    opposed until the first reshuffle has flipped an unowned book."""
    state = make_state(black_man=2)
    while state.reshuffles == 0:
        play_round(state)
    assert len(state.face_up_books) == 1
    return state


def _hypotheses(worlds, advisors) -> Counter:
    return Counter((advisors.index(w.black_man_seat), w.true_book) for w in worlds)


def test_a_member_sees_every_consistent_black_man_and_true_book_equally_often():
    state = _after_a_reshuffle()
    view = state.player_view(0)  # the leader
    flipped = view.face_up_books[0]
    rng = np.random.default_rng(3)
    counts = _hypotheses((sample_world(view, rng) for _ in range(3000)), view.advisors)
    cells = [(b, t) for b in range(2) for t in range(NUM_BOOKS)]
    exact = [0.0 if t == flipped else 1 / 6 for b, t in cells]
    assert_matches([counts[c] for c in cells], exact)


def test_the_investigator_knows_the_black_man_and_one_fake():
    state = _after_a_reshuffle()
    view = state.player_view(4)
    assert view.identity == "investigator"
    rng = np.random.default_rng(4)
    counts = _hypotheses((sample_world(view, rng) for _ in range(2000)), view.advisors)
    allowed = [t for t in range(NUM_BOOKS) if t not in (view.grimoire, view.face_up_books[0])]
    cells = [(view.advisors.index(2), t) for t in range(NUM_BOOKS)]
    assert_matches([counts[c] for c in cells], [0.5 if t in allowed else 0.0 for _, t in cells])
    assert sum(counts.values()) == sum(counts[c] for c in cells)


def test_the_black_man_knows_the_true_book():
    state = _after_a_reshuffle()
    view = state.player_view(2)
    setups = hidden_setups(view)
    assert {bm for bm, _, _ in setups} == {2}
    assert {g[2] for _, g, _ in setups} == {view.true_book}
    rng = np.random.default_rng(5)
    fakes = Counter(sample_world(view, rng).grimoires[4] for _ in range(1500))
    allowed = [t for t in range(NUM_BOOKS) if t not in (view.true_book, view.face_up_books[0])]
    assert_matches([fakes[t] for t in range(NUM_BOOKS)], [0.5 if t in allowed else 0.0 for t in range(NUM_BOOKS)])


def test_unseen_cards_land_in_each_place_in_proportion_to_its_size():
    state = make_state()
    view = state.player_view(1)
    card = unseen_cards(view)[0]
    places = [0, 3, "deck"]
    sizes = [view.hand_size, view.hand_size, view.deck_size]
    rng = np.random.default_rng(6)
    counts = Counter()
    for _ in range(3000):
        world = sample_world(view, rng)
        counts[next((s for s in (0, 3) if card in world.hands[s]), "deck")] += 1
    assert_matches([counts[p] for p in places], [s / sum(sizes) for s in sizes])


def test_the_first_advisors_hidden_vote_is_drawn_half_of_the_time():
    state = make_state()
    while state.phase != VOTE:
        state.apply_action(state.legal_actions()[0])
    state.apply_action(state.legal_actions()[0])  # the first advisor votes
    second = state.current_player
    rng = np.random.default_rng(8)
    votes = Counter(sample_world(state.player_view(second), rng).pending_votes[state.advisors[0]] for _ in range(2000))
    assert_matches([votes[0], votes[1]], [0.5, 0.5])
    first_view = state.player_view(state.advisors[0])
    assert sample_world(first_view, rng).pending_votes == state.pending_votes


def test_a_belief_weight_moves_the_sample_towards_it():
    state = make_state()
    view = state.player_view(0)
    rng = np.random.default_rng(9)
    worlds = [sample_world(view, rng, weight=lambda w: float(w.true_book == 3), candidates=64) for _ in range(40)]
    assert all(w.true_book == 3 for w in worlds)


def test_bad_positions_are_refused_with_a_reason():
    state = make_state()
    view = state.player_view(0)
    with pytest.raises(ValueError, match="advisors"):
        state_from_view(view, 0, {2: 0, 4: 1}, [2, 3], {}, [])
    with pytest.raises(ValueError, match="24 chapter cards"):
        state_from_view(view, 2, {2: 0, 4: 1}, [2, 3], {0: list(view.hand)}, [])
    with pytest.raises(TypeError, match="Arkham"):
        sample_world(object(), np.random.default_rng(0))


def test_the_search_weights_worlds_by_belief_except_for_the_black_man():
    from club_envs.arkham_decoders.search import default_weight

    state = make_state(black_man=2)
    assert default_weight(state.player_view(2)) is None  # he knows who he is and the true book
    weight = default_weight(state.player_view(0))
    world = sample_world(state.player_view(0), np.random.default_rng(0))
    assert weight is not None and weight(world) > 0
