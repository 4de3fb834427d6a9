"""Arkham style bots and held-out bots: each style's distinguishing behaviour, on the same positions."""

from __future__ import annotations

import numpy as np
import pytest

from club_envs.arkham_decoders import AGENT_NAMES, SPEC, make_agent
from club_envs.arkham_decoders import actions as A
from club_envs.arkham_decoders import holdout, styles
from club_envs.arkham_decoders.bots import HeuristicAgent, leader_pick, leader_true_book
from club_envs.arkham_decoders.engine import PROPOSAL, VOTE
from club_envs.arkham_decoders.match import play_match
from club_envs.arkham_decoders.rules import BLACK_MAN, INVESTIGATOR, NUM_VALUES, Config

CONFIG = Config(num_players=5)


class Recorder:
    """A heuristic that keeps every decision with a choice (the positions the tests replay)."""

    name = "recorder"

    def __init__(self) -> None:
        self.bot = HeuristicAgent(0)
        self.decisions = []

    def reset(self, seat, seed=None):
        self.bot.reset(seat, seed)

    def act(self, decision):
        if len(decision.legal_actions) > 1:
            self.decisions.append(decision)
        return self.bot.act(decision)


@pytest.fixture(scope="module")
def positions():
    recorder = Recorder()
    for seed in range(40):
        play_match(CONFIG, lambda seat, role: recorder, seed=500 + seed)
    return recorder.decisions


def _of(positions, phase, identity=None, members=False):
    return [d for d in positions if d.view.phase == phase and (identity is None or d.view.identity == identity)
            and (not members or d.view.seat != d.view.leader)]


