"""The ``arkham_heuristic`` policy inputs (:mod:`club_envs.arkham_decoders.features`) from the
batched engine's arrays, for many games at once.

A frozen policy that reads these 94 numbers plays as an opponent in the vector environment as a
:class:`~club_envs.agents.batched.BatchedPolicy` with ``reads_state = True``: it is handed the
observations, the masks and a :class:`~club_envs.agents.batched.GameRows` (the batched engine,
and per row the game and the seat to move) and calls :func:`heuristic_inputs_rows` for its inputs.

Every piece is the reference's, in the reference's order of operations
(:mod:`club_envs.arkham_decoders.vector_heuristic` explains why the numbers agree to the bit), so
each row equals ``features.heuristic_inputs(observation, view, mask)`` of the same seat's view as
``float32``, byte for byte. Two parts are not compiled: the expected table total under ``p_true``
is numpy's ``dot`` of four numbers, which may run in BLAS (its order of summation is the BLAS
kernel's), so it is taken with ``numpy.dot`` row by row, as the reference takes it; and a row in
which one of the heuristic's choices is a near-tie (:data:`~club_envs.arkham_decoders.vector_heuristic.UNCLEAR`)
is computed by the reference on the seat's view (:func:`~club_envs.arkham_decoders.vector_views.view_of`).
A seat's row reads only what that seat may know: its belief conditions on the Black Man only if
the seat knows him, on the true book only if it is the Black Man, on a grimoire only its own.
"""

from __future__ import annotations

import threading
from typing import Any

import numpy as np

from club_envs.agents.batched import GameRows
from club_envs.arkham_decoders import actions as A
from club_envs.arkham_decoders.features import HEURISTIC_SIZE, POINT_SCALE, TOTAL_SCALE, heuristic_inputs, slices
from club_envs.arkham_decoders.observer import MAX_SEATS
from club_envs.arkham_decoders.rules import CARDS_PER_PROPOSAL, NUM_BOOKS, NUM_CARDS, NUM_VALUES, VALUES
from club_envs.arkham_decoders.vector_engine import ADVISOR_ROLE, NONE, VOTE, Rules, eligible_slots, is_face_up
from club_envs.arkham_decoders.vector_heuristic import (
    UNCLEAR,
    act_on,
    black_man_vote,
    book_sums,
    expected_points,
    extend,
    holds_true_card,
    investigator_true_book,
    investigator_vote,
    known_black_man,
    known_san,
    leader_has_peeked,
    leader_pick,
    posterior,
    table_books,
    true_book_probabilities,
    vote_likelihood,
)
from club_envs.arkham_decoders.vector_views import view_of
from club_envs.compiled import compiled

_AT = {name: piece.start for name, piece in slices().items()}  # where each piece starts in a row
BELIEF, P_TRUE_AT, P_PUBLIC_AT, CARD_POINTS = _AT["belief"], _AT["p_true"], _AT["p_true_public"], _AT["card_points"]
TABLE_POINTS, TABLE_SUM = _AT["table_points"], _AT["table_sum"]
PICK_MINE, PICK_PUBLIC, SEAT_SAN = _AT["pick_mine"], _AT["pick_public"], _AT["seat_san"]
TOTAL_SAN, VOTE_OUTCOME, ACTION = _AT["total_san"], _AT["vote_outcome"], _AT["heuristic_action"]
_VALUES = np.array(VALUES, dtype=np.int64)
NO_SLOTS = -1  # decoded_slots' answer for a near-tie (its other answers are bits)


# The work arrays of one row, by position in the :class:`Work` tuple: the vote likelihood and the
# look-ahead's; the seat's belief, a belief without the Black Man, one with a given Black Man, the
# look-ahead leader's; P(true) of the seat, of the leader, of a rival Investigator, of the
# look-ahead leader; SAN per seat; expected points per card; the rival hypotheses (weight, book,
# vote); the look-ahead's total change per vote pair, which pairs are known, SAN added per seat.
(LIKELIHOOD, EXTENDED, POST, UNKNOWING, ROW, POST_AFTER, P_TRUE, P_PUBLIC, P_RIVAL, P_LEADER, SAN, POINTS,
 WEIGHTS, BOOKS, VOTES, CHANGES, KNOWN, EXTRA) = range(18)


