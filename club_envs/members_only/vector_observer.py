"""The observation of the batched engine: :mod:`club_envs.members_only.observer`'s vector, compiled.

One seat per game, written into one row per game of an ``(N, SIZE)`` ``float32`` array. The layout
and the scales are the reference observer's (``LAYOUT``, ``SLICES``, ``observation_scales``): each
slice's whole numbers are written first (exact in ``float32``), then multiplied by the scales in
``float32``, the way the reference makes its floats, so both give the same bytes for the same
seat's view. The seat reads only what its view holds (docs/rules/members_only.md, section 9): its
own hand, discard and pending reveal, and the public state.
"""

from __future__ import annotations

import numpy as np
from club_envs.members_only.compiled import compiled

from club_envs.members_only.engine import OVER
from club_envs.members_only.observer import S, SIZE, SLICES, SPOT_FEATURES, observation_scales
from club_envs.members_only.rules import (
    COPIES_PER_TYPE,
    NUM_CARD_TYPES,
    NUM_CATEGORIES,
    PLAYER_COUNTS,
    TRACK_SCORING_MIN,
    Config,
)
from club_envs.members_only.vector_engine import NO_SEAT, NUM_SPOTS, Rules, Tables, category_count, waiting_no_cards

_COPIES = np.array(COPIES_PER_TYPE, dtype=np.int64)
_NUM_PLAYERS = SLICES["num_players"].start
_SEATS_PRESENT = SLICES["seats_present"].start
_HEAT = SLICES["heat"].start
_ROUND = SLICES["round"].start
_PHASE = SLICES["phase"].start
_START_PLAYER = SLICES["start_player"].start
_CURRENT_PLAYER = SLICES["current_player"].start
_PENDING = SLICES["pending_reveal"].start
_OWN_DISCARD = SLICES["own_discard"].start
_HAND = SLICES["hand"].start
_UNSEEN = SLICES["unseen"].start
_DISPLAY = SLICES["display"].start
_FACE_UP = SLICES["face_up"].start
_COUNTS = SLICES["counts"].start
_WAITING = SLICES["waiting_no"].start
_REVEALED_BY = SLICES["revealed_by"].start
_CHIPS = SLICES["chips"].start
_HAND_SIZES = SLICES["hand_sizes"].start
_BOARD = SLICES["board"].start
_TRACKS = SLICES["tracks"].start
_TRACK_SCORING = SLICES["track_scoring"].start
_CLAIMED = SLICES["category_claimed"].start
_SCORES = SLICES["scores"].start
_REWARDS = SLICES["rewards"].start


@compiled
def turn_slices(t: Tables, r: Rules, g: int, me: int, v: np.ndarray) -> None:
    """num_players, seats_present, heat, round, phase, start_player and current_player."""
    n = r.num_players
    v[_NUM_PLAYERS + n - PLAYER_COUNTS[0]] = 1
    v[_SEATS_PRESENT : _SEATS_PRESENT + n] = 1
    v[_HEAT] = t.heat[g]
    current = t.current[g]
    if current != NO_SEAT:
        v[_ROUND + t.round[g] - 1] = 1
        v[_CURRENT_PLAYER + (current - me) % n] = 1
    if t.phase[g] != OVER:
        v[_PHASE + t.phase[g]] = 1
    v[_START_PLAYER + (t.start[g] - me) % n] = 1


@compiled
def card_slices(t: Tables, g: int, me: int, v: np.ndarray) -> None:
    """pending_reveal (only on the seat's own turn), own_discard, hand, unseen, display, face_up,
    counts and waiting_no."""
    pending = t.pending[g] if t.current[g] == me else NO_SEAT
    discard = t.discards[g, me]
    if pending != NO_SEAT:
        v[_PENDING + pending] = 1
    if discard != NO_SEAT:
        v[_OWN_DISCARD + discard] = 1
    for card in range(NUM_CARD_TYPES):
        held = t.hands[g, me, card]
        v[_HAND + card] = held
        v[_UNSEEN + card] = _COPIES[card] - t.display[g, card] - held - (pending == card) - (discard == card)
        v[_DISPLAY + card] = t.display[g, card]
        v[_FACE_UP + card] = t.face_up[g, card]
    for category in range(NUM_CATEGORIES):
        v[_COUNTS + category] = category_count(t.display[g], category)
        v[_WAITING + category] = waiting_no_cards(t.display[g], category)


