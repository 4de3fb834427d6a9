"""Extra inputs for Arkham Decoders Club policies, built from one seat's view.

``arkham_heuristic`` appends 94 numbers to the observation: what the ``heuristic`` bot makes of
the position. A policy that reads them starts where the heuristic stands -- imitation is nearly
exact -- and reinforcement learning only has to find where to depart from it (when the vote model
is wrong about a learned opponent, when to pass, when a risky proposal is worth it).

In layout order (:data:`LAYOUT`):

* ``belief`` (8): the posterior over (which advisor is the Black Man) x (which book is true) from
  the public votes with the heuristic's vote model, conditioned on what this seat knows; advisors
  in egocentric order, as in the observation.
* ``p_true`` (4): the seat's best probability that each book is the true grimoire.
* ``p_true_public`` (4): the same as the leader sees it (the public votes, plus the Black Man once
  the leader has peeked) -- what the table will act on, which matters most to the Black Man.
* ``card_points`` (24): the expected SAN of decoding each card id under ``p_true``, / 10.
* ``table_points`` (3) and ``table_sum`` (1): the same for the face-up cards of this proposal and
  their sum, / 10.
* ``pick_mine`` (3) and ``pick_public`` (3): the slot the heuristic leader would decode after a
  1-1 vote under ``p_true`` and under ``p_true_public`` (one-hot; zeros if none may be chosen).
* ``seat_san`` (6): each seat's expected SAN from its decoded cards (egocentric, padded), / 10.
* ``total_san`` (5): the expected table total if the game ended now, insanity penalties included,
  under ``p_true`` and then for each book being true, / 20 (positive: the team is winning).
* ``vote_outcome`` (3, advisors voting only): the expected change of the table's SAN total,
  penalties included, if this advisor agrees and if it opposes, / 10, and the probability that the
  other advisor agrees -- a one-step look-ahead that plays the other advisor and the leader as the
  heuristic would from what this seat knows (the Black Man averages over the Investigator's
  possible grimoires, the Investigator over the true book).
* ``heuristic_action`` (30): the action the heuristic bot would choose (one-hot).

Every number is a function of the seat's :class:`~club_envs.arkham_decoders.engine.View`, which
holds only what the seat may know; the heuristic bot is deterministic, so one instance serves
every seat.
"""

from __future__ import annotations

import functools

import numpy as np

from club_envs.agents.base import Decision
from club_envs.arkham_decoders import actions as A
from club_envs.arkham_decoders.bots import (
    HeuristicAgent,
    belief,
    expected_points,
    leader_pick,
    true_book_probabilities,
)
from club_envs.arkham_decoders.engine import VOTE, PublicVote, View
from club_envs.arkham_decoders.observer import MAX_SEATS
from club_envs.arkham_decoders.rules import ADVISOR, BLACK_MAN, INVESTIGATOR, NUM_BOOKS, NUM_CARDS, NUM_VALUES, PEEK_AT_DECODED, VALUES

POINT_SCALE = 10.0  # the largest card magnitude
TOTAL_SCALE = 20.0

LAYOUT: list[tuple[str, int]] = [
    ("belief", 2 * NUM_BOOKS),
    ("p_true", NUM_BOOKS),
    ("p_true_public", NUM_BOOKS),
    ("card_points", NUM_CARDS),
    ("table_points", A.NUM_SLOTS),
    ("table_sum", 1),
    ("pick_mine", A.NUM_SLOTS),
    ("pick_public", A.NUM_SLOTS),
    ("seat_san", MAX_SEATS),
    ("total_san", 1 + NUM_BOOKS),
    ("vote_outcome", 3),
    ("heuristic_action", A.NUM_ACTIONS),
]
HEURISTIC_SIZE = sum(size for _, size in LAYOUT)
_SLICES: dict[str, slice] = {}
_start = 0
for _name, _size in LAYOUT:
    _SLICES[_name] = slice(_start, _start + _size)
    _start += _size

