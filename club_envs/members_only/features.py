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

Both are written for a batch of decisions (``*_batch``: observations ``(B, 510)``, their views and
masks), which is how the training environments call them -- the count distributions of every
position and the bet gains of every betting decision are then a few array operations for the
whole batch. A policy sees the same numbers at a table (one decision at a time) and in training
(tested).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from club_envs.members_only import actions as A
from club_envs.members_only import beliefs
from club_envs.members_only import heuristic_batch, heuristic_round
from club_envs.members_only.bots import HeuristicAgent
from club_envs.members_only.engine import View
from club_envs.members_only.observer import SIZE
from club_envs.members_only.rules import NUM_CARD_TYPES

_SCALE = 5.0  # the largest printed reward: gains and worths are shown in units of it
BELIEF_SIZE = beliefs.FEATURE_SIZE
HEURISTIC_SIZE = BELIEF_SIZE + A.NUM_BETS + NUM_CARD_TYPES + A.NUM_ACTIONS
_BOT = HeuristicAgent()  # exact estimates: deterministic, so one instance serves every seat
_CARDS = slice(A.NUM_BETS, A.NUM_BETS + NUM_CARD_TYPES)
_CHOICE = slice(A.NUM_BETS + NUM_CARD_TYPES, None)


def belief_inputs(observation: np.ndarray, view: View | None = None, mask: np.ndarray | None = None) -> np.ndarray:
    return beliefs.with_beliefs(observation)


def belief_inputs_batch(observations: np.ndarray, views: Sequence[View | None] = (), masks=None) -> np.ndarray:
    """``belief_inputs`` of every row of ``observations`` ``(B, 510)`` at once."""
    obs = np.asarray(observations, dtype=np.float32)
    return np.concatenate([obs, beliefs.observation_beliefs(obs)], axis=-1)


def heuristic_inputs(observation: np.ndarray, view: View, mask: np.ndarray) -> np.ndarray:
    """The observation, its beliefs, and the heuristic bot's evaluation of this position."""
    return heuristic_inputs_batch(np.asarray(observation)[None], [view], np.asarray(mask)[None])[0]


def heuristic_inputs_batch(observations: np.ndarray, views: Sequence[View], masks: np.ndarray) -> np.ndarray:
    """``heuristic_inputs`` of a batch, the bot's evaluation done for all rows together
    (:mod:`club_envs.members_only.heuristic_batch`, or the rows a vector environment prepared for
    the whole round, :mod:`club_envs.members_only.heuristic_round`)."""
    obs = np.asarray(observations, dtype=np.float32)
    evaluation = heuristic_round.evaluate(views, masks, _BOT.chip_cost, _BOT.rival_weight)
    extra = _evaluation_inputs(evaluation)
    extra[~np.asarray(masks, dtype=bool).any(axis=1), _CHOICE] = 0.0  # no decision: no choice
    return np.concatenate([obs, beliefs.count_features(evaluation.counts), extra], axis=1)


def _evaluation_inputs(evaluation) -> np.ndarray:
    """The bet gains (80), the card worths (10) and the choice one-hot (101) of an evaluation."""
    extra = np.zeros((len(evaluation.choice), HEURISTIC_SIZE - BELIEF_SIZE), dtype=np.float32)
    extra[:, :A.NUM_BETS] = np.clip(evaluation.bets / _SCALE, -1.0, 1.0)
    asked = np.flatnonzero(~np.isnan(evaluation.cards).all(axis=1))  # reveals and discards with a choice
    if len(asked):  # each card in hand relative to the best one; -1 for the others
        worth = evaluation.cards[asked]
        relative = (worth - np.nanmax(worth, axis=1, keepdims=True)) / _SCALE
        extra[asked, _CARDS] = np.where(np.isnan(worth), -1.0, np.maximum(-1.0, relative))
    extra[np.arange(len(extra)), _CHOICE.start + evaluation.choice] = 1.0
    return extra


