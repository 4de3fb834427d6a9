"""Agents' ``explain``: the move an agent would play is its first thought, every thought is a legal
action, and probabilities add up -- so what the viewer shows is what the agent does."""

from __future__ import annotations

import numpy as np
import pytest

from club_envs.agents.base import Decision, RandomAgent, explain
from club_envs.agents.registry import load
from club_envs.games import get_spec, load_game
from tests.viewer.records_made import moves_of, record, ARKHAM, MEMBERS_ONLY

DETERMINISTIC = {
    "members_only": ["heuristic", "members_only:greedy", "members_only_belief"],
    "arkham_decoders_club": ["heuristic", "arkham_decoders:greedy", "arkham_team_belief", "arkham_selfplay"],
}


def _decisions(which, limit: int = 25):
    rec = record(which)
    spec = get_spec(rec["game"])
    observer = spec.hook("observer")
    size = spec.hook("actions").NUM_ACTIONS
    found = []
    for state, seat, action in spec.hook("replay_steps")(rec):
        if seat is None or action is None or len(state.legal_actions()) < 2:
            continue
        view, legal = state.player_view(seat), [int(a) for a in state.legal_actions()]
        obs = observer(state.config).observe(view)
        mask = np.zeros(size, dtype=np.int8)
        mask[legal] = 1
        found.append((state.config, Decision(seat, view, legal, lambda o=obs: o, lambda m=mask: m)))
        if len(found) == limit:
            break
    return rec["game"], found


@pytest.mark.parametrize("which", [MEMBERS_ONLY, ARKHAM])
def test_the_first_thought_is_the_move_the_agent_plays(which):
    game_name, decisions = _decisions(which)
    game = load_game(game_name)
    for name in DETERMINISTIC[game_name]:
        for config, decision in decisions:
            agent = load(name, game, config, seed=0)
            agent.reset(decision.seat, 0)
            if name.endswith("_team_belief") and decision.view.identity == "black_man":
                continue  # the team's agent plays no Black Man
            thoughts = explain(agent, decision)
            assert thoughts and all(t.action in decision.legal_actions for t in thoughts), name
            assert thoughts[0].action == agent.act(decision), (name, thoughts[:3])
            if thoughts[0].kind == "probability":
                assert sum(t.score for t in thoughts) == pytest.approx(1.0)


def test_an_agent_without_explain_shows_its_choice_and_random_is_uniform():
    _, decisions = _decisions(MEMBERS_ONLY, limit=3)
    for _, decision in decisions:
        thoughts = RandomAgent(seed=1).explain(decision)
        assert {t.action for t in thoughts} == set(decision.legal_actions)
        assert all(t.score == pytest.approx(1 / len(decision.legal_actions)) for t in thoughts)

        class Plain:
            name = "plain"

            def reset(self, seat, seed=None):
                pass

            def act(self, d):
                return d.legal_actions[-1]

        assert [(t.action, t.kind) for t in explain(Plain(), decision)] == [(decision.legal_actions[-1], "chosen")]


def test_beliefs_are_probabilities_or_counts_named_in_words():
    _, decisions = _decisions(ARKHAM, limit=10)
    agent = load("heuristic", load_game("arkham_decoders_club"), decisions[0][0], seed=0)
    for _, decision in decisions:
        beliefs = agent.beliefs(decision)
        assert len(beliefs) == 4 and sum(v for _, v in beliefs) == pytest.approx(1.0)
        assert all(words.endswith("is the true grimoire") for words, _ in beliefs)
    _, decisions = _decisions(MEMBERS_ONLY, limit=5)
    agent = load("heuristic", load_game("members_only"), decisions[0][0], seed=0)
    for _, decision in decisions:
        view = decision.view
        held = sum(view.hand_sizes[s] for s in range(view.num_players) if s != view.seat)
        assert sum(v for _, v in agent.beliefs(decision)) == pytest.approx(held)
