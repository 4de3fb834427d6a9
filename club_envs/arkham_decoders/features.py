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
from pathlib import Path
from typing import NamedTuple

import numpy as np

from club_envs.arkham_decoders import actions as A
from club_envs.arkham_decoders.bots import (
    HeuristicAgent,
    belief,
    book_belief_after,
    eligible_slots,
    expected_points,
    investigator_true_book,
    investigator_vote,
    leader_has_peeked,
    leader_pick,
    true_book_probabilities,
)
from club_envs.arkham_decoders.engine import VOTE, View
from club_envs.arkham_decoders.observer import MAX_SEATS, Observer
from club_envs.arkham_decoders.rules import (
    ADVISOR,
    BLACK_MAN,
    Config,
    INVESTIGATOR,
    NUM_BOOKS,
    NUM_CARDS,
    NUM_VALUES,
    VALUES,
)

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


def slices() -> dict[str, slice]:
    """Where each named piece sits inside the appended block."""
    return dict(_SLICES)


def public_true_book(view: View, post: np.ndarray | None = None) -> np.ndarray:
    """``P[t]`` as the leader holds it: public votes, and the Black Man once the leader has peeked.

    ``post`` is ``belief(view)`` when the caller holds it already (it is only read)."""
    if post is None:
        post = belief(view)
    leader_knows = leader_has_peeked(view)
    if leader_knows and view.black_man is not None:
        return post.sum(axis=0)
    unknowing = post if view.black_man is None else belief(view, black_man=None)
    if leader_knows:  # the leader knows him but this seat does not: average over who he is
        p = np.zeros(NUM_BOOKS)
        for b, seat in enumerate(view.advisors):
            row = belief(view, black_man=seat)
            p += unknowing[b].sum() * row.sum(axis=0)
        return p
    return unknowing.sum(axis=0)


@functools.lru_cache(maxsize=16384)
def _totals(roles: tuple[str, ...], decoded: tuple[tuple[int, ...], ...], penalty: int) -> tuple[float, ...]:
    """The table's SAN total, penalties included, for these decoded cards if book ``t`` is true,
    per ``t``. Cached: every seat of a game asks it of the same few decoded piles (the totals are
    sums of whole numbers, so the cache changes nothing)."""
    piles = [_pile_san(pile) for role, pile in zip(roles, decoded) if role != ADVISOR]
    return tuple(float(sum(_penalised(san[book], penalty) for san in piles)) for book in range(NUM_BOOKS))


@functools.lru_cache(maxsize=4096)
def _points_by_card(p_true: tuple[float, ...]) -> tuple[list[float], list[float]]:
    """The expected SAN of decoding each card id for this ``P[t]``, and the same / 10 (the
    ``card_points`` piece). Cached on the probabilities themselves, which repeat across the seats
    and decisions of a game; the table cards and the seats' SANs look their cards up here
    (read-only)."""
    points = [expected_points(card, p_true) for card in range(NUM_CARDS)]
    return points, [x / POINT_SCALE for x in points]


def _seat_sans(view: View, points: list[float]) -> list[float]:
    """:func:`~club_envs.arkham_decoders.bots.known_san` from the cards' expected points: the same
    numbers summed in the same order, looked up instead of worked out card by card."""
    return [0.0 if role == ADVISOR else sum([points[c] for c in pile]) for role, pile in zip(view.roles, view.decoded)]


class _Reading(NamedTuple):
    """What one seat's inputs need several times, worked out once per position."""

    post: np.ndarray  # belief(view)
    p_true: list[float]  # true_book_probabilities(view), as Python floats (same numbers, faster)
    p_public: list[float]  # public_true_book(view)
    public_slot: int | None  # leader_pick under p_public (-1: none eligible); None before the table is full


