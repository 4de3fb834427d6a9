"""The statistics a study concludes with: paired differences, a control variate, the smallest
detectable difference and the number of participants a wanted difference needs.

Everything here works on one number per *unit*, the participant: a participant's games are not
independent of one another (the same person plays them all), so the intervals are t intervals over
participants' means -- the cluster-robust choice, which needs no assumption about how a person's
games correlate. The pure functions take plain sequences; :mod:`club_envs.study.report` gathers
them from a study's records and simulated baseline games.

* :func:`paired_difference`: the mean of person minus agent on the same deals, with a t interval.
* :func:`control_variate`: the mean of ``y`` adjusted by a covariate ``x`` whose population mean is
  known or estimated from other deals (``y - beta (x - mu)``); ``beta`` is the least-squares slope,
  and its estimation is paid for in the variance (the regression prediction variance at ``mu``)
  and in the degrees of freedom (``n - 2``), the standard correction for an estimated coefficient.
* :func:`detectable_difference`: the true difference a two-sided test at ``alpha`` finds with
  probability ``power``, ``(t_{1-alpha/2} + t_{power}) * se``.
* :func:`participants_needed`: the smallest number of participants whose detectable difference is
  at most the wanted one, for a given number of games per participant and intraclass correlation.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from club_envs.stats import normal_quantile, t_quantile

CONFIDENCE = 0.95
POWER = 0.8
MAX_PARTICIPANTS = 10_000_000


@dataclass(frozen=True)
class Estimate:
    """A mean with its standard error, degrees of freedom and t interval."""

    mean: float
    se: float
    df: float
    n: int
    confidence: float = CONFIDENCE

    @property
    def half_width(self) -> float:
        return t_quantile(0.5 + self.confidence / 2, self.df) * self.se

    @property
    def low(self) -> float:
        return self.mean - self.half_width

    @property
    def high(self) -> float:
        return self.mean + self.half_width

    def covers(self, value: float) -> bool:
        return self.low <= value <= self.high

    def detectable(self, power: float = POWER) -> float:
        """The smallest true difference from zero a test at this interval's level finds with ``power``."""
        return detectable_difference(self.se, self.df, alpha=1 - self.confidence, power=power)


@dataclass(frozen=True)
class ControlVariateEstimate:
    """A control-variate estimate beside the plain mean of the same values."""

    estimate: Estimate
    plain: Estimate
    beta: float
    correlation: float

    @property
    def width_ratio(self) -> float:
        """The adjusted interval's width over the plain one's (below 1: narrower)."""
        return self.estimate.half_width / self.plain.half_width if self.plain.half_width > 0 else math.nan


def _values(values: Sequence[float], name: str) -> np.ndarray:
    array = np.asarray(values, dtype=float)
    if array.ndim != 1 or not np.all(np.isfinite(array)):
        raise ValueError(f"{name}: expected a sequence of finite numbers")
    return array


def _check_level(confidence: float) -> None:
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be between 0 and 1, got {confidence}")


def mean_estimate(values: Sequence[float], confidence: float = CONFIDENCE) -> Estimate:
    """The mean of ``values`` with its t interval (``n - 1`` degrees of freedom); needs two values."""
    _check_level(confidence)
    y = _values(values, "values")
    if len(y) < 2:
        raise ValueError(f"an interval needs at least 2 values, got {len(y)}")
    return Estimate(float(y.mean()), float(y.std(ddof=1) / math.sqrt(len(y))), len(y) - 1, len(y), confidence)


def paired_difference(first: Sequence[float], second: Sequence[float],
                      confidence: float = CONFIDENCE) -> Estimate:
    """The mean of ``first[i] - second[i]`` (the same unit measured twice) with its t interval."""
    a, b = _values(first, "first"), _values(second, "second")
    if a.shape != b.shape:
        raise ValueError(f"paired values must come in pairs; got {len(a)} and {len(b)}")
    return mean_estimate(a - b, confidence)


def control_variate(y: Sequence[float], x: Sequence[float], reference_mean: float,
                    reference_variance: float = 0.0, confidence: float = CONFIDENCE) -> ControlVariateEstimate:
    """The mean of ``y`` corrected by the covariate ``x``: ``mean(y) - beta (mean(x) - mu)``.

    ``mu`` is ``reference_mean``, the covariate's mean over the population (here: over many other
    deals), known up to ``reference_variance`` (the variance of that mean; 0 if exact). ``beta`` is
    the least-squares slope of ``y`` on ``x``. The variance is the regression's prediction variance
    at ``mu`` -- ``s^2 (1/n + ((mean(x) - mu)^2 + v) / Sxx) + beta^2 v`` with the residual variance
    ``s^2`` on ``n - 2`` degrees of freedom -- so an estimated slope never looks better than it is.
    ``ValueError`` with fewer than 3 units or a covariate that does not vary.
    """
    _check_level(confidence)
    ys, xs = _values(y, "y"), _values(x, "x")
    if ys.shape != xs.shape:
        raise ValueError(f"y and x must come in pairs; got {len(ys)} and {len(xs)}")
    n = len(ys)
    if n < 3:
        raise ValueError(f"a control variate needs at least 3 units, got {n}")
    if reference_variance < 0 or not math.isfinite(reference_variance) or not math.isfinite(reference_mean):
        raise ValueError("the reference mean must be finite and its variance 0 or more")
    dx, dy = xs - xs.mean(), ys - ys.mean()
    sxx, syy = float(dx @ dx), float(dy @ dy)
    if sxx <= 1e-12 * max(1.0, float(xs @ xs)):
        raise ValueError("the covariate does not vary across units")
    beta = float(dx @ dy) / sxx
    residual = dy - beta * dx
    s2 = float(residual @ residual) / (n - 2)
    shift = float(xs.mean()) - reference_mean
    variance = s2 * (1 / n + (shift * shift + reference_variance) / sxx) + beta * beta * reference_variance
    estimate = Estimate(float(ys.mean()) - beta * shift, math.sqrt(variance), n - 2, n, confidence)
    correlation = float(dx @ dy) / math.sqrt(sxx * syy) if syy > 0 else 0.0
    return ControlVariateEstimate(estimate, mean_estimate(ys, confidence), beta, correlation)


