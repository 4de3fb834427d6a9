"""The ``members_only_heuristic`` policy inputs on the batched engine's arrays, compiled.

:mod:`club_envs.members_only.features` builds those inputs from a seat's reference ``View`` with the
heuristic's batched numpy evaluation: the seat's count distributions (45 belief numbers), the
expected gain of every bet (80), the worth of holding back each card (10) and the bot's choice
(101). On the batched engine there are no views: this module computes the same numbers from the
tables, one game at a time in compiled loops (:func:`heuristic_rows`), with the compiled heuristic's
arithmetic (:mod:`club_envs.members_only.vector_heuristic`).

The numbers agree with the view path to float32 rounding (the sums run in another order; tested on
every decision of many games). The bot's choice is an ``argmax`` over them: where two candidates are
within :data:`~club_envs.members_only.vector_heuristic.TIE_MARGIN` the compiled code cannot tell
them apart, and the reference bot settles the choice on the seat's view, exactly as the compiled
opponents do -- so the one-hot choice is the bot's own, always.
"""

from __future__ import annotations

import numpy as np

from club_envs.members_only import actions as A
from club_envs.members_only.beliefs import FEATURE_SIZE as BELIEF_SIZE
from club_envs.members_only.bots import HeuristicAgent
from club_envs.members_only.compiled import compiled
from club_envs.members_only.engine import BET, DISCARD, REVEAL
from club_envs.members_only.rules import NUM_CARD_TYPES, NUM_CATEGORIES, NUM_SPACES, TRACK_MAX
from club_envs.members_only.vector_engine import Rules, Tables, chip_multiplier
from club_envs.members_only.vector_heuristic import (
    NUM_COUNTS,
    SEVERAL,
    TIE_MARGIN,
    UNCLEAR,
    Scratch,
    bet_choice,
    card_choice,
    card_worths,
    count_distribution,
    known_position,
    offset_distribution,
    only_action,
    reference_choice,
    space_probabilities,
    track_value,
)

_SCALE = 5.0  # as features._SCALE: gains and worths in units of the largest printed reward
_BOT = HeuristicAgent()  # the exact heuristic the inputs describe, as features._BOT
HEURISTIC_SIZE = BELIEF_SIZE + A.NUM_BETS + NUM_CARD_TYPES + A.NUM_ACTIONS  # as features.HEURISTIC_SIZE
_BETS = BELIEF_SIZE  # where the bet gains start in the extra inputs
_CARDS = _BETS + A.NUM_BETS
_CHOICE = _CARDS + NUM_CARD_TYPES
_MAX_COUNT = float(NUM_COUNTS - 1)


@compiled
def all_bet_gains(t: Tables, r: Rules, g: int, seat: int, chip_cost: np.ndarray, p: np.ndarray,
                  out: np.ndarray) -> None:
    """``heuristic_values.bet_gains`` of one position: the expected gain of every bet action
    ``out`` (80), legal or not, from P(correct) of every space ``p`` (5, 8)."""
    risk = 1 if t.round[g] == 1 else 0
    for action in range(A.NUM_BETS):
        spot, chip = action >> 1, action & 1
        c, space = spot // NUM_SPACES, spot % NUM_SPACES
        track = float(t.tracks[g, seat, c])
        after = min(float(TRACK_MAX), track + float(r.rewards[space]) * chip_multiplier(chip, risk))
        gain = track_value(after) - track_value(track)
        out[action] = p[c, space] * gain - (1.0 - p[c, space]) * chip_cost[chip]


@compiled
def heuristic_row(t: Tables, r: Rules, g: int, seat: int, chip_cost: np.ndarray, rival_weight: float,
                  mask: np.ndarray, unseen: np.ndarray, shown: np.ndarray, offsets: np.ndarray, counts: np.ndarray,
                  p: np.ndarray, values: np.ndarray, worth: np.ndarray, out: np.ndarray) -> int:
    """The extra inputs of ``seat`` in game ``g`` (``out``: the 236 numbers after the observation),
    the choice one-hot left empty; returns the bot's choice, :data:`UNCLEAR` (the reference settles
    it) or -1 when the seat has no decision (no legal action: no choice)."""
    to_come = known_position(t, r, g, seat, unseen, shown)
    offset_distribution(unseen, to_come, offsets)
    return evaluation_row(t, r, g, seat, chip_cost, rival_weight, mask, shown, offsets, counts, p, values, worth, out)


@compiled
def evaluation_row(t: Tables, r: Rules, g: int, seat: int, chip_cost: np.ndarray, rival_weight: float,
                   mask: np.ndarray, shown: np.ndarray, offsets: np.ndarray, counts: np.ndarray, p: np.ndarray,
                   values: np.ndarray, worth: np.ndarray, out: np.ndarray) -> int:
    """:func:`heuristic_row` from a given distribution of what the others will still show
    (``offsets`` (5, 14): exact, or a learned belief's), ``shown`` the cards certain to be shown."""
    out[:] = 0.0
    phase = t.phase[g]
    for c in range(NUM_CATEGORIES):
        base = shown[c] - shown[NUM_CATEGORIES + c]
        count_distribution(offsets, c, base, counts[0, c])
        count_distribution(offsets, c, base - 1, counts[1, c])
        count_distribution(offsets, c, base + 1, counts[2, c])
    space_probabilities(counts[0], p)
    for c in range(NUM_CATEGORIES):
        expected = 0.0
        for k in range(NUM_COUNTS):
            expected += counts[0, c, k] * k
        out[NUM_CATEGORIES * NUM_SPACES + c] = expected / _MAX_COUNT
        for space in range(NUM_SPACES):
            out[c * NUM_SPACES + space] = p[c, space]
    if t.current[g] != seat:  # not this seat's turn, or the game is over: no decision
        return -1
    single = only_action(t, g, mask)
    if single != SEVERAL:
        return single
    if phase == BET:
        all_bet_gains(t, r, g, seat, chip_cost, p, values)
        for action in range(A.NUM_BETS):
            out[_BETS + action] = min(1.0, max(-1.0, values[action] / _SCALE))
        return bet_choice(t, r, g, seat, chip_cost, mask, p, False, TIE_MARGIN, values)
    if phase == REVEAL or phase == DISCARD:
        card_worths(t, r, g, seat, chip_cost, rival_weight, counts, worth)
        best = -np.inf
        for card in range(NUM_CARD_TYPES):
            if t.hands[g, seat, card] > 0 and worth[card] > best:
                best = worth[card]
        for card in range(NUM_CARD_TYPES):
            held = t.hands[g, seat, card] > 0
            out[_CARDS + card] = max(-1.0, (worth[card] - best) / _SCALE) if held else -1.0
        choice = card_choice(t, g, seat, phase == REVEAL, rival_weight, TIE_MARGIN, worth)
        if choice < 0:
            return choice
        return (A.REVEAL_BASE if phase == REVEAL else A.DISCARD_BASE) + choice
    return single


