"""Members Only worlds weighted by a learned belief: read from the view, exact in what they weigh,
repeatable, and refused with a reason when the belief named is not one."""

from __future__ import annotations

import numpy as np
import pytest

from club_envs.agents.registry import load, shipped_names
from club_envs.games import load_game
from club_envs.members_only import beliefs
from club_envs.members_only.belief_model import NUM_OFFSETS
from club_envs.members_only.engine import DISCARD, State
from club_envs.members_only.rules import NO_PER_CATEGORY, NUM_CATEGORIES, Config
from club_envs.members_only.sampler import (
    discard_spread,
    learned_weight,
    offsets_to_come,
    sample_world,
    unseen_cards,
)
from club_envs.members_only.search import belief_model, learned_weight_for
from club_envs.search.ismcts import ISMCTSAgent
from tests.search.helpers import play_random

MO = load_game("members_only")
ARKHAM = load_game("arkham_decoders")
CONFIG = Config(num_players=4)


def _position(seed: int, steps: int) -> State:
    return play_random(State(CONFIG, seed=seed), steps, seed + 1)


@pytest.fixture(scope="module")
def weight_for():
    return learned_weight_for(belief_model("members_only_belief", MO, CONFIG, load, shipped_names()), CONFIG)


@pytest.mark.parametrize("seed, steps, seat", [(1, 0, 0), (2, 9, 1), (3, 25, 2), (4, 70, 3), (5, 140, 0)])
def test_the_weights_come_from_the_view_alone(weight_for, seed, steps, seat):
    """Two games that differ only in what the seat cannot see weigh every world alike, and a world
    drawn by weight still shows the seat exactly its view."""
    state = _position(seed, steps)
    view = state.player_view(seat)
    other = sample_world(view, np.random.default_rng(seed))  # same view, other hidden cards
    assert other.player_view(seat) == view and other.hands != state.hands
    a, b = weight_for(view), weight_for(other.player_view(seat))
    worlds = [sample_world(view, np.random.default_rng(seed + k)) for k in range(20)]
    assert [a(w) for w in worlds] == [b(w) for w in worlds]
    assert all(w >= 0 and np.isfinite(w) for w in map(a, worlds))
    for k in range(5):
        world = sample_world(view, np.random.default_rng(k), a)
        assert world.player_view(seat) == view


def test_weighted_worlds_are_repeatable_under_a_seed(weight_for):
    view = _position(6, 30).player_view(1)
    draws = [sample_world(view, np.random.default_rng(11), weight_for(view)) for _ in range(2)]
    assert draws[0].hands == draws[1].hands and draws[0].out_of_play == draws[1].out_of_play


def test_a_belief_that_adds_nothing_weighs_every_world_alike():
    view = _position(7, 20).player_view(2)
    weight = learned_weight(view.seat, np.zeros((NUM_CATEGORIES, NUM_OFFSETS)))
    values = {round(weight(sample_world(view, np.random.default_rng(k))), 12) for k in range(10)}
    assert values == {1.0}


def test_the_discards_to_come_are_spread_exactly():
    """Two hands, one card of each held back uniformly: every combination with its probability."""
    umbrella, umbrella_no, crown = 0, NUM_CATEGORIES, 1
    hand_a = np.zeros(10, dtype=np.int64)
    hand_a[[umbrella, crown]] = [2, 1]
    hand_b = np.zeros(10, dtype=np.int64)
    hand_b[umbrella_no] = 3
    probs, change = discard_spread([hand_a, hand_b])
    got = {tuple(c): p for c, p in zip(change.tolist(), probs)}
    # hand_b always holds back a NO! umbrella (+1 umbrella); hand_a an umbrella (2/3) or a crown (1/3)
    assert got == pytest.approx({(0, 0, 0, 0, 0): 2 / 3, (1, -1, 0, 0, 0): 1 / 3})