def prepare_heuristic_inputs(views: Sequence[View], masks: np.ndarray) -> None:
    """Evaluate a round's positions once for every agent that reads these inputs or is the exact
    bot (:mod:`club_envs.members_only.heuristic_round`)."""
    heuristic_round.prepare(views, masks, _BOT.chip_cost, _BOT.rival_weight)


def belief_inputs_state(observations: np.ndarray, masks: np.ndarray, state) -> np.ndarray:
    """``belief_inputs`` on the batched engine: the observation is all they read."""
    return belief_inputs_batch(observations)


# ``members_only_belief_inputs``: the exact beliefs, then what a learned belief model reads in the same
# position -- its count features and the heuristic's bet gains and card worths on that belief -- but
# not the choice any rule would make from them: the network decides. The model is a frozen copy of
# the belief model shipped with the `members_only_belief` agent, kept beside this module so that a
# policy trained on these inputs always reads the same numbers.
BELIEF_MODEL_FILE = Path(__file__).with_name("belief_inputs.npz")
LEARNED_SIZE = 2 * BELIEF_SIZE + A.NUM_BETS + NUM_CARD_TYPES


@functools.lru_cache(maxsize=1)
def belief_model():
    """The frozen belief model the ``members_only_belief_inputs`` read (loaded once)."""
    from club_envs.members_only.belief_model import BeliefModel

    return BeliefModel.load(BELIEF_MODEL_FILE)


def learned_inputs(observation: np.ndarray, view: View, mask: np.ndarray) -> np.ndarray:
    return learned_inputs_batch(np.asarray(observation)[None], [view], np.asarray(mask)[None])[0]


def learned_inputs_batch(observations: np.ndarray, views: Sequence[View], masks: np.ndarray) -> np.ndarray:
    """``members_only_belief_inputs`` of a batch: the observation, its exact beliefs, then the learned
    belief's count features, bet gains and card worths (as ``members_only_heuristic`` lays them out)."""
    obs = np.asarray(observations, dtype=np.float32)
    offsets = belief_model().predict(obs)
    evaluation = heuristic_batch.evaluate(views, masks, _BOT.chip_cost, _BOT.rival_weight, offsets=offsets)
    extra = _evaluation_inputs(evaluation)[:, : _CHOICE.start]
    return np.concatenate([obs, beliefs.observation_beliefs(obs), beliefs.count_features(evaluation.counts), extra],
                          axis=1)


def learned_inputs_state(observations: np.ndarray, masks: np.ndarray, state) -> np.ndarray:
    """``members_only_belief_inputs`` of rows of the batched engine: the model's forward pass for all
    rows, the evaluation on its belief compiled (:mod:`club_envs.members_only.vector_features`)."""
    from club_envs.members_only import vector_features  # numba's import only where the batched engine runs

    obs = np.asarray(observations, dtype=np.float32)
    offsets = belief_model().predict(obs)
    learned = vector_features.learned_belief_extras(state.games, state.rows, state.seats, offsets)
    return np.concatenate([obs, beliefs.observation_beliefs(obs), learned], axis=1)


HEURISTIC_PREPARE_KEY = heuristic_round.key(_BOT.chip_cost, _BOT.rival_weight)

# The two sets as :func:`club_envs.agents.features.get` serves them (this game spec's ``features:`` hooks).
BELIEF_INPUTS = {"obs_size": SIZE, "extra": BELIEF_SIZE, "transform": belief_inputs, "batch": belief_inputs_batch,
                 "from_state": belief_inputs_state}
HEURISTIC_INPUTS = {"obs_size": SIZE, "extra": HEURISTIC_SIZE, "transform": heuristic_inputs,
                    "batch": heuristic_inputs_batch, "prepare_key": HEURISTIC_PREPARE_KEY,
                    "prepare": prepare_heuristic_inputs,
                    # on the batched engine: from its arrays, compiled (the module loads on first use)
                    "from_state": "club_envs.members_only.vector_features:heuristic_inputs_state"}
LEARNED_INPUTS = {"obs_size": SIZE, "extra": LEARNED_SIZE, "transform": learned_inputs, "batch": learned_inputs_batch,
                  "from_state": learned_inputs_state}
