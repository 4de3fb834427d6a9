"""The ``heuristic`` bot of :mod:`club_envs.arkham_decoders.bots` on the batched engine's arrays.

:class:`~club_envs.arkham_decoders.bots.HeuristicAgent` reads the public votes as a posterior over
(which advisor is the Black Man) x (which book is true) with its vote model, then proposes the
card of highest expected points, votes and picks by rule. This module does the same arithmetic in
compiled code for one game's record of :mod:`club_envs.arkham_decoders.vector_engine`, with every
function named after its counterpart in ``bots`` (and ``features``, which builds on them).

**Same numbers.** Every quantity is a few float64 sums, products and quotients, and each is taken
here with the reference's operations in the reference's order: the likelihood multiplied advice by
advice from 1.0 with the bot's own factor table, the posterior's total summed as numpy sums eight
numbers, Python's left-to-right ``sum`` wherever the reference calls it. IEEE arithmetic without
fast-math gives the same bits compiled and in Python, so the choices are the bot's; the tests
compare them at every decision of many games.

**Near-ties.** As a guard all the same, a choice whose deciding comparison is closer than
:data:`TIE_MARGIN` without being an exact tie is not made here: :func:`heuristic_action` answers
:data:`UNCLEAR` and the caller asks the reference bot on the same position
(:func:`reference_choice`, through :func:`~club_envs.arkham_decoders.vector_views.view_of`). About
three decisions in a thousand are such near-ties, nearly all of them two books the votes cannot
tell apart, whose probabilities differ in the last bit only: the reference's choice rests on that
bit, which this code reproduces, so the guard changes no decision and costs only the time of the
reference bot. Exact ties are not near-ties: they are ties in the reference too (the cards of a
book known to be fake are all worth +1), and they are broken as the reference breaks them.
"""

from __future__ import annotations

import numpy as np

from club_envs.agents.base import Decision
from club_envs.arkham_decoders import actions as A
from club_envs.arkham_decoders.bots import (
    INV_AGREE_ABOVE_EXPECTED,
    PASS_BELOW_EXPECTED_POINTS,
    HeuristicAgent,
    _advice_factors,
)
from club_envs.arkham_decoders.rules import (
    CARDS_PER_PROPOSAL,
    FAKE_CARD_POINTS,
    NUM_BOOKS,
    NUM_CARDS,
    NUM_VALUES,
    PEEK_AT_DECODED,
    VALUES,
)
from club_envs.arkham_decoders.vector_engine import (
    ADVISOR_ROLE,
    CHOOSE,
    MAX_SEATS,
    NONE,
    PROPOSAL,
    VOTE,
    Rules,
    eligible_slots,
    is_face_up,
    legal_mask,
)
from club_envs.arkham_decoders.vector_views import view_of
from club_envs.compiled import compiled

UNCLEAR = -2  # "too close to call here: ask the reference bot"
TIE_MARGIN = 1e-9  # far below the gaps between real choices, far above a few bits of rounding
_ALL_BOOKS = 1 << NUM_BOOKS
# The bot's vote model: _FACTORS[books, first, second, b, t] is bots._advice_factors -- the
# probability of the votes (first, second) on a table holding the books set in ``books`` if
# advisor b is the Black Man and book t is true -- taken from the bot itself, to the bit.
_FACTORS = np.array(
    [[[_advice_factors(books, bool(first), bool(second)) for second in (0, 1)] for first in (0, 1)]
     for books in range(_ALL_BOOKS)],
    dtype=np.float64,
)
_VALUES = np.array(VALUES, dtype=np.float64)
_REFERENCE_BOT = HeuristicAgent()  # deterministic: one serves every seat


class Scratch:
    """Work arrays for the compiled bot (compiled code allocates nothing): the mask, the vote
    likelihood, a posterior, the seat's ``P(true)``, the leader's ``P(true)`` and the seats' SAN."""

    def __init__(self) -> None:
        self.mask = np.zeros(A.NUM_ACTIONS, np.bool_)
        self.likelihood = np.zeros((2, NUM_BOOKS))
        self.post = np.zeros((2, NUM_BOOKS))
        self.p_true = np.zeros(NUM_BOOKS)
        self.p_leader = np.zeros(NUM_BOOKS)
        self.san = np.zeros(MAX_SEATS)

    def arrays(self) -> tuple:
        return self.mask, self.likelihood, self.post, self.p_true, self.p_leader, self.san


# --------------------------------------------------------------------------- the belief