_BOT = HeuristicAgent()
_CARD_BOOK = np.arange(NUM_CARDS) // NUM_VALUES
_CARD_VALUE = np.array([VALUES[c % NUM_VALUES] for c in range(NUM_CARDS)], dtype=np.float64)


def slices() -> dict[str, slice]:
    """Where each named piece sits inside the appended block."""
    return dict(_SLICES)


def public_true_book(view: View) -> np.ndarray:
    """``P[t]`` as the leader holds it: public votes, and the Black Man once the leader has peeked."""
    leader_knows = len(view.decoded[view.leader]) >= PEEK_AT_DECODED
    if leader_knows and view.black_man is not None:
        return belief(view).sum(axis=0)
    if leader_knows:  # the leader knows him but this seat does not: average over who he is
        post = belief(view, black_man=None)
        p = np.zeros(NUM_BOOKS)
        for b, seat in enumerate(view.advisors):
            row = belief(view, black_man=seat)
            p += post[b].sum() * row.sum(axis=0)
        return p
    return belief(view, black_man=None).sum(axis=0)


def _table_total(view: View, decoded: tuple[tuple[int, ...], ...], book: int) -> float:
    """The table's SAN total, penalties included, for these decoded cards if ``book`` is true."""
    return _totals(view.roles, decoded, view.insanity_penalty)[book]


