"""Random numbers for the batched engines: one xorshift64 generator per game, in a ``uint64`` array.

Each game draws from its own generator, so a game's shuffles and random moves depend only on its
own seed, not on which other games share the batch or how often they were reset. The generator
uses shifts and exclusive ors only, so the same code runs compiled and, with ``NUMBA_DISABLE_JIT=1``,
as plain Python on numpy scalars (no overflow warnings). It is not numpy's ``Generator``: a batched
engine's games for a seed are its own, and differential tests hand both engines the same deals
instead.
"""

from __future__ import annotations

import numpy as np

from club_envs.compiled import compiled

_13, _7, _17 = np.uint64(13), np.uint64(7), np.uint64(17)


def seed_states(seed: int | np.random.SeedSequence | None, count: int) -> np.ndarray:
    """``count`` generator states from ``seed`` (``None``: fresh entropy), none of them zero (the
    one state xorshift never leaves)."""
    sequence = seed if isinstance(seed, np.random.SeedSequence) else np.random.SeedSequence(seed)
    states = sequence.generate_state(count, np.uint64)
    states[states == 0] = 1
    return states


@compiled
def advance(x: np.uint64) -> np.uint64:
    """The generator's next state (xorshift64: 13, 7, 17)."""
    x ^= x << _13
    x ^= x >> _7
    x ^= x << _17
    return x


@compiled
def draw(states: np.ndarray, g: int, bound: int) -> int:
    """A whole number in ``0 .. bound - 1`` from game ``g``'s generator (advanced in place). The
    modulo bias of a 64-bit draw is below 1e-17 for the bounds the engines use (at most 101)."""
    x = advance(states[g])
    states[g] = x
    return int(x % np.uint64(bound))


@compiled
def pick_legal(states: np.ndarray, g: int, mask: np.ndarray) -> int:
    """A uniformly random legal action from ``mask`` (one game's legal mask) drawn from game ``g``'s
    generator: the k-th legal action in increasing order, k drawn below their count; -1 if none.
    The batched ``random`` bots of both games are this draw on their own masks."""
    legal = 0
    for action in range(mask.shape[0]):
        legal += mask[action]
    if legal == 0:
        return -1
    pick = draw(states, g, legal)
    for action in range(mask.shape[0]):
        if mask[action]:
            if pick == 0:
                return action
            pick -= 1
    return -1
