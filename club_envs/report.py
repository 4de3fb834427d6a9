"""How agents fare against people: a summary of the records of human games.

Every game played with ``club-envs play`` or ``club-envs serve`` is saved as a record whose
human seat has ``controller == "human"`` (and the record names it in ``human_seat``); the other
seats name the agents. :func:`summarise` reads such records and gives one :class:`AgentRow` per
game, agent and -- for Arkham Decoders Club -- the role the agent held, plus one
:class:`HumanRow` per game (and role) for the people themselves.

Counting, so that the numbers mean what they say:

* ``games`` is the number of finished human games the agent took part in;
* the human's win share is the mean of the human seat's win over those games (a shared win
  counts 1/k, as in :class:`~club_envs.games.SeatOutcome`);
* the agent's win share is per seat: an agent filling three seats of a game counts three seats.
  Seats of one game are not independent, so its interval is a little optimistic then;
* intervals are 95% Wilson intervals (:func:`club_envs.stats.wilson_interval`);
* unfinished (abandoned) games are counted apart and never scored;
* a game is counted once however many files hold its record (:func:`unique_records`): a copy,
  or a record written again by a server that finished the game a second time, is named in
  ``report.duplicates`` instead.
"""

from __future__ import annotations

import csv
import hashlib
import json
from collections import defaultdict
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from club_envs import records
from club_envs.games import get_spec, load_game
from club_envs.limits import read_bytes
from club_envs.stats import wilson_interval

HUMAN = "human"
ALL_ROLES = "(all)"


@dataclass
class AgentRow:
    """One agent in one game (and role), over every human game it sat in."""

    game: str
    agent: str
    role: str | None
    games: int = 0
    seats: int = 0
    human_seats: int = 0
    human_wins: float = 0.0
    agent_wins: float = 0.0
    human_score: float = 0.0
    agent_score: float = 0.0

    @property
    def human_win_share(self) -> float:
        return self.human_wins / self.human_seats if self.human_seats else 0.0

    @property
    def agent_win_share(self) -> float:
        return self.agent_wins / self.seats if self.seats else 0.0

    @property
    def human_interval(self) -> tuple[float, float]:
        return wilson_interval(self.human_wins, self.human_seats)

    @property
    def agent_interval(self) -> tuple[float, float]:
        return wilson_interval(self.agent_wins, self.seats)

    @property
    def human_mean_score(self) -> float:
        return self.human_score / self.human_seats if self.human_seats else 0.0

    @property
    def agent_mean_score(self) -> float:
        return self.agent_score / self.seats if self.seats else 0.0


@dataclass
class HumanRow:
    """The people in one game (and role), over every finished human game."""

    game: str
    role: str | None
    games: int = 0
    wins: float = 0.0
    score: float = 0.0

    @property
    def win_share(self) -> float:
        return self.wins / self.games if self.games else 0.0

    @property
    def interval(self) -> tuple[float, float]:
        return wilson_interval(self.wins, self.games)

    @property
    def mean_score(self) -> float:
        return self.score / self.games if self.games else 0.0


@dataclass
class Report:
    agents: list[AgentRow] = field(default_factory=list)
    humans: list[HumanRow] = field(default_factory=list)
    files: int = 0
    human_games: int = 0
    unfinished: int = 0
    without_human: int = 0
    unreadable: list[str] = field(default_factory=list)  # one line per file skipped, naming it and why
    duplicates: list[str] = field(default_factory=list)  # one line per game met in several files, naming them


def record_files(paths: Iterable[str | Path], problems: list[str] | None = None) -> list[Path]:
    """Every ``*.json`` file named, or found (recursively) under a named folder, in sorted order.

    A path that does not exist or a folder that cannot be searched is added to ``problems`` and
    skipped (without ``problems``: ``FileNotFoundError``), so one wrong name does not stop a report.
    """
    found: list[Path] = []
    for raw in paths:
        path = Path(raw)
        try:
            if path.is_dir():
                found.extend(sorted(p for p in path.rglob("*.json") if p.is_file()))
                continue
            if path.is_file():
                found.append(path)
                continue
            problem = f"{path}: no such record file or folder"
        except OSError as exc:
            problem = f"{path}: cannot search this folder ({exc.strerror or exc.__class__.__name__})"
        if problems is None:
            raise FileNotFoundError(problem)
        problems.append(problem)
    return found


