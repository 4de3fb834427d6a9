"""The heuristic team's decisions on a learned belief: ``BeliefAgent``.

Every decision of the ``heuristic`` leader, members and Investigator is a rule on one number per
book, ``P(true)``: reveal the hand card with the best expected points (a member passes below -1),
decode the eligible card with the best expected points after a 1-1 vote, agree as the
Investigator only when the three cards are expected to score above 2.5. Those rules are kept; the
hand-set vote model behind ``P(true)`` is replaced by a
:class:`~club_envs.arkham_decoders.belief_model.BeliefModel` trained on games, which is where the
team lost: it could not read the Black Man's votes.

The Black Man plays as the heuristic does (he knows the true book; his decisions depend on the
*table's* belief, which he models with the hand-set vote model). The agent is deterministic and
reads only the seat's view and observation. Agents sharing one model are asked together by
environments that batch (:meth:`act_batch`): one forward pass for many seats.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from club_envs.agents.base import Decision, Thought
from club_envs.arkham_decoders import actions as A
from club_envs.arkham_decoders.belief_model import BeliefModel
from club_envs.arkham_decoders.bots import (
    INV_AGREE_ABOVE_EXPECTED,
    PASS_BELOW_EXPECTED_POINTS,
    HeuristicAgent,
    expected_points,
    leader_pick,
    team_thoughts,
)
from club_envs.arkham_decoders.engine import CHOOSE, PROPOSAL, VOTE, View
from club_envs.arkham_decoders.insight import true_book_words
from club_envs.arkham_decoders.rules import BLACK_MAN


class BeliefAgent:
    """``heuristic``'s team rules on a learned :class:`BeliefModel`; the Black Man is the heuristic's."""

    def __init__(self, model: BeliefModel, name: str = "belief") -> None:
        self.model = model
        self.name = name
        self._black_man = HeuristicAgent()

    @classmethod
    def from_file(cls, path: str | Path, name: str | None = None) -> BeliefAgent:
        return cls(BeliefModel.load(path), name=name or Path(path).stem)

    def reset(self, seat: int, seed: int | None = None) -> None:
        """Nothing to reset: the agent draws no random numbers."""

    def act(self, decision: Decision) -> int:
        return self.act_batch([self], [decision])[0]

    def explain(self, decision: Decision) -> list[Thought]:
        """The heuristic team's numbers on the learned belief, its choice first (the Black Man's
        vote: the heuristic's)."""
        if decision.view.identity == BLACK_MAN:
            return self._black_man.explain(decision)
        chosen = self.act(decision)
        return team_thoughts(decision.view, decision.legal_actions, self._p_true(decision), chosen)

    def beliefs(self, decision: Decision) -> list[tuple[str, float]]:
        """The learned probability of each book being the true grimoire."""
        if decision.view.identity == BLACK_MAN:
            return self._black_man.beliefs(decision)
        return [(true_book_words(b), float(p)) for b, p in enumerate(self._p_true(decision))]

    def _p_true(self, decision: Decision) -> np.ndarray:
        return self.model.true_book_probabilities(decision.observation[None], [decision.view])[0]

    @property
    def batch_key(self) -> tuple:
        """Agents sharing one model decide alike and may be asked together."""
        return ("arkham_belief", id(self.model))

    @staticmethod
    def act_batch(agents: Sequence[BeliefAgent], decisions: Sequence[Decision]) -> list[int]:
        """The choices of agents with one :attr:`batch_key` (``agents[i]`` decides ``decisions[i]``)."""
        first = agents[0]
        out: list[int | None] = [None] * len(decisions)
        asked = []
        for i, d in enumerate(decisions):
            if len(d.legal_actions) == 1:
                out[i] = int(d.legal_actions[0])
            elif d.view.identity == BLACK_MAN:
                out[i] = int(first._black_man.act(d))
            else:
                asked.append(i)
        if asked:
            views = [decisions[i].view for i in asked]
            p_true = first.model.true_book_probabilities(np.stack([decisions[i].observation for i in asked]), views)
            for i, p in zip(asked, p_true):
                out[i] = team_choice(decisions[i].view, decisions[i].legal_actions, p)
        return [int(a) for a in out]


def team_choice(view: View, legal: Sequence[int], p_true: np.ndarray) -> int:
    """The heuristic leader's, member's or Investigator's choice given ``P(true)`` per book."""
    if view.phase == PROPOSAL:
        best = max(view.hand, key=lambda c: (expected_points(c, p_true), -c))
        if view.seat != view.leader and expected_points(best, p_true) < PASS_BELOW_EXPECTED_POINTS:
            return A.PASS
        return A.REVEAL + best
    if view.phase == VOTE:
        expected = sum(expected_points(card, p_true) for _, card in view.table)
        return A.AGREE if expected > INV_AGREE_ABOVE_EXPECTED else A.OPPOSE
    if view.phase == CHOOSE:
        slot = leader_pick(view, p_true)
        return A.DECODE + slot if A.DECODE + slot in legal else int(legal[0])
    return int(legal[0])