@compiled
def heuristic_rows(t: Tables, r: Rules, rows: np.ndarray, seats: np.ndarray, chip_cost: np.ndarray,
                   rival_weight: float, mask: np.ndarray, unseen: np.ndarray, shown: np.ndarray, offsets: np.ndarray,
                   counts: np.ndarray, p: np.ndarray, values: np.ndarray, worth: np.ndarray, out: np.ndarray,
                   choices: np.ndarray) -> None:
    """:func:`heuristic_row` for seat ``seats[k]`` of game ``rows[k]`` into ``out[k]``, its choice
    into ``choices[k]`` (and the one-hot, unless it is :data:`UNCLEAR` or there is none)."""
    for k in range(rows.shape[0]):
        choice = heuristic_row(t, r, rows[k], seats[k], chip_cost, rival_weight, mask, unseen, shown, offsets,
                               counts, p, values, worth, out[k])
        choices[k] = choice
        if choice >= 0:
            out[k, _CHOICE + choice] = 1.0


@compiled
def belief_rows(t: Tables, r: Rules, rows: np.ndarray, seats: np.ndarray, chip_cost: np.ndarray, rival_weight: float,
                mask: np.ndarray, unseen: np.ndarray, shown: np.ndarray, offsets: np.ndarray, counts: np.ndarray,
                p: np.ndarray, values: np.ndarray, worth: np.ndarray, out: np.ndarray) -> None:
    """:func:`evaluation_row` of seat ``seats[k]`` in game ``rows[k]`` on the learned belief
    ``offsets[k]`` into ``out[k]`` (the choice part left empty)."""
    for k in range(rows.shape[0]):
        known_position(t, r, rows[k], seats[k], unseen, shown)
        evaluation_row(t, r, rows[k], seats[k], chip_cost, rival_weight, mask, shown, offsets[k], counts, p, values,
                       worth, out[k])


class HeuristicRows:
    """``members_only_heuristic``'s extra inputs for rows of a batched engine (work arrays kept)."""

    def __init__(self) -> None:
        self.scratch = Scratch()
        self.cost = np.array(_BOT.chip_cost, dtype=np.float64)
        self.counts = np.zeros((3, NUM_CATEGORIES, NUM_COUNTS))
        self.values = np.zeros(A.NUM_BETS)

    def __call__(self, games, rows: np.ndarray, seats: np.ndarray) -> np.ndarray:
        """(K, 236) float32: the inputs after the observation for seat ``seats[k]`` of game ``rows[k]``."""
        s = self.scratch
        rows, seats = np.asarray(rows, np.int64), np.asarray(seats, np.int64)
        out = np.zeros((len(rows), HEURISTIC_SIZE), np.float64)
        choices = np.zeros(len(rows), np.int64)
        heuristic_rows(games.tables, games.rules, rows, seats, self.cost, float(_BOT.rival_weight), s.mask, s.unseen,
                       s.shown, s.offsets, self.counts, s.p, self.values, s.worth, out, choices)
        for k in np.flatnonzero(choices == UNCLEAR):
            out[k, _CHOICE + reference_choice(games, int(rows[k]), _BOT, scratch=s)] = 1.0
        return out.astype(np.float32)


_ROWS = HeuristicRows()


def learned_belief_extras(games, rows: np.ndarray, seats: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """(K, 45 + 80 + 10) float32: the count features, bet gains and card worths of each row on its
    learned belief ``offsets`` (K, 5, 14), in the layout of ``members_only_heuristic``'s first parts."""
    s = _ROWS.scratch
    rows, seats = np.asarray(rows, np.int64), np.asarray(seats, np.int64)
    out = np.zeros((len(rows), HEURISTIC_SIZE), np.float64)
    belief_rows(games.tables, games.rules, rows, seats, _ROWS.cost, float(_BOT.rival_weight), s.mask, s.unseen,
                s.shown, np.ascontiguousarray(offsets, np.float64), _ROWS.counts, s.p, _ROWS.values, s.worth, out)
    return out[:, :_CHOICE].astype(np.float32)


def heuristic_inputs_state(observations: np.ndarray, masks: np.ndarray, state) -> np.ndarray:
    """``members_only_heuristic`` inputs of rows of the batched engine (a
    :class:`~club_envs.agents.batched.GameRows`): the observation, then :class:`HeuristicRows`."""
    extra = _ROWS(state.games, state.rows, state.seats)
    return np.concatenate([np.asarray(observations, np.float32), extra], axis=1)
