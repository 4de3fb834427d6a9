"""The observation of the batched engine: :mod:`club_envs.arkham_decoders.observer`'s vector, compiled.

One seat per game, written into one row per game of an ``(N, size)`` ``float32`` array, in the
reference observer's layout (``Observer().slices``). Every entry is a 0/1 flag except three kinds,
made the way the reference makes them so that both give the same bytes for the same seat's view:
the vote summary (float64 sums in the reference's order, kept by the engine in
the ``vote_summary`` field, then rounded to ``float32`` and capped at 1), the reshuffle one-hot and
the deck size (``deck_size / 24`` in float64, then rounded). The seat reads only what its view
holds (docs/rules/arkham_decoders_club.md, "Information"): its own hand, pending vote, identity
and grimoire (advisors), the true grimoire (the Black Man), the Black Man's seat (advisors and
seats that peeked), and the public state.
"""

from __future__ import annotations

import numpy as np

from club_envs.arkham_decoders.observer import MAX_SEATS, Observer
from club_envs.arkham_decoders.rules import CARDS_PER_PROPOSAL, NUM_BOOKS, NUM_CARDS, RESHUFFLES_TO_END, Config
from club_envs.arkham_decoders.vector_engine import (
    ADVISOR_ROLE,
    END,
    NONE,
    ROLE_BLACK_MAN,
    ROLE_INVESTIGATOR,
    ROLE_LEADER,
    ROLE_MEMBER,
    SUMMARY_SIZE,
    Rules,
    role_of,
)
from club_envs.compiled import compiled

_SLICES = Observer().slices
SIZE = Observer().size
_NUM_PLAYERS = _SLICES["num_players"].start
_MY_ROLE = _SLICES["my_role"].start
_SEAT_ROLES = _SLICES["seat_roles"].start
_BLACK_MAN_SEAT = _SLICES["black_man_seat"].start
_MY_GRIMOIRE = _SLICES["my_grimoire"].start
_TRUE_GRIMOIRE = _SLICES["true_grimoire"].start
_PEEKED = _SLICES["peeked"].start
_DECODED = _SLICES["decoded"].start
_DISCARD = _SLICES["discard"].start
_FACE_UP = _SLICES["face_up_grimoires"].start
_RESHUFFLES = _SLICES["reshuffles"].start
_VOTES = _SLICES["vote_book_proposals"].start
_HAND = _SLICES["hand"].start
_TABLE_CARDS = _SLICES["table_cards"].start
_TABLE_SEATS = _SLICES["table_seats"].start
_PASSES = _SLICES["passes"].start
_PHASE = _SLICES["phase"].start
_TO_MOVE = _SLICES["to_move"].start
_MY_VOTE = _SLICES["my_pending_vote"].start
_DECK_SIZE = _SLICES["deck_size"].start
_EMPTY_SEAT = 3  # the seat_roles column of a padding seat
# The vote summary's named slices within one advisor's 26 entries: (start, stop), in layout order.
_SUMMARY_PIECES = np.array([(0, 8), (8, 16), (16, 24), (24, SUMMARY_SIZE)], dtype=np.int64)
# my_role's columns: leader, member, investigator, black_man (the engine's ROLES order).
assert (ROLE_LEADER, ROLE_MEMBER, ROLE_INVESTIGATOR, ROLE_BLACK_MAN) == (0, 1, 2, 3)


@compiled
def seat_slices(s, r: Rules, me: int, v: np.ndarray) -> None:
    """num_players, my_role, seat_roles, black_man_seat, my_grimoire, true_grimoire, peeked."""
    n = r.num_players
    v[_NUM_PLAYERS + n - 4] = 1
    role = role_of(s, me)
    v[_MY_ROLE + role] = 1
    for rel in range(MAX_SEATS):
        if rel < n:
            v[_SEAT_ROLES + rel * 4 + s.roles[(me + rel) % n]] = 1
        else:
            v[_SEAT_ROLES + rel * 4 + _EMPTY_SEAT] = 1
    advisor = s.roles[me] == ADVISOR_ROLE
    if advisor or s.peeked[me]:
        v[_BLACK_MAN_SEAT + (s.black_man - me) % n] = 1
    if advisor:
        v[_MY_GRIMOIRE + s.grimoire[me]] = 1
    if role == ROLE_BLACK_MAN:
        v[_TRUE_GRIMOIRE + s.true_book] = 1
    if s.peeked[me]:
        v[_PEEKED] = 1


@compiled
def public_slices(s, r: Rules, me: int, v: np.ndarray) -> None:
    """decoded (per egocentric seat), discard, face_up_grimoires, reshuffles."""
    n = r.num_players
    for rel in range(n):
        seat = (me + rel) % n
        for card in range(NUM_CARDS):
            if s.decoded[seat, card]:
                v[_DECODED + rel * NUM_CARDS + card] = 1
    for card in range(NUM_CARDS):
        if s.discard[card]:
            v[_DISCARD + card] = 1
    for i in range(s.face_up_count):
        v[_FACE_UP + s.face_up[i]] = 1
    v[_RESHUFFLES + min(s.reshuffles, RESHUFFLES_TO_END - 1)] = 1


