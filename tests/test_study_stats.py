"""The study statistics against simulated studies whose true difference is known: the intervals
cover it about 95% of the time, the control variate narrows them when the deal's value predicts
the result, the detectable difference is found about 80% of the time, and the planned number of
participants reaches the wanted power."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest

from club_envs.stats import t_cdf, t_quantile
from club_envs.study_stats import (
    control_variate, detectable_difference, mean_estimate, paired_difference, participants_needed,
    unit_variance, variance_components,
)

REPS = 2000  # replications per simulated study: a 95% coverage is then known to about +-0.01


@pytest.mark.parametrize("p,df,expected", [
    (0.975, 1, 12.7062), (0.975, 2, 4.3027), (0.975, 5, 2.5706), (0.975, 10, 2.2281), (0.975, 30, 2.0423),
    (0.8, 4, 0.9410), (0.995, 20, 2.8453), (0.975, 1e9, 1.9600), (0.025, 10, -2.2281), (0.5, 3, 0.0),
])
def test_t_quantiles_match_the_printed_tables(p, df, expected):
    assert t_quantile(p, df) == pytest.approx(expected, abs=1e-4)
    assert t_cdf(t_quantile(p, df), min(df, 1e6)) == pytest.approx(p, abs=1e-6)


def test_a_t_quantile_outside_its_domain_is_refused():
    with pytest.raises(ValueError, match="0 < p < 1"):
        t_quantile(1.0, 5)
    with pytest.raises(ValueError, match="degrees of freedom must be positive"):
        t_quantile(0.9, 0)


def simulate_study(rng, participants, games, true_difference, deal_effect=0.6, skill_sd=0.08):
    """One simulated study of win/lose games: each participant plays ``games`` deals, each deal with a
    value (how winnable the seat is) that moves both the person's and the agent's chance of winning;
    the person's chance is the agent's plus ``true_difference`` plus their own skill."""
    value = rng.uniform(0, 1, (participants, games))
    agent_p = 0.25 + deal_effect * (value - 0.5)
    skill = rng.normal(0, skill_sd, (participants, 1))
    person_p = agent_p + true_difference + skill  # skill has mean 0 in the population
    person = (rng.random((participants, games)) < person_p).astype(float)
    agent = (rng.random((participants, games)) < agent_p).astype(float)
    # the deal value the report measures (the seat's score lead in self-play): a noisy view of the truth
    measured = value + rng.normal(0, 0.15, (participants, games))
    return person.mean(1), agent.mean(1), measured.mean(1)


def test_the_paired_interval_covers_the_true_difference_about_95_percent_of_the_time():
    rng = np.random.default_rng(20261203)
    true = 0.12
    covered = sum(paired_difference(*simulate_study(rng, 12, 3, true)[:2]).covers(true) for _ in range(REPS))
    assert 0.93 <= covered / REPS <= 0.97


def test_the_variance_reduced_interval_covers_the_truth_and_is_narrower():
    """Scores, where the deal decides much of the result: the person's mean score corrected by the
    deal's measured value (mean over 2,000 other deals) keeps 95% coverage in a narrower interval."""
    rng = np.random.default_rng(7)
    true_mean = 2.0 + 10 * 0.5  # the person's mean score over the population of deals
    covered = plain_covered = 0
    ratios = []
    for _ in range(REPS):
        value = rng.uniform(0, 1, (20, 3))
        score = 2.0 + 10 * value + rng.normal(0, 0.8, (20, 1)) + rng.normal(0, 2.5, (20, 3))
        measured = value + rng.normal(0, 0.15, value.shape)
        reference = rng.uniform(0, 1, 2000) + rng.normal(0, 0.15, 2000)  # far more deals than the study's
        cv = control_variate(score.mean(1), measured.mean(1), reference.mean(), reference.var(ddof=1) / len(reference))
        covered += cv.estimate.covers(true_mean)
        plain_covered += cv.plain.covers(true_mean)
        ratios.append(cv.width_ratio)
    assert 0.93 <= covered / REPS <= 0.97
    assert 0.93 <= plain_covered / REPS <= 0.97
    assert np.mean(ratios) < 0.85  # the deal's value predicts the result: a narrower interval
    assert np.mean(np.array(ratios) < 1) > 0.9


def test_the_control_variate_keeps_its_coverage_on_win_shares():
    rng = np.random.default_rng(8)
    true = 0.12
    covered = 0
    for _ in range(REPS):
        person, _, measured = simulate_study(rng, 15, 2, true)
        reference = rng.uniform(0, 1, 200) + rng.normal(0, 0.15, 200)
        cv = control_variate(person, measured, reference.mean(), reference.var(ddof=1) / len(reference))
        covered += cv.estimate.covers(0.25 + true)
    assert 0.93 <= covered / REPS <= 0.97


