"""The ``heuristic_sampled`` bot on the batched engine's arrays: its draws and its choice compiled.

:class:`~club_envs.members_only.bots.HeuristicAgent` with ``samples`` set (``heuristic_sampled``)
estimates the final count of every category from deals drawn from its own generator --
``rng.multivariate_hypergeometric(unseen, to_come, size=samples, method="count")`` -- and judges
its bets, or the card to hold back, on those deals. Asked through its reference code, each of
its decisions first rebuilds the seat's view from the arrays and then spends most of its time in
numpy's per-call overhead (the deals themselves are a few microseconds of C); in a training run
that seats it, that was a third of the games' time.

Here one compiled call decides every game's sampled bot to move, reading the tables directly.
The decisions are the bot's own to the bit, not just to a tolerance:

* **The same deals.** numpy's "count" algorithm (a partial Fisher-Yates shuffle of the unseen cards
  per deal, each swap partner from ``random_interval``: a masked 32-bit draw, rejected until it
  fits) is followed step by step, and its 32-bit draws come from the bot's own bit generator
  through the generator's C interface (``bit_generator.ctypes``: ``next_uint32`` on its state,
  numpy's own function), so the same numbers are drawn and the generator is left where numpy
  leaves it (its buffered half-word included). Only ``PCG64`` generators (``default_rng``'s) are
  taken this way; any other stays with the reference code.
* **The same arithmetic.** P(correct) of a chip is a whole number of deals divided by the number
  of deals; the gains and worths are the same elementwise operations as
  :mod:`club_envs.members_only.heuristic_sampled`, and each card's worth sums the board's chips in
  the order numpy sums a row (:func:`numpy_row_sum`), so the comparisons that choose see the same
  floats.

Tested against the bots' ``act`` at every decision of many games (choices and generators alike),
with the JIT on and off.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from club_envs.members_only import actions as A
from club_envs.members_only.bots import HeuristicAgent
from club_envs.members_only.compiled import compiled
from club_envs.members_only.engine import BET, DISCARD, REVEAL
from club_envs.members_only.rules import (
    DECK_SIZE,
    NUM_CARD_TYPES,
    NUM_CATEGORIES,
    NUM_SPACES,
)
from club_envs.members_only.vector_engine import Rules, Tables
from club_envs.members_only.vector_heuristic import (
    NUM_COUNTS,
    SEVERAL,
    TIE_MARGIN,
    best_card,
    bet_choice,
    chip_stakes,
    known_position,
    only_action,
    space_correct,
)

MAX_CHIPS = NUM_CATEGORIES * NUM_SPACES  # one chip per space at most


@compiled
def random_interval(next_uint32, state: int, maximum: int) -> int:
    """numpy's ``random_interval(bitgen, max)`` for ``max`` < 2**32: a uniform whole number in
    ``0..maximum``, the bit generator's next 32-bit word masked to the smallest all-ones mask
    covering ``maximum``, drawn again until it is not above it."""
    if maximum == 0:
        return 0
    mask = maximum
    mask |= mask >> 1
    mask |= mask >> 2
    mask |= mask >> 4
    mask |= mask >> 8
    mask |= mask >> 16
    while True:
        value = np.int64(np.uint64(next_uint32(state)) & np.uint64(mask))
        if value <= maximum:
            return value


@compiled
def draw_final_cards(next_uint32, state: int, unseen: np.ndarray, to_come: int, shown: np.ndarray,
                     choices: np.ndarray, cards: np.ndarray) -> None:
    """``cards`` (samples, 10): ``rng.multivariate_hypergeometric(unseen, to_come, size=samples,
    method="count") + shown`` with the generator whose state is at ``state`` -- numpy's
    ``random_mvhg_count`` step by step (``choices``: room for the unseen cards, one entry each)."""
    samples = cards.shape[0]
    for s in range(samples):
        for card in range(NUM_CARD_TYPES):
            cards[s, card] = 0
    total = 0
    for card in range(NUM_CARD_TYPES):
        for _ in range(unseen[card]):
            choices[total] = card
            total += 1
    drawn = to_come
    if drawn > total:  # numpy refuses it too: the position is not a legal one
        raise ValueError("more cards still to be shown than cards unseen")
    if total > 0 and drawn > 0:
        more_than_half = drawn > total // 2
        if more_than_half:
            drawn = total - drawn
        for s in range(samples):
            for j in range(drawn):  # a partial Fisher-Yates shuffle: the first `drawn` places
                k = j + random_interval(next_uint32, state, total - j - 1)
                swap = choices[k]
                choices[k] = choices[j]
                choices[j] = swap
            for j in range(drawn):
                cards[s, choices[j]] += 1
            if more_than_half:
                for card in range(NUM_CARD_TYPES):
                    cards[s, card] = unseen[card] - cards[s, card]
    for s in range(samples):
        for card in range(NUM_CARD_TYPES):
            cards[s, card] += shown[card]


@compiled
def bet_shares(cards: np.ndarray, histogram: np.ndarray, p: np.ndarray) -> None:
    """``p`` (5, 8): the share of the deals in which a chip on each space is correct (whole
    numbers of deals over their number, as ``heuristic_sampled.bet_shares``)."""
    samples = cards.shape[0]
    for c in range(NUM_CATEGORIES):
        histogram[:] = 0
        for s in range(samples):
            histogram[max(0, cards[s, c] - cards[s, NUM_CATEGORIES + c])] += 1
        for space in range(NUM_SPACES):
            correct = 0
            for count in range(NUM_COUNTS):
                if space_correct(count, space):
                    correct += histogram[count]
            p[c, space] = correct / samples


@compiled
def numpy_row_sum(values: np.ndarray, n: int) -> float:
    """``values[:n].sum()`` added in numpy's order for one contiguous float64 row of at most 128
    terms (``heuristic_sampled.row_sums``): one after another below 8 terms; from 8, eight running
    sums combined as ``((s0 + s1) + (s2 + s3)) + ((s4 + s5) + (s6 + s7))``, then the rest."""
    if n < 8:
        total = -0.0
        for i in range(n):
            total += values[i]
        return total
    s0, s1, s2, s3 = values[0], values[1], values[2], values[3]
    s4, s5, s6, s7 = values[4], values[5], values[6], values[7]
    full = n - n % 8
    for i in range(8, full, 8):
        s0 += values[i]
        s1 += values[i + 1]
        s2 += values[i + 2]
        s3 += values[i + 3]
        s4 += values[i + 4]
        s5 += values[i + 5]
        s6 += values[i + 6]
        s7 += values[i + 7]
    total = ((s0 + s1) + (s2 + s3)) + ((s4 + s5) + (s6 + s7))
    for i in range(full, n):
        total += values[i]
    return total


@compiled
def card_worths(t: Tables, r: Rules, g: int, seat: int, chip_cost: np.ndarray, rival_weight: float,
                cards: np.ndarray, terms: np.ndarray, worth: np.ndarray) -> None:
    """``heuristic_sampled.card_values`` of one position: for each card type in hand, the worth to
    ``seat`` of every chip on the board judged on the deals with one card of that type held back
    (one normal card fewer moves its category's count down by one, one NO! card fewer up by one);
    ``terms`` (10, 40): each chip's term per card, summed in board order."""
    samples = cards.shape[0]
    chips = t.bet_count[g]
    for i in range(chips):
        c, space, win, lose = chip_stakes(t, r, g, seat, i, chip_cost, rival_weight)
        fewer, same, more = 0, 0, 0
        for s in range(samples):
            base = cards[s, c] - cards[s, NUM_CATEGORIES + c]
            fewer += space_correct(max(0, base - 1), space)
            same += space_correct(max(0, base), space)
            more += space_correct(max(0, base + 1), space)
        p_fewer, p_same, p_more = fewer / samples, same / samples, more / samples
        value = p_same * win + (1.0 - p_same) * lose
        for card in range(NUM_CARD_TYPES):
            terms[card, i] = value
        terms[c, i] = p_fewer * win + (1.0 - p_fewer) * lose
        terms[NUM_CATEGORIES + c, i] = p_more * win + (1.0 - p_more) * lose
    for card in range(NUM_CARD_TYPES):
        worth[card] = numpy_row_sum(terms[card], chips) if chips > 0 else 0.0


@compiled
def sampled_action(t: Tables, r: Rules, g: int, next_uint32, state: int, chip_cost: np.ndarray,
                   rival_weight: float, mask: np.ndarray, unseen: np.ndarray, shown: np.ndarray,
                   choices: np.ndarray, cards: np.ndarray, histogram: np.ndarray, p: np.ndarray,
                   values: np.ndarray, terms: np.ndarray, worth: np.ndarray) -> int:
    """``HeuristicAgent(samples=len(cards), chip_cost=..., rival_weight=...).act`` for the player to
    move in game ``g`` (still playing), drawing from the generator at ``state``; the other
    arguments are work arrays. Like ``act``: one legal action, or a phase without a choice, draws
    nothing."""
    seat = t.current[g]
    single = only_action(t, g, mask)
    if single != SEVERAL:
        return single
    phase = t.phase[g]
    if phase != BET and phase != REVEAL and phase != DISCARD:
        for action in range(A.NUM_ACTIONS):
            if mask[action]:
                return action
    to_come = known_position(t, r, g, seat, unseen, shown)
    draw_final_cards(next_uint32, state, unseen, to_come, shown, choices, cards)
    if phase == BET:
        bet_shares(cards, histogram, p)
        return bet_choice(t, r, g, seat, chip_cost, mask, p, True, TIE_MARGIN, values)
    card_worths(t, r, g, seat, chip_cost, rival_weight, cards, terms, worth)
    if phase == REVEAL:
        return A.REVEAL_BASE + best_card(t, g, seat, True, worth)
    return A.DISCARD_BASE + best_card(t, g, seat, False, worth)


@compiled
def sampled_actions(t: Tables, r: Rules, rows: np.ndarray, next_uint32, states: np.ndarray,
                    samples: np.ndarray, chip_cost: np.ndarray, rival_weight: np.ndarray, mask: np.ndarray,
                    unseen: np.ndarray, shown: np.ndarray, choices: np.ndarray, cards: np.ndarray,
                    histogram: np.ndarray, p: np.ndarray, values: np.ndarray, terms: np.ndarray,
                    worth: np.ndarray, out: np.ndarray) -> None:
    """``out[k]``: :func:`sampled_action` of game ``rows[k]``'s bot to move, whose generator state
    is at ``states[k]``, with ``samples[k]`` deals and its ``chip_cost[k]`` and ``rival_weight[k]``
    (``cards``: room for the most deals of any row)."""
    for k in range(rows.shape[0]):
        out[k] = sampled_action(t, r, rows[k], next_uint32, int(states[k]), chip_cost[k], rival_weight[k], mask,
                                unseen, shown, choices, cards[:samples[k]], histogram, p, values, terms, worth)


def compiles(agent) -> bool:
    """Can :func:`answer` play this agent: a sampled ``HeuristicAgent`` (``samples`` set) drawing
    from a ``PCG64`` generator (whose C interface the compiled draws use)? Its subclasses may
    decide otherwise and are left to their own code."""
    return (type(agent) is HeuristicAgent and agent.samples is not None and agent.samples > 0
            and type(agent._rng.bit_generator) is np.random.PCG64)


class SampledScratch:
    """Work arrays for :func:`sampled_actions` (compiled code allocates nothing)."""

    def __init__(self) -> None:
        self.mask = np.zeros(A.NUM_ACTIONS, np.bool_)
        self.unseen = np.zeros(NUM_CARD_TYPES, np.int64)
        self.shown = np.zeros(NUM_CARD_TYPES, np.int64)
        self.choices = np.zeros(DECK_SIZE, np.int64)
        self.cards = np.zeros((0, NUM_CARD_TYPES), np.int64)
        self.histogram = np.zeros(NUM_COUNTS, np.int64)
        self.p = np.zeros((NUM_CATEGORIES, NUM_SPACES))
        self.values = np.zeros(A.NUM_BETS)
        self.terms = np.zeros((NUM_CARD_TYPES, MAX_CHIPS))
        self.worth = np.zeros(NUM_CARD_TYPES)

    def arrays(self, samples: int) -> tuple:
        if self.cards.shape[0] < samples:
            self.cards = np.zeros((samples, NUM_CARD_TYPES), np.int64)
        return (self.mask, self.unseen, self.shown, self.choices, self.cards, self.histogram, self.p, self.values,
                self.terms, self.worth)


def answer(games, rows: np.ndarray, agents: Sequence, scratch: SampledScratch) -> np.ndarray:
    """The moves of ``agents[k]`` (each :func:`compiles`) for the player to move in game
    ``rows[k]`` of a :class:`~club_envs.members_only.vector_engine.VectorGames`: what each bot's
    ``act`` would choose on that seat's view, its generator moved on as ``act`` moves it."""
    rows = np.asarray(rows, dtype=np.int64)
    out = np.zeros(len(rows), np.int64)
    if not len(rows):
        return out
    generators = [agent._rng.bit_generator for agent in agents]
    states = np.array([bits.ctypes.state_address for bits in generators], dtype=np.int64)
    samples = np.array([agent.samples for agent in agents], dtype=np.int64)
    cost = np.array([agent.chip_cost for agent in agents], dtype=np.float64)
    rival = np.array([agent.rival_weight for agent in agents], dtype=np.float64)
    sampled_actions(games.tables, games.rules, rows, generators[0].ctypes.next_uint32, states, samples, cost, rival,
                    *scratch.arrays(int(samples.max())), out)
    return out


def answer_compiled(games, rows: np.ndarray, agents: Sequence, scratch: SampledScratch) -> tuple[np.ndarray, np.ndarray]:
    """For a vector environment's round of reference-code bots (``agents[k]`` to move in game
    ``rows[k]``): which of them :func:`compiles` (a bool per row) and their moves by :func:`answer`
    -- the caller asks the others through their own code."""
    fast = np.fromiter((compiles(agent) for agent in agents), dtype=bool, count=len(agents))
    if not fast.any():
        return fast, np.zeros(0, np.int64)
    return fast, answer(games, np.asarray(rows, np.int64)[fast], [a for a, f in zip(agents, fast) if f], scratch)
