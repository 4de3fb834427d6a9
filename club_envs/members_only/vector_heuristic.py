"""The exact ``heuristic`` bot of :mod:`club_envs.members_only.bots` on the batched engine's arrays.

:class:`~club_envs.members_only.bots.HeuristicAgent` (``samples=None``; ``heuristic_bold`` is the
same rule with other ``chip_cost`` and ``rival_weight``) reads each position as exact count
distributions (:mod:`club_envs.members_only.beliefs`) and chooses by the largest expected gain. This
module does the same arithmetic in compiled loops for one game of
:mod:`club_envs.members_only.vector_engine` at a time, reading the tables directly: the
hypergeometric distribution of what the other players will still show, the final count of each
category, the expected gain of every bet and the worth of the board's chips if each card in hand
were the one held back.

**Ties.** The bot's choice is an ``argmax`` over floating-point numbers that the reference computes
with numpy (``exp``, ``einsum``, a BLAS matrix product, pairwise sums), and this code computes in
another order; the two agree to about 1e-15, not bit for bit. So a choice is made here only when
it is clear: the best candidate beats every other by more than :data:`TIE_MARGIN` (and a bet's
gain is clear of 0 by as much). Otherwise :func:`heuristic_action` answers :data:`UNCLEAR` and the
caller asks the reference bot on the same position (``vector_views.view_of``), which resolves
the near-tie exactly as the bot does. Candidates whose numbers are equal by construction in
both -- cards whose category has no chip on the board are worth the same whichever is held back
(or only chips that do not count for the seat) -- are not near-ties: the first of them wins, as the bot's scan in card order does. The tests
check the choices against the bot's at every decision of many recorded games.
"""

from __future__ import annotations

import math

import numpy as np

from club_envs.agents.base import Decision
from club_envs.members_only import actions as A
from club_envs.members_only import beliefs
from club_envs.members_only.compiled import compiled
from club_envs.members_only.engine import BET, DISCARD, REVEAL
from club_envs.members_only.heuristic_values import BET_ORDER
from club_envs.members_only.rules import (
    COPIES_PER_TYPE,
    DECK_SIZE,
    NO_PER_CATEGORY,
    NORMAL_PER_CATEGORY,
    NUM_CARD_TYPES,
    NUM_CATEGORIES,
    NUM_SPACES,
    SPACE_IS_AT_MOST,
    SPACE_THRESHOLD,
    TRACK_MAX,
    TRACK_SCORING_MIN,
)
from club_envs.members_only.vector_engine import NO_SEAT, Rules, Tables, chip_multiplier, legal_mask
from club_envs.members_only.vector_views import view_of

UNCLEAR = -2  # "too close to call here: ask the reference bot"
SEVERAL = -3  # "more than one legal action" (:func:`only_action`)
TIE_MARGIN = 1e-9  # far above the two computations' differences (~1e-15), far below real gaps
NUM_COUNTS = NORMAL_PER_CATEGORY + 1  # a category's final count is 0..11
NUM_OFFSETS = NORMAL_PER_CATEGORY + NO_PER_CATEGORY + 1  # drawn normal - drawn NO!: -2..11
_K_SHIFT = NORMAL_PER_CATEGORY + NO_PER_CATEGORY


def _log_choose_table() -> np.ndarray:
    """``table[n, k + 13] = log C(n, k)`` (``-inf`` outside 0 <= k <= n), as :mod:`beliefs` builds it."""
    log_factorial = np.concatenate([[0.0], np.cumsum(np.log(np.arange(1, DECK_SIZE + 1)))])
    n = np.arange(DECK_SIZE + 1)[:, None]
    k = np.arange(-_K_SHIFT, DECK_SIZE + 2)[None, :]
    ok = (k >= 0) & (k <= n)
    kk = np.where(ok, k, 0)
    return np.where(ok, log_factorial[n] - log_factorial[kk] - log_factorial[np.where(ok, n - kk, 0)], -np.inf)


