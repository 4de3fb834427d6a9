"""A learned belief: what the other players' hands will still add to each category.

The ``heuristic`` bot assumes that the cards the other players will still show are a uniform draw
from the cards its seat has not seen (:mod:`club_envs.members_only.beliefs`). They are not: a
player bets on what their hand holds, and reveals first the cards that help their own chips. A
player told every opponent's hand wins most games against the heuristic, so the opponents'
behaviour carries the information that decides the game -- if a seat can read it.

A :class:`BeliefModel` reads it. From one observation (which holds every bet with its owner, every
card each seat revealed this heat, hand sizes and chips: only what the seat may know) a small MLP
predicts, per category, the distribution of "normal cards minus NO! cards" among the cards the
other players will still add to the display -- the very quantity the heuristic's one assumption
supplies (``beliefs.offset_distribution``), so a bot can use either. The network refines that
uniform prior rather than replacing it: its logits are added to the prior's log-probabilities,
and outcomes the prior rules out (more cards than remain) stay impossible. A model whose last layer
is zero is exactly the uniform prior.

Files are ``.npz`` archives read with ``allow_pickle=False`` (loading never runs code) holding the
layers and a JSON ``meta`` string; reading needs numpy only. Training lives in
:mod:`club_envs.training.belief`.
"""

from __future__ import annotations


import numpy as np

import club_envs.agents.belief_file as belief_file
from club_envs.agents.belief_file import BeliefFileError  # noqa: F401 -- where this game's loader errors come from
from club_envs.members_only import beliefs
from club_envs.members_only.observer import SIZE as OBS_SIZE
from club_envs.members_only.rules import NUM_CATEGORIES

GAME_NAME = "members_only"
NUM_OFFSETS = 14  # "drawn normal - drawn NO!" from -2 to +11 (beliefs.offset_distribution)
OUTPUT_SIZE = NUM_CATEGORIES * NUM_OFFSETS
INPUT_SIZE = OBS_SIZE + OUTPUT_SIZE  # the observation and the prior's log-probabilities
LOG_FLOOR = -20.0  # log-probabilities below this are clipped (the prior's zeros stay masked)
PRIOR_SCALE = 10.0  # the prior's log-probabilities enter the network divided by this


def prior_offsets(observations: np.ndarray) -> np.ndarray:
    """The uniform prior ``(B, 5, 14)`` of a batch of observations ``(B, 510)``: the heuristic's
    own distribution of what the other players will still show."""
    unseen, to_come, _ = beliefs._observation_position(np.asarray(observations))
    return beliefs.offset_distribution(unseen, to_come)


def network_inputs(observations: np.ndarray, prior: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """What the network reads ``(B, 580)`` and the clipped log-prior ``(B, 5, 14)`` it refines."""
    obs = np.asarray(observations, dtype=np.float32)
    log_prior = clipped_log(prior)
    return np.concatenate([obs, log_prior.reshape(len(obs), -1) / PRIOR_SCALE], axis=1), log_prior


def clipped_log(prior: np.ndarray) -> np.ndarray:
    """The prior's log-probabilities as the network reads them, ``float32``, never below :data:`LOG_FLOOR`."""
    return np.maximum(np.log(np.maximum(prior, 1e-30)), LOG_FLOOR).astype(np.float32)


def combine(log_prior: np.ndarray, logits: np.ndarray, prior: np.ndarray) -> np.ndarray:
    """The predicted distribution ``(B, 5, 14)``: prior log-probabilities plus the network's logits,
    normalised over the outcomes the prior allows."""
    z = log_prior + logits.reshape(log_prior.shape)
    z = np.where(prior > 0, z, -np.inf)
    z = z - z.max(axis=-1, keepdims=True)
    p = np.exp(z)
    return p / p.sum(axis=-1, keepdims=True)


class BeliefModel(belief_file.BeliefMLP):
    """An MLP (ReLU hidden layers) from :data:`INPUT_SIZE` inputs to :data:`OUTPUT_SIZE` logits."""

    GAME, INPUT_SIZE, OUTPUT_SIZE = GAME_NAME, INPUT_SIZE, OUTPUT_SIZE
    OUTPUTS, DEFAULT_HIDDEN = "5 categories x 14 outcomes", (256, 256)

    def predict(self, observations: np.ndarray) -> np.ndarray:
        """The distribution ``(B, 5, 14)`` of "normal minus NO!" the other players will still add,
        per category, for a batch of observations ``(B, 510)`` (or ``(5, 14)`` for one)."""
        obs = np.asarray(observations, dtype=np.float32)
        single = obs.ndim == 1
        if single:
            obs = obs[None]
        if obs.ndim != 2 or obs.shape[1] != OBS_SIZE:
            raise ValueError(f"expected Members Only observations of size {OBS_SIZE}, got shape {obs.shape}")
        prior = prior_offsets(obs)
        inputs, log_prior = network_inputs(obs, prior)
        out = combine(log_prior, self.logits(inputs), prior)
        return out[0] if single else out
