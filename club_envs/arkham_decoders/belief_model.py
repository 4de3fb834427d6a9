"""A learned belief for the Arkham team: which advisor is the Black Man and which book is true.

The ``heuristic`` team reads the public votes with one hand-set vote model
(:func:`club_envs.arkham_decoders.bots.belief`: a Black Man agrees to 80% of proposals holding a card
of the true book and to 30% of the others, the Investigator the reverse). Measured on heuristic
games that model is far from what advisors really do -- the heuristic Black Man agrees only when
the card the leader would decode is of the true book -- and the team's decisions (which card to
reveal, which to decode, when the Investigator agrees) are only as good as its ``P(true book)``.

A :class:`BeliefModel` learns the posterior from finished games. From one seat's observation, the
hand-set belief and a short summary of how each advisor voted relative to the card the table
would have decoded (:func:`vote_pick_counts`), a small MLP predicts the posterior over the 8
hypotheses (Black Man = egocentric advisor slot 0 or 1) x (true book 0..3). It refines the
hand-set belief rather than replacing it: its logits are added to that belief's log-probabilities,
so what the seat knows stays certain (face-up grimoires are fakes, an advisor or a seat that peeked
knows the Black Man, the Investigator's own grimoire is a fake), and a model whose last layer is
zero *is* the hand-set belief.

Every input is a function of the seat's :class:`~club_envs.arkham_decoders.engine.View`. Files are
``.npz`` archives read with ``allow_pickle=False`` holding the layers and a JSON ``meta`` string
whose ``game`` is ``arkham_decoders_club`` (a Members Only belief file says ``members_only``; the
agent registry dispatches on it). Training: :mod:`club_envs.training.arkham_belief`.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

import numpy as np

import club_envs.agents.belief_file as belief_file
from club_envs.agents.belief_file import BeliefFileError  # noqa: F401 -- where this game's loader errors come from
from club_envs.arkham_decoders.bots import _belief, belief, expected_points
from club_envs.arkham_decoders.engine import View
from club_envs.arkham_decoders.observer import Observer
from club_envs.arkham_decoders.rules import GAME_NAME, INVESTIGATOR, NUM_BOOKS, NUM_VALUES

OBS_SIZE = Observer().size
OUTPUT_SIZE = 2 * NUM_BOOKS  # (Black Man = egocentric advisor slot) x (true book)
PICK_SIZE = 2 * NUM_BOOKS * 2  # advisor x book x (agree, oppose)
INPUT_SIZE = OBS_SIZE + OUTPUT_SIZE + PICK_SIZE
LOG_FLOOR = -20.0  # log-probabilities below this are clipped (the prior's zeros stay masked)
_PRIOR_SCALE = 10.0  # the prior's log-probabilities enter the network divided by this
_COUNT_SCALE = 10.0  # vote counts are divided by this (a game has about 5-12 advice phases)


def advisor_slots(view: View) -> tuple[int, int]:
    """Index into ``view.advisors`` of egocentric advisor slots 0 and 1 (the advisor met first
    going clockwise from the seat comes first, as in the observation)."""
    a0, a1 = view.advisors
    n, me = view.num_players, view.seat
    return (0, 1) if (a0 - me) % n <= (a1 - me) % n else (1, 0)


def prior(view: View) -> np.ndarray:
    """The hand-set belief ``(2, 4)`` in egocentric advisor order, with everything the seat knows
    applied -- including, for the Investigator, that its own grimoire is a fake (the heuristic
    applies that in :func:`~club_envs.arkham_decoders.bots.true_book_probabilities`)."""
    post = np.array(belief(view), dtype=np.float64)
    if view.identity == INVESTIGATOR:  # he knows the Black Man: one row, normalised as the heuristic does
        b = view.advisors.index(view.black_man)
        row = post[b].copy()
        row[view.grimoire] = 0.0
        post[:] = 0.0
        post[b] = row / row.sum() if row.sum() > 0 else row
    return post[list(advisor_slots(view))]


def vote_pick_counts(view: View) -> np.ndarray:
    """Per egocentric advisor x book x (agree, oppose), / 10: the past advices in which the card
    with the best expected points under the public belief of that moment -- the card the table
    would decode after a 1-1 vote -- was of that book (shared equally on ties; the grimoires face
    up now are left out), split by the advisor's vote. The observation counts votes per book present; this says which book was at
    stake, which is what an advisor's vote is about."""
    counts = _pick_counts(view.votes, view.face_up_books, view.advisors)
    return counts[list(advisor_slots(view))].ravel()