_LOG_CHOOSE = _log_choose_table()
_COPIES = np.array(COPIES_PER_TYPE, dtype=np.int64)
_THRESHOLD = np.array(SPACE_THRESHOLD, dtype=np.int64)
_AT_MOST = np.array(SPACE_IS_AT_MOST, dtype=np.bool_)
_BET_ORDER = np.asarray(BET_ORDER, dtype=np.int64)


class Scratch:
    """Work arrays for :func:`heuristic_action` (compiled code allocates nothing)."""

    def __init__(self) -> None:
        self.mask = np.zeros(A.NUM_ACTIONS, np.bool_)
        self.unseen = np.zeros(NUM_CARD_TYPES, np.int64)
        self.shown = np.zeros(NUM_CARD_TYPES, np.int64)
        self.offsets = np.zeros((NUM_CATEGORIES, NUM_OFFSETS))
        self.counts = np.zeros((3, NUM_CATEGORIES, NUM_COUNTS))  # base, one normal fewer, one NO! fewer
        self.p = np.zeros((NUM_CATEGORIES, NUM_SPACES))
        self.values = np.zeros(A.NUM_BETS)
        self.worth = np.zeros(NUM_CARD_TYPES)

    def arrays(self) -> tuple:
        return self.mask, self.unseen, self.shown, self.offsets, self.counts, self.p, self.values, self.worth


@compiled
def track_value(value: float) -> float:
    """What a track position is worth to its owner (``heuristic_values.track_value``)."""
    return value if value >= TRACK_SCORING_MIN else 0.5 * value


@compiled
def known_position(t: Tables, r: Rules, g: int, seat: int, unseen: np.ndarray, shown: np.ndarray) -> int:
    """``heuristic_values.known_position``: fills the unseen cards and the cards certain to be
    shown (display + own hand + a picked reveal); returns how many cards the others will still show."""
    for card in range(NUM_CARD_TYPES):
        own = t.hands[g, seat, card]
        if t.current[g] == seat and t.pending[g] == card:
            own += 1
        unseen[card] = _COPIES[card] - t.display[g, card] - own
        shown[card] = t.display[g, card] + own
    if t.discards[g, seat] != NO_SEAT:
        unseen[t.discards[g, seat]] -= 1
    to_come = 0
    for s in range(r.num_players):
        if s != seat:
            to_come += t.hand_sizes[g, s]
    return max(0, to_come - (r.num_players - 1))


@compiled
def offset_distribution(unseen: np.ndarray, to_come: int, out: np.ndarray) -> None:
    """``beliefs.offset_distribution`` of one position: P(drawn normal - drawn NO! = d), d = -2..11,
    per category ``out`` (5, 14), when ``to_come`` cards are drawn from ``unseen``."""
    total = 0
    for card in range(NUM_CARD_TYPES):
        total += unseen[card]
    drawn = min(max(to_come, 0), total)
    lc = _LOG_CHOOSE
    for c in range(NUM_CATEGORIES):
        normal, no = unseen[c], unseen[NUM_CATEGORIES + c]
        rest = total - normal - no
        out[c, :] = 0.0
        for y in range(NO_PER_CATEGORY + 1):
            for x in range(NORMAL_PER_CATEGORY + 1):
                log_p = (lc[normal, x + _K_SHIFT] + lc[no, y + _K_SHIFT] + lc[rest, drawn - x - y + _K_SHIFT]
                         - lc[total, drawn + _K_SHIFT])
                out[c, NO_PER_CATEGORY - y + x] += math.exp(log_p)


@compiled
def count_distribution(offsets: np.ndarray, c: int, base: int, out: np.ndarray) -> None:
    """``beliefs.count_distribution`` of category ``c``: P(final count = k), k = 0..11, when its
    shown normal minus shown NO! cards are ``base``."""
    out[:] = 0.0
    for o in range(NUM_OFFSETS):
        k = min(max(base + o - NO_PER_CATEGORY, 0), NUM_COUNTS - 1)
        out[k] += offsets[c, o]


