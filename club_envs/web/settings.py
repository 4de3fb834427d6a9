"""The limits and timings one server runs with, fixed when it starts (``club-envs serve`` options)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

MAX_GAMES = 200  # games in progress on the whole server
MAX_GAMES_PER_BROWSER = 5  # games in progress per browser (or participant)
KEEP_FINISHED = 256  # finished games kept re-created in memory; older ones are re-created on demand


@dataclass(frozen=True)
class Settings:
    records_dir: Path  # where finished and abandoned games' records are written
    frame_delay_ms: int = 700  # the table page's pause between the agents' moves
    max_games: int = MAX_GAMES
    max_games_per_browser: int = MAX_GAMES_PER_BROWSER
    keep_finished: int = KEEP_FINISHED
