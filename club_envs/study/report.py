"""A study's result per condition and per role of the person, against a base rate.

For each condition and each role the person held (Arkham Decoders Club; Members Only has seats,
not roles), the people's win share over their finished games with its 95% Wilson interval -- as
DeepRole reported its games against people, by role -- beside two base rates:

* the **baseline**: the same condition with the person's seat played by an agent (``heuristic``
  unless told otherwise) over seeded games, i.e. how often that role wins against this lineup
  without a person (with its own Wilson interval);
* the **even share** (Members Only): ``1/players``, what a seat wins on average by symmetry.

A shared win counts ``1/k``. Unfinished (abandoned) games are counted apart and never scored.
What the study can conclude -- the person against the agent on the same deals, the control-variate
estimates, duplicate seating -- is :mod:`club_envs.study.analysis`.
"""

from __future__ import annotations

import csv
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from club_envs.games import load_game
from club_envs.stats import wilson_interval

COLUMNS = ("condition", "game", "players", "role", "games", "unfinished", "win_share", "win_low", "win_high",
           "baseline_agent", "baseline_games", "baseline_share", "baseline_low", "baseline_high", "even_share")


@dataclass
class ConditionRow:
    condition: str
    game: str
    players: int
    role: str | None
    games: int = 0
    wins: float = 0.0
    unfinished: int = 0
    baseline_agent: str = ""
    baseline_games: int = 0
    baseline_wins: float = 0.0

    @property
    def win_share(self) -> float:
        return self.wins / self.games if self.games else 0.0

    @property
    def interval(self) -> tuple[float, float]:
        return wilson_interval(self.wins, self.games)

    @property
    def baseline_share(self) -> float | None:
        return self.baseline_wins / self.baseline_games if self.baseline_games else None

    @property
    def baseline_interval(self) -> tuple[float, float] | None:
        return wilson_interval(self.baseline_wins, self.baseline_games) if self.baseline_games else None

    @property
    def even_share(self) -> float | None:
        return None if load_game(self.game).ROLES else 1 / self.players


def human_outcome(record: dict[str, Any]) -> tuple[str | None, float | None]:
    """The person's role and win share in a record (``None`` win share: unfinished)."""
    human = record["human_seat"]
    role = record["seats"][human].get("role")
    if not record.get("result"):
        return role, None
    row = next(o for o in load_game(record["game"]).outcomes(record) if o.seat == human)
    return row.role or role, row.win


def condition_rows(recs: Iterable[dict[str, Any]]) -> list[ConditionRow]:
    """One row per condition and person's role, from the records of a study's games."""
    rows: dict[tuple[str, str | None], ConditionRow] = {}
    for record in recs:
        tag = record.get("study")
        if not isinstance(tag, dict) or "human_seat" not in record:
            continue
        role, win = human_outcome(record)
        key = (str(tag.get("condition")), role)
        row = rows.setdefault(key, ConditionRow(key[0], record["game"], len(record["seats"]), role))
        if win is None:
            row.unfinished += 1
        else:
            row.games += 1
            row.wins += win
    return sorted(rows.values(), key=lambda r: (r.condition, r.role or ""))


def add_baseline(rows: list[ConditionRow], plan: Any, make_agent: Any, agent: str = "heuristic",
                 games: int = 100) -> list[ConditionRow]:
    """Play ``games`` seeded games of each condition with ``agent`` in the person's seat and add
    the win share of each role to ``rows`` (new rows for roles no person held yet)."""
    from club_envs.play.human_game import HumanGame

    by_key = {(r.condition, r.role): r for r in rows}
    for c in plan.conditions:
        for seed in range(games):
            g = HumanGame.create(c.game, num_players=c.players, seat=c.seat, role=c.role, opponents=c.opponents,
                                 seed=seed, make_agent=make_agent)
            player = make_agent(g.game, agent, g.config, seed)
            player.reset(g.human_seat, seed)
            while True:
                g.advance()
                if g.over:
                    break
                g.play(int(player.act(g.decision())))
            row_role = g.human_role
            win = next(o.win for o in g.game.outcomes(g.record()) if o.seat == g.human_seat)
            row = by_key.setdefault((c.name, row_role), ConditionRow(c.name, c.game, c.players, row_role))
            row.baseline_agent = agent
            row.baseline_games += 1
            row.baseline_wins += win
    return sorted(by_key.values(), key=lambda r: (r.condition, r.role or ""))


def _share(value: float | None, interval: tuple[float, float] | None) -> str:
    if value is None or interval is None:
        return "-"
    return f"{value:.2f} [{interval[0]:.2f}, {interval[1]:.2f}]"


def format_rows(rows: list[ConditionRow]) -> str:
    if not rows:
        return "no study games among these records"
    head = (f"{'condition':<18} {'game':<21} {'n':>2} {'person as':<13} {'games':>5} {'left':>4}  "
            f"{'people win share [95%]':<23} {'baseline (agent in the seat) [95%]':<38} {'even':>5}")
    lines = ["By condition and role", head, "-" * len(head)]
    for r in rows:
        base = _share(r.baseline_share, r.baseline_interval)
        if r.baseline_games:
            base += f" {r.baseline_agent} n={r.baseline_games}"
        even = f"{r.even_share:.2f}" if r.even_share is not None else "-"
        lines.append(f"{r.condition:<18} {r.game:<21} {r.players:>2} {(r.role or 'any seat'):<13} {r.games:>5} "
                     f"{r.unfinished:>4}  {_share(r.win_share if r.games else None, r.interval):<23} {base:<38} {even:>5}")
    return "\n".join(lines)


def write_rows(rows: list[ConditionRow], path: str | Path) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(COLUMNS)
        for r in rows:
            lo, hi = r.interval
            base = r.baseline_interval or (None, None)
            writer.writerow([
                r.condition, r.game, r.players, r.role or "", r.games, r.unfinished,
                f"{r.win_share:.4f}" if r.games else "", f"{lo:.4f}" if r.games else "", f"{hi:.4f}" if r.games else "",
                r.baseline_agent, r.baseline_games,
                "" if r.baseline_share is None else f"{r.baseline_share:.4f}",
                "" if base[0] is None else f"{base[0]:.4f}", "" if base[1] is None else f"{base[1]:.4f}",
                "" if r.even_share is None else f"{r.even_share:.4f}",
            ])
    return path


def rows_from_files(paths: Iterable[str | Path]) -> list[ConditionRow]:
    """:func:`condition_rows` over record files, each game once (unsound files and games met in
    several files are left to the main report to name)."""
    from club_envs.report import record_files, unique_records

    def sound() -> Iterable[dict[str, Any]]:
        for _, record in unique_records(record_files(paths, []), [], []):
            if "study" in record:
                yield record

    return condition_rows(sound())
