"""The ``heuristic_sampled`` bot's decisions for many positions at once.

:class:`~club_envs.members_only.bots.HeuristicAgent` with ``samples=200`` estimates every
category's final count from 200 deals drawn from its own generator, then judges its bets and the
card to hold back on those deals. A vector environment asks several of them per round; here each
bot still draws its deals itself, in turn, and everything computed from the deals is done for the
whole batch in array operations. Every number is the bot's own to the last bit (the shares of
deals are exact counts, the arithmetic is the same elementwise, and sums run in the order the bot
sums them), so the choices and the generators' states are those of asking each bot alone (tested).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from club_envs.members_only import actions as A
from club_envs.members_only.engine import BET, DISCARD, REVEAL, View
from club_envs.members_only.beliefs import MAX_COUNT, SPACE_CORRECT
from club_envs.members_only.heuristic_values import bet_choice, bet_gains, board_chips, final_counts
from club_envs.members_only.rules import (
    NO_PER_CATEGORY,
    NORMAL_PER_CATEGORY,
    NUM_CARD_TYPES,
    NUM_CATEGORIES,
    SPACE_IS_AT_MOST,
    SPACE_THRESHOLD,
)

_THRESHOLD = np.array(SPACE_THRESHOLD)
_AT_MOST = np.array(SPACE_IS_AT_MOST)
# A category's "normal minus NO!" in a deal runs from -2 to 11; shifted by 3 into histogram bins
# 1..14, leaving room for the -1 and +1 of a held-back card. _HELD_CORRECT[space, bin, k]: is a chip
# on ``space`` correct when the count is max(0, bin - 3 + k - 1)?
_BASE_SHIFT, _BASE_BINS = NO_PER_CATEGORY + 1, NO_PER_CATEGORY + NORMAL_PER_CATEGORY + 3
_HELD_COUNTS = np.maximum(0, np.arange(_BASE_BINS)[:, None] - _BASE_SHIFT + np.array([-1, 0, 1])[None, :])
_HELD_CORRECT = np.where(_AT_MOST[:, None, None], _HELD_COUNTS[None] <= _THRESHOLD[:, None, None],
                         _HELD_COUNTS[None] >= _THRESHOLD[:, None, None]).astype(float)


def act_batch(agents: Sequence, decisions: Sequence) -> list[int]:
    """The choices of sampled heuristic bots (``heuristic_sampled``), ``agents[i]`` deciding
    ``decisions[i]``: exactly what each bot's ``act`` returns, and each generator left where
    ``act`` leaves it.

    Each bot draws its deals from its own generator, in decision order and only where ``act``
    would draw (a decision with one legal action, or outside the three phases, draws nothing), so
    the draws are the same numbers. What is computed from them is then done for the whole batch:
    the share of deals in which each chip is correct is a count over the deals (exact whatever the
    order), the gains use the bot's elementwise arithmetic, and each card's worth sums the board's
    chips in the order ``_board_worth`` sums them (:func:`row_sums`), so every number and every
    choice is the bot's own (tested against ``act``).
    """
    bot = agents[0]
    choice = [0] * len(decisions)
    asked: list[int] = []
    draws = []
    for i, (agent, decision) in enumerate(zip(agents, decisions)):
        legal = decision.legal_actions
        if len(legal) == 1 or decision.view.phase not in (BET, REVEAL, DISCARD):
            choice[i] = int(legal[0])
            continue
        asked.append(i)
        draws.append(agent._final_card_samples(decision.view))  # (samples, 10) final cards, as act draws them
    if not asked:
        return choice
    views = [decisions[i].view for i in asked]
    phases = np.array([view.phase for view in views])
    cards = np.stack(draws)  # (n, samples, 10)
    betting = np.flatnonzero(phases == BET)
    if len(betting):
        gains = bet_gains([views[k] for k in betting], bet_shares(final_counts(cards[betting])), bot.chip_cost)
        masks = np.stack([decisions[asked[k]].action_mask for k in betting]).astype(bool)
        for k, a in zip(betting, bet_choice(gains, masks)):
            choice[asked[k]] = int(a)
    holding = np.flatnonzero(phases != BET)
    if len(holding):
        held_views = [views[k] for k in holding]
        worth = card_values(held_views, cards[holding], bot.chip_cost, bot.rival_weight)
        for k, view, row in zip(holding, held_views, worth):
            if view.phase == REVEAL:
                choice[asked[k]] = A.REVEAL_BASE + int(np.where(np.isnan(row), np.inf, row).argmin())
            else:
                choice[asked[k]] = A.DISCARD_BASE + int(np.where(np.isnan(row), -np.inf, row).argmax())
    return choice


def histogram(values: np.ndarray, bins: int) -> np.ndarray:
    """Per leading index, how many of the values along the last axis equal 0, 1, ..., ``bins - 1``."""
    lead = values.shape[:-1]
    cells = np.arange(int(np.prod(lead)), dtype=np.int64).reshape(lead + (1,)) * bins + values
    return np.bincount(cells.ravel(), minlength=int(np.prod(lead)) * bins).reshape(lead + (bins,))


def bet_shares(counts: np.ndarray) -> np.ndarray:
    """P(correct) of every space ``(n, 5, 8)``: the share of the sampled deals ``(n, samples, 5)``
    in which a chip there is correct -- what the bot's mean over the deals gives. The shares are
    counted from each category's histogram of final counts: the same whole numbers of deals
    divided by the same number of samples, so the same floats, without a ``(n, samples, 5, 8)``
    comparison."""
    hist = histogram(np.moveaxis(counts, 1, -1), MAX_COUNT + 1)  # (n, 5, 12)
    return (hist @ SPACE_CORRECT) / counts.shape[1]


def card_values(views: Sequence[View], cards: np.ndarray, chip_cost: tuple[float, float],
                rival_weight: float) -> np.ndarray:
    """The sampled bot's ``card_values`` of several positions ``(B, 10)`` (NaN for cards not in
    hand) from their sampled final cards ``(B, samples, 10)``: for each card type, the board's
    chips judged on the deals with one card of that type held back."""
    b = len(views)
    held = np.array([view.hand for view in views]) > 0
    worth = np.where(held, 0.0, np.nan)
    chips = board_chips(views, chip_cost, rival_weight)
    if not len(chips.row):
        return worth
    # Holding back a card moves a chip's category count only if the card is of that category: one
    # fewer normal card (count - 1) or one fewer NO! card (count + 1). So each chip needs the share
    # of deals in which it is correct at three counts, not ten; each is read from the histogram of
    # the chip's category's "normal minus NO!" over the deals.
    category, samples = chips.category, cards.shape[1]
    base = cards[chips.row, :, category] - cards[chips.row, :, NUM_CATEGORIES + category]  # (chips, samples)
    hist = histogram(base + _BASE_SHIFT, _BASE_BINS)  # (chips, bins)
    correct = _HELD_CORRECT[chips.space]  # (chips, bins, 3): count - 1, count, count + 1
    p = np.repeat(((hist * correct[:, :, 1]).sum(axis=-1) / samples)[:, None], NUM_CARD_TYPES, axis=1)  # (chips, 10)
    chip = np.arange(len(category))
    p[chip, category] = (hist * correct[:, :, 0]).sum(axis=-1) / samples
    p[chip, NUM_CATEGORIES + category] = (hist * correct[:, :, 2]).sum(axis=-1) / samples
    value = p * chips.win[:, None] + (1.0 - p) * chips.lose[:, None]
    ends = np.searchsorted(chips.row, np.arange(b + 1))
    by_size: dict[int, list[int]] = {}
    for i in np.flatnonzero(ends[1:] > ends[:-1]):
        by_size.setdefault(int(ends[i + 1] - ends[i]), []).append(int(i))
    for rows in by_size.values():
        stacked = np.stack([value[ends[i]:ends[i + 1]].T for i in rows])  # (rows, 10, chips)
        worth[rows] = np.where(held[rows], row_sums(stacked), np.nan)
    return worth


def row_sums(values: np.ndarray) -> np.ndarray:
    """Sums over the last axis (at most 128 terms) in the order numpy sums one contiguous float64
    row -- ``x.sum()`` of a 1-D array: below 8 terms one after another; from 8, eight running sums
    (term ``i`` goes to sum ``i % 8``) combined as ``((s0 + s1) + (s2 + s3)) + ((s4 + s5) + (s6 + s7))``
    and then the terms past the last full eight. A reduction over the last axis of a larger array
    may add in another order, and the bot's choices compare these sums, so the batch keeps the
    bot's order to the last bit."""
    n = values.shape[-1]
    if n > 128:
        raise ValueError("row_sums follows numpy's order for rows of at most 128 terms")
    if n < 8:
        total = np.full(values.shape[:-1], -0.0)
        for i in range(n):
            total = total + values[..., i]
        return total
    full = n - n % 8
    r = values[..., :8].copy()
    for i in range(8, full, 8):
        r += values[..., i:i + 8]
    total = ((r[..., 0] + r[..., 1]) + (r[..., 2] + r[..., 3])) + ((r[..., 4] + r[..., 5]) + (r[..., 6] + r[..., 7]))
    for i in range(full, n):
        total = total + values[..., i]
    return total
