"""What a seat can infer about each category's final count, computed exactly.

Every card in another player's hand reaches the display except that player's one end-of-heat
discard, so the other players will still add ``sum(their hand sizes) - (their number)`` cards,
drawn -- as far as this seat can tell without modelling their choices -- uniformly from the cards
it has not seen. For one category only three groups of those unseen cards matter: its normal
cards, its NO! cards and everything else, so the number of its normal and NO! cards among the
cards to come is a three-group hypergeometric variable whose probabilities have a closed form. The
final count is then ``max(0, shown normal + drawn normal - shown NO! - drawn NO!)``.

This replaces Monte-Carlo sampling of the whole deal (what :class:`~club_envs.members_only.bots.
HeuristicAgent` did first): the answer is the limit of infinitely many samples, costs a few array
operations, and works on a whole batch of observations at once. Because only the observation
is read (:func:`observation_beliefs`), features built here can never hold more than the seat
knows; trained policies may take them as extra inputs (``meta["features"]`` of a policy file).
"""

from __future__ import annotations

import functools

import numpy as np

from club_envs.members_only.observer import SIZE as OBS_SIZE
from club_envs.members_only.observer import SLICES
from club_envs.members_only.rules import (
    COPIES_PER_TYPE,
    DECK_SIZE,
    MAX_PLAYERS,
    NO_PER_CATEGORY,
    NORMAL_PER_CATEGORY,
    NUM_CATEGORIES,
    NUM_SPACES,
    SPACE_IS_AT_MOST,
    SPACE_THRESHOLD,
)

MAX_COUNT = NORMAL_PER_CATEGORY  # a category's count is 0..11
COUNT_VALUES = np.arange(MAX_COUNT + 1)
# Offsets "drawn normal - drawn NO!" run from -2 to +11: index = offset + NO_PER_CATEGORY.
_OFFSETS = np.arange(-NO_PER_CATEGORY, NORMAL_PER_CATEGORY + 1)
_LOG_FACTORIAL = np.concatenate([[0.0], np.cumsum(np.log(np.arange(1, DECK_SIZE + 1)))])
_X = np.arange(NORMAL_PER_CATEGORY + 1)  # drawn normal cards of the category
_Y = np.arange(NO_PER_CATEGORY + 1)  # drawn NO! cards of the category
_COPIES = np.array(COPIES_PER_TYPE, dtype=float)
_THRESHOLDS = np.array(SPACE_THRESHOLD)
_AT_MOST = np.array(SPACE_IS_AT_MOST)
# correct[count, space]: is a chip on ``space`` correct when the category's count is ``count``?
SPACE_CORRECT = np.where(_AT_MOST[None, :], COUNT_VALUES[:, None] <= _THRESHOLDS[None, :],
                         COUNT_VALUES[:, None] >= _THRESHOLDS[None, :]).astype(float)


# The table's columns start at k = -13 (the fewest "other" cards asked for: nothing drawn, 11
# normal and 2 NO! cards of the category), so every lookup of offset_distribution lands inside it.
_K_SHIFT = NORMAL_PER_CATEGORY + NO_PER_CATEGORY


def _log_choose_table() -> np.ndarray:
    """``table[n, k + 13] = log C(n, k)`` for 0 <= k <= n <= 65, ``-inf`` elsewhere (-13 <= k <= 66)."""
    n = np.arange(DECK_SIZE + 1)[:, None]
    k = np.arange(-_K_SHIFT, DECK_SIZE + 2)[None, :]
    ok = (k >= 0) & (k <= n)
    kk = np.where(ok, k, 0)
    return np.where(ok, _LOG_FACTORIAL[n] - _LOG_FACTORIAL[kk] - _LOG_FACTORIAL[np.where(ok, n - kk, 0)], -np.inf)


_LOG_CHOOSE = _log_choose_table()
# The same numbers arranged for offset_distribution, so each term is one lookup for a whole batch:
# log C(n, x) for x = 0..11, log C(n, y) for y = 0..2, log C(n, d - x - y) per number drawn d, and
# log C(n, d).
_DRAWN = np.arange(DECK_SIZE + 1)
_LC_X = _LOG_CHOOSE[:, _X + _K_SHIFT]  # (66, 12)
_LC_Y = _LOG_CHOOSE[:, _Y + _K_SHIFT]  # (66, 3)
_LC_REST = _LOG_CHOOSE[:, _DRAWN[:, None, None] - _X[None, :, None] - _Y[None, None, :] + _K_SHIFT]  # (66,66,12,3)
_LC_DRAWN = _LOG_CHOOSE[:, _DRAWN + _K_SHIFT]  # (66, 66)


