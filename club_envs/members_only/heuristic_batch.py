"""The exact ``heuristic`` bot's evaluation of many positions at once.

:class:`~club_envs.members_only.bots.HeuristicAgent` judges one position at a time: the expected
gain of every bet, and for reveals and discards the worth of the board's chips if each card in hand
were the one held back. Training asks that question for every game of a vector environment at each
step -- for the heuristic opponents and for the ``members_only_heuristic`` policy inputs -- so this
module answers it for a batch of views with array operations: one count-distribution computation
for all positions (:mod:`club_envs.members_only.beliefs`), every chip on every board in one array,
and the bot's choices by the same rules (single chips first and the first of equal gains; the
first card among equal worths). Each row is the bot's arithmetic in array form: the tests check,
position by position over seeded games, that the choices are the bot's and the numbers agree with
its own to rounding (the sums run in another order).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import numpy as np

from club_envs.members_only import actions as A
from club_envs.members_only import beliefs
from club_envs.members_only.engine import BET, DISCARD, REVEAL, View
from club_envs.members_only.heuristic_values import bet_choice, bet_gains, board_chips
from club_envs.members_only.rules import (
    COPIES_PER_TYPE,
    NUM_CARD_TYPES,
    NUM_CATEGORIES,
    SPACE_IS_AT_MOST,
    SPACE_THRESHOLD,
)

# The bot's scan order over bet actions: single chips first, then doubles (ties go to the first).
_THRESHOLD = np.array(SPACE_THRESHOLD)
_AT_MOST = np.array(SPACE_IS_AT_MOST)
_NORMAL_ROW = (np.arange(NUM_CARD_TYPES) < NUM_CATEGORIES).astype(np.int64)  # one normal card of each category


class Evaluation(NamedTuple):
    """The heuristic's reading of a batch of positions (one row per view)."""

    counts: np.ndarray  # (B, 5, 12) final-count distributions
    bets: np.ndarray  # (B, 80) expected gain of every bet action (zeros outside betting decisions)
    cards: np.ndarray  # (B, 10) worth of the chips if that card is held back (NaN: not in hand / not asked)
    choice: np.ndarray  # (B,) the action the bot chooses


