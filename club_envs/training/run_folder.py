"""What every trainer's run folder shares: a new folder or one to resume, its state file and its CSV logs
(``club-envs train`` starts or resumes a run of any of them).

The MaskablePPO trainer (:mod:`club_envs.training.train`), the RLlib backend and the belief
iterations (:mod:`club_envs.training.belief`, :mod:`club_envs.training.arkham_belief`) write their
folders the same way, so ``--resume``, the curves and the model cards read any of them alike.
"""

from __future__ import annotations

import csv
import json
import os
from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import yaml

from club_envs.training import config as configs


def read_state(run_dir: Path) -> dict:
    """``state.json`` of a run folder (``{}`` before the first checkpoint); a damaged one stops
    ``--resume`` with one :class:`~club_envs.training.config.ConfigFileError` line naming it."""
    from club_envs import records
    from club_envs.limits import read_bytes

    path = run_dir / "state.json"
    if not path.is_file():
        return {}
    data = read_bytes(path, 2**24, "run state file", configs.ConfigFileError)
    try:
        state = records.parse(data, str(path))  # plain JSON within the same limits as a record
    except records.RecordError as exc:
        raise configs.ConfigFileError(str(exc).replace("not a JSON record", "not a run state file")) from None
    if not isinstance(state, dict):
        raise configs.ConfigFileError(f"{path}: not a run state file; it holds a JSON object of step counters")
    return state


def save_state(run_dir: Path, state: dict) -> None:
    write_json(run_dir / "state.json", state)


def write_json(path: Path, data: Any) -> None:
    """Written whole, then renamed into place: a crash leaves the previous file."""
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(data, indent=1))
    os.replace(tmp, path)


def append_csv(path: Path, rows: list[list], header: list[str]) -> None:
    """Rows appended to a CSV log, the header first when the file is new."""
    new = not path.exists()
    with path.open("a", newline="") as f:
        writer = csv.writer(f)
        if new:
            writer.writerow(header)
        writer.writerows(rows)


def open_run(config_path: Path | None, resume: Path | None, runs_dir: Path,
             load: Callable[[Path], Any], dump: Callable[[Any], dict]) -> tuple[Path, Any, dict]:
    """A recipe trainer's run folder, config and state: ``resume``'s, or a new
    ``runs_dir/<config name>-<UTC time>/`` holding the resolved config (``load`` reads and checks a
    config file; ``dump`` gives the resolved config as plain data)."""
    if resume is not None:
        run_dir = Path(resume)
        if not (run_dir / "config.yaml").is_file():
            raise FileNotFoundError(f"{run_dir} is not a run folder (no config.yaml)")
        return run_dir, load(run_dir / "config.yaml"), read_state(run_dir)
    from club_envs.training import examples

    config_path = examples.resolve(config_path)
    cfg = load(config_path)
    stamp = datetime.now(timezone.utc).strftime("%Y%m%d-%H%M%S")
    run_dir = Path(runs_dir) / f"{Path(config_path).stem}-{stamp}"
    run_dir.mkdir(parents=True, exist_ok=False)
    (run_dir / "config.yaml").write_text(yaml.safe_dump(dump(cfg), sort_keys=False))
    return run_dir, cfg, {}
