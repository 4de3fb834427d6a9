"""Positions reached by seeded random play, and a chi-square check without extra dependencies."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np


def play_random(state, steps: int, seed: int):
    """``state`` after up to ``steps`` uniformly random legal actions (stops before the game ends)."""
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        legal = state.legal_actions()
        probe = state.clone()
        probe.apply_action(legal[int(rng.integers(len(legal)))])
        if probe.is_over:
            break
        state = probe
    return state


def chi_square_critical(dof: int, z: float = 3.719) -> float:
    """The chi-square value exceeded with probability ~1e-4 (Wilson-Hilferty), for ``dof`` >= 1."""
    k = float(dof)
    return k * (1.0 - 2.0 / (9.0 * k) + z * math.sqrt(2.0 / (9.0 * k))) ** 3


def chi_square(observed: Sequence[float], expected_p: Sequence[float]) -> tuple[float, int]:
    """Pearson's statistic of counts against probabilities; cells expected < 5 are pooled."""
    observed = np.asarray(observed, dtype=float)
    p = np.asarray(expected_p, dtype=float)
    assert abs(p.sum() - 1.0) < 1e-9
    total = observed.sum()
    assert observed[p == 0].sum() == 0, "a sample fell where the exact distribution has no mass"
    keep = p > 0
    observed, expected = observed[keep], p[keep] * total
    order = np.argsort(expected)
    pooled_o, pooled_e, acc_o, acc_e = [], [], 0.0, 0.0
    for i in order:
        acc_o += observed[i]
        acc_e += expected[i]
        if acc_e >= 5:
            pooled_o.append(acc_o)
            pooled_e.append(acc_e)
            acc_o = acc_e = 0.0
    if acc_e and pooled_e:
        pooled_o[-1] += acc_o
        pooled_e[-1] += acc_e
    o, e = np.array(pooled_o), np.array(pooled_e)
    return float(((o - e) ** 2 / e).sum()), len(o) - 1


def assert_matches(observed: Sequence[float], expected_p: Sequence[float]) -> None:
    stat, dof = chi_square(observed, expected_p)
    assert dof >= 1
    assert stat < chi_square_critical(dof), f"chi-square {stat:.1f} with {dof} degrees of freedom"