@compiled
def space_correct(count: int, space: int) -> bool:
    """Is a chip on ``space`` correct when its category's final count is ``count``?"""
    return (count <= _THRESHOLD[space]) if _AT_MOST[space] else (count >= _THRESHOLD[space])


@compiled
def p_correct(counts: np.ndarray, space: int) -> float:
    """P(a chip on ``space`` is correct) from one category's count distribution."""
    p = 0.0
    for k in range(NUM_COUNTS):
        if space_correct(k, space):
            p += counts[k]
    return p


@compiled
def bet_choice(t: Tables, r: Rules, g: int, seat: int, chip_cost: np.ndarray, mask: np.ndarray,
               p: np.ndarray, exact: bool, margin: float, values: np.ndarray) -> int:
    """``HeuristicAgent._bet`` from P(correct) of every space ``p`` (5, 8): the legal bet with the
    best expected gain (single chips first, the first of equals) if that gain is positive, else no
    bet -- or :data:`UNCLEAR` for a near-tie (two gains, or the best gain and 0, within ``margin``),
    unless ``p`` is ``exact`` (the reference's own numbers: then the gains below are the bot's to
    the bit, the same operations in the same order)."""
    risk = 1 if t.round[g] == 1 else 0
    best, best_value = -1, 0.0
    for i in range(_BET_ORDER.shape[0]):
        action = _BET_ORDER[i]
        if not mask[action]:
            continue
        spot, chip = action >> 1, action & 1
        c, space = spot // NUM_SPACES, spot % NUM_SPACES
        track = float(t.tracks[g, seat, c])
        after = min(float(TRACK_MAX), track + float(r.rewards[space]) * chip_multiplier(chip, risk))
        gain = track_value(after) - track_value(track)
        value = p[c, space] * gain - (1.0 - p[c, space]) * chip_cost[chip]
        values[action] = value
        if best < 0 or value > best_value:
            best, best_value = action, value
    if best < 0:
        return A.NO_BET
    if not exact:
        if abs(best_value) <= margin:
            return UNCLEAR
        for i in range(_BET_ORDER.shape[0]):
            action = _BET_ORDER[i]
            if mask[action] and action != best and abs(values[action] - best_value) <= margin:
                return UNCLEAR
    return best if best_value > 0.0 else A.NO_BET


@compiled
def space_probabilities(counts: np.ndarray, out: np.ndarray) -> None:
    """P(a chip on each space is correct) ``out`` (5, 8) from the count distributions (5, 12)."""
    for c in range(NUM_CATEGORIES):
        for space in range(NUM_SPACES):
            out[c, space] = p_correct(counts[c], space)


@compiled
def chip_stakes(t: Tables, r: Rules, g: int, seat: int, i: int, chip_cost: np.ndarray,
                rival_weight: float) -> tuple[int, int, float, float]:
    """The ``i``-th chip placed on game ``g``'s board: its category, its space, and what it is
    worth to ``seat`` if correct and if wrong (``bots._board_chips``: its own chips fully, rivals'
    by -rival_weight; a correct chip moves its owner's track, a wrong one costs its chip)."""
    spot = t.bet_spots[g, i]
    owner, kind = t.board_owner[g, spot], t.board_chip[g, spot]
    c, space = spot // NUM_SPACES, spot % NUM_SPACES
    track = float(t.tracks[g, owner, c])
    points = r.rewards[space] * chip_multiplier(kind, t.board_risk[g, spot])
    gain = track_value(min(float(TRACK_MAX), track + points)) - track_value(track)
    weight = 1.0 if owner == seat else -rival_weight
    return c, space, weight * gain, -weight * chip_cost[kind]


