"""Saving, loading, validating and replaying game records (``shared`` format, see README)."""

from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

import jsonschema

FORMAT = "club-envs-record"
FORMAT_VERSION = 1


class RecordError(ValueError):
    """A record that is malformed, of an unknown game, or that does not replay to itself."""


@lru_cache(maxsize=None)
def schema_for(game: str) -> dict[str, Any]:
    """The JSON Schema shipped in the package for ``game`` records."""
    path = resources.files("club_envs") / "schemas" / f"{game}.schema.json"
    return json.loads(path.read_text(encoding="utf-8"))


def validate(record: Any) -> None:
    """Raise :class:`RecordError` naming the first offending field, or return quietly."""
    from club_envs.games import _PACKAGES

    if not isinstance(record, dict):
        raise RecordError(f"a record is a JSON object, got {type(record).__name__}")
    if record.get("format") != FORMAT:
        raise RecordError(f"'format' must be {FORMAT!r}, got {record.get('format')!r}")
    game = record.get("game")
    if game not in _PACKAGES:
        raise RecordError(f"'game' must be one of {sorted(_PACKAGES)}, got {game!r}")
    validator = jsonschema.Draft202012Validator(schema_for(game))
    error = jsonschema.exceptions.best_match(validator.iter_errors(record))
    if error is not None:
        where = "/".join(str(p) for p in error.absolute_path) or "(top level)"
        raise RecordError(f"invalid {game} record at {where}: {error.message}")


def save(record: dict[str, Any], path: str | Path) -> Path:
    """Validate and write ``record`` as JSON; the parent folder is created if needed."""
    validate(record)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
    tmp.replace(path)  # never leave half a record behind
    return path


def load(path: str | Path) -> dict[str, Any]:
    """Read and validate a record file; a corrupt file raises :class:`RecordError` naming it."""
    path = Path(path)
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise RecordError(f"{path}: no such record file") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise RecordError(f"{path}: not a JSON record ({exc})") from None
    try:
        validate(record)
    except RecordError as exc:
        raise RecordError(f"{path}: {exc}") from None
    return record


def replay(record: dict[str, Any]) -> dict[str, Any]:
    """Re-play ``record`` on its game's engine and return the result it reproduces."""
    from club_envs.games import load_game

    validate(record)
    return load_game(record["game"]).replay(record)