@compiled
def table_books(cards: np.ndarray, count: int) -> int:
    """Bit ``t`` set when one of the ``count`` cards is of book ``t``."""
    books = 0
    for slot in range(count):
        books |= 1 << (cards[slot] // NUM_VALUES)
    return books


@compiled
def extend(likelihood: np.ndarray, books: int, first: int, second: int) -> None:
    """``bots._extend``: ``likelihood`` times the vote model's probability of one more advice, on a
    table holding ``books`` voted (``first``, ``second``), in place."""
    for b in range(2):
        for t in range(NUM_BOOKS):
            likelihood[b, t] = likelihood[b, t] * _FACTORS[books, first, second, b, t]


@compiled
def vote_likelihood(s, out: np.ndarray) -> None:
    """``bots._vote_likelihood``: ``out[b, t]``, the probability of the public vote history if
    advisor ``b`` is the Black Man and book ``t`` is true -- 1.0 times each advice's factor, oldest
    first."""
    out[:, :] = 1.0
    for i in range(s.vote_count):
        extend(out, table_books(s.advice_cards[i], CARDS_PER_PROPOSAL), s.advice_votes[i, 0], s.advice_votes[i, 1])


@compiled
def posterior(s, likelihood: np.ndarray, black_man: int, out: np.ndarray) -> None:
    """``bots._posterior``: ``likelihood`` normalised, with the face-up grimoires and, if
    ``black_man`` is a seat, his rival ruled out; the total summed as numpy sums eight numbers."""
    for b in range(2):
        for t in range(NUM_BOOKS):
            out[b, t] = likelihood[b, t]
    for i in range(s.face_up_count):
        out[0, s.face_up[i]] = 0.0
        out[1, s.face_up[i]] = 0.0
    if black_man != NONE:
        rival = 1 if s.advisors[0] == black_man else 0
        out[rival, :] = 0.0
    total = ((out[0, 0] + out[0, 1]) + (out[0, 2] + out[0, 3])) + ((out[1, 0] + out[1, 1]) + (out[1, 2] + out[1, 3]))
    if total > 0:
        for b in range(2):
            for t in range(NUM_BOOKS):
                out[b, t] = out[b, t] / total
    else:
        out[:, :] = 1.0 / (2 * NUM_BOOKS)


@compiled
def known_black_man(s, seat: int) -> int:
    """The Black Man's seat if ``seat`` knows it (an advisor, or a seat that peeked), else -1."""
    if s.roles[seat] == ADVISOR_ROLE or s.peeked[seat]:
        return s.black_man
    return NONE


@compiled
def book_sums(post: np.ndarray, out: np.ndarray) -> None:
    """``post.sum(axis=0)``: ``P[t]`` over both hypotheses of who the Black Man is."""
    for t in range(NUM_BOOKS):
        out[t] = post[0, t] + post[1, t]


@compiled
def investigator_true_book(post: np.ndarray, row: int, grimoire: int, out: np.ndarray) -> None:
    """``bots.investigator_true_book``: the Investigator's ``P[t]`` from the ``row`` of ``post``
    in which the Black Man is the one it knows, its own grimoire a known fake."""
    for t in range(NUM_BOOKS):
        out[t] = post[row, t]
    out[grimoire] = 0.0
    total = 0.0
    for t in range(NUM_BOOKS):
        total += out[t]
    if total > 0:
        for t in range(NUM_BOOKS):
            out[t] = out[t] / total


@compiled
def true_book_probabilities(s, seat: int, post: np.ndarray, out: np.ndarray) -> None:
    """``bots.true_book_probabilities``: ``P[t]`` as ``seat`` can best tell, from its belief
    ``post`` -- certain for the Black Man, the Investigator's from the Black Man's row."""
    if s.roles[seat] == ADVISOR_ROLE:
        if seat == s.black_man:
            out[:] = 0.0
            out[s.true_book] = 1.0
        else:
            investigator_true_book(post, 0 if s.advisors[0] == s.black_man else 1, s.grimoire[seat], out)
    else:
        book_sums(post, out)


@compiled
def leader_has_peeked(s) -> bool:
    """Whether the leader knows the Black Man (its decoded cards, public, let it peek)."""
    return s.decoded_count[s.leader] >= PEEK_AT_DECODED


@compiled
def leader_true_book(s, likelihood: np.ndarray, black_man: int, post: np.ndarray, out: np.ndarray) -> None:
    """``bots.leader_true_book``: ``P[t]`` as the leader holds it when ``black_man`` is the Black
    Man (``post``: room for the leader's belief)."""
    posterior(s, likelihood, black_man if leader_has_peeked(s) else NONE, post)
    book_sums(post, out)


# --------------------------------------------------------------------------- the decisions


@compiled
def expected_points(card: int, p: np.ndarray) -> float:
    """``bots.expected_points``: the expected SAN of decoding ``card`` given ``P[t]``."""
    chance = p[card // NUM_VALUES]
    return chance * _VALUES[card % NUM_VALUES] + (1.0 - chance) * FAKE_CARD_POINTS


@compiled
def near(x: float, y: float) -> bool:
    """Closer than :data:`TIE_MARGIN` without being equal: a comparison left to the reference."""
    return x != y and abs(x - y) <= TIE_MARGIN


@compiled
def known_san(s, r: Rules, p: np.ndarray, out: np.ndarray) -> None:
    """``bots.known_san``: each seat's expected SAN from its decoded cards, summed in decoding
    order (advisors: 0)."""
    for seat in range(r.num_players):
        total = 0.0
        if s.roles[seat] != ADVISOR_ROLE:
            for i in range(s.decoded_count[seat]):
                total += expected_points(s.decoded_order[seat, i], p)
        out[seat] = total


@compiled
def leader_pick(s, r: Rules, p: np.ndarray, san: np.ndarray) -> int:
    """``bots.leader_pick``: the eligible slot with the highest expected points, ties to the owner
    with the lowest SAN (``san``: room for them), -1 if none is eligible -- or :data:`UNCLEAR`."""
    eligible = eligible_slots(s)
    best, best_points, count = -1, 0.0, 0
    for slot in range(s.table_size):
        if eligible >> slot & 1:
            count += 1
            x = expected_points(s.table_cards[slot], p)
            if best < 0 or x > best_points:
                best, best_points = slot, x
    if count <= 1:
        return best
    tied = 0
    for slot in range(s.table_size):
        if eligible >> slot & 1:
            x = expected_points(s.table_cards[slot], p)
            if x == best_points:
                tied |= 1 << slot
            elif near(x, best_points):
                return UNCLEAR
    if tied == 1 << best:
        return best
    known_san(s, r, p, san)
    pick, pick_key = -1, 0.0
    for slot in range(s.table_size):
        if tied >> slot & 1:
            key = -san[s.table_seats[slot]]
            if pick < 0 or key > pick_key:
                pick, pick_key = slot, key
    for slot in range(s.table_size):
        if tied >> slot & 1 and near(-san[s.table_seats[slot]], pick_key):
            return UNCLEAR
    return pick


@compiled
def propose(s, seat: int, p: np.ndarray) -> int:
    """``HeuristicAgent._propose``: reveal the hand card of highest expected points (the lowest
    card id among equals); a member passes instead when even that is below
    ``PASS_BELOW_EXPECTED_POINTS``."""
    best, best_points = -1, 0.0
    for card in range(NUM_CARDS):
        if s.hands[seat, card]:
            x = expected_points(card, p)
            if best < 0 or x > best_points:
                best, best_points = card, x
    for card in range(NUM_CARDS):
        if s.hands[seat, card] and near(expected_points(card, p), best_points):
            return UNCLEAR
    if seat != s.leader:
        if near(best_points, PASS_BELOW_EXPECTED_POINTS):
            return UNCLEAR
        if best_points < PASS_BELOW_EXPECTED_POINTS:
            return A.PASS
    return A.REVEAL + best


@compiled
def investigator_vote(s, p: np.ndarray) -> int:
    """``bots.investigator_vote``: agree only when the face-up cards together are expected to
    score above ``INV_AGREE_ABOVE_EXPECTED``."""
    expected = 0.0
    for slot in range(s.table_size):
        expected += expected_points(s.table_cards[slot], p)
    if near(expected, INV_AGREE_ABOVE_EXPECTED):
        return UNCLEAR
    return A.AGREE if expected > INV_AGREE_ABOVE_EXPECTED else A.OPPOSE


@compiled
def holds_true_card(s) -> bool:
    for slot in range(s.table_size):
        if s.table_cards[slot] // NUM_VALUES == s.true_book:
            return True
    return False


@compiled
def black_man_vote(s, leader_slot: int) -> int:
    """``bots.black_man_vote``: agree only if the card the leader would decode after a 1-1 vote
    (``leader_slot``, -1 for none) is of the true book."""
    if leader_slot == UNCLEAR:
        return UNCLEAR
    if leader_slot >= 0 and s.table_cards[leader_slot] // NUM_VALUES == s.true_book:
        return A.AGREE
    return A.OPPOSE


@compiled
def first_legal(mask: np.ndarray) -> int:
    for action in range(mask.shape[0]):
        if mask[action]:
            return action
    return -1


@compiled
def act_on(s, r: Rules, seat: int, mask: np.ndarray, p_true: np.ndarray, san: np.ndarray) -> int:
    """``HeuristicAgent.act_on``: the team's move for ``seat`` given its ``P(true)``."""
    phase = s.phase
    if phase == PROPOSAL:
        return propose(s, seat, p_true)
    if phase == VOTE:
        return investigator_vote(s, p_true)
    if phase == CHOOSE:
        slot = leader_pick(s, r, p_true, san)
        if slot == UNCLEAR:
            return UNCLEAR
        if slot >= 0 and mask[A.DECODE + slot]:
            return A.DECODE + slot
    return first_legal(mask)


@compiled
def heuristic_action(
    s, r: Rules, mask: np.ndarray, likelihood: np.ndarray, post: np.ndarray, p_true: np.ndarray,
    p_leader: np.ndarray, san: np.ndarray,
) -> int:
    """``HeuristicAgent().act`` for the player to move in the game ``s`` (still playing), or
    :data:`UNCLEAR` (see the module docstring). The other arguments are :class:`Scratch` arrays."""
    seat = s.current
    legal_mask(s, mask)
    vote_likelihood(s, likelihood)
    if s.phase == VOTE and seat == s.black_man:
        if not holds_true_card(s):
            return A.OPPOSE
        leader_true_book(s, likelihood, seat, post, p_leader)
        return black_man_vote(s, leader_pick(s, r, p_leader, san))
    posterior(s, likelihood, known_black_man(s, seat), post)
    true_book_probabilities(s, seat, post, p_true)
    return act_on(s, r, seat, mask, p_true, san)


@compiled
def heuristic_actions(
    t: np.ndarray, r: Rules, rows: np.ndarray, out: np.ndarray, mask: np.ndarray, likelihood: np.ndarray,
    post: np.ndarray, p_true: np.ndarray, p_leader: np.ndarray, san: np.ndarray,
) -> None:
    """``out[k]``: :func:`heuristic_action` for the player to move in game ``rows[k]`` (still
    playing), or :data:`UNCLEAR`."""
    for k in range(rows.shape[0]):
        out[k] = heuristic_action(t[rows[k]], r, mask, likelihood, post, p_true, p_leader, san)


def reference_choice(games, g: int, mask: np.ndarray | None = None) -> int:
    """The reference bot's choice for the player to move in game ``g`` of a
    :class:`~club_envs.arkham_decoders.vector_engine.VectorGames`, on the seat's view built from
    the arrays (``mask``: that player's legal actions, if already at hand)."""
    seat = int(games.tables.current[g])
    mask = (games.legal_masks()[g] if mask is None else mask).copy()
    legal = np.flatnonzero(mask).tolist()
    return int(_REFERENCE_BOT.act(Decision(seat, view_of(games, g, seat), legal, lambda: None, lambda: mask)))


def choose(games, g: int, scratch: Scratch) -> tuple[int, bool]:
    """The heuristic bot's choice for the player to move in game ``g``: the compiled answer, or the
    reference bot's on the same position when that is a near-tie. Returns ``(action, unclear)``."""
    action = heuristic_action(games.tables[g], games.rules, *scratch.arrays())
    if action != UNCLEAR:
        return int(action), False
    return reference_choice(games, g), True


def choose_rows(games, rows: np.ndarray, scratch: Scratch) -> tuple[np.ndarray, int]:
    """The heuristic bot's choices for the players to move in the games ``rows`` (all still
    playing), as :func:`choose` makes them, in one compiled call; and how many were near-ties
    handed to the reference bot."""
    rows = np.asarray(rows, np.int64)
    out = np.empty(len(rows), np.int64)
    heuristic_actions(games.arrays, games.rules, rows, out, *scratch.arrays())
    unclear = np.flatnonzero(out == UNCLEAR)
    for k in unclear:
        out[k] = reference_choice(games, int(rows[k]))
    return out, len(unclear)


__all__ = ["TIE_MARGIN", "UNCLEAR", "Scratch", "choose", "choose_rows", "heuristic_action", "reference_choice"]
