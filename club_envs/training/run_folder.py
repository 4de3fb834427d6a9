"""What every trainer's run folder shares: a new folder or one to resume, its state file and its CSV logs
(``club-envs train`` starts or resumes a run of any of them).

The MaskablePPO trainer (:mod:`club_envs.training.train`), the RLlib backend, the belief
iterations (:mod:`club_envs.training.belief`, :mod:`club_envs.training.arkham_belief`) and the
exploit runs (:mod:`club_envs.training.exploit`) open their folders here, so ``--resume``, the
curves and the model cards read any of them alike.
"""

from __future__ import annotations

import csv
import json
import os
from collections.abc import Mapping
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from club_envs.training import config as configs

CONFIG_FILE = "config.yaml"


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


def existing_folder(path: Path, marker: str, what: str = "a run folder") -> Path:
    """A run folder to resume: ``path``, which must hold ``marker`` (the file it was started from)."""
    run_dir = Path(path)
    if not (run_dir / marker).is_file():
        raise FileNotFoundError(f"{run_dir} is not {what} (no {marker})")
    return run_dir


def new_folder(runs_dir: Path, name: str, files: Mapping[str, str]) -> Path:
    """A new ``runs_dir/<name>-<UTC time>/`` holding ``files`` (name -> text): what it was started from."""
    stamp = datetime.now(timezone.utc).strftime("%Y%m%d-%H%M%S")
    run_dir = Path(runs_dir) / f"{name}-{stamp}"
    run_dir.mkdir(parents=True, exist_ok=False)
    for file_name, text in files.items():
        (run_dir / file_name).write_text(text)
    return run_dir


def config_file(config_path: Path | None, resume: Path | None) -> Path:
    """The config a trainer reads: ``resume``'s ``config.yaml``, or ``config_path`` (a file, or the
    name of an example config)."""
    if resume is not None:
        return existing_folder(resume, CONFIG_FILE) / CONFIG_FILE
    from club_envs.training import examples

    return examples.resolve(config_path)


def open_run(resolved: Mapping[str, Any], source: Path, resume: Path | None, runs_dir: Path) -> tuple[Path, dict]:
    """A trainer's run folder and state: ``resume``'s, or a new ``runs_dir/<config name>-<UTC time>/``
    holding the resolved config as ``config.yaml`` (what ``--resume`` reads back)."""
    if resume is not None:
        return Path(resume), read_state(Path(resume))
    return new_folder(runs_dir, Path(source).stem, {CONFIG_FILE: configs.dump(resolved)}), {}
