"""Members Only style bots and held-out bots: each style's distinguishing behaviour, on the same positions."""

from __future__ import annotations

import numpy as np
import pytest

from club_envs.members_only import AGENT_NAMES, SPEC, make_agent
from club_envs.members_only import actions as A
from club_envs.members_only import beliefs, holdout, styles
from club_envs.members_only.bots import HeuristicAgent
from club_envs.members_only.engine import BET, REVEAL
from club_envs.members_only.heuristic_values import known_position
from club_envs.members_only.match import play_match
from club_envs.members_only.rules import Config

CONFIG = Config(num_players=4)


class Recorder:
    """A heuristic that keeps every decision it is asked (the positions the tests replay)."""

    name = "recorder"

    def __init__(self, seed: int) -> None:
        self.bot = HeuristicAgent(seed)
        self.decisions = []

    def reset(self, seat, seed=None):
        self.bot.reset(seat, seed)

    def act(self, decision):
        if len(decision.legal_actions) > 1:
            self.decisions.append(decision)
        return self.bot.act(decision)


@pytest.fixture(scope="module")
def positions():
    recorders = [Recorder(s) for s in range(4)]
    for seed in range(3):
        play_match(CONFIG, recorders, seed=100 + seed)
    return [d for r in recorders for d in r.decisions]


def _choices(agent, decisions):
    return [agent.act(d) for d in decisions]


def test_every_style_and_holdout_bot_is_a_registered_game_bot():
    for name in (*styles.NAMES, *holdout.NAMES):
        assert name in AGENT_NAMES and name in SPEC.bots
        assert make_agent(name, CONFIG, seed=1).name == name
    with pytest.raises(ValueError, match="unknown agent 'members_only_style_wild'.*members_only_style_mix"):
        make_agent("members_only_style_wild", CONFIG)


def test_the_default_style_plays_exactly_as_the_heuristic(positions):
    agent = styles.StyleAgent(styles.Style(), seed=0, name="plain")
    assert _choices(agent, positions) == _choices(HeuristicAgent(0), positions)


def _chance(view, action: int) -> float:
    """The exact chance a bet is correct, as the heuristic estimates it."""
    c, space, _ = A.decode_bet(action)
    return float(beliefs.space_probabilities(beliefs.position_counts(*known_position(view)))[c, space])


def test_a_bold_bettor_bets_more_often_and_riskier_than_a_cautious_one(positions):
    bets = [d for d in positions if d.view.phase == BET]
    chosen = {name: _choices(make_agent(name, CONFIG, seed=0), bets)
              for name in ("members_only_style_bold", "heuristic", "members_only_style_cautious")}
    rate = {name: np.mean([a < A.NUM_BETS for a in acts]) for name, acts in chosen.items()}
    chance = {name: np.mean([_chance(d.view, a) for d, a in zip(bets, acts) if a < A.NUM_BETS])
              for name, acts in chosen.items()}
    assert rate["members_only_style_bold"] >= rate["heuristic"] > rate["members_only_style_cautious"] + 0.1
    # the heuristic bets whenever a bet gains at all; the bold bettor takes longer shots on the same positions
    assert chance["members_only_style_bold"] < chance["heuristic"] - 0.03 < chance["members_only_style_cautious"] - 0.06


def test_a_misleading_revealer_shows_its_least_helpful_card_first_and_keeps_its_discard(positions):
    judge = HeuristicAgent(0)
    misleading = make_agent("members_only_style_misleading", CONFIG, seed=0)
    reveals = [d for d in positions if d.view.phase == REVEAL and sum(1 for n in d.view.hand if n) >= 3]
    assert len(reveals) > 20
    same = 0
    for d in reveals:
        worth = judge.card_values(d.view)
        shown = misleading.act(d) - A.REVEAL_BASE
        helpful = judge.act(d) - A.REVEAL_BASE
        assert shown != max(worth, key=worth.get)  # the card it will discard stays in hand
        assert worth[shown] >= worth[helpful]  # never more helpful than the heuristic's card
        same += shown == helpful
    assert same < 0.5 * len(reveals)