def _read(view: View) -> _Reading:
    """The seat's beliefs, each computed once: the belief, the p_true and the leader's pick feed
    several pieces, the look-ahead and the bot's move."""
    post = belief(view)
    p_true = true_book_probabilities(view, post).tolist()
    p_public = p_true if _sees_as_the_leader(view) else public_true_book(view, post).tolist()
    slot = leader_pick(view, p_public) if len(view.table) == A.NUM_SLOTS else None
    return _Reading(post, p_true, p_public, slot)


def _sees_as_the_leader(view: View) -> bool:
    """Whether the seat's ``p_true`` is the public one: it holds no clue of its own about the book
    (neither the Black Man nor the Investigator) and knows the Black Man exactly when the leader
    does -- both are then the sum of the same belief, so one sum serves both."""
    if view.true_book is not None or view.identity == INVESTIGATOR:
        return False
    return leader_has_peeked(view) == (view.black_man is not None)


def _public_slot(view: View, reading: _Reading) -> int:
    """The slot the leader would decode after a 1-1 vote, as the table sees it."""
    return reading.public_slot if reading.public_slot is not None else leader_pick(view, reading.p_public)


def _decoded_slots(view: View, pair: tuple[int, int], black_man: int) -> list[int]:
    """The table slots decoded after this vote pair, the leader choosing as the heuristic leader would."""
    agrees = pair[0] + pair[1]
    if agrees == 0:
        return []
    if agrees == 2:
        return list(range(len(view.table)))
    eligible = eligible_slots(view)
    if len(eligible) <= 1:  # no choice to make, so no belief needed
        return eligible
    # The leader's pick reads the vote history only through its belief: no new view needed.
    p_leader = book_belief_after(view.votes, view.face_up_books, view.advisors,
                                 black_man if leader_has_peeked(view) else None, view.table, pair)
    slot = leader_pick(view, p_leader)
    return [slot] if slot >= 0 else []


def _total_change(view: View, slots: list[int]) -> list[int]:
    """Per book ``t``: how the table's SAN total (penalties included, as in :func:`_totals`) moves
    if these slots are decoded and ``t`` is true. Only the cards' owners move; the totals are whole
    numbers, so this is exactly the difference of the two totals."""
    added: dict[int, tuple[int, ...]] = {}
    for i in slots:
        seat, card = view.table[i]
        added[seat] = added.get(seat, ()) + (card,)
    penalty = view.insanity_penalty
    change = [0] * NUM_BOOKS
    for seat, cards in added.items():
        if view.roles[seat] == ADVISOR:
            continue
        before, extra = _pile_san(view.decoded[seat]), _pile_san(cards)
        for book in range(NUM_BOOKS):
            after = before[book] + extra[book]
            change[book] += _penalised(after, penalty) - _penalised(before[book], penalty)
    return change


