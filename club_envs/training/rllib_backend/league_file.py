"""The league's state file saved beside each RLlib checkpoint (snapshot slots, env steps).

Kept apart from ``league`` (which needs Ray) so the run and the export both read it without an
import between the two of them and without importing Ray.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

LEAGUE_FILE = "league.json"


def read_league_state(checkpoint: Path) -> dict[str, Any]:
    """The league state saved with a checkpoint (empty when the checkpoint holds none)."""
    path = Path(checkpoint) / LEAGUE_FILE
    return json.loads(path.read_text()) if path.is_file() else {}
