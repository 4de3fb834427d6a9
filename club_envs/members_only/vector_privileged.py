"""What a learner may not see, for a privileged critic, from the batched engine's arrays.

The one-game view's ``privileged_state()`` (:mod:`club_envs.members_only.gym_env`) is the hidden
part of the observer's global state (:func:`club_envs.members_only.observer.global_state`): every
seat's hand (/ copies) and discard (one-hot), seat by seat starting at the learner's, then the
pending reveal of the player to move (one-hot) and the cards out of play this heat (/ copies).
:func:`privileged_rows` builds the same rows for many games at once, for self-play on the batched
engine with ``algorithm.critic: privileged``. Training-time only: never an input of a policy.
"""

from __future__ import annotations

import numpy as np

from club_envs.members_only.observer import _INV_COPIES, MAX_PLAYERS
from club_envs.members_only.rules import FACE_UP_CARDS, NUM_CARD_TYPES
from club_envs.members_only.vector_engine import NO_SEAT

SEAT_BLOCK = MAX_PLAYERS * NUM_CARD_TYPES
SIZE = 2 * SEAT_BLOCK + 2 * NUM_CARD_TYPES  # hands, discards, pending reveal, out of play
_INV = np.array(_INV_COPIES, dtype=np.float32)


def privileged_rows(games, rows: np.ndarray, seats: np.ndarray) -> np.ndarray:
    """(K, :data:`SIZE`) float32: the hidden state of game ``rows[k]`` as seat ``seats[k]``'s
    privileged critic reads it (seat blocks rotated so that block 0 is that seat's)."""
    t, config = games.tables, games.config
    n, hand_size = config.num_players, config.hand_size
    rows, seats = np.asarray(rows, np.int64), np.asarray(seats, np.int64)
    k = len(rows)
    out = np.zeros((k, SIZE), np.float32)
    order = (seats[:, None] + np.arange(n)[None, :]) % n  # (K, n): the seat k places after each row's seat
    hands = t.hands[rows[:, None], order].astype(np.float32) * _INV  # (K, n, 10)
    out[:, : n * NUM_CARD_TYPES] = hands.reshape(k, -1)
    discards = t.discards[rows[:, None], order]  # (K, n)
    held = np.flatnonzero(discards.ravel() != NO_SEAT)
    cells = SEAT_BLOCK + (held % n) * NUM_CARD_TYPES + discards.ravel()[held]
    out[held // n, cells] = 1.0
    pending = t.pending[rows]
    picked = np.flatnonzero(pending != NO_SEAT)
    out[picked, 2 * SEAT_BLOCK + pending[picked]] = 1.0
    rest = t.deck[rows, n * hand_size + FACE_UP_CARDS:].astype(np.int64)  # the cards out of play this heat
    counts = np.zeros((k, NUM_CARD_TYPES), np.float32)
    np.add.at(counts, (np.repeat(np.arange(k), rest.shape[1]), rest.ravel()), 1.0)
    out[:, 2 * SEAT_BLOCK + NUM_CARD_TYPES:] = counts * _INV
    return out
