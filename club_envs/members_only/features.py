"""Extra inputs for Members Only policies, built from one seat's view.

``members_only_beliefs`` (45 numbers, from the observation alone): for every betting space the
probability that a chip there is correct, and every category's expected final count
(:mod:`club_envs.members_only.beliefs`).

``members_only_heuristic`` (236 numbers): the same beliefs, then what the ``heuristic`` bot makes of
the position -- the expected gain of every bet action (80), the worth of holding back each card
type (10) and the action it would choose (one-hot, 101). A policy that reads them starts where the
heuristic stands and has to learn only where to depart from it; reinforcement learning then
decides when the bot's one-step estimate is wrong (the end of the game, rivals' chips, signals in
other players' reveals). Every number is computed from the seat's :class:`View`, which holds only
what the seat may know.
"""

from __future__ import annotations

import numpy as np

from club_envs.members_only import actions as A
from club_envs.members_only import beliefs
from club_envs.members_only.bots import HeuristicAgent, known_position
from club_envs.members_only.engine import BET, DISCARD, REVEAL, View
from club_envs.members_only.rules import NUM_CARD_TYPES

_SCALE = 5.0  # the largest printed reward: gains and worths are shown in units of it
BELIEF_SIZE = beliefs.FEATURE_SIZE
HEURISTIC_SIZE = BELIEF_SIZE + A.NUM_BETS + NUM_CARD_TYPES + A.NUM_ACTIONS
_BOT = HeuristicAgent()  # exact estimates: deterministic, so one instance serves every seat


def belief_inputs(observation: np.ndarray, view: View | None = None, mask: np.ndarray | None = None) -> np.ndarray:
    return beliefs.with_beliefs(observation)


def heuristic_inputs(observation: np.ndarray, view: View, mask: np.ndarray) -> np.ndarray:
    """The observation, its beliefs, and the heuristic bot's evaluation of this position."""
    extra = np.zeros(HEURISTIC_SIZE - BELIEF_SIZE, dtype=np.float32)
    bets, cards, choice = extra[:A.NUM_BETS], extra[A.NUM_BETS:A.NUM_BETS + NUM_CARD_TYPES], extra[-A.NUM_ACTIONS:]
    legal = np.flatnonzero(mask)
    if len(legal) == 1:
        choice[legal[0]] = 1.0
    elif view.phase == BET:
        values = _BOT.bet_values(view)
        bets[:] = np.clip(values / _SCALE, -1.0, 1.0)
        choice[_BOT._bet(view, list(legal))] = 1.0
    elif view.phase in (REVEAL, DISCARD) and len(legal):
        worth = _BOT.card_values(view)
        top = max(worth.values())
        cards[:] = -1.0
        for card, value in worth.items():
            cards[card] = max(-1.0, (value - top) / _SCALE)
        if view.phase == REVEAL:
            choice[A.REVEAL_BASE + min(worth, key=worth.get)] = 1.0
        else:
            choice[A.DISCARD_BASE + max(worth, key=worth.get)] = 1.0
    return np.concatenate([observation, beliefs.position_features(*known_position(view)), extra])