def test_a_shuffled_revealer_varies_its_order_and_is_repeatable_given_its_seed(positions):
    reveals = [d for d in positions if d.view.phase == REVEAL and sum(1 for n in d.view.hand if n) >= 3]
    first = _choices(make_agent("members_only_style_shuffled", CONFIG, seed=4), reveals)
    assert first == _choices(make_agent("members_only_style_shuffled", CONFIG, seed=4), reveals)
    helpful = _choices(HeuristicAgent(0), reveals)
    assert 0.2 < np.mean([a != b for a, b in zip(first, helpful)]) < 0.95


def test_a_noisy_player_departs_from_the_heuristic_about_as_often_as_its_epsilon(positions):
    noisy = _choices(make_agent("members_only_style_noisy", CONFIG, seed=2), positions)
    plain = _choices(HeuristicAgent(0), positions)
    departed = np.mean([a != b for a, b in zip(noisy, plain)])
    assert 0.05 < departed <= 0.2 + 0.05  # a random pick sometimes lands on the heuristic's own


def test_the_mix_draws_a_style_per_game_from_the_seed_it_is_given():
    agent = make_agent("members_only_style_mix", CONFIG)
    drawn = []
    for seed in range(200):
        agent.reset(0, seed)
        drawn.append(agent.style)
    again = make_agent("members_only_style_mix", CONFIG)
    again.reset(0, 7)
    assert again.style == drawn[7]
    assert len(set(drawn)) == 200
    assert {s.reveal for s in drawn} == set(styles.REVEAL_ORDERS)
    assert 0.3 < np.mean([s.epsilon > 0 for s in drawn]) < 0.7
    assert min(s.chip_cost[0] for s in drawn) < 0.3 < 0.9 < max(s.chip_cost[0] for s in drawn)
    assert all(-0.2 <= s.bet_margin <= 0.4 and 0 <= s.rival_weight <= 0.6 for s in drawn)


def test_a_game_of_style_and_holdout_bots_repeats_given_its_seed():
    names = ["members_only_style_mix", "holdout_margin", "holdout_prover", "holdout_gambler"]
    runs = [play_match(CONFIG, [make_agent(n, CONFIG, seed=s) for s, n in enumerate(names)], seed=9) for _ in range(2)]
    assert runs[0] == runs[1]
    assert runs[0]["result"] is not None


def test_held_out_bots_decide_by_rules_of_their_own(positions):
    plain = _choices(HeuristicAgent(0), positions)
    for name in holdout.NAMES:
        theirs = _choices(make_agent(name, CONFIG, seed=0), positions)
        assert np.mean([a != b for a, b in zip(theirs, plain)]) > 0.3, name


def test_the_margin_bot_bets_only_with_room_and_the_gambler_bets_more_often(positions):
    bets = [d for d in positions if d.view.phase == BET]
    margin = _choices(make_agent("holdout_margin", CONFIG), bets)
    gambler = _choices(make_agent("holdout_gambler", CONFIG), bets)
    for d, a in zip(bets, margin):
        if a < A.NUM_BETS:
            c, space, _ = A.decode_bet(a)
            mean, spread = holdout.Reading(d.view).estimate()
            assert holdout._distance(space, mean[c]) >= 0.25 * spread[c]
    assert np.mean([a < A.NUM_BETS for a in gambler]) > np.mean([a < A.NUM_BETS for a in margin])


def test_the_prover_bets_only_inside_its_bounds(positions):
    prover = make_agent("holdout_prover", CONFIG)
    placed = 0
    for d in (d for d in positions if d.view.phase == BET):
        a = prover.act(d)
        if a < A.NUM_BETS:
            placed += 1
            c, space, _ = A.decode_bet(a)
            low, high = holdout.Reading(d.view).bounds()
            k = A.decode_bet(a)[1] + 1
            assert (high[c] <= k) if space < 4 else (low[c] >= k)
    assert placed > 0