@compiled
def seat_slices(t: Tables, r: Rules, g: int, me: int, v: np.ndarray) -> None:
    """revealed_by, chips, hand_sizes, tracks, track_scoring, category_claimed and scores, per
    seat clockwise from ``me`` (padding seats stay 0)."""
    n = r.num_players
    for rel in range(n):
        seat = (me + rel) % n
        for card in range(NUM_CARD_TYPES):
            v[_REVEALED_BY + rel * NUM_CARD_TYPES + card] = t.revealed_by[g, seat, card]
        v[_CHIPS + 2 * rel] = t.chips[g, seat, 0]
        v[_CHIPS + 2 * rel + 1] = t.chips[g, seat, 1]
        v[_HAND_SIZES + rel] = t.hand_sizes[g, seat]
        for category in range(NUM_CATEGORIES):
            value = t.tracks[g, seat, category]
            v[_TRACKS + rel * NUM_CATEGORIES + category] = value
            if value >= TRACK_SCORING_MIN:
                v[_TRACK_SCORING + rel * NUM_CATEGORIES + category] = 1
                v[_CLAIMED + category] = 1
                v[_SCORES + rel] += value


@compiled
def board_slice(t: Tables, r: Rules, g: int, me: int, v: np.ndarray) -> None:
    """Per betting space: the owner one-hot by relative seat, double chip, on the risk marker."""
    for spot in range(NUM_SPOTS):
        owner = t.board_owner[g, spot]
        if owner != NO_SEAT:
            base = _BOARD + spot * SPOT_FEATURES
            v[base + (owner - me) % r.num_players] = 1
            v[base + S] = t.board_chip[g, spot]
            v[base + S + 1] = t.board_risk[g, spot]


@compiled
def observe_all(t: Tables, r: Rules, seats: np.ndarray, scale: np.ndarray, out: np.ndarray) -> None:
    """Row ``g`` of ``out``: the observation of seat ``seats[g]`` in game ``g``."""
    for g in range(seats.shape[0]):
        observe_one(t, r, g, seats[g], scale, out[g])


@compiled
def observe_rows(t: Tables, r: Rules, games: np.ndarray, seats: np.ndarray, scale: np.ndarray, out: np.ndarray) -> None:
    """Row ``i`` of ``out``: the observation of seat ``seats[i]`` in game ``games[i]``."""
    for i in range(games.shape[0]):
        observe_one(t, r, games[i], seats[i], scale, out[i])


@compiled
def observe_one(t: Tables, r: Rules, g: int, me: int, scale: np.ndarray, v: np.ndarray) -> None:
    """``v``: the observation of seat ``me`` in game ``g``. The slices write their whole numbers
    into the row (exact in ``float32``), then one multiply by the scales."""
    v[:] = 0
    turn_slices(t, r, g, me, v)
    card_slices(t, g, me, v)
    seat_slices(t, r, g, me, v)
    board_slice(t, r, g, me, v)
    for space in range(r.rewards.shape[0]):
        v[_REWARDS + space] = r.rewards[space]
    for i in range(SIZE):
        v[i] *= scale[i]


class VectorObserver:
    """Observations of :class:`~club_envs.members_only.vector_engine.VectorGames`, equal to
    :class:`~club_envs.members_only.observer.Observer`'s for the same seat's view."""

    size = SIZE
    slices = SLICES

    def __init__(self, config: Config) -> None:
        self.config = config
        self._scale = observation_scales(config)

    def observe(self, games, seats: np.ndarray | None = None, out: np.ndarray | None = None) -> np.ndarray:
        """(N, SIZE) ``float32``: each game's observation for ``seats[g]`` (default: the player to
        move; a finished game is seen from seat 0)."""
        if seats is None:
            seats = np.maximum(games.current_player, 0)
        seats = np.asarray(seats, dtype=np.int64)
        if out is None:
            out = np.empty((games.num_games, SIZE), np.float32)
        observe_all(games.tables, games.rules, seats, self._scale, out)
        return out

    def observe_games(self, games, indices: np.ndarray, seats: np.ndarray) -> np.ndarray:
        """(K, SIZE) ``float32``: the observation of seat ``seats[i]`` in game ``indices[i]``."""
        indices = np.asarray(indices, dtype=np.int64)
        out = np.empty((len(indices), SIZE), np.float32)
        observe_rows(games.tables, games.rules, indices, np.asarray(seats, dtype=np.int64), self._scale, out)
        return out
