"""Batched opponents for :mod:`club_envs.arkham_decoders.vector_engine`: moves for every game in one call.

``random_actions`` is the ``random`` bot of :mod:`club_envs.arkham_decoders.bots` for N games at
once: a uniformly random legal action for each game's player to move, drawn from a generator per
game (:mod:`club_envs.vector_rng`), so a game's moves depend on its own seed only.
"""

from __future__ import annotations

import numpy as np

from club_envs.arkham_decoders.vector_engine import END, legal_mask
from club_envs.compiled import compiled
from club_envs.vector_rng import pick_legal


@compiled
def random_action(s, g: int, states: np.ndarray, mask: np.ndarray) -> int:
    """A uniformly random legal action of game ``g`` (record ``s``, still playing), drawn from
    ``states[g]`` (``mask``: room for one legal mask, NUM_ACTIONS bools): the k-th legal action in
    increasing order, k drawn below their count."""
    legal_mask(s, mask)
    return pick_legal(states, g, mask)


@compiled
def random_actions(t: np.ndarray, states: np.ndarray, mask: np.ndarray, out: np.ndarray) -> None:
    """``out[g]``: :func:`random_action` of every game (-1 for a finished game)."""
    for g in range(out.shape[0]):
        if t[g].phase == END:
            out[g] = -1
        else:
            out[g] = random_action(t[g], g, states, mask)
