"""A study's data out of the database: one CSV row per game, and every record as a file.

Each stored game appears exactly once (the database's primary key); the CSV says who played it
(the participant code, or the browser for free play), under which condition and at which place
of their schedule, the seat and role, the seed, the outcome and the record's file name.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Sequence
from pathlib import Path
from typing import IO, Any

from club_envs.games import load_game
from club_envs.store import FINISHED, Store, StoredGame

OUTCOME_COLUMNS = (
    "game_id", "participant", "condition", "game_number", "game", "players", "human_seat", "human_role",
    "opponents", "seed", "status", "human_win", "human_score", "started_at", "ended_at", "record",
)


def outcome_rows(games: Sequence[StoredGame]) -> list[dict[str, Any]]:
    rows = []
    for g in games:
        win = score = role = None
        record = g.record
        if record is not None and g.status == FINISHED and record.get("result"):
            outcome = next((o for o in load_game(record["game"]).outcomes(record) if o.seat == g.human_seat), None)
            if outcome is not None:
                win, score, role = outcome.win, outcome.score, outcome.role
        elif record is not None and 0 <= g.human_seat < len(record.get("seats", [])):
            role = record["seats"][g.human_seat].get("role")
        rows.append({
            "game_id": g.id, "participant": g.participant or "", "condition": g.condition or "",
            "game_number": "" if g.slot is None else g.slot + 1, "game": g.game, "players": g.num_players,
            "human_seat": g.human_seat, "human_role": role or "", "opponents": g.opponents, "seed": str(g.seed),
            "status": g.status, "human_win": "" if win is None else f"{win:.4f}",
            "human_score": "" if score is None else score, "started_at": g.started_at, "ended_at": g.ended_at or "",
            "record": g.record_name or "",
        })
    return rows


def write_outcomes(rows: Sequence[dict[str, Any]], out: IO[str]) -> None:
    writer = csv.DictWriter(out, fieldnames=OUTCOME_COLUMNS)
    writer.writeheader()
    writer.writerows(rows)


def export(store: Store, folder: str | Path) -> tuple[Path, Path, int]:
    """Write ``outcomes.csv`` and ``records/<name>.json`` for every stored game; returns the
    paths and the number of games."""
    folder = Path(folder)
    records_dir = folder / "records"
    records_dir.mkdir(parents=True, exist_ok=True)
    games = store.games()
    csv_path = folder / "outcomes.csv"
    with csv_path.open("w", newline="", encoding="utf-8") as f:
        write_outcomes(outcome_rows(games), f)
    for g in games:
        if g.record is not None and g.record_name:
            (records_dir / g.record_name).write_text(json.dumps(g.record, indent=1) + "\n", encoding="utf-8")
    return csv_path, records_dir, len(games)
