"""Worlds sampled from a Members Only view: consistent with it, uniform, and blind to the rest."""

from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from club_envs.members_only.engine import DISCARD, REVEAL, State, state_from_view
from club_envs.members_only.rules import Config
from club_envs.members_only.sampler import sample_world, unseen_cards
from tests.members_only.helpers import make_deal
from tests.search.helpers import assert_matches, play_random


def _position(num_players: int, seed: int, steps: int) -> State:
    return play_random(State(Config(num_players=num_players), seed=seed), steps, seed + 1)


@settings(max_examples=60, deadline=None)
@given(num_players=st.sampled_from([3, 4, 5]), seed=st.integers(0, 10_000), steps=st.integers(0, 400),
       seat=st.integers(0, 4), draw=st.integers(0, 2**32))
def test_a_sampled_world_shows_the_seat_exactly_its_view(num_players, seed, steps, seat, draw):
    state = _position(num_players, seed, steps)
    seat %= num_players
    view = state.player_view(seat)
    world = sample_world(view, np.random.default_rng(draw))
    assert world.player_view(seat) == view
    # The world is a real game: it plays on to its end from here.
    finished = play_random(world, 3000, draw)
    assert finished.legal_actions()


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10_000), steps=st.integers(0, 200), seat=st.integers(0, 3), draw=st.integers(0, 2**32))
def test_the_sampler_reads_only_the_view(seed, steps, seat, draw):
    """Two games that differ only in what the seat cannot see give the same worlds."""
    state = _position(4, seed, steps)
    view = state.player_view(seat)
    other = sample_world(view, np.random.default_rng(draw + 1))  # same view, other hidden cards
    assert other.player_view(seat) == view
    a = sample_world(state.player_view(seat), np.random.default_rng(draw))
    b = sample_world(other.player_view(seat), np.random.default_rng(draw))
    assert a.hands == b.hands and a.out_of_play == b.out_of_play and a.discards == b.discards
    assert a.pending_reveal == b.pending_reveal


def _hypergeometric(k: int, total: int, good: int, draws: int) -> float:
    return math.comb(good, k) * math.comb(total - good, draws - k) / math.comb(total, draws)


def test_an_opponents_hand_follows_the_exact_hypergeometric_law():
    """Seat 1's number of umbrella cards: drawn without replacement from seat 0's unseen cards."""
    deal = make_deal(4, ["umbrella*3 crown*3 hat*3", "umbrella*2 crown*2 teacup*5", "big_ben*9", "hat*5 teacup*4"],
                     face_up="umbrella umbrella-no")
    state = State(Config(num_players=4), deals=[deal])
    view = state.player_view(0)
    unseen = unseen_cards(view)
    total, good, size = int(unseen.sum()), int(unseen[0]), view.hand_sizes[1]
    rng = np.random.default_rng(2026)
    observed = Counter(sample_world(view, rng).hands[1][0] for _ in range(4000))
    ks = range(min(good, size) + 1)
    assert_matches([observed[k] for k in ks], [_hypergeometric(k, total, good, size) for k in ks])


def test_two_opponents_hands_follow_the_exact_joint_law():
    """The NO! crowns (2 in the deck, none seen) are spread over 3 opponents and the cards out of
    play in proportion to the places' sizes: a multivariate hypergeometric law."""
    deal = make_deal(5, ["umbrella*7", "crown*7", "teacup*7", "big_ben*7", "hat*7"], face_up="hat hat")
    state = State(Config(num_players=5), deals=[deal])
    view = state.player_view(0)
    unseen = unseen_cards(view)
    total = int(unseen.sum())
    sizes = [view.hand_sizes[s] for s in range(1, 5)]
    rest = total - sum(sizes)
    no_crown = 5 + 1
    assert unseen[no_crown] == 2
    rng = np.random.default_rng(7)
    place_sizes = [*sizes, rest]
    pairs = [(i, j) for i in range(5) for j in range(i, 5)]
    counts = Counter()
    for _ in range(3000):
        world = sample_world(view, rng)
        where = []
        for s in range(1, 5):
            where += [s - 1] * world.hands[s][no_crown]
        where += [4] * world.out_of_play.count(no_crown)
        counts[tuple(sorted(where))] += 1
    exact = []
    for i, j in pairs:
        if i == j:
            exact.append(math.comb(place_sizes[i], 2) / math.comb(total, 2))
        else:
            exact.append(place_sizes[i] * place_sizes[j] / math.comb(total, 2))
    assert abs(sum(exact) - 1) < 1e-12
    assert_matches([counts[p] for p in pairs], exact)


def test_a_pending_reveal_of_another_player_is_drawn_half_of_the_time():
    state = State(Config(num_players=4), seed=3)
    while not (state.phase == REVEAL and state.pending_reveal is not None):
        legal = state.legal_actions()
        state.apply_action(legal[-1] if state.phase != REVEAL else legal[0])
    watcher = (state.current_player + 1) % 4
    view = state.player_view(watcher)
    rng = np.random.default_rng(11)
    worlds = [sample_world(view, rng) for _ in range(2000)]
    with_pending = sum(w.pending_reveal is not None for w in worlds)
    assert_matches([with_pending, 2000 - with_pending], [0.5, 0.5])
    for w in worlds[:50]:
        assert w.player_view(watcher) == view
        assert sum(w.hands[state.current_player]) + (w.pending_reveal is not None) == view.hand_sizes[state.current_player]


def test_discards_already_made_are_sampled_for_earlier_seats_only():
    state = State(Config(num_players=3), seed=5)
    while not (state.phase == DISCARD and state.current_player == 2):
        state.apply_action(state.legal_actions()[-1])
    view = state.player_view(2)
    world = sample_world(view, np.random.default_rng(0))
    assert world.discards[0] is not None and world.discards[1] is not None and world.discards[2] is None
    assert sum(world.hands[0]) == 2 and sum(world.hands[2]) == 3


def test_a_weight_reweights_the_worlds():
    deal = make_deal(4, ["umbrella*3 crown*3 hat*3", "umbrella*2 crown*2 teacup*5", "big_ben*9", "hat*5 teacup*4"],
                     face_up="umbrella umbrella-no")
    view = State(Config(num_players=4), deals=[deal]).player_view(0)
    rng = np.random.default_rng(1)
    # Only worlds where seat 1 holds no umbrella card count.
    worlds = [sample_world(view, rng, weight=lambda w: float(w.hands[1][0] == 0), candidates=64) for _ in range(50)]
    assert all(w.hands[1][0] == 0 for w in worlds)


def test_bad_positions_are_refused_with_a_reason():
    state = State(Config(num_players=3), seed=1)
    view = state.player_view(0)
    with pytest.raises(ValueError, match="65 cards"):
        state_from_view(view, [list(view.hand), [0] * 10, [0] * 10], [None] * 3, [])
    finished = play_random(State(Config(num_players=3, max_heats=1), seed=2), 10_000, 3)
    while not finished.is_over:
        finished.apply_action(finished.legal_actions()[0])
    with pytest.raises(ValueError, match="game is over"):
        sample_world(finished.player_view(0), np.random.default_rng(0))
    with pytest.raises(TypeError, match="Members Only View"):
        sample_world(("not", "a", "view"), np.random.default_rng(0))
