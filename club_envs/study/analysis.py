"""What a study can conclude: the person against the baseline agent on the same deals.

For every finished study game the report replays its deal (the record's seed) twice without a
person:

* the **baseline agent** (``heuristic`` unless told otherwise) in the person's seat, against the
  condition's lineup: the same seat of the same deal, so that the difference person - agent is
  free of the deal's luck;
* the **deal value**: the seat's win share when the value agent (``heuristic``) plays *every*
  seat, i.e. how winnable that seat of that deal is in itself. It needs no person and no learned
  model, is the same function of the deal for the study's deals and for any other, and the game's
  chance is fixed by the seed, so one game gives it exactly.

The unit of analysis is the participant (their mean over the condition's games): a person's games
are not independent of one another. Per condition the report gives

* the **paired difference**, person - agent, with its t interval over participants, and the
  smallest difference the study as run could have detected at 80% power;
* a **control-variate estimate** of the person's win share, the agent's and their difference,
  each corrected by how the study's deals' value differs from its mean over the reference deals
  (the baseline's seeded deals 0, 1, ...) -- with the width of its interval beside the plain one;
* for conditions with **duplicate seating**, the difference averaged over the seats of each deal,
  over the deals every seat of which was played.

Every figure here is for the study's owner; nothing of it is shown to a participant.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from club_envs.games import load_game
from club_envs.study_stats import (
    ControlVariateEstimate, Estimate, control_variate, mean_estimate, paired_difference,
)


@dataclass(frozen=True)
class PairedGame:
    """One study game beside the baseline agent's game and the value of the same seat and deal."""

    condition: str
    participant: str
    seed: int
    seat: int
    person_win: float
    person_score: float
    agent_win: float
    agent_score: float
    value: float


@dataclass
class Duplicate:
    """Duplicate seating of one condition: deals every seat of which was played, and the mean
    over seats of person - agent on each of them."""

    deals: int  # deals with at least one game
    complete: int  # deals played from every seat
    difference: Estimate | None
    per_deal: list[float] = field(default_factory=list)


@dataclass
class ConditionAnalysis:
    condition: str
    agent: str
    value_agent: str
    participants: int
    games: int
    person: float
    agent_share: float
    paired: Estimate | None
    reference_deals: int
    adjusted: dict[str, ControlVariateEstimate | str]  # person, agent, difference -> estimate or why not
    duplicate: Duplicate | None = None


def seat_result(condition: Any, seed: int, seat: int | None, agent: str, make_agent: Any,
                opponents: str | None = None) -> tuple[int, str | None, float, float]:
    """Play ``seed``'s deal of ``condition`` with ``agent`` in the seat (``None``: the condition's
    choice, by role or at random) against the condition's lineup, or ``opponents`` in every other
    seat; the seat, its role, its win share and its score."""
    from club_envs.play.human_game import HumanGame

    g = HumanGame.create(condition.game, num_players=condition.players, seat=seat,
                         role=condition.role if seat is None else None,
                         opponents=opponents or condition.opponents, seed=seed, make_agent=make_agent)
    # the seed an agent in this seat would have had (HumanGame's own derivation)
    agent_seed = int(np.random.SeedSequence(g.seed).spawn(condition.players)[g.human_seat].generate_state(1)[0])
    player = make_agent(g.game, agent, g.config, agent_seed)
    player.reset(g.human_seat, agent_seed)
    while True:
        g.advance()
        if g.over:
            break
        g.play(int(player.act(g.decision())))
    outcome = next(o for o in g.game.outcomes(g.record()) if o.seat == g.human_seat)
    return g.human_seat, g.human_role, outcome.win, outcome.score


def paired_games(recs: Iterable[dict[str, Any]], plan: Any, make_agent: Any, agent: str = "heuristic",
                 value_agent: str = "heuristic") -> list[PairedGame]:
    """Each finished study game of a condition of ``plan``, with the agent's game and the deal's
    value on the same seat and seed."""
    pairs = []
    for record in recs:
        tag = record.get("study")
        if not isinstance(tag, dict) or "human_seat" not in record or not record.get("result"):
            continue
        condition = plan.condition(str(tag.get("condition")))
        if condition is None or condition.game != record["game"]:
            continue
        seat, seed = int(record["human_seat"]), int(record["seed"])
        person = next(o for o in load_game(record["game"]).outcomes(record) if o.seat == seat)
        _, _, agent_win, agent_score = seat_result(condition, seed, seat, agent, make_agent)
        _, _, value, _ = seat_result(condition, seed, seat, value_agent, make_agent, opponents=value_agent)
        pairs.append(PairedGame(condition.name, str(tag.get("participant")), seed, seat, person.win, person.score,
                                agent_win, agent_score, value))
    return pairs


def reference_values(plan: Any, make_agent: Any, value_agent: str = "heuristic", games: int = 100) -> dict[str, list[float]]:
    """The deal value of the person's seat (as the condition chooses it) over seeds 0..games-1."""
    return {c.name: [seat_result(c, seed, c.seat, value_agent, make_agent, opponents=value_agent)[2]
                     for seed in range(games)] for c in plan.conditions}


