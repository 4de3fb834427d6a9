"""``club-envs study STUDY.yaml --plan``: how many participants and games a wanted difference needs.

The design is the report's: each participant plays ``games`` games of a condition, and the unit is
the participant's mean. Two comparisons:

* **paired** (the default): the person against the baseline agent in the same seat of the same
  deals. The spread is that of one game's difference person - agent.
* **unpaired**: the person's result against the baseline agent's over ``baseline_games`` other
  deals. The spread is that of one game's result; the baseline's own uncertainty
  (``sd^2 / baseline_games``) does not shrink with more participants.

The spread (and the intraclass correlation: how much of it is the person's own, which more games
per person do not average away) is given, or estimated from a pilot -- the study's games so far.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Any

import numpy as np

from club_envs.study.analysis import PairedGame
from club_envs.study_stats import participants_needed, variance_components

MEASURES = ("win", "score")
GAME_CHOICES = (1, 2, 5, 10, 20)


@dataclass(frozen=True)
class Spread:
    sd: float
    icc: float
    baseline_sd: float  # the spread of the agent's result (the unpaired comparison's fixed part)
    source: str  # "given", or what the pilot held


def pilot_spread(pairs: list[PairedGame], measure: str, paired: bool) -> Spread:
    """The spread and intraclass correlation of one game's difference (or the person's result)
    over a pilot's games, by participant; ``ValueError`` without two participants."""
    if measure not in MEASURES:
        raise ValueError(f"measure {measure!r} is not allowed; allowed values: {', '.join(MEASURES)}")
    groups: dict[str, list[float]] = defaultdict(list)
    agent: list[float] = []
    for p in pairs:
        person, other = getattr(p, f"person_{measure}"), getattr(p, f"agent_{measure}")
        groups[p.participant].append(person - other if paired else person)
        agent.append(other)
    sd, icc = variance_components(list(groups.values()))
    baseline_sd = float(np.std(agent, ddof=1)) if len(agent) >= 2 else sd
    return Spread(sd, icc, baseline_sd, f"from the pilot: {len(groups)} participants, {len(pairs)} games")


def plan_rows(difference: float, spread: Spread, games: int, alpha: float, power: float, paired: bool,
              baseline_games: int) -> list[tuple[int, int, int]]:
    """``(games per participant, participants, games in all)`` for the study's number of games and
    a few others."""
    if not paired and baseline_games < 1:
        raise ValueError("the unpaired comparison needs --baseline-games 1 or more")
    fixed = 0.0 if paired else spread.baseline_sd ** 2 / baseline_games
    rows = []
    for m in sorted({games, *GAME_CHOICES}):
        n = participants_needed(difference, spread.sd, m, spread.icc, alpha, power, fixed)
        rows.append((m, n, n * m))
    return rows


def format_plan(name: str, difference: float, measure: str, alpha: float, power: float, paired: bool,
                study_games: int, baseline_games: int, spreads: dict[str, Spread | str]) -> str:
    """The planning table, one block per condition (or one for every condition when the spread is given)."""
    what = "win share" if measure == "win" else "score"
    design = ("person - baseline agent in the same seat of the same deals (paired)" if paired else
              f"person against the baseline agent over {baseline_games} other deals (unpaired)")
    lines = [f"Study {name!r}: participants needed to detect a difference of {difference:g} in {what}, "
             f"{design}; two-sided alpha {alpha:g}, power {power:g}"]
    head = f"{'condition':<18} {'games per participant':>21} {'participants':>12} {'games':>7}"
    for condition, spread in spreads.items():
        lines.append("")
        if isinstance(spread, str):
            lines.append(f"{condition}: {spread}")
            continue
        lines.append(f"{condition}: spread sd {spread.sd:.3g} per game, intraclass correlation {spread.icc:.2f} "
                     f"({spread.source})")
        lines += [head, "-" * len(head)]
        for m, n, total in plan_rows(difference, spread, study_games, alpha, power, paired, baseline_games):
            mark = "  <- the study's" if m == study_games else ""
            lines.append(f"{condition:<18} {m:>21} {n:>12} {total:>7}{mark}")
    return "\n".join(lines)


def plan_spreads(plan: Any, pairs: list[PairedGame] | None, sd: float | None, icc: float | None,
                 measure: str, paired: bool) -> dict[str, Spread | str]:
    """The spread to plan with: the given one for every condition, or each condition's pilot."""
    if sd is not None:
        spread = Spread(sd, 0.0 if icc is None else icc, sd, "given")
        return {"every condition": spread}
    spreads: dict[str, Spread | str] = {}
    for c in plan.conditions:
        mine = [p for p in pairs or [] if p.condition == c.name]
        try:
            spread = pilot_spread(mine, measure, paired)
        except ValueError:
            spreads[c.name] = f"the pilot has {len({p.participant for p in mine})} participants with games; " \
                              "it needs 2 (or give --sd)"
            continue
        if spread.sd == 0:
            spreads[c.name] = "every pilot game gave the same result: no spread to plan with (give --sd)"
            continue
        spreads[c.name] = Spread(spread.sd, spread.icc if icc is None else icc, spread.baseline_sd, spread.source)
    if not any(isinstance(s, Spread) for s in spreads.values()):
        raise ValueError("no pilot games to estimate the spread from (a condition needs finished games of "
                         "2 participants); give --sd, the spread of one game's result")
    return spreads