def _check_test(alpha: float, power: float) -> None:
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha must be between 0 and 1, got {alpha}")
    if not 0.0 < power < 1.0:
        raise ValueError(f"power must be between 0 and 1, got {power}")


def detectable_difference(se: float, df: float, alpha: float = 1 - CONFIDENCE, power: float = POWER) -> float:
    """``(t_{1-alpha/2, df} + t_{power, df}) * se``: the true difference a two-sided level-``alpha``
    test with standard error ``se`` rejects zero for with probability about ``power``."""
    _check_test(alpha, power)
    return (t_quantile(1 - alpha / 2, df) + t_quantile(power, df)) * se


def unit_variance(sd: float, games: int, icc: float = 0.0) -> float:
    """The variance of one participant's mean over ``games`` games whose single-game standard
    deviation is ``sd`` and whose intraclass correlation (the share of the variance that is the
    person's own) is ``icc``: ``sd^2 (icc + (1 - icc) / games)``."""
    if not sd > 0 or not math.isfinite(sd):
        raise ValueError(f"the spread (sd) must be a positive number, got {sd}")
    if games < 1:
        raise ValueError(f"games per participant must be 1 or more, got {games}")
    if not 0.0 <= icc <= 1.0:
        raise ValueError(f"the intraclass correlation must be between 0 and 1, got {icc}")
    return sd * sd * (icc + (1 - icc) / games)


def participants_needed(difference: float, sd: float, games: int = 1, icc: float = 0.0,
                        alpha: float = 1 - CONFIDENCE, power: float = POWER, fixed_variance: float = 0.0) -> int:
    """The smallest number of participants (2 or more) who, playing ``games`` games each, detect a
    true ``difference`` with probability ``power`` in a two-sided test at ``alpha``.

    ``fixed_variance`` is a part of the estimate's variance that more participants do not shrink
    (the baseline agent's own uncertainty when it is compared over other deals). ``ValueError``
    names an impossible request.
    """
    _check_test(alpha, power)
    if not difference > 0 or not math.isfinite(difference):
        raise ValueError(f"the wanted difference must be a positive number, got {difference}")
    if fixed_variance < 0:
        raise ValueError(f"the fixed variance must be 0 or more, got {fixed_variance}")
    per_unit = unit_variance(sd, games, icc)
    z = normal_quantile(1 - alpha / 2) + normal_quantile(power)
    room = (difference / z) ** 2 - fixed_variance
    if room <= 0:
        raise ValueError(f"a difference of {difference:g} cannot be detected: the baseline's own standard error "
                         f"({math.sqrt(fixed_variance):.3g}) is too large; play more baseline games")
    start = max(2, math.ceil(per_unit / room))  # the normal approximation; the t quantiles only add to it
    for n in range(start, MAX_PARTICIPANTS + 1):
        if detectable_difference(math.sqrt(per_unit / n + fixed_variance), n - 1, alpha, power) <= difference:
            return n
    raise ValueError(f"a difference of {difference:g} needs more than {MAX_PARTICIPANTS:,} participants")


def variance_components(groups: Sequence[Sequence[float]]) -> tuple[float, float]:
    """The single-game standard deviation and the intraclass correlation of values grouped by
    participant (one-way analysis of variance, the correlation clipped to [0, 1]); a pilot's
    figures for :func:`participants_needed`. Needs two groups and one group with two values."""
    arrays = [_values(g, "group") for g in groups if len(g)]
    if len(arrays) < 2:
        raise ValueError(f"the spread needs at least 2 participants with games, got {len(arrays)}")
    within_df = sum(len(a) - 1 for a in arrays)
    everything = np.concatenate(arrays)
    grand = everything.mean()
    within = sum(float(((a - a.mean()) ** 2).sum()) for a in arrays)
    between = sum(len(a) * (float(a.mean()) - grand) ** 2 for a in arrays)
    k, total = len(arrays), len(everything)
    ms_between = between / (k - 1)
    if within_df == 0:  # one game each: no split of the variance; all of it counts as the games'
        sd = float(everything.std(ddof=1))
        return sd, 0.0
    ms_within = within / within_df
    size = (total - sum(len(a) ** 2 for a in arrays) / total) / (k - 1)  # the mean group size (unbalanced)
    person = max(0.0, (ms_between - ms_within) / size)
    sd = math.sqrt(person + ms_within)
    return sd, (person / (person + ms_within) if person + ms_within > 0 else 0.0)
