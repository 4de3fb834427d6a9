"""What a learner may not see, for a privileged critic, from the batched engine's arrays.

The one-game view's ``privileged_state()`` (:mod:`club_envs.arkham_decoders.gym_env`) is the hidden
part of the observer's global state (:func:`club_envs.arkham_decoders.observer.global_state`) -- the
true grimoire, the Black Man's seat, the Investigator's grimoire, every seat's hand, the pending
votes, the deck's content and who has peeked, by absolute seat -- followed by the learner's seat
(one-hot). :func:`privileged_rows` builds the same rows for many games at once, for self-play on
the batched engine with a privileged critic. Training-time only: never an input of a policy.
"""

from __future__ import annotations

import numpy as np

from club_envs.arkham_decoders.observer import GLOBAL_EXTRA, MAX_SEATS
from club_envs.arkham_decoders.rules import NUM_BOOKS, NUM_CARDS

SIZE = GLOBAL_EXTRA + MAX_SEATS
_BLACK_MAN = NUM_BOOKS
_INVESTIGATOR_BOOK = _BLACK_MAN + MAX_SEATS
_HANDS = _INVESTIGATOR_BOOK + NUM_BOOKS
_VOTES = _HANDS + MAX_SEATS * NUM_CARDS
_DECK = _VOTES + 2 * 2
_PEEKED = _DECK + NUM_CARDS


def privileged_rows(games, rows: np.ndarray, seats: np.ndarray) -> np.ndarray:
    """(K, :data:`SIZE`) float32: the hidden state of game ``rows[k]``, then seat ``seats[k]`` one-hot."""
    t = games.tables[np.asarray(rows, np.int64)]
    k = len(t)
    every = np.arange(k)
    out = np.zeros((k, SIZE), np.float32)
    out[every, t["true_book"].astype(np.int64)] = 1.0
    out[every, _BLACK_MAN + t["black_man"].astype(np.int64)] = 1.0
    investigator_book = t["grimoire"][every, t["investigator"].astype(np.int64)].astype(np.int64)
    out[every, _INVESTIGATOR_BOOK + investigator_book] = 1.0
    out[:, _HANDS:_VOTES] = t["hands"].reshape(k, -1)[:, : MAX_SEATS * NUM_CARDS]
    for advisor in range(2):  # per advisor in vote order: agree, oppose
        vote = t["pending"][:, advisor].astype(np.int64)
        cast = np.flatnonzero(vote >= 0)
        out[cast, _VOTES + advisor * 2 + (1 - vote[cast])] = 1.0
    in_deck = np.arange(NUM_CARDS)[None, :] < t["deck_size"][:, None]
    cards = t["deck"][:, :NUM_CARDS].astype(np.int64)
    held, slot = np.nonzero(in_deck)
    out[held, _DECK + cards[held, slot]] = 1.0
    out[:, _PEEKED:GLOBAL_EXTRA] = t["peeked"][:, :MAX_SEATS]
    out[every, GLOBAL_EXTRA + np.asarray(seats, np.int64)] = 1.0
    return out