@functools.lru_cache(maxsize=4096)
def _offsets_of(unseen: tuple[int, ...], to_come: int) -> np.ndarray:
    out = offset_distribution(np.array(unseen), np.array(to_come))
    out.flags.writeable = False
    return out


def _position_key(unseen, to_come: int, shown) -> tuple[tuple[int, ...], int, tuple[int, ...]]:
    """The cache key of a position: unseen cards, cards to come, and "normal minus NO!" shown per
    category (the only part of the shown cards that matters)."""
    base = tuple(int(shown[c]) - int(shown[NUM_CATEGORIES + c]) for c in range(NUM_CATEGORIES))
    return tuple(int(u) for u in unseen), int(to_come), base


@functools.lru_cache(maxsize=16384)
def _counts_of(unseen: tuple[int, ...], to_come: int, base: tuple[int, ...]) -> np.ndarray:
    shown = np.concatenate([np.maximum(base, 0), np.maximum(np.negative(base), 0)])
    out = count_distribution(_offsets_of(unseen, to_come), shown)
    out.flags.writeable = False
    return out


def position_counts(unseen, to_come: int, shown) -> np.ndarray:
    """The final-count distributions ``(5, 12)`` of one position, cached (positions with the same
    :func:`_position_key` share one entry)."""
    return _counts_of(*_position_key(unseen, to_come, shown))


@functools.lru_cache(maxsize=16384)
def _features_of(unseen: tuple[int, ...], to_come: int, base: tuple[int, ...]) -> np.ndarray:
    counts = _counts_of(unseen, to_come, base)
    out = np.concatenate([space_probabilities(counts).reshape(-1), (counts @ COUNT_VALUES) / MAX_COUNT])
    out = out.astype(np.float32)
    out.flags.writeable = False
    return out


def position_features(unseen, to_come: int, shown) -> np.ndarray:
    """:func:`observation_beliefs` of one position given as card counts (cached)."""
    return _features_of(*_position_key(unseen, to_come, shown))


def offset_distribution(unseen: np.ndarray, to_come: np.ndarray) -> np.ndarray:
    """P(drawn normal - drawn NO! = d) per category when ``to_come`` cards are drawn from ``unseen``.

    ``unseen``: ``(..., 10)`` cards per type; ``to_come``: ``(...)``. Returns ``(..., 5, 14)`` over
    d = -2..11.
    """
    unseen = np.asarray(unseen, dtype=np.int64)
    to_come = np.asarray(to_come, dtype=np.int64)
    total = unseen.sum(axis=-1)
    draw = np.minimum(np.maximum(to_come, 0), total)
    normal = unseen[..., :NUM_CATEGORIES]  # (..., 5)
    no = unseen[..., NUM_CATEGORIES:]
    rest = total[..., None] - normal - no
    # log P(x normal, y NO!) = log C(normal, x) + log C(no, y) + log C(rest, d - x - y) - log C(total, d)
    log_p = (_LC_X[normal][..., :, None] + _LC_Y[no][..., None, :] + _LC_REST[rest, draw[..., None]]
             - _LC_DRAWN[total, draw][..., None, None, None])
    joint = np.exp(log_p)  # (..., 5, 12, 3)
    out = np.zeros(joint.shape[:-2] + (len(_OFFSETS),))
    for j in range(len(_Y)):  # offset x - j lands at index x - j + 2
        out[..., NO_PER_CATEGORY - j: NO_PER_CATEGORY - j + len(_X)] += joint[..., :, j]
    return out


# _LANDS[b + _LAND_SHIFT][o, k] = 1 when a category with "shown normal - shown NO!" = b and drawn
# offset index o ends with count k (counts below 0 are 0, so several offsets may land on one count).
_LAND_SHIFT = 2 * DECK_SIZE
_LANDS = (np.clip(np.arange(-_LAND_SHIFT, _LAND_SHIFT + 1)[:, None] + _OFFSETS[None, :], 0, MAX_COUNT)[..., None]
          == COUNT_VALUES).astype(float)  # (261, 14, 12)