def test_weighted_worlds_give_the_quantity_the_beliefs_distribution():
    """Weighting uniform worlds (each with a uniformly chosen discard per player) by a belief that
    tilts one category turns that category's "normal minus NO!" still to come from the uniform prior
    into the prior times exp(logit), normalised -- the importance-sampling identity the weight rests
    on."""
    state = _position(8, 12)
    view = state.player_view(0)
    logits = np.zeros((NUM_CATEGORIES, NUM_OFFSETS))
    logits[0] = 0.4 * np.arange(NUM_OFFSETS)
    weight = learned_weight(0, logits)
    to_come = sum(view.hand_sizes) - view.hand_sizes[0] - (view.num_players - 1)
    prior = beliefs.offset_distribution(unseen_cards(view), np.array(to_come))[0]
    target = prior * np.exp(logits[0])
    target /= target.sum()
    rng = np.random.default_rng(3)
    totals = np.zeros(NUM_OFFSETS)
    uniform = np.zeros(NUM_OFFSETS)
    n = 6000
    for _ in range(n):
        world = sample_world(view, rng)
        base, undiscarded = offsets_to_come(world, 0)
        for hand in undiscarded:  # one uniformly chosen card of each hand stays out of the display
            card = rng.choice(10, p=hand / hand.sum())
            base[card % NUM_CATEGORIES] += -1 if card < NUM_CATEGORIES else 1
        index = base[0] + NO_PER_CATEGORY
        uniform[index] += 1
        totals[index] += weight(world)
    assert np.abs(uniform / n - prior).max() < 0.03  # the worlds alone follow the prior
    assert np.abs(totals / totals.sum() - target).max() < 0.04


def test_the_discard_phase_counts_only_the_discards_still_to_come():
    state = _position(9, 0)
    while state.phase != DISCARD or state.current_player < 2:
        state.apply_action(state.legal_actions()[0])
    # Seats 0 and 1 have discarded; seats 2 (to move) and 3 will each still hold back a card.
    assert len(offsets_to_come(state, 3)[1]) == 1
    assert len(offsets_to_come(state, 0)[1]) == 2


def test_ismcts_takes_a_learned_belief_by_name():
    agent = load("ismcts:beliefs=members_only_belief:estimates=members_only_belief:paired=2", game=MO,
                 config=CONFIG, seed=1)
    assert isinstance(agent, ISMCTSAgent)
    assert agent.name == "ismcts:beliefs=members_only_belief:estimates=members_only_belief:paired=2"
    view = _position(10, 5).player_view(0)
    assert agent.weight_for(view) is not None


@pytest.mark.parametrize("text, message", [
    ("ismcts:beliefs=psychic", "beliefs='psychic' is not a Members Only belief model; a belief model is "
                               r"members_only_belief or a belief file \(\*\.npz\); allowed: uniform, heuristic"),
    ("ismcts:estimates=psychic", "estimates='psychic' is not a Members Only belief model.*allowed: heuristic or"),
    ("ismcts:beliefs=members_only", "beliefs='members_only' is not a Members Only belief model"),
])
def test_a_bad_belief_is_refused_naming_the_allowed_ones(text, message):
    with pytest.raises(ValueError, match=message):
        load(text, game=MO, config=CONFIG)


def test_arkham_refuses_a_learned_belief_for_its_search():
    with pytest.raises(ValueError, match="no learned belief for the search; allowed: uniform|heuristic"):
        load("ismcts:beliefs=members_only_belief", game=ARKHAM)


def test_the_default_plays_the_belief_agents_cards():
    """By default (estimates=members_only_belief, one card) a reveal or a discard is the shipped
    belief agent's own choice; bets are searched."""
    from club_envs.agents.base import Decision
    from club_envs.members_only.engine import BET
    from club_envs.members_only.observer import Observer

    agent = load("ismcts:paired=2", game=MO, config=CONFIG, seed=3)
    believer = load("members_only_belief", game=MO, config=CONFIG)
    bots = [load("heuristic", game=MO, config=CONFIG, seed=s) for s in range(4)]
    observer = Observer(CONFIG)
    state = State(CONFIG, seed=5)
    seen = set()
    while not state.is_over and len(seen) < 3:
        seat = state.current_player
        view = state.player_view(seat)
        decision = Decision(seat, view, state.legal_actions(), lambda v=view: observer.observe(v), state.legal_mask)
        if seat == 0 and len(decision.legal_actions) > 1:
            action = agent.act(decision)
            if view.phase != BET:
                assert action == believer.act(decision)
            seen.add(view.phase)
        else:
            action = bots[seat].act(decision)
        state.apply_action(action)
    assert len(seen) == 3