class Work:
    """Work arrays for :func:`heuristic_extra` (compiled code allocates nothing), as one tuple."""

    def __init__(self) -> None:
        books, pairs = (2, NUM_BOOKS), (2, 2)
        self.arrays = (
            *(np.zeros(books) for _ in range(6)), *(np.zeros(NUM_BOOKS) for _ in range(4)),
            np.zeros(MAX_SEATS), np.zeros(NUM_CARDS),
            np.zeros(NUM_BOOKS), np.zeros(NUM_BOOKS, np.int64), np.zeros(NUM_BOOKS, np.int64),
            np.zeros((*pairs, NUM_BOOKS), np.int64), np.zeros(pairs, np.bool_),
            np.zeros((MAX_SEATS, NUM_BOOKS), np.int64),
        )


_WORK = threading.local()


def thread_work() -> Work:
    """This thread's :class:`Work` (one set per thread, made on first use): the features of every
    decision are asked for many times a round, and 18 fresh arrays a call cost a twentieth of the
    games' time. Per thread, because compiled code writes into them and a training loop may read
    features in a second thread (``algorithm.overlap``)."""
    work = getattr(_WORK, "work", None)
    if work is None:
        work = _WORK.work = Work()
    return work


# --------------------------------------------------------------------------- the reading


@compiled
def sees_as_the_leader(s, seat: int, black_man: int) -> bool:
    """``features._sees_as_the_leader``: the seat holds no clue of its own about the book and knows
    the Black Man exactly when the leader does, so its ``P(true)`` is the public one."""
    if s.roles[seat] == ADVISOR_ROLE:
        return False
    return leader_has_peeked(s) == (black_man != NONE)


@compiled
def public_true_book(s, black_man: int, likelihood: np.ndarray, post: np.ndarray, unknowing: np.ndarray,
                     row: np.ndarray, out: np.ndarray) -> None:
    """``features.public_true_book``: ``P[t]`` as the leader holds it, for a seat whose belief is
    ``post`` and who knows the Black Man (``black_man``) or not (-1); ``unknowing`` and ``row``
    are room for the beliefs of a seat that does not know him and of one that knows each advisor."""
    leader_knows = leader_has_peeked(s)
    if leader_knows and black_man != NONE:
        book_sums(post, out)
        return
    source = post
    if black_man != NONE:
        posterior(s, likelihood, NONE, unknowing)
        source = unknowing
    if not leader_knows:
        book_sums(source, out)
        return
    out[:] = 0.0  # the leader knows him and this seat does not: average over who he is
    for b in range(2):
        posterior(s, likelihood, s.advisors[b], row)
        weight = ((source[b, 0] + source[b, 1]) + source[b, 2]) + source[b, 3]  # numpy sums four in order
        for t in range(NUM_BOOKS):
            out[t] = out[t] + weight * (row[0, t] + row[1, t])


# --------------------------------------------------------------------------- the table's SAN


@compiled
def pile_san(s, seat: int, book: int) -> int:
    """``features._pile_san``: the SAN of the seat's decoded cards if ``book`` is true."""
    total = 0
    for i in range(s.decoded_count[seat]):
        card = s.decoded_order[seat, i]
        total += _VALUES[card % NUM_VALUES] if card // NUM_VALUES == book else 1
    return total


@compiled
def penalised(san: int, penalty: int) -> int:
    """``features._penalised``: a seat's SAN as it counts in the table total."""
    return san - penalty if san <= 0 else san


@compiled
def totals(s, r: Rules, out: np.ndarray) -> None:
    """``features._totals``: the table's SAN total, penalties included, if book ``t`` is true."""
    for book in range(NUM_BOOKS):
        total = 0
        for seat in range(r.num_players):
            if s.roles[seat] != ADVISOR_ROLE:
                total += penalised(pile_san(s, seat, book), r.insanity_penalty)
        out[book] = float(total)


