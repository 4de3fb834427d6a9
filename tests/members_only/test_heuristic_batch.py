"""The heuristic's batched evaluation is the bot's own, position by position."""

from __future__ import annotations

import numpy as np
import pytest

from club_envs.agents.base import Decision
from club_envs.members_only import beliefs, heuristic_batch
from club_envs.members_only.bots import known_position, make_agent
from club_envs.members_only.engine import BET, DISCARD, REVEAL, State
from club_envs.members_only.rules import Config


def seeded_decisions(num_players: int, games: int, seed: int) -> list[Decision]:
    """Every decision of a few games played mostly by the heuristic (so boards fill with chips)
    and partly at random (so unusual positions come up too)."""
    rng = np.random.default_rng(seed)
    bot = make_agent("heuristic")
    decisions = []
    for _ in range(games):
        state = State(Config(num_players=num_players), seed=int(rng.integers(2**31)))
        while not state.is_over:
            view = state.player_view(state.current_player)
            decision = Decision(view.seat, view, state.legal_actions(), lambda: None, lambda m=state.legal_mask(): m)
            decisions.append(decision)
            exploit = rng.random() < 0.7
            state.apply_action(bot.act(decision) if exploit else int(rng.choice(state.legal_actions())))
    return decisions


@pytest.mark.parametrize("name", ["heuristic", "heuristic_bold"])
@pytest.mark.parametrize("num_players", [3, 4, 5])
def test_batched_evaluation_makes_the_bots_choices_and_numbers(name, num_players):
    decisions = seeded_decisions(num_players, games=2, seed=num_players)
    bot = make_agent(name)
    views = [d.view for d in decisions]
    evaluation = heuristic_batch.evaluate(views, np.stack([d.action_mask for d in decisions]),
                                          bot.chip_cost, bot.rival_weight)
    assert list(evaluation.choice) == [bot.act(d) for d in decisions]
    assert bot.act_batch([bot] * len(decisions), decisions) == list(evaluation.choice)
    checked = {BET: 0, REVEAL: 0, DISCARD: 0}
    for i, (view, decision) in enumerate(zip(views, decisions)):
        assert np.allclose(evaluation.counts[i], beliefs.position_counts(*known_position(view)), rtol=0, atol=1e-12)
        if len(decision.legal_actions) < 2:
            continue
        if view.phase == BET:
            assert np.allclose(evaluation.bets[i], bot.bet_values(view), rtol=0, atol=1e-12)
        else:
            worth = bot.card_values(view)
            assert sorted(worth) == list(np.flatnonzero(~np.isnan(evaluation.cards[i])))
            assert np.allclose([evaluation.cards[i, c] for c in worth], list(worth.values()), rtol=0, atol=1e-12)
        checked[view.phase] += 1
    assert min(checked.values()) > 10


def test_the_sampled_heuristic_is_asked_on_its_own():
    assert make_agent("heuristic_sampled").batch_key is None
    assert make_agent("heuristic").batch_key != make_agent("heuristic_bold").batch_key