@compiled
def card_worths(t: Tables, r: Rules, g: int, seat: int, chip_cost: np.ndarray, rival_weight: float,
                counts: np.ndarray, worth: np.ndarray) -> None:
    """``HeuristicAgent.card_values`` for every card type: the expected worth to ``seat`` of every
    chip on the board (its own fully, rivals' by -rival_weight) if one card of that type is held
    back. ``counts[0]`` is the position's count distribution, ``counts[1]`` / ``counts[2]`` each
    category's with one normal / one NO! card of it fewer shown."""
    worth[:] = 0.0
    for i in range(t.bet_count[g]):
        c, space, win, lose = chip_stakes(t, r, g, seat, i, chip_cost, rival_weight)
        p_same = p_correct(counts[0, c], space)
        same = p_same * win + (1.0 - p_same) * lose
        for card in range(NUM_CARD_TYPES):
            category = card % NUM_CATEGORIES
            if category != c:
                worth[card] += same
            else:
                p = p_correct(counts[1 if card < NUM_CATEGORIES else 2, c], space)
                worth[card] += p * win + (1.0 - p) * lose


@compiled
def best_card(t: Tables, g: int, seat: int, lowest: bool, worth: np.ndarray) -> int:
    """The card in hand whose absence is worth least (``lowest``) or most, the first of equals --
    numpy's ``argmin`` / ``argmax`` over the cards in hand."""
    best = -1
    for card in range(NUM_CARD_TYPES):
        if t.hands[g, seat, card] > 0:
            if best < 0 or (worth[card] < worth[best] if lowest else worth[card] > worth[best]):
                best = card
    return best


@compiled
def card_choice(t: Tables, g: int, seat: int, lowest: bool, rival_weight: float, margin: float,
                worth: np.ndarray) -> int:
    """The card in hand whose absence is worth least (``lowest``: the reveal) or most (the
    discard), the first of equals -- or :data:`UNCLEAR` for a near-tie (worths within ``margin``)
    between cards whose worths are not equal by construction."""
    best = best_card(t, g, seat, lowest, worth)
    best_free = not _counts_for(t, g, seat, best % NUM_CATEGORIES, rival_weight)
    for card in range(NUM_CARD_TYPES):
        if card == best or t.hands[g, seat, card] == 0 or abs(worth[card] - worth[best]) > margin:
            continue
        if not (best_free and not _counts_for(t, g, seat, card % NUM_CATEGORIES, rival_weight)):
            return UNCLEAR
    return best


@compiled
def _counts_for(t: Tables, g: int, seat: int, category: int, rival_weight: float) -> bool:
    """Does a chip of ``category`` count for ``seat`` (its own, or a rival's with a rival weight)?
    Holding back a card of a category no such chip is on changes no term of the worth: the worths
    of all such cards are the same sums of the same numbers, here and in the reference."""
    for space in range(NUM_SPACES):
        owner = t.board_owner[g, category * NUM_SPACES + space]
        if owner == seat or (owner != NO_SEAT and rival_weight != 0.0):
            return True
    return False


@compiled
def only_action(t: Tables, g: int, mask: np.ndarray) -> int:
    """The legal action of game ``g``'s player to move when it has exactly one (no choice to
    make), else :data:`SEVERAL` (``mask``: filled with the legal actions)."""
    legal_mask(t, g, mask)
    legal, first = 0, -1
    for action in range(A.NUM_ACTIONS):
        if mask[action]:
            legal += 1
            if first < 0:
                first = action
    return first if legal == 1 else SEVERAL