@compiled
def total_change(s, r: Rules, slots: int, extra: np.ndarray, out: np.ndarray) -> None:
    """``features._total_change``: per book, how the table total moves if the face-up ``slots``
    (bits) are decoded (``extra``: room for the SAN each seat's new cards add)."""
    extra[:, :] = 0
    touched = 0
    for slot in range(s.table_size):
        if slots >> slot & 1:
            seat, card = s.table_seats[slot], s.table_cards[slot]
            touched |= 1 << seat
            for book in range(NUM_BOOKS):
                extra[seat, book] += _VALUES[card % NUM_VALUES] if card // NUM_VALUES == book else 1
    out[:] = 0
    for seat in range(r.num_players):
        if touched >> seat & 1 and s.roles[seat] != ADVISOR_ROLE:
            for book in range(NUM_BOOKS):
                before = pile_san(s, seat, book)
                after = before + extra[seat, book]
                out[book] += penalised(after, r.insanity_penalty) - penalised(before, r.insanity_penalty)


# --------------------------------------------------------------------------- the vote look-ahead


@compiled
def decoded_slots(s, r: Rules, first: int, second: int, likelihood: np.ndarray, extended: np.ndarray,
                  post: np.ndarray, p_leader: np.ndarray, san: np.ndarray) -> int:
    """``features._decoded_slots``: the face-up slots (bits) decoded after the votes (``first``,
    ``second``), the leader choosing as the heuristic leader would -- or :data:`NO_SLOTS`."""
    agrees = first + second
    if agrees == 0:
        return 0
    if agrees == 2:
        return (1 << s.table_size) - 1
    eligible = eligible_slots(s)
    if eligible & (eligible - 1) == 0:  # at most one: no choice to make
        return eligible
    for b in range(2):
        for t in range(NUM_BOOKS):
            extended[b, t] = likelihood[b, t]
    extend(extended, table_books(s.table_cards, s.table_size), first, second)
    posterior(s, extended, s.black_man if leader_has_peeked(s) else NONE, post)
    book_sums(post, p_leader)
    slot = leader_pick(s, r, p_leader, san)
    if slot == UNCLEAR:
        return NO_SLOTS
    return 1 << slot if slot >= 0 else 0


@compiled
def rival_votes(s, seat: int, post: np.ndarray, p_true: np.ndarray, public_slot: int, p_rival: np.ndarray,
                weights: np.ndarray, books: np.ndarray, votes: np.ndarray) -> int:
    """``features._rival_votes``: (weight, true book, the other advisor's vote) per hypothesis this
    advisor holds, written into ``weights``, ``books``, ``votes``; returns how many (-1: a
    near-tie). The Black Man plays the Investigator of each grimoire it may hold, the Investigator
    the Black Man of each book that may be true."""
    count = 0
    if seat == s.black_man:
        row = 0 if s.advisors[0] == s.black_man else 1
        for grimoire in range(NUM_BOOKS):
            if grimoire == s.true_book or is_face_up(s, grimoire):
                continue
            investigator_true_book(post, row, grimoire, p_rival)
            vote = investigator_vote(s, p_rival)
            if vote == UNCLEAR:
                return -1
            weights[count], books[count], votes[count] = 1.0, s.true_book, 1 if vote == A.AGREE else 0
            count += 1
        return count
    picked = s.table_cards[public_slot] // NUM_VALUES if public_slot >= 0 else -1
    for book in range(NUM_BOOKS):
        if p_true[book] > 0:
            weights[count], books[count], votes[count] = p_true[book], book, 1 if picked == book else 0
            count += 1
    return count


@compiled
def vote_outcome(s, r: Rules, seat: int, public_slot: int, out: np.ndarray, work: tuple) -> bool:
    """``features._vote_outcome``: the table total's expected change if this advisor agrees and
    if it opposes, / 10, and the chance that the other advisor agrees, into ``out[:3]``; False for
    a near-tie."""
    likelihood, extended, post, post_after = work[LIKELIHOOD], work[EXTENDED], work[POST], work[POST_AFTER]
    p_true, p_rival, p_leader, san = work[P_TRUE], work[P_RIVAL], work[P_LEADER], work[SAN]
    weights, books, votes = work[WEIGHTS], work[BOOKS], work[VOTES]
    changes, known, extra = work[CHANGES], work[KNOWN], work[EXTRA]
    mine = 0 if s.advisors[0] == seat else 1
    count = rival_votes(s, seat, post, p_true, public_slot, p_rival, weights, books, votes)
    if count < 0:
        return False
    weight = 0.0
    for h in range(count):
        weight += weights[h]
    if weight <= 0:
        out[0] = out[1] = out[2] = 0.0
        return True
    known[:, :] = False
    agree = oppose = other_agrees = 0.0
    for h in range(count):
        for my_vote in (1, 0):
            first, second = (my_vote, votes[h]) if mine == 0 else (votes[h], my_vote)
            if not known[first, second]:  # the same for every hypothesis: the leader does not know the book
                slots = decoded_slots(s, r, first, second, likelihood, extended, post_after, p_leader, san)
                if slots == NO_SLOTS:
                    return False
                total_change(s, r, slots, extra, changes[first, second])
                known[first, second] = True
            change = weights[h] * changes[first, second, books[h]]
            if my_vote:
                agree += change
            else:
                oppose += change
        other_agrees += weights[h] * votes[h]
    out[0] = agree / weight / POINT_SCALE
    out[1] = oppose / weight / POINT_SCALE
    out[2] = other_agrees / weight
    return True