@compiled
def vote_slices(s, r: Rules, me: int, v: np.ndarray) -> None:
    """The vote summary per advisor in egocentric order (the advisor met first clockwise from the
    seat first), capped at 1, and the latest advice's votes; zeros before the first advice."""
    if s.vote_count == 0:
        return
    n = r.num_players
    a0, a1 = s.advisors[0], s.advisors[1]
    first = 0 if (a0 - me) % n <= (a1 - me) % n else 1
    at = _VOTES
    for piece in range(_SUMMARY_PIECES.shape[0]):
        lo, hi = _SUMMARY_PIECES[piece, 0], _SUMMARY_PIECES[piece, 1]
        for j in range(2):
            k = first if j == 0 else 1 - first
            for i in range(lo, hi):
                v[at] = min(np.float32(s.vote_summary[k, i]), np.float32(1.0))
                at += 1
    for j in range(2):
        k = first if j == 0 else 1 - first
        vote = s.last_votes[k]
        v[at] = vote
        v[at + 1] = 1 - vote
        at += 2


@compiled
def turn_slices(s, r: Rules, me: int, v: np.ndarray) -> None:
    """hand, table_cards, table_seats, passes, phase, to_move, my_pending_vote, deck_size."""
    n = r.num_players
    for card in range(NUM_CARDS):
        if s.hands[me, card]:
            v[_HAND + card] = 1
    for slot in range(s.table_size):
        v[_TABLE_CARDS + slot * NUM_CARDS + s.table_cards[slot]] = 1
        v[_TABLE_SEATS + slot * MAX_SEATS + (s.table_seats[slot] - me) % n] = 1
    for seat in range(n):
        if s.passes[seat]:
            v[_PASSES + (seat - me) % n] = 1
    phase = s.phase
    if phase != END:
        v[_PHASE + phase] = 1
        v[_TO_MOVE + (s.current - me) % n] = 1
    for k in range(2):
        if s.advisors[k] == me and s.pending[k] != NONE:
            v[_MY_VOTE + (0 if s.pending[k] else 1)] = 1
    v[_DECK_SIZE] = s.deck_size / NUM_CARDS


@compiled
def observe_one(s, r: Rules, me: int, v: np.ndarray) -> None:
    """``v``: seat ``me``'s observation of the game ``s``."""
    v[:] = 0
    seat_slices(s, r, me, v)
    public_slices(s, r, me, v)
    vote_slices(s, r, me, v)
    turn_slices(s, r, me, v)


@compiled
def observe_all(t: np.ndarray, r: Rules, seats: np.ndarray, out: np.ndarray) -> None:
    """Row ``g`` of ``out``: the observation of seat ``seats[g]`` in game ``g``."""
    for g in range(seats.shape[0]):
        observe_one(t[g], r, seats[g], out[g])


@compiled
def observe_rows(t: np.ndarray, r: Rules, games: np.ndarray, seats: np.ndarray, out: np.ndarray) -> None:
    """Row ``k`` of ``out``: the observation of seat ``seats[k]`` in game ``games[k]``."""
    for k in range(games.shape[0]):
        observe_one(t[games[k]], r, seats[k], out[k])


class VectorObserver:
    """Observations of :class:`~club_envs.arkham_decoders.vector_engine.VectorGames`, equal to
    :class:`~club_envs.arkham_decoders.observer.Observer`'s for the same seat's view."""

    size = SIZE
    slices = _SLICES

    def __init__(self, config: Config) -> None:
        self.config = config

    def observe(self, games, seats: np.ndarray | None = None, out: np.ndarray | None = None) -> np.ndarray:
        """(N, size) ``float32``: each game's observation for ``seats[g]`` (default: the player to
        move; a finished game is seen from seat 0)."""
        if seats is None:
            seats = np.maximum(games.current_player, 0)
        seats = np.asarray(seats, dtype=np.int64)
        if out is None:
            out = np.empty((games.num_games, SIZE), np.float32)
        observe_all(games.arrays, games.rules, seats, out)
        return out

    def observe_games(self, games, indices: np.ndarray, seats: np.ndarray) -> np.ndarray:
        """(K, size) ``float32``: row ``k`` is seat ``seats[k]``'s observation of game ``indices[k]``."""
        indices = np.asarray(indices, dtype=np.int64)
        out = np.empty((indices.shape[0], SIZE), np.float32)
        observe_rows(games.arrays, games.rules, indices, np.asarray(seats, dtype=np.int64), out)
        return out


assert CARDS_PER_PROPOSAL == 3 and NUM_BOOKS == 4  # the layout's slot and book counts