@dataclass
class _Copy:
    """One file of a game met in several files: enough to choose one and to check it is unchanged."""

    path: Path
    digest: str
    finished: bool
    ended_at: str


def _digest(record: dict[str, Any]) -> str:
    return hashlib.sha256(json.dumps(record, sort_keys=True).encode()).hexdigest()


def unique_records(files: Iterable[Path], problems: list[str], duplicates: list[str],
                   ) -> Iterator[tuple[Path, dict[str, Any]]]:
    """Every valid record among ``files`` (:func:`record_files`), one per game
    (:func:`club_envs.records.game_key`).

    Files that are not valid records (or whose ``human_seat`` cannot be trusted) go to ``problems``. When several files hold one game, one
    is yielded -- the finished record that ended last, then the last file name -- and one line in
    ``duplicates`` names the files and says whether their records were the same. The files are
    read twice (first to find the games, then the chosen ones again), so that memory holds one
    record at a time however large the folder.
    """
    games: dict[str, list[_Copy]] = {}
    for path in files:
        try:
            record = records.load(path)
            problem = human_seat_problem(record)
            if problem is not None:
                raise records.RecordError(f"{path}: {problem}")
        except records.RecordError as exc:
            problems.append(str(exc))
            continue
        key = records.game_key(record)
        if key is None:
            yield path, record
            continue
        games.setdefault(key, []).append(
            _Copy(path, _digest(record), bool(record.get("result")), str(record.get("ended_at", ""))))
    for key, copies in games.items():
        chosen = max(copies, key=lambda c: (c.finished, c.ended_at, str(c.path)))
        if len(copies) > 1:
            duplicates.append(_duplicate_note(key, copies, chosen))
        try:
            data = read_bytes(chosen.path, records.MAX_BYTES, "record file", records.RecordError)
            record = records.parse(data, source=str(chosen.path))
            if _digest(record) != chosen.digest:  # changed since it was first read: check it again
                record = records.load(chosen.path)
        except records.RecordError as exc:
            problems.append(str(exc))
            continue
        yield chosen.path, record


def _duplicate_note(key: str, copies: list[_Copy], chosen: _Copy) -> str:
    names = ", ".join(str(c.path) for c in copies)
    game = f"game {key}" if "|" not in key else "one game"
    if len({c.digest for c in copies}) == 1:
        return f"{game} is in {len(copies)} files with the same record ({names}); counted once"
    return (f"{game} is in {len(copies)} files with different records ({names}); counted once, "
            f"from {chosen.path} (the finished record that ended last)")


def human_seat_problem(record: dict[str, Any]) -> str | None:
    """Why the record's ``human_seat`` cannot be trusted (not a seat of the table, or not the
    seat whose controller is ``human``), or ``None``."""
    if "human_seat" not in record:
        return None
    human, seats = record["human_seat"], record.get("seats", [])
    if not isinstance(human, int) or isinstance(human, bool) or not 0 <= human < len(seats):
        return f"human_seat {str(human)[:20]} is not a seat of this {len(seats)}-player table"
    if human_seats(record) != [human]:
        return f"human_seat {human} is not the seat whose controller is 'human'"
    return None


def human_seats(record: dict[str, Any]) -> list[int]:
    """The seats a person played: ``controller == "human"`` (``human_seat`` says the same)."""
    return [s["seat"] for s in record.get("seats", []) if s.get("controller") == HUMAN]