# --------------------------------------------------------------------------- one row


@compiled
def read_position(s, r: Rules, seat: int, work: tuple) -> tuple:
    """``features._read``: the seat's belief, ``P(true)``, the leader's ``P(true)`` and the slot
    the leader would decode under it (-1 before the table is full). Returns (the leader's slot,
    whether the two ``P(true)`` are one)."""
    likelihood, post, unknowing, row = work[LIKELIHOOD], work[POST], work[UNKNOWING], work[ROW]
    p_true, p_public = work[P_TRUE], work[P_PUBLIC]
    vote_likelihood(s, likelihood)
    black_man = known_black_man(s, seat)
    posterior(s, likelihood, black_man, post)
    true_book_probabilities(s, seat, post, p_true)
    shared = sees_as_the_leader(s, seat, black_man)
    if shared:
        for t in range(NUM_BOOKS):
            p_public[t] = p_true[t]
    else:
        public_true_book(s, black_man, likelihood, post, unknowing, row, p_public)
    public_slot = leader_pick(s, r, p_public, work[SAN]) if s.table_size == CARDS_PER_PROPOSAL else -1
    return public_slot, shared


@compiled
def beliefs_and_points(s, r: Rules, seat: int, out: np.ndarray, work: tuple) -> None:
    """belief (advisors in egocentric order), p_true, p_true_public, card_points, table_points and
    table_sum."""
    post, p_true, p_public, points = work[POST], work[P_TRUE], work[P_PUBLIC], work[POINTS]
    n = r.num_players
    first = 1 if (s.advisors[0] - seat) % n > (s.advisors[1] - seat) % n else 0
    for t in range(NUM_BOOKS):
        out[BELIEF + t] = post[first, t]
        out[BELIEF + NUM_BOOKS + t] = post[1 - first, t]
        out[P_TRUE_AT + t] = p_true[t]
        out[P_PUBLIC_AT + t] = p_public[t]
    for card in range(NUM_CARDS):
        points[card] = expected_points(card, p_true)
        out[CARD_POINTS + card] = points[card] / POINT_SCALE
    table = 0.0
    for slot in range(s.table_size):
        x = points[s.table_cards[slot]]
        out[TABLE_POINTS + slot] = x / POINT_SCALE
        table += x
    out[TABLE_SUM] = table / POINT_SCALE


@compiled
def heuristic_move(s, r: Rules, seat: int, mask: np.ndarray, public_slot: int, work: tuple) -> int:
    """``features._heuristic_action``: the bot's move (the Black Man's leader belief is the
    public one), or -1 unless more than one action is legal, or :data:`UNCLEAR`."""
    legal, only = 0, -1
    for action in range(A.NUM_ACTIONS):
        if mask[action]:
            legal += 1
            only = action
    if legal <= 1:
        return only
    if s.phase == VOTE and seat == s.black_man:
        return black_man_vote(s, public_slot) if holds_true_card(s) else A.OPPOSE
    return act_on(s, r, seat, mask, work[P_TRUE], work[SAN])


