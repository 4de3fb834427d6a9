"""Saving, loading, validating and replaying game records (the format of docs/records.md)."""

from __future__ import annotations

import json
import math
import re
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

import jsonschema

from club_envs.limits import brief, nesting_depth, one_line, read_bytes, size_text

FORMAT = "club-envs-record"
FORMAT_VERSION = 1
# Limits a file must meet before it is parsed or validated. A long Members Only game is about
# 1 MB and records nest 5 levels deep; the limits leave wide room for extra keys while keeping a
# hostile file from exhausting memory or the interpreter's recursion limit.
MAX_BYTES = 64 * 2**20
MAX_DEPTH = 32


class RecordError(ValueError):
    """A record that is malformed, of an unknown game, or that does not replay to itself."""


@lru_cache(maxsize=None)
def schema_for(game: str) -> dict[str, Any]:
    """The JSON Schema of ``game`` records: the game's ``record_schema`` hook if it has one, else the
    schema shipped in ``club_envs/schemas``."""
    from club_envs.games import get_spec

    spec = get_spec(game)
    if spec.has_hook("record_schema"):
        return spec.hook("record_schema")()
    path = resources.files("club_envs") / "schemas" / f"{game}.schema.json"
    return json.loads(path.read_text(encoding="utf-8"))


@lru_cache(maxsize=None)
def _fast_validator(game: str) -> Any:
    """A compiled validator of ``game`` records (jsonschema-rs, when installed: the ``play`` extra),
    or ``None``. It answers only valid or not, a few hundred times faster than :mod:`jsonschema`
    (about 0.1 ms for a whole Members Only game instead of 30 ms: the game server validates every
    record before the commit that ends its game); a record it refuses is validated again by
    :mod:`jsonschema`, whose verdict stands and whose message names the offending field."""
    try:
        import jsonschema_rs
    except ImportError:
        return None
    try:
        return jsonschema_rs.validator_for(schema_for(game))
    except ValueError:  # a schema it cannot compile (a pattern its regex engine lacks): jsonschema alone
        return None


def _valid_at_once(game: str, record: dict[str, Any]) -> bool:
    """True if the compiled validator finds ``record`` valid; False if it is absent, finds it
    invalid, or cannot read it (a key that is not a string): :mod:`jsonschema` decides then."""
    fast = _fast_validator(game)
    if fast is None:
        return False
    try:
        return bool(fast.is_valid(record))
    except (ValueError, TypeError, OverflowError):
        return False


def validate(record: Any) -> None:
    """Raise :class:`RecordError` naming the first offending field, or return quietly."""
    from club_envs.games import game_names

    if not isinstance(record, dict):
        raise RecordError(f"a record is a JSON object, got {type(record).__name__}")
    if nesting_depth(record, MAX_DEPTH) > MAX_DEPTH:
        raise RecordError(f"the record nests deeper than {MAX_DEPTH} levels; records nest about 5 levels deep")
    if record.get("format") != FORMAT:
        raise RecordError(f"'format' must be {FORMAT!r}, got {brief(record.get('format'))}")
    game = record.get("game")
    names = game_names()
    if not isinstance(game, str) or game not in names:
        raise RecordError(f"'game' must be one of {names}, got {brief(game)}")
    if _valid_at_once(game, record):
        return
    validator = jsonschema.Draft202012Validator(schema_for(game))
    error = jsonschema.exceptions.best_match(validator.iter_errors(record))
    if error is not None:
        where = one_line("/".join(str(p) for p in error.absolute_path) or "(top level)", 120)
        raise RecordError(f"invalid {game} record at {where}: {one_line(error.message)}")


def save(record: dict[str, Any], path: str | Path) -> Path:
    """Validate and write ``record`` as JSON; the parent folder is created if needed."""
    validate(record)
    return write(record, path)