@functools.lru_cache(maxsize=16384)
def _pick_counts(votes: tuple, face_up_books: tuple[int, ...], advisors: tuple[int, int]) -> np.ndarray:
    """:func:`vote_pick_counts` in vote order, cached per public history (read-only)."""
    if not votes:
        out = np.zeros((2, NUM_BOOKS, 2))
    else:
        out = _pick_counts(votes[:-1], face_up_books, advisors).copy()
        p = _belief(votes[:-1], face_up_books, advisors, None).sum(axis=0)
        points = [(expected_points(card, p), card // NUM_VALUES) for _, card in votes[-1].table
                  if card // NUM_VALUES not in face_up_books]
        if points:
            best = max(v for v, _ in points)
            books = [b for v, b in points if v >= best - 1e-12]
            for k in range(2):
                column = 0 if votes[-1].votes[k] else 1
                for book in books:
                    out[k, book, column] += 1.0 / (len(books) * _COUNT_SCALE)
    out.flags.writeable = False
    return out


def network_inputs(observations: np.ndarray, views: Sequence[View]) -> tuple[np.ndarray, np.ndarray]:
    """What the network reads ``(B, INPUT_SIZE)`` and the prior ``(B, 8)`` it refines."""
    obs = np.asarray(observations, dtype=np.float32).reshape(len(views), -1)
    pri = np.stack([prior(v).ravel() for v in views])
    log_prior = np.maximum(np.log(np.maximum(pri, 1e-30)), LOG_FLOOR)
    picks = np.stack([vote_pick_counts(v) for v in views])
    x = np.concatenate([obs, log_prior / _PRIOR_SCALE, picks], axis=1).astype(np.float32)
    return x, pri


def combine(prior_probs: np.ndarray, logits: np.ndarray) -> np.ndarray:
    """The posterior ``(B, 8)``: ``prior x exp(logits)``, normalised -- the prior's
    log-probabilities plus the logits, so hypotheses the prior rules out stay ruled out. Written
    as a product so that zero logits return the prior bit for bit (the heuristic's thresholds,
    e.g. a member passes below -1 expected points, are met exactly at a uniform belief)."""
    logits = np.asarray(logits, dtype=np.float64)
    allowed = prior_probs > 0
    top = np.where(allowed, logits, -np.inf).max(axis=-1, keepdims=True)
    weights = np.exp(np.where(allowed, logits - top, 0.0))
    # rescaled by the prior's own total: with equal weights the factor is exactly 1
    total = (prior_probs * weights).sum(axis=-1, keepdims=True)
    scale = prior_probs.sum(axis=-1, keepdims=True) / np.where(total > 0, total, 1.0)
    return prior_probs * (weights * scale)


class BeliefModel(belief_file.BeliefMLP):
    """An MLP (ReLU hidden layers) from :data:`INPUT_SIZE` inputs to 8 logits over the prior."""

    GAME, INPUT_SIZE, OUTPUT_SIZE = GAME_NAME, INPUT_SIZE, OUTPUT_SIZE
    OUTPUTS, DEFAULT_HIDDEN = "2 advisors x 4 books", (128, 128)

    def predict(self, observations: np.ndarray, views: Sequence[View]) -> np.ndarray:
        """The posterior ``(B, 2, 4)`` (egocentric advisor slot x book) of each seat's view."""
        if len(views) == 0:
            return np.zeros((0, 2, NUM_BOOKS))
        obs = np.asarray(observations, dtype=np.float32).reshape(len(views), -1)
        if obs.shape[1] != OBS_SIZE:
            raise ValueError(f"expected Arkham observations of size {OBS_SIZE}, got shape {obs.shape}")
        x, pri = network_inputs(obs, views)
        return combine(pri, self.logits(x)).reshape(-1, 2, NUM_BOOKS)

    def true_book_probabilities(self, observations: np.ndarray, views: Sequence[View]) -> np.ndarray:
        """``P[t]`` ``(B, 4)`` that book ``t`` is true; certain for the Black Man."""
        out = self.predict(observations, views).sum(axis=1)
        for i, view in enumerate(views):
            if view.true_book is not None:
                out[i] = 0.0
                out[i, view.true_book] = 1.0
        return out
