"""Properties of every legal game (hypothesis): cards accounted, no hidden information leaks,
a non-empty mask for the player to move, records that validate and replay."""

from __future__ import annotations

import json

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from club_envs import records
from club_envs.members_only import replay
from club_envs.members_only.engine import State
from club_envs.members_only.observer import Observer
from club_envs.members_only.rules import COPIES_PER_TYPE, DECK_SIZE, NUM_CARD_TYPES, Config

games = st.fixed_dictionaries(
    {
        "num_players": st.sampled_from([3, 4, 5]),
        "seed": st.integers(0, 2**31 - 1),
        "choices": st.lists(st.integers(0, 10_000), min_size=1, max_size=60),
        "max_heats": st.integers(1, 6),
    }
)


def random_game(spec, every=None):
    """Play a game choosing legal actions from ``choices`` (cycled); yield the state at each step."""
    state = State(Config(num_players=spec["num_players"], max_heats=spec["max_heats"]), seed=spec["seed"])
    choices = spec["choices"]
    step = 0
    while not state.is_over:
        yield state
        legal = state.legal_actions()
        state.apply_action(legal[choices[step % len(choices)] % len(legal)])
        step += 1
    yield state


def cards_per_type(state: State) -> list[int]:
    totals = list(state.display)
    for hand in state.hands:
        totals = [a + b for a, b in zip(totals, hand)]
    for card in state.out_of_play:
        totals[card] += 1
    for card in state.discards:
        if card is not None:
            totals[card] += 1
    if state.pending_reveal is not None:
        totals[state.pending_reveal] += 1
    return totals


@settings(max_examples=25, deadline=None)
@given(games)
def test_all_65_cards_are_accounted_for_after_every_action(spec):
    for state in random_game(spec):
        totals = cards_per_type(state)
        assert totals == list(COPIES_PER_TYPE)
        assert sum(totals) == DECK_SIZE


@settings(max_examples=25, deadline=None)
@given(games)
def test_mask_is_non_empty_and_matches_the_legal_actions_for_the_player_to_move(spec):
    for state in random_game(spec):
        if state.is_over:
            assert state.legal_actions() == [] and state.current_player is None
            assert state.legal_mask().sum() == 0
        else:
            mask = state.legal_mask()
            assert mask.sum() > 0
            assert np.flatnonzero(mask).tolist() == state.legal_actions()
            assert all(state.is_legal(a) for a in state.legal_actions())


def swap_hidden_card(state: State, viewer: int, rng: np.random.Generator) -> State | None:
    """A copy of ``state`` that differs only in cards ``viewer`` cannot see: one card of another
    player's hand (or their pending reveal) exchanged with a different out-of-play card."""
    other = state.clone()
    holders = [s for s in range(state.num_players) if s != viewer and any(state.hands[s])]
    if not holders or not other.out_of_play:
        return None
    seat = holders[rng.integers(len(holders))]
    pending = other.pending_reveal is not None and other.current_player == seat and rng.random() < 0.5
    held = other.pending_reveal if pending else int(rng.choice([c for c in range(NUM_CARD_TYPES) if other.hands[seat][c]]))
    candidates = [i for i, c in enumerate(other.out_of_play) if c != held]
    if not candidates:
        return None
    index = candidates[rng.integers(len(candidates))]
    swapped_in = other.out_of_play[index]
    other.out_of_play[index] = held
    if pending:
        other.pending_reveal = swapped_in
    else:
        other.hands[seat][held] -= 1
        other.hands[seat][swapped_in] += 1
    return other


@settings(max_examples=25, deadline=None)
@given(games, st.integers(0, 2**31 - 1))
def test_states_differing_only_in_hidden_cards_give_equal_observations(spec, seed):
    rng = np.random.default_rng(seed)
    observer = Observer(Config(num_players=spec["num_players"], max_heats=spec["max_heats"]))
    for step, state in enumerate(random_game(spec)):
        if step % 5:
            continue
        viewer = int(rng.integers(state.num_players))
        twin = swap_hidden_card(state, viewer, rng)
        if twin is None:
            continue
        assert cards_per_type(twin) == list(COPIES_PER_TYPE)
        assert twin.hands != state.hands or twin.pending_reveal != state.pending_reveal
        assert np.array_equal(observer.observe(state.player_view(viewer)), observer.observe(twin.player_view(viewer)))
        if state.current_player == viewer:
            assert np.array_equal(state.legal_mask(), twin.legal_mask())


@settings(max_examples=15, deadline=None)
@given(games)
def test_every_game_record_validates_and_replays_to_the_same_result(spec):
    *_, state = random_game(spec)
    record = json.loads(json.dumps(state.record(controllers=["test"] * state.num_players)))
    records.validate(record)
    assert replay(record) == state.result
    assert records.replay(record) == record["result"]


@settings(max_examples=10, deadline=None)
@given(games)
def test_same_seed_and_actions_give_the_same_record(spec):
    *_, first = random_game(spec)
    *_, second = random_game(spec)
    assert first.record() == second.record()


def test_a_change_the_viewer_can_see_does_change_its_observation():
    # The control for the test above: the same swap in the viewer's own hand must show.
    state = State(Config(num_players=4), seed=3)
    observer = Observer(Config(num_players=4))
    twin = state.clone()
    held = next(c for c in range(NUM_CARD_TYPES) if twin.hands[0][c])
    swapped_in = next(c for c in twin.out_of_play if c != held)
    twin.out_of_play[twin.out_of_play.index(swapped_in)] = held
    twin.hands[0][held] -= 1
    twin.hands[0][swapped_in] += 1
    assert not np.array_equal(observer.observe(state.player_view(0)), observer.observe(twin.player_view(0)))
    assert np.array_equal(observer.observe(state.player_view(1)), observer.observe(twin.player_view(1)))
