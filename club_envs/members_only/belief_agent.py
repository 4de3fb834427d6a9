"""The heuristic's decisions on a learned belief: ``BeliefAgent``.

The ``heuristic`` bot is two things: one assumption (the other players' cards still to come are a
uniform draw from what its seat has not seen) and a decision rule on top of it (the expected gain
of every bet; which card to hold back). Measured, the rule is close to the best of its family --
tuning its costs moved it little -- while the assumption is where it loses: told the other
players' hands, the same rule wins most games. This agent keeps the rule and swaps the assumption
for a :class:`~club_envs.members_only.belief_model.BeliefModel` trained on games, so what is
learned is exactly the part that was missing: reading other players' bets and reveals.

A belief agent is deterministic (as the exact heuristic is) and reads only the observation and its
own view. Agents sharing one model are asked together in training environments (:meth:`act_batch`):
one forward pass and one batched evaluation (:mod:`club_envs.members_only.heuristic_batch`). On the
batched engine the same decisions are made from the arrays, the rule compiled
(:mod:`club_envs.members_only.vector_belief`).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from club_envs.agents.base import Decision, Thought
from club_envs.members_only import actions as A
from club_envs.members_only import heuristic_batch
from club_envs.members_only.belief_model import BeliefModel


class BeliefAgent:
    """``heuristic``'s decision rule over a learned :class:`BeliefModel` of the other players' cards."""

    stateless = True  # its choice is a function of the seat's view alone: one instance serves every seat

    def batched(self):
        """This agent as a batched opponent of the vector environments: one forward pass for all
        rows, the decision rule compiled (:class:`~club_envs.members_only.vector_belief.VectorBeliefPolicy`)."""
        from club_envs.members_only.vector_belief import VectorBeliefPolicy  # numba only where batches are played

        return VectorBeliefPolicy(self)

    def __init__(self, model: BeliefModel, name: str = "belief", chip_cost: tuple[float, float] = (0.5, 1.0),
                 rival_weight: float = 0.3) -> None:
        self.model = model
        self.name = name
        self.chip_cost = chip_cost
        self.rival_weight = rival_weight

    @classmethod
    def from_file(cls, path: str | Path, name: str | None = None) -> BeliefAgent:
        return cls(BeliefModel.load(path), name=name or Path(path).stem)

    def reset(self, seat: int, seed: int | None = None) -> None:
        """Nothing to reset: the agent draws no random numbers."""

    def act(self, decision: Decision) -> int:
        if len(decision.legal_actions) == 1:
            return int(decision.legal_actions[0])
        return self.act_batch([self], [decision])[0]

    def explain(self, decision: Decision) -> list[Thought]:
        """The heuristic's values on the learned belief, its choice first: every bet's expected gain
        (no bet: 0), or each card's worth to the chips if it were the one held back."""
        legal = [int(a) for a in decision.legal_actions]
        evaluation = heuristic_batch.evaluate([decision.view], decision.action_mask[None], self.chip_cost,
                                              self.rival_weight, offsets=self.model.predict(decision.observation[None]))
        chosen = int(evaluation.choice[0])
        thoughts = []
        for a in legal:
            if a < evaluation.bets.shape[1]:
                thoughts.append(Thought(a, float(evaluation.bets[0, a]), "expected gain"))
            elif A.is_reveal(a) or A.is_discard(a):
                card = a - (A.REVEAL_BASE if A.is_reveal(a) else A.DISCARD_BASE)
                value = float(evaluation.cards[0, card])
                thoughts.append(Thought(a, value if np.isfinite(value) else 0.0, "worth if held back"))
            else:
                thoughts.append(Thought(a, 0.0, "expected gain"))
        return sorted(thoughts, key=lambda t: (t.action != chosen, -t.score if t.kind == "expected gain" else 0.0))

    @property
    def batch_key(self) -> tuple:
        """Agents sharing one model and the same costs decide alike and may be asked together."""
        return ("members_only_belief", id(self.model), self.chip_cost, self.rival_weight)

    @staticmethod
    def act_batch(agents: Sequence[BeliefAgent], decisions: Sequence[Decision]) -> list[int]:
        """The choices of agents with one :attr:`batch_key` (``agents[i]`` decides ``decisions[i]``)."""
        first = agents[0]
        offsets = first.model.predict(np.stack([d.observation for d in decisions]))
        masks = np.stack([d.action_mask for d in decisions])
        evaluation = heuristic_batch.evaluate([d.view for d in decisions], masks, first.chip_cost,
                                              first.rival_weight, offsets=offsets)
        return [int(a) for a in evaluation.choice]