def positions(views: Sequence[View]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``heuristic_values.known_position`` of every view: unseen cards ``(B, 10)``, cards still to come ``(B,)``
    and cards certain to be shown ``(B, 10)``."""
    own = np.array([view.hand for view in views])
    pending = np.array([-1 if view.pending_reveal is None else view.pending_reveal for view in views])
    discard = np.array([-1 if view.own_discard is None else view.own_discard for view in views])
    rows = np.arange(len(views))
    own[rows[pending >= 0], pending[pending >= 0]] += 1
    display = np.array([view.display for view in views])
    unseen = np.array(COPIES_PER_TYPE) - display - own
    unseen[rows[discard >= 0], discard[discard >= 0]] -= 1
    to_come = np.array([max(0, sum(view.hand_sizes) - view.hand_sizes[view.seat] - (view.num_players - 1))
                        for view in views])
    return unseen, to_come, display + own


def distributions(views: Sequence[View]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per view: the distribution of "drawn normal - drawn NO!" per category ``(B, 5, 14)``, the
    final-count distributions ``(B, 5, 12)`` and the cards certain to be shown ``(B, 10)``."""
    unseen, to_come, shown = positions(views)
    offsets = beliefs.offset_distribution(unseen, to_come)
    return offsets, beliefs.count_distribution(offsets, shown), shown


def evaluate(views: Sequence[View], masks: np.ndarray, chip_cost: tuple[float, float] = (0.5, 1.0),
             rival_weight: float = 0.3, offsets: np.ndarray | None = None) -> Evaluation:
    """What ``HeuristicAgent(chip_cost=..., rival_weight=...)`` makes of each view (``masks``: the
    legal actions ``(B, 101)``).

    ``offsets`` ``(B, 5, 14)`` replaces the bot's one assumption -- that the other players' cards
    still to come are a uniform draw from the unseen cards -- by another distribution of "normal
    minus NO!" per category (a learned belief, :mod:`club_envs.members_only.belief_model`); the
    decision arithmetic is the same."""
    masks = np.asarray(masks, dtype=bool)
    if offsets is None:
        offsets, counts, shown = distributions(views)
    else:
        shown = positions(views)[2]
        counts = beliefs.count_distribution(offsets, shown)
    b = len(views)
    bets = np.zeros((b, A.NUM_BETS))
    cards = np.full((b, NUM_CARD_TYPES), np.nan)
    n_legal = masks.sum(axis=1)
    choice = np.where(n_legal > 0, masks.argmax(axis=1), 0)  # one legal action (or none): the first
    phases = np.array([view.phase for view in views])
    betting = np.flatnonzero((n_legal > 1) & (phases == BET))
    if len(betting):
        bets[betting] = bet_values([views[i] for i in betting], counts[betting], chip_cost)
        choice[betting] = bet_choice(bets[betting], masks[betting])
    holding = np.flatnonzero((n_legal > 1) & ((phases == REVEAL) | (phases == DISCARD)))
    if len(holding):
        worth = card_values([views[i] for i in holding], offsets[holding], shown[holding], chip_cost, rival_weight)
        cards[holding] = worth
        reveal = phases[holding] == REVEAL
        lowest = np.where(np.isnan(worth), np.inf, worth).argmin(axis=1)
        highest = np.where(np.isnan(worth), -np.inf, worth).argmax(axis=1)
        choice[holding] = np.where(reveal, A.REVEAL_BASE + lowest, A.DISCARD_BASE + highest)
    return Evaluation(counts, bets, cards, choice)


def bet_values(views: Sequence[View], counts: np.ndarray, chip_cost: tuple[float, float]) -> np.ndarray:
    """``HeuristicAgent.bet_values`` of several positions ``(B, 80)`` from their count distributions."""
    return bet_gains(views, beliefs.space_probabilities(counts), chip_cost)


def held_back_counts(offsets: np.ndarray, shown: np.ndarray) -> np.ndarray:
    """The count distributions ``(B, 10, 5, 12)`` if one card of each type were held back.

    Holding back a card changes only its own category's count (a normal card: one fewer shown; a
    NO! card: one fewer cancelled), so every position needs three distributions, not ten: as it
    stands, with one normal card fewer in every category, and with one NO! card fewer in every
    category; the ten cases are assembled from them. The entry of every card in hand is the same
    einsum over the same numbers as computing its case directly (checked bit for bit in the tests)."""
    same = beliefs.count_distribution(offsets, shown)
    fewer_normal = beliefs.count_distribution(offsets, shown - _NORMAL_ROW)
    fewer_no = beliefs.count_distribution(offsets, shown - (1 - _NORMAL_ROW))
    out = np.repeat(same[:, None], NUM_CARD_TYPES, axis=1)
    category = np.arange(NUM_CATEGORIES)
    out[:, category, category] = fewer_normal
    out[:, NUM_CATEGORIES + category, category] = fewer_no
    return out


def card_values(views: Sequence[View], offsets: np.ndarray, shown: np.ndarray, chip_cost: tuple[float, float],
                rival_weight: float) -> np.ndarray:
    """``HeuristicAgent.card_values`` of several positions ``(B, 10)`` (NaN for cards not in hand):
    for each card, the expected worth of every chip on the board to this seat if that card is the
    one held back."""
    b = len(views)
    held = np.array([view.hand for view in views]) > 0
    worth = np.where(held, 0.0, np.nan)
    chips = board_chips(views, chip_cost, rival_weight)
    if not len(chips.row):
        return worth
    row, category, space = chips.row, chips.category, chips.space
    counts = held_back_counts(offsets, shown)  # (B, 10, 5, 12)
    threshold, at_most = _THRESHOLD[space], _AT_MOST[space]
    correct = np.where(at_most[:, None], beliefs.COUNT_VALUES[None, :] <= threshold[:, None],
                       beliefs.COUNT_VALUES[None, :] >= threshold[:, None])  # (chips, 12)
    p = (counts[row, :, category, :] * correct[:, None, :]).sum(axis=-1)  # (chips, 10)
    value = p * chips.win[:, None] + (1.0 - p) * chips.lose[:, None]
    ends = np.searchsorted(row, np.arange(b + 1))  # the chips of row i are ends[i]:ends[i + 1]
    for i in np.flatnonzero(ends[1:] > ends[:-1]):
        worth[i] = np.where(held[i], value[ends[i]:ends[i + 1]].sum(axis=0), np.nan)
    return worth
