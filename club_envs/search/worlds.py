"""Resampling among uniformly drawn worlds, shared by every game's sampler.

A game's sampler draws worlds uniformly from those consistent with a view. A belief model can
reweight them: ``weight(state) -> float`` (any non-negative number, e.g. the probability a
heuristic's belief gives the world's hidden facts). With a weight, the sampler draws
``candidates`` uniform worlds and keeps one with probability proportional to its weight
(sampling-importance-resampling): the kept world follows the weighted distribution more closely
the more candidates are drawn, and exactly in the limit.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

Weight = Callable[[Any], float]
DEFAULT_CANDIDATES = 16


def resample(draw: Callable[[], Any], rng: np.random.Generator, weight: Weight | None,
             candidates: int = DEFAULT_CANDIDATES, finish: Callable[[Any], Any] | None = None) -> Any:
    """One world from ``draw()`` (uniform), reweighted by ``weight`` when one is given.

    ``finish``: when given, ``draw()`` returns a cheap description of a world's hidden facts (which
    ``weight`` reads) and ``finish`` builds the full world from the one kept -- so the candidates
    that are weighed and dropped are never built."""
    finish = finish or (lambda world: world)
    if weight is None:
        return finish(draw())
    if candidates < 1:
        raise ValueError(f"candidates={candidates!r}: expected a whole number >= 1")
    worlds = [draw() for _ in range(candidates)]
    weights = np.array([float(weight(w)) for w in worlds])
    if np.any(weights < 0) or not np.all(np.isfinite(weights)):
        raise ValueError("a world weight must be a finite number >= 0")
    total = weights.sum()
    if total <= 0:
        return finish(worlds[int(rng.integers(candidates))])
    return finish(worlds[int(rng.choice(candidates, p=weights / total))])


def child_seed(rng: np.random.Generator) -> int:
    """A seed for a sampled world's own randomness (later deals, reshuffles), drawn from ``rng``."""
    return int(rng.integers(2**63 - 1))
