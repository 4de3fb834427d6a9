"""The belief agent's decisions on the batched engine's arrays: one forward pass, then compiled loops.

:class:`~club_envs.members_only.belief_agent.BeliefAgent` is the ``heuristic`` bot's decision rule
on a learned belief: its model predicts, from the seat's observation, the distribution of what the
other players will still add to each category (``offsets``, 5 x 14), and the bot's arithmetic
chooses on it. :class:`VectorBeliefPolicy` makes the same decisions for the players to move in
many games of :mod:`club_envs.members_only.vector_engine`: the model is asked once for all of them
(one forward pass on their observations), and each decision is then the compiled heuristic's rule
on those offsets (:func:`~club_envs.members_only.vector_heuristic.choice_on_offsets`, reading the
tables directly) -- no view is built.

**Ties.** The model computes in ``float32``, and a matrix product's rounding depends on how many
rows it is given (the BLAS library blocks them differently), so a row's offsets differ in the last
bits with the batch they are predicted in -- the reference agent's own choice between two
candidates within about 1e-6 of each other depends on which other decisions it is asked with
(measured: up to 2e-6 apart in the gains, four choices in 14,000 positions). A choice is therefore
made here only when it is clear by :data:`BELIEF_TIE_MARGIN`, far above that noise; closer
candidates (a few in a thousand decisions, mostly exact ties) are handed back to the reference
agent on the seat's view (:func:`~club_envs.members_only.vector_views.view_of`), asked alone, and
counted (:attr:`VectorBeliefPolicy.unclear`). Candidates equal by construction -- cards whose
category carries no chip that counts for the seat -- are not near-ties: the first wins, as in the
reference. ``tests/members_only/test_vector_belief.py`` checks every decision of many games
against the reference agent's.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from club_envs.agents.base import Decision
from club_envs.agents.batched import GameRows
from club_envs.members_only.compiled import compiled
from club_envs.members_only.vector_engine import Rules, Tables
from club_envs.members_only.vector_heuristic import (
    SEVERAL,
    UNCLEAR,
    Scratch,
    choice_on_offsets,
    known_position,
    only_action,
)
from club_envs.members_only.vector_views import view_of

# Far above the float32 forward pass's batch-dependent rounding (gains up to 2e-6 apart, measured),
# far below the gaps between real choices: about 3 decisions in 10,000 fall between 1e-6 and 1e-4.
BELIEF_TIE_MARGIN = 1e-4


@compiled
def belief_action(
    t: Tables, r: Rules, g: int, chip_cost: np.ndarray, rival_weight: float, offsets: np.ndarray,
    mask: np.ndarray, unseen: np.ndarray, shown: np.ndarray, counts: np.ndarray, p: np.ndarray,
    values: np.ndarray, worth: np.ndarray,
) -> int:
    """``BeliefAgent.act`` for the player to move in game ``g`` (still playing) whose model
    predicted ``offsets`` (5, 14), or :data:`UNCLEAR` for a near-tie (module docstring)."""
    single = only_action(t, g, mask)
    if single != SEVERAL:
        return single
    seat = t.current[g]
    known_position(t, r, g, seat, unseen, shown)
    return choice_on_offsets(t, r, g, seat, chip_cost, rival_weight, BELIEF_TIE_MARGIN, mask, shown, offsets,
                             counts, p, values, worth)


@compiled
def belief_actions(
    t: Tables, r: Rules, rows: np.ndarray, offsets: np.ndarray, chip_cost: np.ndarray, rival_weight: float,
    mask: np.ndarray, unseen: np.ndarray, shown: np.ndarray, counts: np.ndarray, p: np.ndarray,
    values: np.ndarray, worth: np.ndarray, out: np.ndarray,
) -> None:
    """``out[k]``: :func:`belief_action` in game ``rows[k]`` on ``offsets[k]``."""
    for k in range(rows.shape[0]):
        out[k] = belief_action(t, r, rows[k], chip_cost, rival_weight, offsets[k], mask, unseen, shown, counts, p,
                               values, worth)


class VectorBeliefPolicy:
    """A :class:`BeliefAgent` as a batched policy of the batched engine
    (:class:`~club_envs.agents.batched.BatchedPolicy` with ``reads_state``): row ``k`` is seat
    ``state.seats[k]`` to move in game ``state.rows[k]``; the answer is the agent's choice there.

    ``decisions`` counts the rows it answered, ``unclear`` those whose near-tie the reference agent
    settled."""

    reads_state = True

    def __init__(self, agent: Any) -> None:  # a belief_agent.BeliefAgent
        self.agent = agent
        self.name = agent.name
        self.chip_cost = np.array(agent.chip_cost, dtype=np.float64)
        self.scratch = Scratch()
        self.decisions = 0
        self.unclear = 0

    def __call__(self, observations: np.ndarray, action_masks: np.ndarray, state: GameRows) -> np.ndarray:
        games, rows = state.games, np.asarray(state.rows, dtype=np.int64)
        masks = np.asarray(action_masks, dtype=bool)
        out = np.zeros(len(rows), np.int64)
        choosing = masks.sum(axis=1) > 1  # the model is asked only where there is a choice
        out[~choosing] = masks[~choosing].argmax(axis=1)
        asked = np.flatnonzero(choosing)
        if len(asked):
            offsets = self.agent.model.predict(np.asarray(observations)[asked]).astype(np.float64)
            chosen = np.zeros(len(asked), np.int64)
            s = self.scratch
            belief_actions(games.tables, games.rules, rows[asked], offsets, self.chip_cost,
                           float(self.agent.rival_weight), s.mask, s.unseen, s.shown, s.counts, s.p, s.values,
                           s.worth, chosen)
            for k in np.flatnonzero(chosen == UNCLEAR):
                i = asked[k]
                chosen[k] = self.reference_choice(games, int(rows[i]), int(state.seats[i]), observations[i], masks[i])
            out[asked] = chosen
        self.decisions += len(rows)
        return out

    def reference_choice(self, games, g: int, seat: int, observation: np.ndarray, mask: np.ndarray) -> int:
        """The reference agent's choice for ``seat`` to move in game ``g``, asked alone on its view."""
        self.unclear += 1
        legal = np.flatnonzero(mask).tolist()
        return int(self.agent.act(Decision(seat, view_of(games, g, seat), legal, lambda: observation, lambda: mask)))


__all__ = ["BELIEF_TIE_MARGIN", "VectorBeliefPolicy", "belief_action", "belief_actions"]