@compiled
def heuristic_extra(s, r: Rules, seat: int, mask: np.ndarray, out: np.ndarray, by_book: np.ndarray,
                    work: tuple) -> bool:
    """The 94 inputs of ``seat`` in the game ``s`` (``mask``: its legal actions, none if it is not
    to move) into ``out``, but for the expected total (``total_san``'s first number), left to the
    caller with ``by_book`` (the totals per true book); False if a near-tie needs the reference."""
    p_true, san = work[P_TRUE], work[SAN]
    n = r.num_players
    out[:] = 0.0
    public_slot, shared = read_position(s, r, seat, work)
    if public_slot == UNCLEAR:
        return False
    beliefs_and_points(s, r, seat, out, work)
    if s.table_size == CARDS_PER_PROPOSAL:
        mine = public_slot if shared else leader_pick(s, r, p_true, san)
        if mine == UNCLEAR:
            return False
        if mine >= 0:
            out[PICK_MINE + mine] = 1.0
        if public_slot >= 0:
            out[PICK_PUBLIC + public_slot] = 1.0
    known_san(s, r, p_true, san)
    for k in range(n):
        out[SEAT_SAN + k] = san[(seat + k) % n] / POINT_SCALE
    totals(s, r, by_book)
    for book in range(NUM_BOOKS):
        out[TOTAL_SAN + 1 + book] = by_book[book] / TOTAL_SCALE
    if s.phase == VOTE and s.roles[seat] == ADVISOR_ROLE and s.table_size == CARDS_PER_PROPOSAL:
        if not vote_outcome(s, r, seat, public_slot, out[VOTE_OUTCOME:], work):
            return False
    action = heuristic_move(s, r, seat, mask, public_slot, work)
    if action == UNCLEAR:
        return False
    if action >= 0:
        out[ACTION + action] = 1.0
    return True


@compiled
def extras_rows(t: np.ndarray, r: Rules, rows: np.ndarray, seats: np.ndarray, masks: np.ndarray, out: np.ndarray,
                p_true: np.ndarray, by_book: np.ndarray, clear: np.ndarray, work: tuple) -> None:
    """Row ``k``: :func:`heuristic_extra` of seat ``seats[k]`` in game ``rows[k]``, its ``P(true)``
    in ``p_true[k]``; ``clear[k]`` False where the reference must compute the row."""
    for k in range(rows.shape[0]):
        clear[k] = heuristic_extra(t[rows[k]], r, seats[k], masks[k], out[k], by_book[k], work)
        for book in range(NUM_BOOKS):
            p_true[k, book] = work[P_TRUE][book]


# --------------------------------------------------------------------------- many rows


def heuristic_extras(games: Any, rows: np.ndarray, seats: np.ndarray, masks: np.ndarray,
                     work: Work | None = None) -> np.ndarray:
    """``(K, 94)`` ``float32``: row ``k`` is the ``arkham_heuristic`` inputs of seat ``seats[k]`` in
    game ``rows[k]`` of ``games`` (a :class:`~club_envs.arkham_decoders.vector_engine.VectorGames`)
    with the legal actions ``masks[k]`` (all False for a seat that is not to move) -- equal to
    ``features.heuristic_inputs`` of that seat's view, beyond the observation."""
    rows, seats = np.asarray(rows, np.int64), np.asarray(seats, np.int64)
    masks = np.ascontiguousarray(masks, dtype=np.bool_)
    count = len(rows)
    out = np.zeros((count, HEURISTIC_SIZE), np.float32)
    p_true, by_book = np.zeros((count, NUM_BOOKS)), np.zeros((count, NUM_BOOKS))
    clear = np.zeros(count, np.bool_)
    extras_rows(games.arrays, games.rules, rows, seats, masks, out, p_true, by_book, clear,
                (work or thread_work()).arrays)
    for k in range(count):
        out[k, TOTAL_SAN] = float(np.dot(p_true[k], by_book[k])) / TOTAL_SCALE
    for k in np.flatnonzero(~clear):
        view = view_of(games, int(rows[k]), int(seats[k]))
        out[k] = heuristic_inputs(np.zeros(0, np.float32), view, masks[k])
    return out


def heuristic_inputs_rows(observations: np.ndarray, masks: np.ndarray, state: GameRows) -> np.ndarray:
    """``(K, obs + 94)`` ``float32``: each row's observation followed by its ``arkham_heuristic``
    inputs -- what ``features.heuristic_inputs`` gives the same seat in the one-game environments.
    The arguments are those a :class:`~club_envs.agents.batched.BatchedPolicy` with
    ``reads_state = True`` receives."""
    observations = np.asarray(observations, np.float32)
    extras = heuristic_extras(state.games, state.rows, state.seats, masks)
    return np.concatenate([observations.reshape(len(extras), -1), extras], axis=1)


__all__ = ["Work", "heuristic_extras", "heuristic_inputs_rows"]