def summarise(paths: Sequence[str | Path]) -> Report:
    """Read every record under ``paths`` and tally the human games.

    A file that is not a valid record (or a path that does not exist) is named in
    ``report.unreadable`` and skipped; the others are still counted. Only when no path named
    holds any file does it raise ``FileNotFoundError``, naming the first problem.
    """
    report = Report()
    agent_rows: dict[tuple[str, str, str | None], AgentRow] = {}
    human_rows: dict[tuple[str, str | None], HumanRow] = {}
    files = record_files(paths, report.unreadable)
    report.files = len(files)
    for path, record in unique_records(files, report.unreadable, report.duplicates):
        try:
            humans = human_seats(record)
            rows = load_game(record["game"]).outcomes(record) if humans and record.get("result") else None
        except (ValueError, LookupError, TypeError, ArithmeticError) as exc:  # valid shape, impossible content
            report.unreadable.append(f"{path}: the record's result cannot be scored ({exc.__class__.__name__}: {exc})")
            continue
        if not humans:
            report.without_human += 1
            continue
        if rows is None:
            report.unfinished += 1
            continue
        report.human_games += 1
        _tally(record, rows, humans, agent_rows, human_rows)
    if report.files == 0 and report.unreadable:  # every path named was wrong: nothing to report on
        raise FileNotFoundError(report.unreadable[0]
                                + (f" (and {len(report.unreadable) - 1} more)" if len(report.unreadable) > 1 else ""))
    report.agents = sorted(agent_rows.values(), key=lambda r: (r.game, r.agent, _role_order(r.role)))
    report.humans = sorted(human_rows.values(), key=lambda r: (r.game, _role_order(r.role)))
    return report


def _role_order(role: str | None) -> tuple[int, str]:
    return (0, "") if role in (None, ALL_ROLES) else (1, role)


def _tally(record, rows, humans, agent_rows, human_rows) -> None:
    game = load_game(record["game"])
    has_roles = bool(game.ROLES)
    people = [r for r in rows if r.seat in humans]
    human_win = sum(r.win for r in people)
    human_score = sum(r.score for r in people)

    for role in ([ALL_ROLES] if has_roles else [None]) + sorted({r.role for r in people if has_roles}):
        chosen = people if role in (None, ALL_ROLES) else [r for r in people if r.role == role]
        h = human_rows.setdefault((record["game"], role), HumanRow(record["game"], role))
        for r in chosen:
            h.games += 1
            h.wins += r.win
            h.score += r.score

    by_key: dict[tuple[str, str | None], list] = defaultdict(list)
    for r in rows:
        if r.seat in humans:
            continue
        by_key[(r.controller, ALL_ROLES if has_roles else None)].append(r)
        if has_roles:
            by_key[(r.controller, r.role)].append(r)
    for (agent, role), seats in by_key.items():
        row = agent_rows.setdefault((record["game"], agent, role), AgentRow(record["game"], agent, role))
        row.games += 1
        row.seats += len(seats)
        row.agent_wins += sum(s.win for s in seats)
        row.agent_score += sum(s.score for s in seats)
        row.human_seats += len(people)
        row.human_wins += human_win
        row.human_score += human_score


# ---------------------------------------------------------------------------------------------
# Output: a terminal table, a CSV file, a PNG chart.

CSV_COLUMNS = (
    "game", "role", "agent", "games", "agent_seats",
    "human_win_share", "human_win_low", "human_win_high",
    "agent_win_share", "agent_win_low", "agent_win_high",
    "human_mean_score", "agent_mean_score",
)


def _fmt_interval(lo: float, hi: float) -> str:
    return f"[{lo:.2f}, {hi:.2f}]"


def format_table(report: Report) -> str:
    """The report as fixed-width text for the terminal."""
    lines = [
        f"{report.human_games} finished human games read from {report.files} files"
        + (f"; {report.unfinished} unfinished games not scored" if report.unfinished else "")
        + (f"; {report.without_human} records without a human seat skipped" if report.without_human else "")
    ]
    for problem in report.unreadable:
        lines.append(f"  unreadable: {problem}")
    for note in report.duplicates:
        lines.append(f"  counted once: {note}")
    if not report.agents:
        lines.append("no finished games against people yet")
        return "\n".join(lines)
    head = (
        f"{'game':<22} {'role':<13} {'agent':<20} {'games':>5} {'seats':>5}  "
        f"{'human wins':>10} {'95% interval':>13}  {'agent wins':>10} {'95% interval':>13}  "
        f"{'human score':>11} {'agent score':>11}"
    )
    lines += ["", "Agents against people", head, "-" * len(head)]
    for r in report.agents:
        lines.append(
            f"{r.game:<22} {r.role or '-':<13} {r.agent:<20} {r.games:>5} {r.seats:>5}  "
            f"{r.human_win_share:>10.2f} {_fmt_interval(*r.human_interval):>13}  "
            f"{r.agent_win_share:>10.2f} {_fmt_interval(*r.agent_interval):>13}  "
            f"{r.human_mean_score:>11.2f} {r.agent_mean_score:>11.2f}"
        )
    head = f"{'game':<22} {'human role':<13} {'games':>5}  {'win share':>10} {'95% interval':>13}  {'mean score':>10}"
    lines += ["", "People", head, "-" * len(head)]
    for h in report.humans:
        lines.append(
            f"{h.game:<22} {h.role or '-':<13} {h.games:>5}  {h.win_share:>10.2f} "
            f"{_fmt_interval(*h.interval):>13}  {h.mean_score:>10.2f}"
        )
    return "\n".join(lines)