def test_a_control_variate_that_predicts_nothing_costs_a_little_width_and_never_bias():
    rng = np.random.default_rng(3)
    ratios, covered = [], 0
    for _ in range(REPS):
        y = rng.normal(0.4, 0.2, 15)
        x = rng.normal(0, 1, 15)  # independent of y
        cv = control_variate(y, x, 0.0, 1 / 500)
        covered += cv.estimate.covers(0.4)
        ratios.append(cv.width_ratio)
    assert 0.93 <= covered / REPS <= 0.97
    assert 1.0 < np.mean(ratios) < 1.1  # one degree of freedom lost, and the slope's noise


def test_the_control_variate_is_exact_when_the_covariate_is_the_result():
    x = np.array([0.0, 0.5, 1.0, 0.5, 1.0])
    cv = control_variate(x, x, reference_mean=0.3)
    assert cv.estimate.mean == pytest.approx(0.3) and cv.estimate.se == pytest.approx(0.0, abs=1e-12)
    assert cv.beta == pytest.approx(1.0) and cv.correlation == pytest.approx(1.0)


@pytest.mark.parametrize("call,message", [
    (lambda: control_variate([1, 2], [1, 2], 0.0), "needs at least 3 units"),
    (lambda: control_variate([1, 2, 3], [1, 1, 1], 0.0), "does not vary"),
    (lambda: control_variate([1, 2, 3], [1, 2], 0.0), "must come in pairs"),
    (lambda: paired_difference([1, 2, 3], [1, 2]), "must come in pairs"),
    (lambda: mean_estimate([1.0]), "at least 2 values"),
    (lambda: mean_estimate([1.0, math.nan]), "finite numbers"),
    (lambda: participants_needed(0.0, 0.5), "wanted difference must be a positive number"),
    (lambda: participants_needed(0.1, -1.0), "spread (sd) must be a positive number"),
    (lambda: participants_needed(0.1, 0.5, icc=1.5), "intraclass correlation must be between 0 and 1"),
    (lambda: participants_needed(0.1, 0.5, power=1.0), "power must be between 0 and 1"),
    (lambda: participants_needed(0.1, 0.5, fixed_variance=0.01), "cannot be detected"),
])
def test_impossible_requests_are_refused_by_name(call, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        call()


@pytest.mark.parametrize("n,sd", [(8, 0.5), (25, 0.3)])
def test_the_detectable_difference_is_found_about_80_percent_of_the_time(n, sd):
    rng = np.random.default_rng(n)
    mde = detectable_difference(sd / math.sqrt(n), n - 1)
    found = 0
    for _ in range(REPS):
        e = mean_estimate(rng.normal(mde, sd, n))
        found += not e.covers(0.0)
    assert 0.77 <= found / REPS <= 0.83
    assert mean_estimate(rng.normal(0, sd, n)).detectable() > 0


def test_the_planned_number_of_participants_reaches_the_wanted_power():
    rng = np.random.default_rng(11)
    sd, icc, games, wanted = 0.7, 0.2, 3, 0.25
    n = participants_needed(wanted, sd, games, icc)
    assert participants_needed(wanted, sd, games, icc) == n and n > 2
    # the smallest such number: one participant fewer does not reach the wanted difference
    assert detectable_difference(math.sqrt(unit_variance(sd, games, icc) / (n - 1)), n - 2) > wanted
    person_sd, game_sd = sd * math.sqrt(icc), sd * math.sqrt(1 - icc)
    found = 0
    for _ in range(REPS):
        per_game = wanted + rng.normal(0, person_sd, (n, 1)) + rng.normal(0, game_sd, (n, games))
        found += not mean_estimate(per_game.mean(1)).covers(0.0)
    assert 0.78 <= found / REPS <= 0.86  # at least the wanted 0.8 (n is rounded up), about as planned


def test_more_games_per_participant_help_less_when_the_person_matters():
    alone = [participants_needed(0.1, 0.5, m, icc=0.0) for m in (1, 4)]
    personal = [participants_needed(0.1, 0.5, m, icc=0.5) for m in (1, 4)]
    assert alone[1] == pytest.approx(alone[0] / 4, rel=0.05)
    assert personal[1] > personal[0] / 2


def test_variance_components_recover_a_simulated_spread_and_correlation():
    rng = np.random.default_rng(5)
    person = rng.normal(0, 0.3, (400, 1))
    values = person + rng.normal(0, 0.4, (400, 6))
    sd, icc = variance_components(values.tolist())
    assert sd == pytest.approx(0.5, abs=0.03) and icc == pytest.approx(0.36, abs=0.05)
    with pytest.raises(ValueError, match="at least 2 participants"):
        variance_components([[1.0, 2.0]])