def _by_participant(pairs: list[PairedGame]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per participant: the mean person win share, agent win share and deal value."""
    groups: dict[str, list[PairedGame]] = defaultdict(list)
    for p in pairs:
        groups[p.participant].append(p)
    rows = [[np.mean([getattr(p, k) for p in g]) for k in ("person_win", "agent_win", "value")]
            for _, g in sorted(groups.items())]
    table = np.array(rows, dtype=float).reshape(-1, 3)
    return table[:, 0], table[:, 1], table[:, 2]


def _adjust(y: np.ndarray, x: np.ndarray, reference: list[float]) -> ControlVariateEstimate | str:
    if len(reference) < 2:
        return "no reference deals (--baseline-games 0)"
    if len(y) < 3:
        return f"needs 3 participants, has {len(y)}"
    ref = np.asarray(reference, dtype=float)
    try:
        return control_variate(y, x, float(ref.mean()), float(ref.var(ddof=1)) / len(ref))
    except ValueError:
        return "the deal value is the same for every participant (they met the same deals)"


def duplicate_summary(pairs: list[PairedGame], players: int) -> Duplicate:
    """Per deal, the mean over its seats of (people's mean at the seat - the agent at the seat)."""
    by_deal: dict[int, dict[int, list[PairedGame]]] = defaultdict(lambda: defaultdict(list))
    for p in pairs:
        by_deal[p.seed][p.seat].append(p)
    per_deal = []  # in the order of the deals' seeds, whatever order the games were stored in
    for _, seats in sorted(by_deal.items()):
        if len(seats) == players:
            per_deal.append(float(np.mean([np.mean([p.person_win for p in g]) - g[0].agent_win
                                           for g in seats.values()])))
    estimate = mean_estimate(per_deal) if len(per_deal) >= 2 else None
    return Duplicate(len(by_deal), len(per_deal), estimate, per_deal)


def analyse(pairs: list[PairedGame], plan: Any, references: dict[str, list[float]], agent: str = "heuristic",
            value_agent: str = "heuristic") -> list[ConditionAnalysis]:
    """One analysis per condition with finished games."""
    out = []
    for c in plan.conditions:
        mine = [p for p in pairs if p.condition == c.name]
        if not mine:
            continue
        y, b, x = _by_participant(mine)
        reference = references.get(c.name, [])
        analysis = ConditionAnalysis(
            c.name, agent, value_agent, len(y), len(mine), float(np.mean([p.person_win for p in mine])),
            float(np.mean([p.agent_win for p in mine])), paired_difference(y, b) if len(y) >= 2 else None,
            len(reference), {"person": _adjust(y, x, reference), "agent": _adjust(b, x, reference),
                             "difference": _adjust(y - b, x, reference)},
        )
        if c.duplicate:
            analysis.duplicate = duplicate_summary(mine, c.players)
        out.append(analysis)
    return out


def _interval(e: Estimate, signed: bool = False) -> str:
    f = "+.2f" if signed else ".2f"
    return f"{e.mean:{f}} [{e.low:{f}}, {e.high:{f}}]"


def format_analysis(analyses: list[ConditionAnalysis]) -> str:
    """The paired, variance-reduced and duplicate sections of the study report."""
    if not analyses:
        return "no finished study games to pair with the baseline agent"
    first = analyses[0]
    head = (f"{'condition':<18} {'people':>6} {'games':>5} {'person':>6} {'agent':>6}  "
            f"{'person - agent [95%]':<24} {'detectable (80% power)':>22}")
    lines = [f"Paired on the same deals: the person against {first.agent} in the same seat of the same seed "
             "(win share; unit: participant)", head, "-" * len(head)]
    for a in analyses:
        paired = _interval(a.paired, signed=True) if a.paired else "- (needs 2 participants)"
        detectable = f"{a.paired.detectable():.2f}" if a.paired else "-"
        lines.append(f"{a.condition:<18} {a.participants:>6} {a.games:>5} {a.person:>6.2f} {a.agent_share:>6.2f}  "
                     f"{paired:<24} {detectable:>22}")
    head = (f"{'condition':<18} {'estimate':<10} {'plain [95%]':<22} {'adjusted [95%]':<22} "
            f"{'width':>6} {'corr':>5} {'detectable':>10}")
    lines += ["", f"Variance-reduced: control variate = the seat's win share in {first.value_agent} self-play on the "
              f"same deal, against its mean over {first.reference_deals} reference deals (seeds 0..); width = "
              "adjusted interval / plain interval", head, "-" * len(head)]
    for a in analyses:
        for i, (name, cv) in enumerate(a.adjusted.items()):
            label = a.condition if i == 0 else ""
            signed = name == "difference"
            if isinstance(cv, str):
                lines.append(f"{label:<18} {name:<10} - ({cv})")
                continue
            width = "-" if np.isnan(cv.width_ratio) else f"{cv.width_ratio:.2f}"  # "-": every unit had the same result
            lines.append(f"{label:<18} {name:<10} {_interval(cv.plain, signed):<22} {_interval(cv.estimate, signed):<22} "
                         f"{width:>6} {cv.correlation:>5.2f} "
                         f"{(f'{cv.estimate.detectable():.2f}' if signed else ''):>10}")
    duplicates = [a for a in analyses if a.duplicate is not None]
    if duplicates:
        head = f"{'condition':<18} {'deals':>5} {'every seat':>10}  {'person - agent over seats [95%]':<32}"
        lines += ["", "Duplicate seating: each deal played from every seat; per deal the mean over its seats of "
                  "person - agent (unit: deal)", head, "-" * len(head)]
        for a in duplicates:
            d = a.duplicate
            shown = _interval(d.difference, signed=True) if d.difference else (
                f"{d.per_deal[0]:+.2f} (one deal)" if d.per_deal else "- (no deal has every seat yet)")
            lines.append(f"{a.condition:<18} {d.deals:>5} {d.complete:>10}  {shown:<32}")
    return "\n".join(lines)