def _has_true(view) -> bool:
    return any(card // NUM_VALUES == view.true_book for _, card in view.table)


def _leader_takes_true(view) -> bool:
    slot = leader_pick(view, leader_true_book(view, view.seat).tolist())
    return slot >= 0 and view.table[slot][1] // NUM_VALUES == view.true_book


def _agree_rate(agent, decisions) -> float:
    return float(np.mean([agent.act(d) == A.AGREE for d in decisions]))


def test_every_style_and_holdout_bot_is_a_registered_game_bot():
    for name in (*styles.NAMES, *holdout.NAMES):
        assert name in AGENT_NAMES and name in SPEC.bots
        assert make_agent(name, CONFIG, seed=1).name == name
    with pytest.raises(ValueError, match="unknown agent 'arkham_style_wild'.*arkham_style_mix"):
        make_agent("arkham_style_wild", CONFIG)


def test_the_default_style_plays_exactly_as_the_heuristic(positions):
    agent = styles.StyleAgent(styles.Style(), seed=0, name="plain")
    plain = HeuristicAgent(0)
    assert [agent.act(d) for d in positions] == [plain.act(d) for d in positions]


def test_an_honest_looking_black_man_agrees_to_fakes_where_the_heuristic_never_does(positions):
    fakes = [d for d in _of(positions, VOTE, BLACK_MAN) if not _has_true(d.view)]
    assert len(fakes) > 30
    assert _agree_rate(HeuristicAgent(0), fakes) == 0.0
    assert 0.45 < _agree_rate(make_agent("arkham_style_honest", CONFIG, seed=0), fakes) < 0.75


def test_a_bluffing_black_man_pushes_true_cards_the_leader_would_not_decode(positions):
    hidden = [d for d in _of(positions, VOTE, BLACK_MAN) if _has_true(d.view) and not _leader_takes_true(d.view)]
    assert len(hidden) > 20
    assert _agree_rate(HeuristicAgent(0), hidden) == 0.0
    assert _agree_rate(make_agent("arkham_style_bluffer", CONFIG, seed=0), hidden) > 0.4
    assert _agree_rate(make_agent("arkham_style_honest", CONFIG, seed=0), hidden) == 0.0


def test_a_cautious_team_passes_and_agrees_less_than_a_bold_one(positions):
    proposals = _of(positions, PROPOSAL, members=True)
    votes = _of(positions, VOTE, INVESTIGATOR)
    cautious, bold = make_agent("arkham_style_cautious", CONFIG), make_agent("arkham_style_bold", CONFIG)

    def pass_rate(agent):
        return np.mean([agent.act(d) == A.PASS for d in proposals])

    assert pass_rate(cautious) > pass_rate(HeuristicAgent(0)) >= pass_rate(bold)
    assert pass_rate(cautious) > pass_rate(bold) + 0.05
    assert _agree_rate(cautious, votes) < _agree_rate(HeuristicAgent(0), votes) < _agree_rate(bold, votes)


def test_a_noisy_player_departs_from_the_heuristic_about_as_often_as_its_epsilon(positions):
    noisy = make_agent("arkham_style_noisy", CONFIG, seed=3)
    plain = HeuristicAgent(0)
    departed = np.mean([noisy.act(d) != plain.act(d) for d in positions])
    assert 0.04 < departed <= 0.25


def test_the_mix_draws_a_style_per_game_from_the_seed_it_is_given():
    agent = make_agent("arkham_style_mix", CONFIG)
    drawn = []
    for seed in range(200):
        agent.reset(0, seed)
        drawn.append(agent.style)
    again = make_agent("arkham_style_mix", CONFIG)
    again.reset(3, 11)
    assert again.style == drawn[11] and len(set(drawn)) == 200
    assert min(s.confidence for s in drawn) < 0.6 and max(s.confidence for s in drawn) > 1.7
    assert max(s.cover for s in drawn) > 0.6 and min(s.cover for s in drawn) < 0.05
    assert 0.3 < np.mean([s.epsilon > 0 for s in drawn]) < 0.7


def test_games_of_style_and_holdout_bots_repeat_given_their_seed():
    for name in (*styles.NAMES, *holdout.NAMES):
        runs = [play_match(CONFIG, lambda seat, role, n=name: make_agent(n, CONFIG, seed=seat), seed=4) for _ in range(2)]
        assert runs[0] == runs[1], name


def test_the_greedy_black_man_agrees_exactly_to_tables_holding_the_true_book(positions):
    greedy = make_agent("holdout_greedy", CONFIG)
    for d in _of(positions, VOTE, BLACK_MAN):
        assert (greedy.act(d) == A.AGREE) == _has_true(d.view)


def test_the_impostor_opposes_only_tables_holding_his_decoy():
    agent = make_agent("holdout_impostor", CONFIG)
    seen = []

    class Watch:
        name = "watch"

        def reset(self, seat, seed=None):
            agent.reset(seat, seed)

        def act(self, decision):
            action = agent.act(decision)
            if decision.view.phase == VOTE and decision.view.identity == BLACK_MAN:
                seen.append((decision.view, action, agent._decoy))
            return action

    play_match(CONFIG, lambda seat, role: Watch() if role == "black_man" else HeuristicAgent(seat), seed=77)
    assert seen
    for view, action, decoy in seen:
        assert decoy != view.true_book and decoy not in view.face_up_books
        holds_decoy = any(card // NUM_VALUES == decoy for _, card in view.table)
        assert (action == A.OPPOSE) == holds_decoy


def test_the_counting_black_man_agrees_more_the_more_true_cards_lie_on_the_table(positions):
    votes = _of(positions, VOTE, BLACK_MAN)
    counter = make_agent("holdout_counter", CONFIG, seed=5)
    by_count: dict[int, list[bool]] = {0: [], 1: [], 2: []}
    for d in votes:
        true_cards = min(2, sum(card // NUM_VALUES == d.view.true_book for _, card in d.view.table))
        by_count[true_cards].append(counter.act(d) == A.AGREE)
    rates = [np.mean(by_count[k]) for k in (0, 1, 2) if len(by_count[k]) >= 10]
    assert len(rates) >= 2 and rates == sorted(rates) and rates[-1] - rates[0] > 0.2


def test_the_held_out_team_decides_by_a_rule_of_its_own(positions):
    team = [d for d in positions if d.view.identity != BLACK_MAN]
    plain = HeuristicAgent(0)
    tally = make_agent("holdout_greedy", CONFIG)
    assert np.mean([tally.act(d) != plain.act(d) for d in team]) > 0.2
