"""The heuristic's batched evaluation is the bot's own, position by position."""

from __future__ import annotations

import numpy as np
import pytest

from club_envs.agents.base import Decision
from club_envs.members_only import beliefs, heuristic_batch, heuristic_sampled
from club_envs.members_only.bots import make_agent
from club_envs.members_only.heuristic_values import known_position
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


def test_each_tuning_is_asked_apart():
    keys = {make_agent(name).batch_key for name in ("heuristic", "heuristic_bold", "heuristic_sampled")}
    assert len(keys) == 3


@pytest.mark.parametrize("num_players", [3, 4, 5])
def test_batched_sampled_bots_draw_and_choose_as_each_bot_alone(num_players):
    """Each sampled bot draws from its own generator as ``act`` would; the batch's choices are the
    bots' own and every generator ends where ``act`` leaves it."""
    decisions = seeded_decisions(num_players, games=3, seed=20 + num_players)
    for start in range(0, len(decisions), 7):
        chunk = decisions[start:start + 7]
        alone = [make_agent("heuristic_sampled", seed=start + k) for k in range(len(chunk))]
        together = [make_agent("heuristic_sampled", seed=start + k) for k in range(len(chunk))]
        assert [bot.act(d) for bot, d in zip(alone, chunk)] == together[0].act_batch(together, chunk)
        assert [b.random() for b in (a._rng for a in alone)] == [b.random() for b in (a._rng for a in together)]


def test_sampled_card_worths_are_the_bots_to_the_last_bit():
    decisions = [d for d in seeded_decisions(4, games=4, seed=7)
                 if d.view.phase != BET and len(d.legal_actions) > 1]
    boards = [len(d.view.bets) for d in decisions]
    assert min(boards) < 8 <= max(boards)  # both of numpy's summation orders come up
    for k, decision in enumerate(decisions):
        bot, twin = make_agent("heuristic_sampled", seed=k), make_agent("heuristic_sampled", seed=k)
        worth = bot.card_values(decision.view)
        cards = twin._final_card_samples(decision.view)[None]
        batched = heuristic_sampled.card_values([decision.view], cards, twin.chip_cost, twin.rival_weight)[0]
        assert sorted(worth) == list(np.flatnonzero(~np.isnan(batched)))
        assert [batched[c] for c in worth] == list(worth.values())


def test_held_back_counts_are_the_ten_direct_cases_to_the_last_bit():
    """Three distributions per position are assembled into the ten "card held back" cases; each
    entry equals computing that case directly."""
    decisions = seeded_decisions(4, games=6, seed=11) + seeded_decisions(5, games=3, seed=12)
    views = [d.view for d in decisions]
    offsets, _, shown = heuristic_batch.distributions(views)
    direct = beliefs.count_distribution(offsets[:, None], shown[:, None, :] - np.eye(10, dtype=np.int64)[None])
    held = np.array([view.hand for view in views]) > 0
    assembled = heuristic_batch.held_back_counts(offsets, shown)
    assert np.array_equal(assembled[held], direct[held])


def test_row_sums_add_in_the_order_numpy_sums_one_row():
    rng = np.random.default_rng(0)
    for n in range(0, 45):
        values = rng.normal(size=(6, 10, n)) * 10.0 ** rng.integers(-8, 8, size=(6, 10, 1))
        expected = np.array([[row.sum() for row in block] for block in values])
        assert np.array_equal(heuristic_sampled.row_sums(values), expected)


def test_a_prepared_round_gives_the_evaluation_of_each_group():
    """Rows prepared for a whole round equal those a group computes alone; other views fall back."""
    from club_envs.members_only import heuristic_round

    decisions = seeded_decisions(4, games=1, seed=3)[:40]
    views, masks = [d.view for d in decisions], np.stack([d.action_mask for d in decisions])
    heuristic_round.prepare(views, masks, (0.5, 1.0), 0.3)
    for part in (slice(0, 5), slice(17, 18), slice(30, 40)):
        alone = heuristic_batch.evaluate(views[part], masks[part])
        shared = heuristic_round.evaluate(views[part], masks[part])
        assert all(np.array_equal(a, b, equal_nan=True) for a, b in zip(alone, shared))
    other = seeded_decisions(4, games=1, seed=4)[:5]
    fallback = heuristic_round.evaluate([d.view for d in other], np.stack([d.action_mask for d in other]))
    assert np.array_equal(fallback.choice, heuristic_batch.evaluate([d.view for d in other],
                                                                    np.stack([d.action_mask for d in other])).choice)