@functools.lru_cache(maxsize=16384)
def _pile_san(cards: tuple[int, ...]) -> tuple[int, ...]:
    """The SAN of these decoded cards if book ``t`` is true, per ``t``. Cached: the look-ahead asks
    it of the same few piles, seat after seat."""
    return tuple(sum(VALUES[c % NUM_VALUES] if c // NUM_VALUES == book else 1 for c in cards)
                 for book in range(NUM_BOOKS))


def _penalised(san: int, penalty: int) -> int:
    """A seat's SAN as it counts in the table total: the insanity penalty below 1."""
    return san - penalty if san <= 0 else san


def vote_outcome(view: View) -> np.ndarray:
    """(change of the table total if I agree, if I oppose, P(the other advisor agrees)) for an
    advisor about to vote, the other advisor and the leader played as the heuristic plays them."""
    return np.array(_vote_outcome(view, _read(view)))


def _rival_votes(view: View, reading: _Reading) -> list[tuple[float, int, int]]:
    """(weight, true book, the other advisor's vote: 1 agree) per hypothesis this advisor holds.

    The Black Man plays the Investigator for each grimoire it may hold (the same belief as his
    own, conditioned on him), the Investigator plays the Black Man for each book that may be true
    (whose leader belief is this seat's ``p_public``: both know who the Black Man is)."""
    hypotheses = []
    if view.identity == BLACK_MAN:
        book = view.true_book
        row = reading.post[view.advisors.index(view.black_man)].tolist()
        for grimoire in range(NUM_BOOKS):
            if grimoire == book or grimoire in view.face_up_books:
                continue
            p_rival = investigator_true_book(row, grimoire)
            hypotheses.append((1.0, book, int(investigator_vote(view.table, p_rival) == A.AGREE)))
    else:
        slot = _public_slot(view, reading)
        picked = view.table[slot][1] // NUM_VALUES if slot >= 0 else -1
        for book, p in enumerate(reading.p_true):
            if p > 0:
                hypotheses.append((p, book, int(picked == book)))
    return hypotheses


def _vote_outcome(view: View, reading: _Reading) -> list[float]:
    """:func:`vote_outcome` as a list, from the position's ``reading``."""
    mine = view.advisors.index(view.seat)
    hypotheses = _rival_votes(view, reading)
    weight = sum(w for w, _, _ in hypotheses)
    if weight <= 0:
        return [0.0, 0.0, 0.0]
    change: dict[tuple[int, int], list[int]] = {}  # the total's change per vote pair
    out = [0.0, 0.0, 0.0]
    for w, book, other_vote in hypotheses:
        for k, my_vote in enumerate((1, 0)):
            pair = (my_vote, other_vote) if mine == 0 else (other_vote, my_vote)
            if pair not in change:  # the same for every hypothesis: the leader does not know the book
                change[pair] = _total_change(view, _decoded_slots(view, pair, view.black_man))
            out[k] += w * change[pair][book]
        out[2] += w * other_vote
    return [x / weight for x in out]


def heuristic_inputs(observation: np.ndarray, view: View, mask: np.ndarray) -> np.ndarray:
    """The observation followed by the heuristic bot's reading of the position.

    Built as one list of Python floats in layout order, then cast to float32 once: the pieces are
    a few numbers each, and per-piece numpy work cost more than the arithmetic."""
    n, me = view.num_players, view.seat
    reading = _read(view)
    p_true = reading.p_true
    a0, a1 = view.advisors
    rows = reading.post.tolist()
    if (a0 - me) % n > (a1 - me) % n:  # egocentric order of the advisors
        rows.reverse()
    points, card_points = _points_by_card(tuple(p_true))
    extra = rows[0] + rows[1] + p_true + reading.p_public + card_points

    table = [points[card] for _, card in view.table]
    extra += [x / POINT_SCALE for x in table] + [0.0] * (A.NUM_SLOTS - len(table)) + [sum(table) / POINT_SCALE]
    san = _seat_sans(view, points)
    if len(view.table) == A.NUM_SLOTS:
        shared = reading.p_public is p_true  # then the leader's pick is the seat's own
        mine = reading.public_slot if shared else leader_pick(view, p_true, san)
        extra += _one_hot_slot(mine) + _one_hot_slot(reading.public_slot)
    else:
        extra += [0.0] * (2 * A.NUM_SLOTS)
    extra += [san[(me + k) % n] / POINT_SCALE for k in range(n)] + [0.0] * (MAX_SEATS - n)
    by_book = _totals(view.roles, view.decoded, view.insanity_penalty)
    extra += [float(np.dot(p_true, by_book)) / TOTAL_SCALE] + [x / TOTAL_SCALE for x in by_book]

    if view.phase == VOTE and view.identity is not None and len(view.table) == A.NUM_SLOTS:
        agree, oppose, other_agrees = _vote_outcome(view, reading)
        extra += [agree / POINT_SCALE, oppose / POINT_SCALE, other_agrees]
    else:
        extra += [0.0, 0.0, 0.0]

    action = [0.0] * A.NUM_ACTIONS
    legal = np.asarray(mask).nonzero()[0].tolist()
    if len(legal) == 1:
        action[legal[0]] = 1.0
    elif len(legal) > 1:
        action[_heuristic_action(view, legal, reading)] = 1.0
    extra += action

    size = len(observation)
    out = np.empty(size + HEURISTIC_SIZE, dtype=np.float32)
    out[:size] = observation
    out[size:] = extra
    return out


def _one_hot_slot(slot: int) -> list[float]:
    """The one-hot of the slot the leader would decode (zeros if none may be chosen)."""
    out = [0.0] * A.NUM_SLOTS
    if slot >= 0:
        out[slot] = 1.0
    return out


def _heuristic_action(view: View, legal: list[int], reading: _Reading) -> int:
    """The heuristic bot's move, from the reading (the Black Man's leader belief is ``p_public``)."""
    if view.phase == VOTE and view.identity == BLACK_MAN:
        return _BOT._vote_black_man(view, reading.public_slot)  # None: it works the slot out itself
    return _BOT.act_on(view, legal, reading.p_true)


# ``arkham_belief_inputs``: the ``arkham_heuristic`` inputs, then a learned belief's posterior over
# (egocentric advisor x book) and its P(true book): the reading of the votes that holds against
# Black Men of every style measured (the `arkham_team_belief` agent decides on it), given to the
# network to use as it learns to. The model is a frozen copy of `arkham_team_belief`'s, kept beside
# this module, so that a policy trained on these inputs always reads the same numbers.
BELIEF_MODEL_FILE = Path(__file__).with_name("belief_inputs.npz")
LEARNED_BELIEF_SIZE = 2 * NUM_BOOKS + NUM_BOOKS
LEARNED_SIZE = HEURISTIC_SIZE + LEARNED_BELIEF_SIZE


@functools.lru_cache(maxsize=1)
def belief_model():
    """The frozen belief model the ``arkham_belief_inputs`` read (loaded once)."""
    from club_envs.arkham_decoders.belief_model import BeliefModel

    return BeliefModel.load(BELIEF_MODEL_FILE)


def learned_belief(posterior: np.ndarray) -> np.ndarray:
    """``(B, 12)`` float32: each row's posterior ``(2, 4)`` flattened, then its P(true book)."""
    posterior = np.asarray(posterior, dtype=np.float64).reshape(len(posterior), 2, NUM_BOOKS)
    return np.concatenate([posterior.reshape(len(posterior), -1), posterior.sum(axis=1)], axis=1).astype(np.float32)


def learned_inputs(observation: np.ndarray, view: View, mask: np.ndarray) -> np.ndarray:
    """The observation, the ``arkham_heuristic`` inputs, then the frozen learned belief's posterior."""
    posterior = belief_model().predict(np.asarray(observation, np.float32)[None], [view])
    return np.concatenate([heuristic_inputs(observation, view, mask), learned_belief(posterior)[0]])


__all__ = ["HEURISTIC_SIZE", "LAYOUT", "LEARNED_SIZE", "heuristic_inputs", "learned_belief", "learned_inputs",
           "public_true_book", "slices", "vote_outcome"]

# The inputs as :func:`club_envs.agents.features.get` serves them (this game spec's ``features:`` hook);
# the observation is the same size at every table (seats are padded to MAX_SEATS).
# On the batched engine the same inputs come from its arrays in compiled code, named here so that the
# compiled module (which reads this one's layout) loads only where the batched engine runs.
HEURISTIC_INPUTS = {"obs_size": Observer(Config(num_players=5)).size, "extra": HEURISTIC_SIZE,
                    "transform": heuristic_inputs,
                    "from_state": "club_envs.arkham_decoders.vector_features:heuristic_inputs_rows"}
LEARNED_INPUTS = {"obs_size": Observer(Config(num_players=5)).size, "extra": LEARNED_SIZE,
                  "transform": learned_inputs,
                  "from_state": "club_envs.arkham_decoders.vector_belief:learned_inputs_rows"}
