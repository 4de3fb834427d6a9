"""Exact final-count beliefs, the heuristic built on them, and the policy inputs made from them."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from club_envs.agents.base import Decision
from club_envs.members_only import beliefs
from club_envs.members_only.bots import HeuristicAgent
from club_envs.members_only.heuristic_values import final_counts, known_position
from club_envs.members_only.features import BELIEF_SIZE, HEURISTIC_SIZE, heuristic_inputs
from club_envs.members_only.observer import SIZE, Observer
from club_envs.members_only.rules import Config
from tests.members_only.test_properties import games, random_game, swap_hidden_card


def test_offset_and_count_distributions_match_monte_carlo_sampling_of_the_deal():
    rng = np.random.default_rng(0)
    unseen, to_come = np.array([5, 3, 7, 2, 9, 1, 2, 0, 1, 2]), 12
    shown = np.array([2, 1, 0, 3, 1, 1, 0, 2, 0, 0])
    exact = beliefs.count_distribution(beliefs.offset_distribution(unseen, to_come), shown)
    assert np.allclose(exact.sum(axis=-1), 1.0)
    draws = final_counts(rng.multivariate_hypergeometric(unseen, to_come, size=200_000) + shown)
    empirical = np.stack([np.bincount(draws[:, c], minlength=12)[:12] / len(draws) for c in range(5)])
    assert np.abs(empirical - exact).max() < 0.005  # 200k samples: standard error below 0.0012


def test_a_no_card_waiting_without_a_normal_card_leaves_the_count_at_zero():
    # nothing unseen, nothing to come: one NO! shown and no normal card of category 0
    shown = np.zeros(10, dtype=int)
    shown[5] = 1
    counts = beliefs.count_distribution(beliefs.offset_distribution(np.zeros(10, dtype=int), 0), shown)
    assert counts[0, 0] == pytest.approx(1.0)
    assert beliefs.space_probabilities(counts)[0, 0] == pytest.approx(1.0)  # "<=1" is sure to be right
    assert beliefs.space_probabilities(counts)[0, 4] == pytest.approx(0.0)  # ">=5" is sure to be wrong


@settings(max_examples=15, deadline=None)
@given(games)
def test_beliefs_from_the_observation_equal_beliefs_from_the_view(spec):
    observer = Observer(Config(num_players=spec["num_players"], max_heats=spec["max_heats"]))
    batch, expected = [], []
    for state in random_game(spec):
        if state.is_over:
            break
        view = state.player_view(state.current_player)
        obs = observer.observe(view)
        from_view = beliefs.position_features(*known_position(view))
        assert np.allclose(beliefs.observation_beliefs(obs), from_view, atol=1e-6)
        batch.append(obs)
        expected.append(from_view)
    if batch:  # the vectorised path over a batch gives the same numbers
        assert np.allclose(beliefs.observation_beliefs(np.stack(batch)), np.stack(expected), atol=1e-6)


@settings(max_examples=15, deadline=None)
@given(games, st.integers(0, 2**31 - 1))
def test_policy_inputs_never_depend_on_hidden_cards(spec, seed):
    rng = np.random.default_rng(seed)
    observer = Observer(Config(num_players=spec["num_players"], max_heats=spec["max_heats"]))
    for step, state in enumerate(random_game(spec)):
        if step % 4 or state.is_over:
            continue
        seat = state.current_player
        twin = swap_hidden_card(state, seat, rng)
        if twin is None:
            continue
        a = heuristic_inputs(observer.observe(state.player_view(seat)), state.player_view(seat), state.legal_mask())
        b = heuristic_inputs(observer.observe(twin.player_view(seat)), twin.player_view(seat), twin.legal_mask())
        assert a.shape == (SIZE + HEURISTIC_SIZE,)
        assert np.array_equal(a, b)


def test_heuristic_inputs_name_the_heuristics_own_choice():
    state = random_game({"num_players": 4, "seed": 5, "choices": [3, 1, 4, 1, 5, 9, 2, 6], "max_heats": 3})
    observer, bot = Observer(Config(num_players=4, max_heats=3)), HeuristicAgent()
    checked = 0
    for s in state:
        if s.is_over:
            break
        view = s.player_view(s.current_player)
        decision = Decision(s.current_player, view, s.legal_actions(), lambda v=view: observer.observe(v), s.legal_mask)
        inputs = heuristic_inputs(decision.observation, view, decision.action_mask)
        choice = inputs[-101:]
        assert choice.sum() == 1.0 and int(np.argmax(choice)) == bot.act(decision)
        assert np.allclose(inputs[SIZE:SIZE + BELIEF_SIZE], beliefs.observation_beliefs(decision.observation), atol=1e-6)
        checked += 1
    assert checked > 50


def test_exact_and_sampled_heuristics_mostly_agree():
    """The exact estimate is the limit of the sampled one: their decisions differ only where two
    choices are nearly equal."""
    exact, sampled = HeuristicAgent(), HeuristicAgent(seed=1, samples=2000)
    observer = Observer(Config(num_players=4))
    same = total = 0
    for s in random_game({"num_players": 4, "seed": 11, "choices": [7, 2, 9, 4, 1], "max_heats": 2}):
        if s.is_over:
            break
        view = s.player_view(s.current_player)
        if len(s.legal_actions()) == 1:
            continue
        decision = Decision(s.current_player, view, s.legal_actions(), lambda v=view: observer.observe(v), s.legal_mask)
        same += exact.act(decision) == sampled.act(decision)
        total += 1
    assert total > 30 and same / total > 0.85