@compiled
def choice_on_offsets(
    t: Tables, r: Rules, g: int, seat: int, chip_cost: np.ndarray, rival_weight: float, margin: float,
    mask: np.ndarray, shown: np.ndarray, offsets: np.ndarray, counts: np.ndarray, p: np.ndarray,
    values: np.ndarray, worth: np.ndarray,
) -> int:
    """The heuristic's decision rule for ``seat`` to move in game ``g`` (``mask``: its legal
    actions, several) on ``offsets`` (5, 14), the distribution of what the other players will still
    add to each category -- the bot's own hypergeometric one, or a learned belief
    (:mod:`club_envs.members_only.vector_belief`): every bet's expected gain, or the card to hold
    back; :data:`UNCLEAR` for a near-tie within ``margin``. ``shown``: the cards certain to be shown
    (:func:`known_position`)."""
    phase = t.phase[g]
    for c in range(NUM_CATEGORIES):
        base = shown[c] - shown[NUM_CATEGORIES + c]
        count_distribution(offsets, c, base, counts[0, c])
        if phase != BET:
            count_distribution(offsets, c, base - 1, counts[1, c])
            count_distribution(offsets, c, base + 1, counts[2, c])
    if phase == BET:
        space_probabilities(counts[0], p)
        return bet_choice(t, r, g, seat, chip_cost, mask, p, False, margin, values)
    card_worths(t, r, g, seat, chip_cost, rival_weight, counts, worth)
    if phase == REVEAL:
        best = card_choice(t, g, seat, True, rival_weight, margin, worth)
        return best if best < 0 else A.REVEAL_BASE + best
    if phase == DISCARD:
        best = card_choice(t, g, seat, False, rival_weight, margin, worth)
        return best if best < 0 else A.DISCARD_BASE + best
    return UNCLEAR


@compiled
def heuristic_action(
    t: Tables, r: Rules, g: int, chip_cost: np.ndarray, rival_weight: float, mask: np.ndarray,
    unseen: np.ndarray, shown: np.ndarray, offsets: np.ndarray, counts: np.ndarray, p: np.ndarray,
    values: np.ndarray, worth: np.ndarray,
) -> int:
    """``HeuristicAgent(chip_cost=..., rival_weight=...).act`` for the player to move in game ``g``
    (still playing), or :data:`UNCLEAR` (see the module docstring). The other arguments are
    :class:`Scratch` arrays."""
    seat = t.current[g]
    single = only_action(t, g, mask)
    if single != SEVERAL:
        return single
    to_come = known_position(t, r, g, seat, unseen, shown)
    offset_distribution(unseen, to_come, offsets)
    return choice_on_offsets(t, r, g, seat, chip_cost, rival_weight, TIE_MARGIN, mask, shown, offsets, counts, p,
                             values, worth)


def choose(games, g: int, bot, scratch: Scratch) -> tuple[int, bool]:
    """The choice of ``bot`` (a :class:`~club_envs.members_only.bots.HeuristicAgent` with
    ``samples=None``) for the player to move in game ``g`` of a
    :class:`~club_envs.members_only.vector_engine.VectorGames`: the compiled answer, or the
    reference bot's on the same position (:func:`reference_choice`) when that is a near-tie.
    Returns ``(action, unclear)``."""
    cost = np.array(bot.chip_cost, dtype=np.float64)
    action = heuristic_action(games.tables, games.rules, g, cost, float(bot.rival_weight), *scratch.arrays())
    if action != UNCLEAR:
        return int(action), False
    return reference_choice(games, g, bot, scratch=scratch), True


def reference_choice(games, g: int, bot, mask: np.ndarray | None = None, scratch: Scratch | None = None) -> int:
    """The bot's choice for the player to move in game ``g``, settled by the reference's own
    numbers (``mask``: that player's legal actions, if already at hand). A bet needs only the
    reference's P(correct) of every space (:mod:`club_envs.members_only.beliefs`, the bot's very
    call); the gains from it are computed here to the bit. A reveal or discard asks ``bot.act`` on
    the seat's view, built from the arrays."""
    t = games.tables
    seat = int(t.current[g])
    mask = (games.legal_masks()[g] if mask is None else mask).copy()
    if t.phase[g] == BET:
        scratch = scratch or Scratch()
        to_come = known_position(t, games.rules, g, seat, scratch.unseen, scratch.shown)
        p = beliefs.space_probabilities(beliefs.position_counts(scratch.unseen, to_come, scratch.shown))
        cost = np.array(bot.chip_cost, dtype=np.float64)
        return int(bet_choice(t, games.rules, g, seat, cost, mask, np.ascontiguousarray(p), True, TIE_MARGIN,
                              scratch.values))
    legal = np.flatnonzero(mask).tolist()
    return int(bot.act(Decision(seat, view_of(games, g, seat), legal, lambda: None, lambda: mask)))
