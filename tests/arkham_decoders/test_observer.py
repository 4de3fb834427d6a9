"""The observer's layout: named slices, fixed size for 4-6 players, egocentric seats, documented table."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from club_envs.arkham_decoders import actions as A
from club_envs.arkham_decoders.engine import State
from club_envs.arkham_decoders.observer import Observer
from club_envs.arkham_decoders.rules import Config

from .helpers import make_state, reveal

TABLE = Path(__file__).resolve().parents[2] / "docs" / "_generated" / "arkham_decoders_observation.md"


def test_slices_tile_the_vector_in_describe_order():
    observer = Observer(Config())
    starts = [observer.slices[name].start for name, _, _ in observer.describe()]
    sizes = [size for _, size, _ in observer.describe()]
    assert starts == list(np.cumsum([0] + sizes[:-1]))
    assert observer.size == sum(sizes)


def test_same_size_for_every_player_count():
    sizes = {Observer(Config(num_players=n)).size for n in (4, 5, 6)}
    assert len(sizes) == 1


def test_seats_are_egocentric_and_padded_to_six():
    state = make_state()  # leader 0, member 1, advisor 2, member 3, advisor 4
    observer = Observer(state.config)
    obs = observer.observe(state.player_view(3))
    roles = obs[observer.slices["seat_roles"]].reshape(6, 4)
    # seat 3 first, then 4, 0, 1, 2, then an empty slot
    assert roles.argmax(axis=1).tolist() == [2, 0, 1, 2, 0, 3]
    assert obs[observer.slices["to_move"]].tolist() == [0, 0, 1, 0, 0, 0]  # the leader, 2 seats on


def test_face_up_cards_and_who_showed_them():
    state = make_state(hands={0: ["necronomicon:-7"]})
    reveal(state, "necronomicon:-7")
    observer = Observer(state.config)
    obs = observer.observe(state.player_view(1))
    cards = obs[observer.slices["table_cards"]].reshape(3, 24)
    seats = obs[observer.slices["table_seats"]].reshape(3, 6)
    assert cards[0].argmax() == 2 * 6 + 4 and cards[1:].sum() == 0
    assert seats[0].argmax() == 4  # seat 0 is four seats clockwise of seat 1 (of 5)


def test_black_man_sees_the_true_book_and_the_investigator_only_its_own():
    state = make_state()
    observer = Observer(state.config)
    bm = observer.observe(state.player_view(2))
    inv = observer.observe(state.player_view(4))
    leader = observer.observe(state.player_view(0))
    assert bm[observer.slices["true_grimoire"]].tolist() == [1, 0, 0, 0]
    assert inv[observer.slices["true_grimoire"]].sum() == 0
    assert inv[observer.slices["my_grimoire"]].tolist() == [0, 1, 0, 0]
    assert leader[observer.slices["my_grimoire"]].sum() == 0 and leader[observer.slices["black_man_seat"]].sum() == 0
    assert inv[observer.slices["black_man_seat"]].tolist() == [0, 0, 0, 1, 0, 0]  # seat 2 is 3 on from 4


def test_vote_summary_counts_per_advisor_and_book():
    state = make_state(hands={0: ["necronomicon:-7"], 1: ["necronomicon:-1"], 3: ["cthaat:-2"]})
    for card in ["necronomicon:-7", "necronomicon:-1", "cthaat:-2"]:
        reveal(state, card)
    state.apply_action(A.AGREE)  # seat 2
    state.apply_action(A.OPPOSE)  # seat 4
    state.apply_action(A.DECODE)
    observer = Observer(state.config)
    obs = observer.observe(state.player_view(0))
    proposals = obs[observer.slices["vote_book_proposals"]].reshape(2, 4, 2)
    cards = obs[observer.slices["vote_book_cards"]].reshape(2, 4, 2)
    # from seat 0 the advisors come in the order 2, 4
    assert np.allclose(proposals[0, 2], [0.1, 0.0]) and np.allclose(proposals[1, 2], [0.0, 0.1])
    assert np.isclose(cards[0, 2, 0], 0.2) and np.isclose(cards[0, 1, 0], 0.1)
    assert obs[observer.slices["last_votes"]].tolist() == [1, 0, 0, 1]


def test_observation_values_lie_in_the_unit_interval():
    for seed in range(20):
        state = State(Config(num_players=4 + seed % 3), seed=seed)
        rng = np.random.default_rng(seed)
        observer = Observer(state.config)
        while not state.is_terminal:
            obs = observer.observe(state.player_view(state.current_player))
            assert obs.min() >= 0.0 and obs.max() <= 1.0
            legal = state.legal_actions()
            state.apply_action(int(rng.choice(legal)))


def test_the_documentation_holds_the_generated_observation_table():
    # the Arkham page includes this file; python docs/gen_pages.py rewrites it
    assert TABLE.read_text(encoding="utf-8") == Observer.describe_markdown() + "\n"


def test_a_long_lived_observer_gives_what_a_fresh_one_gives():
    """The per-seat caches never serve stale pieces: across games, player counts and seats."""
    shared = Observer()
    rng = np.random.default_rng(0)
    for game in range(12):
        state = State(Config(num_players=4 + game % 3), seed=game)
        while not state.is_terminal:
            for seat in rng.permutation(state.num_players)[:2]:
                view = state.player_view(int(seat))
                assert np.array_equal(shared.observe(view), Observer().observe(view))
            legal = state.legal_actions()
            state.apply_action(int(rng.choice(legal)))