def count_distribution(offsets: np.ndarray, shown: np.ndarray) -> np.ndarray:
    """P(final count = k), k = 0..11, per category: ``shown`` ``(..., 10)`` cards already certain to
    reach the display (normal then NO!), ``offsets`` from :func:`offset_distribution`."""
    shown = np.asarray(shown, dtype=np.int64)
    base = shown[..., :NUM_CATEGORIES] - shown[..., NUM_CATEGORIES:]  # (..., 5)
    return np.einsum("...o,...ok->...k", offsets, _LANDS[base + _LAND_SHIFT])


def space_probabilities(counts: np.ndarray) -> np.ndarray:
    """P(a chip on each space is correct): ``(..., 5, 12)`` count distributions -> ``(..., 5, 8)``."""
    return counts @ SPACE_CORRECT


# --------------------------------------------------------------------------- from an observation

FEATURE_SIZE = NUM_CATEGORIES * NUM_SPACES + NUM_CATEGORIES  # P(correct) per space, expected count
FEATURE_NAME = "members_only_beliefs"
_HAND, _UNSEEN, _DISPLAY = SLICES["hand"], SLICES["unseen"], SLICES["display"]
_PENDING, _HAND_SIZES, _PRESENT = SLICES["pending_reveal"], SLICES["hand_sizes"], SLICES["seats_present"]
_MAX_HAND = 11


def _observation_position(obs: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Unseen cards ``(B, 10)``, cards still to come ``(B,)`` and cards certain to be shown
    ``(B, 10)`` of a batch of observations, read from the observation alone."""
    if obs.ndim != 2 or obs.shape[-1] != OBS_SIZE:
        raise ValueError(f"expected Members Only observations of size {OBS_SIZE}, got shape {obs.shape}")
    obs = obs.astype(np.float64)
    hand = np.rint(obs[:, _HAND] * _COPIES).astype(np.int64)
    unseen = np.rint(obs[:, _UNSEEN] * _COPIES).astype(np.int64)
    display = np.rint(obs[:, _DISPLAY] * _COPIES).astype(np.int64)
    pending = np.rint(obs[:, _PENDING]).astype(np.int64)
    sizes = np.rint(obs[:, _HAND_SIZES] * _MAX_HAND).astype(np.int64)
    present = obs[:, _PRESENT] > 0.5
    others = present[:, 1:MAX_PLAYERS]
    to_come = (sizes[:, 1:MAX_PLAYERS] * others).sum(axis=1) - others.sum(axis=1)
    return unseen, np.maximum(to_come, 0), display + hand + pending


def observation_counts(observations: np.ndarray) -> np.ndarray:
    """The final-count distributions ``(B, 5, 12)`` of a batch of observations ``(B, 510)``."""
    unseen, to_come, shown = _observation_position(np.asarray(observations))
    return count_distribution(offset_distribution(unseen, to_come), shown)


def count_features(counts: np.ndarray) -> np.ndarray:
    """The belief features ``(B, 45)`` of count distributions ``(B, 5, 12)``."""
    features = np.concatenate(
        [space_probabilities(counts).reshape(len(counts), -1), (counts @ COUNT_VALUES) / MAX_COUNT], axis=1)
    return features.astype(np.float32)


def observation_beliefs(observations: np.ndarray) -> np.ndarray:
    """Belief features of one observation ``(510,)`` or a batch ``(B, 510)``: for every betting space
    (category-major, as the board) the probability that a chip there is correct, then every
    category's expected final count / 11. Built from the observation alone. One observation (an
    agent at a table) takes the cached path of :func:`position_features`; a batch (the training
    environments) is computed in one go -- the numbers are the same (tested)."""
    obs = np.asarray(observations)
    if obs.ndim == 1:
        unseen, to_come, shown = _observation_position(obs[None])
        return position_features(unseen[0], int(to_come[0]), shown[0]).copy()
    return count_features(observation_counts(obs))


def with_beliefs(observations: np.ndarray) -> np.ndarray:
    """The observation followed by its belief features (what a ``members_only_beliefs`` policy reads)."""
    obs = np.asarray(observations, dtype=np.float32)
    return np.concatenate([obs, observation_beliefs(obs)], axis=-1)
