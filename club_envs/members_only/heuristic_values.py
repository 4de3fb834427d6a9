"""The arithmetic every form of the Members Only ``heuristic`` bot shares, at the bottom of them.

The bot itself (:mod:`club_envs.members_only.bots`), its batched evaluation
(:mod:`club_envs.members_only.heuristic_batch`, shared per round by
:mod:`club_envs.members_only.heuristic_round`) and its batched sampled form
(:mod:`club_envs.members_only.heuristic_sampled`) must agree number for number, so what they
compute alike lives here once: what a track position is worth, the final category counts of a
deal, what a seat knows of the deal, the expected gain of every bet and the bot's choice among
them, and the worth of every chip on the board. It imports only the rules and the engine; each of
those modules takes its arithmetic from here, and only the bot imports the batched forms (to hand
them its batches), so none of them imports another for a shared piece.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import numpy as np

from club_envs.members_only import actions as A
from club_envs.members_only.engine import View
from club_envs.members_only.rules import COPIES_PER_TYPE, NUM_CATEGORIES, NUM_SPACES, TRACK_MAX, TRACK_SCORING_MIN

BET_ORDER = np.array(sorted(range(A.NUM_BETS), key=lambda a: (a & 1, a)))
_MULTIPLIER = np.array([[1, 2], [2, 3]])  # engine.chip_multiplier as [risk, chip]


def track_value(value: np.ndarray | int) -> np.ndarray | float:
    """What a track position is worth to its owner: its value from 5 up (it counts at the end);
    below 5 half its value (it may still get there)."""
    if isinstance(value, np.ndarray):
        return np.where(value >= TRACK_SCORING_MIN, value, 0.5 * value)
    return float(value) if value >= TRACK_SCORING_MIN else 0.5 * value


def final_counts(cards: np.ndarray) -> np.ndarray:
    """Category counts from cards per type (last axis): normal minus NO!, never below 0."""
    return np.maximum(0, cards[..., :NUM_CATEGORIES] - cards[..., NUM_CATEGORIES:])


def known_position(view: View) -> tuple[np.ndarray, int, np.ndarray]:
    """What the estimate starts from, exact or sampled: the cards this seat has not seen (per
    type), how many of them the other players will still show, and the cards certain to be shown
    (display + own cards)."""
    own = _own_contribution(view)
    display = np.array(view.display)
    unseen = np.array(COPIES_PER_TYPE) - display - own
    if view.own_discard is not None:
        unseen[view.own_discard] -= 1
    others = [s for s in range(view.num_players) if s != view.seat]
    to_come = max(0, sum(view.hand_sizes[s] for s in others) - len(others))
    return unseen, to_come, display + own


def _own_contribution(view: View) -> np.ndarray:
    """Own cards still to reach the display: the hand plus a card picked for a reveal."""
    own = np.array(view.hand)
    if view.pending_reveal is not None:
        own[view.pending_reveal] += 1
    return own


def bet_gains(views: Sequence[View], p_correct: np.ndarray, chip_cost: tuple[float, float]) -> np.ndarray:
    """The expected gain of every bet action ``(B, 80)`` given P(correct) of every space ``(B, 5, 8)``
    (exact, or the share of sampled deals in which the chip is correct)."""
    p_correct = p_correct[..., None]  # (B, 5, 8, 1)
    track = np.array([view.tracks[view.seat] for view in views], dtype=float)[:, :, None, None]
    rewards = np.array([view.rewards for view in views], dtype=float)[:, None, :, None]
    risk = np.array([view.round == 1 for view in views], dtype=int)
    points = rewards * _MULTIPLIER[risk][:, None, None, :]  # (B, 1, 8, 2)
    after = np.minimum(TRACK_MAX, track + points)
    gain = track_value(after) - track_value(track)
    expected = p_correct * gain - (1.0 - p_correct) * np.array(chip_cost)
    return expected.reshape(len(views), NUM_CATEGORIES * NUM_SPACES * 2)  # action (category * 8 + space) * 2 + chip


def bet_choice(values: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """The bot's bet per row: the legal bet with the best gain (the first in its scan order among
    equals) if that gain is positive, else no bet."""
    legal = masks[:, BET_ORDER]
    gains = np.where(legal, values[:, BET_ORDER], -np.inf)
    best = gains.argmax(axis=1)
    positive = legal.any(axis=1) & (gains[np.arange(len(values)), best] > 0.0)
    return np.where(positive, BET_ORDER[best], A.NO_BET)


class Chips(NamedTuple):
    """Every chip on the boards of a batch of views, one entry per chip (rows in view order)."""

    row: np.ndarray  # which view
    category: np.ndarray
    space: np.ndarray
    win: np.ndarray  # its worth to the view's seat if correct (own chips fully, rivals' by -rival_weight)
    lose: np.ndarray  # ... and if wrong


def board_chips(views: Sequence[View], chip_cost: tuple[float, float], rival_weight: float) -> Chips:
    """``bots._board_chips`` of every view in one set of arrays (the same arithmetic, elementwise)."""
    chips = [(i, spot // NUM_SPACES, spot % NUM_SPACES, view.tracks[owner][spot // NUM_SPACES],
              view.rewards[spot % NUM_SPACES], kind, risk, owner == view.seat)
             for i, view in enumerate(views) for spot, owner, kind, risk in view.bets]
    if not chips:
        empty = np.zeros(0, dtype=np.int64)
        return Chips(empty, empty, empty, np.zeros(0), np.zeros(0))
    row, category, space, track, reward, kind, risk, own = np.array(chips, dtype=np.int64).T
    points = reward * _MULTIPLIER[risk, kind]
    gain = track_value(np.minimum(TRACK_MAX, track + points).astype(float)) - track_value(track.astype(float))
    weight = np.where(own == 1, 1.0, -rival_weight)
    return Chips(row, category, space, weight * gain, -weight * np.array(chip_cost)[kind])