def write(record: dict[str, Any], path: str | Path) -> Path:
    """Write a record already validated: to a temporary file first, then renamed over ``path``, so
    that ``path`` holds the whole record or none (or the previous one) whenever the writer stops."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
    tmp.replace(path)  # never leave half a record behind
    return path


def file_name(game: str, started_at: str, game_id: str) -> str:
    """The file name of a human game's record: the game, the time it started and its id, all fixed
    when the game is dealt, so every write of one game's record goes to the same file."""
    stamp = re.sub(r"[^0-9T]", "", started_at[:19])
    return f"{game}_{stamp}_{game_id}.json"


def game_key(record: dict[str, Any]) -> str | None:
    """What makes two record files one game: its ``game_id`` (records of human games carry it).

    Older records of human games have no ``game_id``; for them the game, seed, start time and the
    person's seat (and study place) stand in, which a game keeps when a restarted server finishes
    it again. Records of games between bots (no ``started_at``) have no key: each file is a game.
    """
    if isinstance(record.get("game_id"), str):
        return record["game_id"]
    if "started_at" not in record:
        return None
    tag = record.get("study") if isinstance(record.get("study"), dict) else {}
    parts = (record.get("game"), record.get("seed"), record.get("started_at"), record.get("human_seat"),
             tag.get("participant"), tag.get("game_number"))
    return "|".join(str(p) for p in parts)


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"number {text[:20]} is out of range; records hold finite numbers")
    return value


def _no_constant(name: str) -> float:
    raise ValueError(f"{name} is not a JSON number; records hold finite numbers")


def parse(data: bytes | str, source: str = "record") -> Any:
    """Parse a record's JSON text within :data:`MAX_BYTES` and :data:`MAX_DEPTH`.

    Raises :class:`RecordError` (one line, prefixed with ``source``) for anything that is not
    plain JSON: bad UTF-8, syntax errors, ``NaN``/``Infinity``, numbers beyond the float range or
    longer than Python converts, or nesting beyond the limit.
    """
    if len(data) > MAX_BYTES:
        raise RecordError(f"{source}: the file is larger than {size_text(MAX_BYTES)}, the most a record file may be")
    try:
        text = data.decode("utf-8") if isinstance(data, bytes) else data
        value = json.loads(text, parse_float=_finite, parse_constant=_no_constant)
    except UnicodeDecodeError as exc:
        raise RecordError(f"{source}: not a JSON record (not UTF-8 text: {exc.reason} at byte {exc.start})") from None
    except json.JSONDecodeError as exc:
        raise RecordError(f"{source}: not a JSON record ({one_line(exc)})") from None
    except RecursionError:
        raise RecordError(f"{source}: not a JSON record (it nests deeper than {MAX_DEPTH} levels, "
                          "the most a record may)") from None
    except ValueError as exc:  # an integer beyond Python's digit limit, or a non-finite number
        problem = str(exc).splitlines()[0]
        if "integer string conversion" in problem:
            problem = "an integer of thousands of digits; records hold integers of at most 20 digits"
        raise RecordError(f"{source}: not a JSON record ({problem})") from None
    if nesting_depth(value, MAX_DEPTH) > MAX_DEPTH:
        raise RecordError(f"{source}: not a JSON record (it nests deeper than {MAX_DEPTH} levels, the most a record may)")
    return value


def load(path: str | Path) -> dict[str, Any]:
    """Read and validate a record file; any problem raises :class:`RecordError` naming the file."""
    path = Path(path)
    record = parse(read_bytes(path, MAX_BYTES, "record file", RecordError), source=str(path))
    try:
        validate(record)
    except RecordError as exc:
        raise RecordError(f"{path}: {exc}") from None
    return record


def replay(record: dict[str, Any]) -> dict[str, Any]:
    """Re-play ``record`` on its game's engine and return the result it reproduces."""
    from club_envs.games import load_game

    validate(record)
    try:
        return load_game(record["game"]).replay(record)
    except RecordError as exc:  # quoted events can be long: keep the message a readable line
        raise RecordError(one_line(str(exc), 2000)) from None
    except (ValueError, LookupError, TypeError, ArithmeticError, RecursionError) as exc:
        # a schema-valid record whose events the engine cannot follow: still a bad record
        raise RecordError(f"the record does not replay: {exc.__class__.__name__}: {one_line(exc)}") from None