@functools.lru_cache(maxsize=16384)
def _totals(roles: tuple[str, ...], decoded: tuple[tuple[int, ...], ...], penalty: int) -> tuple[float, ...]:
    """The table's SAN total, penalties included, for these decoded cards if book ``t`` is true,
    per ``t``. Cached: every seat of a game, and every look-ahead of a vote, asks it of the same
    few decoded piles (the totals are sums of whole numbers, so the cache changes nothing)."""
    out = []
    for book in range(NUM_BOOKS):
        total = 0.0
        for seat, role in enumerate(roles):
            if role == ADVISOR:
                continue
            san = sum(VALUES[c % NUM_VALUES] if c // NUM_VALUES == book else 1 for c in decoded[seat])
            total += san - penalty if san <= 0 else san
        out.append(float(total))
    return tuple(out)


def _totals_by_book(view: View) -> np.ndarray:
    """The table's SAN total, penalties included, if the game ended now and book ``t`` were true."""
    return np.array(_totals(view.roles, view.decoded, view.insanity_penalty))


def _after_votes(view: View, pair: tuple[int, int], black_man: int) -> tuple[tuple[int, ...], ...]:
    """The decoded cards after this vote pair, the leader choosing as the heuristic leader would."""
    agrees = pair[0] + pair[1]
    if agrees == 0:
        return view.decoded
    if agrees == 2:
        slots = range(len(view.table))
    else:
        after = view._replace(votes=view.votes + (PublicVote(view.table, pair),))
        knows = len(view.decoded[view.leader]) >= PEEK_AT_DECODED
        p_leader = belief(after, black_man=black_man if knows else None).sum(axis=0)
        slot = leader_pick(after, p_leader)
        slots = [slot] if slot >= 0 else []
    decoded = [list(d) for d in view.decoded]
    for i in slots:
        seat, card = view.table[i]
        decoded[seat].append(card)
    return tuple(tuple(d) for d in decoded)


def vote_outcome(view: View) -> np.ndarray:
    """(change of the table total if I agree, if I oppose, P(the other advisor agrees)) for an
    advisor about to vote, the other advisor and the leader played as the heuristic plays them."""
    me = view.seat
    mine = view.advisors.index(me)
    other = view.advisors[1 - mine]
    hypotheses: list[tuple[float, int, int]] = []  # (weight, true book, other advisor's vote)
    if view.identity == BLACK_MAN:
        book = view.true_book
        for grimoire in range(NUM_BOOKS):
            if grimoire == book or grimoire in view.face_up_books:
                continue
            rival = view._replace(seat=other, identity=INVESTIGATOR, grimoire=grimoire, true_book=None, hand=(),
                                  my_vote=None)
            hypotheses.append((1.0, book, int(_BOT._vote_investigator(rival) == A.AGREE)))
    else:
        p_true = true_book_probabilities(view)
        for book in np.flatnonzero(p_true > 0):
            rival = view._replace(seat=other, identity=BLACK_MAN, grimoire=int(book), true_book=int(book), hand=(),
                                  my_vote=None)
            hypotheses.append((float(p_true[book]), int(book), int(_BOT._vote_black_man(rival) == A.AGREE)))
    out = np.zeros(3)
    weight = sum(w for w, _, _ in hypotheses)
    if weight <= 0:
        return out
    afters: dict[tuple[int, int], tuple[tuple[int, ...], ...]] = {}  # the decoded cards per vote pair
    for w, book, other_vote in hypotheses:
        before = _table_total(view, view.decoded, book)
        for k, my_vote in enumerate((1, 0)):
            pair = [0, 0]
            pair[mine], pair[1 - mine] = my_vote, other_vote
            key = (pair[0], pair[1])
            if key not in afters:  # the same for every hypothesis: the leader does not know the book
                afters[key] = _after_votes(view, key, view.black_man)
            out[k] += w * (_table_total(view, afters[key], book) - before)
        out[2] += w * other_vote
    return out / weight


def heuristic_inputs(observation: np.ndarray, view: View, mask: np.ndarray) -> np.ndarray:
    """The observation followed by the heuristic bot's reading of the position."""
    extra = np.zeros(HEURISTIC_SIZE, dtype=np.float32)
    s = _SLICES
    n, me = view.num_players, view.seat
    a0, a1 = view.advisors
    order = (0, 1) if (a0 - me) % n <= (a1 - me) % n else (1, 0)

    post = belief(view)
    extra[s["belief"]] = post[list(order)].reshape(-1)
    p_true = true_book_probabilities(view)
    extra[s["p_true"]] = p_true
    p_public = public_true_book(view)
    extra[s["p_true_public"]] = p_public
    points = p_true[_CARD_BOOK] * _CARD_VALUE + (1.0 - p_true[_CARD_BOOK]) * 1.0
    extra[s["card_points"]] = points / POINT_SCALE
    table = [expected_points(card, p_true) for _, card in view.table]
    extra[s["table_points"]][: len(table)] = np.asarray(table) / POINT_SCALE
    extra[s["table_sum"]] = sum(table) / POINT_SCALE
    if len(view.table) == A.NUM_SLOTS:
        for name, p in (("pick_mine", p_true), ("pick_public", p_public)):
            slot = leader_pick(view, p)
            if slot >= 0:
                extra[s[name]][slot] = 1.0
    for k in range(n):
        seat = (me + k) % n
        if view.roles[seat] != ADVISOR:
            extra[s["seat_san"]][k] = sum(expected_points(c, p_true) for c in view.decoded[seat]) / POINT_SCALE
    by_book = _totals_by_book(view)
    extra[s["total_san"]] = np.concatenate([[float(p_true @ by_book)], by_book]) / TOTAL_SCALE

    if view.phase == VOTE and view.identity is not None and len(view.table) == A.NUM_SLOTS:
        outcome = vote_outcome(view)
        extra[s["vote_outcome"]] = (outcome[0] / POINT_SCALE, outcome[1] / POINT_SCALE, outcome[2])

    legal = np.flatnonzero(mask)
    if len(legal) == 1:
        extra[s["heuristic_action"]][legal[0]] = 1.0
    elif len(legal) > 1:
        action = _BOT.act(Decision(me, view, [int(a) for a in legal], lambda: observation, lambda: mask))
        extra[s["heuristic_action"]][int(action)] = 1.0
    return np.concatenate([np.asarray(observation, dtype=np.float32), extra])


__all__ = ["HEURISTIC_SIZE", "LAYOUT", "heuristic_inputs", "public_true_book", "slices", "vote_outcome"]