def write_csv(report: Report, path: str | Path) -> Path:
    """One row per game, role and agent (the agents table), columns :data:`CSV_COLUMNS`."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(CSV_COLUMNS)
        for r in report.agents:
            (hl, hh), (al, ah) = r.human_interval, r.agent_interval
            writer.writerow([
                r.game, r.role or "", r.agent, r.games, r.seats,
                f"{r.human_win_share:.4f}", f"{hl:.4f}", f"{hh:.4f}",
                f"{r.agent_win_share:.4f}", f"{al:.4f}", f"{ah:.4f}",
                f"{r.human_mean_score:.4f}", f"{r.agent_mean_score:.4f}",
            ])
    return path


def write_chart(report: Report, path: str | Path) -> Path:
    """A PNG: per game, one pair of bars (human, agent win share) per agent and role, with the
    95% intervals as error bars and the number of games in each label."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    games = sorted({r.game for r in report.agents})
    if not games:
        fig, ax = plt.subplots(figsize=(6, 2))
        ax.axis("off")
        ax.text(0.5, 0.5, "no finished games against people yet", ha="center", va="center")
        fig.savefig(path, dpi=100)
        plt.close(fig)
        return path
    titles = {g: get_spec(g).title for g in games}
    heights = [max(2.2, 0.6 * sum(r.game == g for r in report.agents) + 1.4) for g in games]
    fig, axes = plt.subplots(len(games), 1, figsize=(9, sum(heights) + 0.6), height_ratios=heights, squeeze=False)
    series = (("human", "#2b6cb0"), ("agent (per seat)", "#dd6b20"))
    for ax, g in zip(axes[:, 0], games):
        rows = [r for r in report.agents if r.game == g]
        labels = []
        for r in rows:
            role = "" if r.role is None else (" (any role)" if r.role == ALL_ROLES else f" as {r.role.replace('_', ' ')}")
            labels.append(f"{r.agent}{role}  n={r.games}")
        bar = 0.38
        for offset, (name, colour), shares, intervals in (
            (-bar / 2, series[0], [r.human_win_share for r in rows], [r.human_interval for r in rows]),
            (bar / 2, series[1], [r.agent_win_share for r in rows], [r.agent_interval for r in rows]),
        ):
            ys = [i + offset for i in range(len(rows))]
            err = [[max(0.0, s - lo) for s, (lo, _) in zip(shares, intervals)],
                   [max(0.0, hi - s) for s, (_, hi) in zip(shares, intervals)]]
            ax.barh(ys, shares, height=bar, xerr=err, color=colour, label=name,
                    error_kw={"ecolor": "#333", "capsize": 3, "elinewidth": 1})
            for y, share, (_, hi) in zip(ys, shares, intervals):
                # the value beside its interval (inside the axes when the interval reaches the edge)
                x, align = (hi + 0.01, "left") if hi < 0.9 else (max(share - 0.01, 0.05), "right")
                ax.text(x, y, f"{share:.2f}", va="center", ha=align, fontsize=8,
                        color="#111" if align == "left" else "#fff")
        ax.set_yticks(range(len(rows)), labels)
        ax.invert_yaxis()
        ax.set_xlim(0, 1)
        ax.set_xlabel("win share (lines: 95% Wilson interval)")
        ax.set_title(f"{titles.get(g, g)}: people against agents")
        ax.grid(axis="x", alpha=0.3)
    handles, names = axes[0, 0].get_legend_handles_labels()
    fig.legend(handles, names, loc="upper right", ncols=2, fontsize="small", frameon=False)
    fig.tight_layout(rect=(0, 0, 1, 0.97))
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path
