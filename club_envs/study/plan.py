"""A study: a YAML file saying what each participant plays, checked before the server starts.

The file names the conditions (game, players, the person's seat or role, the agents), how many
games each participant plays per condition, the order (a balanced Latin square across
participants, so that no condition always comes first), optional fixed seeds (every participant
meets the same deals), the participant codes, an optional consent text and the server's address.
An unknown key, a wrong type or an impossible value stops with one line naming the key and what
is allowed, as for training configs.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jsonschema

from club_envs.games import canonical_name, load_game, specs
from club_envs.play.human_game import SEED_BITS

NAME = r"^[A-Za-z0-9][A-Za-z0-9_-]{0,39}$"
CODE = r"^[A-Za-z0-9][A-Za-z0-9_-]{2,39}$"
ORDERS = ("latin_square", "as_listed")
GAME_NAMES = tuple(dict.fromkeys(n for s in specs() for n in (s.name, s.record_name)))  # canonical and record names
ROLE_NAMES = ("leader", "member", "investigator", "black_man", "random")

_CONDITION = {
    "type": "object",
    "additionalProperties": False,
    "required": ["name", "game", "players", "opponents"],
    "properties": {
        "name": {"type": "string", "pattern": NAME},
        "game": {"enum": list(GAME_NAMES)},
        "players": {"type": "integer", "minimum": 3, "maximum": 6},
        "seat": {"anyOf": [{"type": "integer", "minimum": 0, "maximum": 5}, {"enum": ["random"]}]},
        "role": {"enum": list(ROLE_NAMES)},
        "opponents": {"anyOf": [
            {"type": "string", "minLength": 1},
            {"type": "array", "items": {"type": "string", "minLength": 1}, "minItems": 1},
            {"type": "object", "additionalProperties": {"type": "string", "minLength": 1}, "minProperties": 1},
        ]},
        "seeds": {"type": "array", "items": {"type": "integer", "minimum": 0, "maximum": 2**SEED_BITS - 1}},
        "duplicate": {"type": "boolean"},
    },
}

SCHEMA = {
    "type": "object",
    "additionalProperties": False,
    "required": ["name", "conditions", "participants"],
    "properties": {
        "name": {"type": "string", "pattern": NAME},
        "conditions": {"type": "array", "items": _CONDITION, "minItems": 1},
        "games_per_condition": {"type": "integer", "minimum": 1, "maximum": 100},
        "order": {"enum": list(ORDERS)},
        "participants": {"anyOf": [
            {"type": "integer", "minimum": 1, "maximum": 10_000},
            {"type": "array", "items": {"type": "string", "pattern": CODE}, "minItems": 1},
        ]},
        "consent": {"type": "string"},
        "show_agent_names": {"type": "boolean"},
        "records": {"type": "string", "minLength": 1},
        "database": {"type": "string", "minLength": 1},
        "agents_dir": {"type": "string", "minLength": 1},
        "server": {
            "type": "object",
            "additionalProperties": False,
            "properties": {
                "host": {"type": "string", "minLength": 1},
                "port": {"type": "integer", "minimum": 1, "maximum": 65535},
                "allowed_hosts": {"type": "array", "items": {"type": "string", "minLength": 1}},
                "max_games": {"type": "integer", "minimum": 1},
            },
        },
    },
}


class StudyFileError(ValueError):
    """A study file that cannot be run; the message names the key and what is allowed."""


@dataclass(frozen=True)
class Condition:
    name: str
    game: str  # record name
    players: int
    seat: int | None  # None: random (or by role)
    role: str | None
    opponents: str
    seeds: tuple[int, ...] | None
    # duplicate seating: each deal (seed) is played from every seat, one seat per participant,
    # the seat turning with the participant's place and the game's number (see StudyPlan.seat_for)
    duplicate: bool = False


@dataclass(frozen=True)
class Slot:
    """One game in a participant's schedule: its place, its condition and its seed (if fixed)."""

    number: int  # 0-based place in the participant's schedule
    condition: Condition
    repeat: int  # 0-based game number within the condition
    seed: int | None
    seat: int | None = None  # the person's seat where the slot fixes it (duplicate seating), else the condition's


@dataclass
class StudyPlan:
    name: str
    conditions: list[Condition]
    games_per_condition: int = 1
    order: str = "latin_square"
    codes: list[str] = field(default_factory=list)
    generate_codes: int = 0
    consent: str | None = None
    show_agents: bool = False
    records: Path | None = None
    database: str | None = None
    agents_dir: Path | None = None
    server: dict[str, Any] = field(default_factory=dict)
    source: str = "study"

    @property
    def total_games(self) -> int:
        return len(self.conditions) * self.games_per_condition

    def condition_order(self, position: int) -> list[Condition]:
        """The order of conditions for the participant at ``position`` (0, 1, ...)."""
        if self.order == "as_listed":
            return list(self.conditions)
        rows = balanced_latin_square(len(self.conditions))
        return [self.conditions[i] for i in rows[position % len(rows)]]

    def schedule(self, position: int) -> list[Slot]:
        slots = []
        for condition in self.condition_order(position):
            for repeat in range(self.games_per_condition):
                seed = condition.seeds[repeat] if condition.seeds else None
                slots.append(Slot(len(slots), condition, repeat, seed, self.seat_for(condition, position, repeat)))
        return slots

    @staticmethod
    def seat_for(condition: Condition, position: int, repeat: int) -> int | None:
        """The person's seat in game ``repeat`` of ``condition`` for the participant at ``position``.

        Duplicate seating turns the seat with the participant's place, ``(position + repeat) mod
        players``: any ``players`` participants in a row play each deal from every seat between
        them. One person never meets the same deal twice -- from a second seat they would remember
        the hands they saw from the first. Other conditions: the condition's seat (``None``:
        random or by role).
        """
        if condition.duplicate:
            return (position + repeat) % condition.players
        return condition.seat

    def condition(self, name: str) -> Condition | None:
        return next((c for c in self.conditions if c.name == name), None)


def balanced_latin_square(k: int) -> list[list[int]]:
    """Williams' design: each condition comes at each place, and follows each other condition,
    equally often -- over ``k`` rows (``k`` even) or ``2k`` rows (``k`` odd)."""
    first = [0]
    low, high = 1, k - 1
    while len(first) < k:
        first.append(low)
        low += 1
        if len(first) < k:
            first.append(high)
            high -= 1
    rows = [[(c + r) % k for c in first] for r in range(k)]
    if k % 2:
        rows += [row[::-1] for row in rows]
    return rows


def new_codes(count: int) -> list[str]:
    """Participant codes that cannot be guessed: ``P-`` and 10 characters (50 bits)."""
    alphabet = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"  # no 0/O or 1/I to misread
    return ["P-" + "".join(secrets.choice(alphabet) for _ in range(10)) for _ in range(count)]


def _describe(error: jsonschema.ValidationError) -> str:
    path = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in error.absolute_path).lstrip(".")
    path = path or "(top level)"
    schema = error.schema if isinstance(error.schema, dict) else {}
    if error.validator == "additionalProperties":
        allowed = sorted(schema.get("properties", {}))
        unexpected = sorted(set(error.instance) - set(allowed))
        return f"{path}: unknown key {', '.join(map(repr, unexpected))}; allowed keys: {', '.join(allowed)}"
    if error.validator == "enum":
        return f"{path}: {error.instance!r} is not allowed; allowed values: {', '.join(map(str, error.validator_value))}"
    if error.validator == "pattern":
        return f"{path}: {error.instance!r} is not allowed; use letters, digits, '-' and '_' (up to 40)"
    if error.validator == "anyOf" and path.endswith("participants"):
        return f"{path}: {error.instance!r} is not allowed; give a number of codes to make, or a list of codes"
    if error.validator == "anyOf" and path.endswith("opponents"):
        return f"{path}: give one agent name, a list (one per other seat), or role: agent pairs"
    if error.validator == "anyOf" and path.endswith("seat"):
        return f"{path}: {error.instance!r} is not allowed; a seat number or 'random'"
    if error.validator in ("minimum", "maximum"):
        low, high = schema.get("minimum"), schema.get("maximum")
        allowed = f"{low}..{high}" if low is not None and high is not None else (
            f"{low} or more" if low is not None else f"{high} or less")
        return f"{path}: {error.instance!r} is not allowed; allowed values: {allowed}"
    if error.validator == "type":
        return f"{path}: {error.instance!r} has the wrong type; expected {error.validator_value}"
    return f"{path}: {error.message}"


def validate(raw: Any, source: str = "study") -> StudyPlan:
    """Check ``raw`` (the parsed YAML) and return the plan; :class:`StudyFileError` otherwise."""
    if not isinstance(raw, Mapping):
        raise StudyFileError(f"{source}: expected a mapping with keys {', '.join(SCHEMA['properties'])}")
    errors = list(jsonschema.Draft202012Validator(SCHEMA).iter_errors(raw))
    if errors:
        best = jsonschema.exceptions.best_match(errors)
        raise StudyFileError(f"{source}: {_describe(best)}")
    per_condition = int(raw.get("games_per_condition", 1))
    conditions = []
    for i, c in enumerate(raw["conditions"]):
        where = f"{source}: conditions[{i}]"
        game = load_game(canonical_name(c["game"]))
        if c["players"] not in game.PLAYER_COUNTS:
            raise StudyFileError(f"{where}.players: {c['players']} is not allowed for {game.RECORD_NAME}; "
                                 f"allowed values: {', '.join(map(str, game.PLAYER_COUNTS))}")
        if "seat" in c and "role" in c:
            raise StudyFileError(f"{where}: give seat or role, not both")
        if "role" in c and not game.ROLES:
            raise StudyFileError(f"{where}.role: {game.RECORD_NAME} has no roles; give seat instead")
        seat = c.get("seat", "random")
        if isinstance(seat, int) and not 0 <= seat < c["players"]:
            raise StudyFileError(f"{where}.seat: {seat} is not allowed; allowed values: 0..{c['players'] - 1} or random")
        seeds = c.get("seeds")
        if c.get("duplicate"):
            if "seat" in c or "role" in c:
                raise StudyFileError(f"{where}.duplicate: the seat turns with each participant; give neither seat nor role")
            if seeds is None:
                raise StudyFileError(f"{where}.duplicate: needs seeds, one per game, so that every seat meets the same deals")
        if seeds is not None and len(seeds) != per_condition:
            raise StudyFileError(f"{where}.seeds: lists {len(seeds)} seeds; give exactly games_per_condition "
                                 f"({per_condition}), one per game")
        opponents = c["opponents"]
        if isinstance(opponents, Mapping):
            opponents = ",".join(f"{role}={name}" for role, name in opponents.items())
        elif isinstance(opponents, list):
            opponents = ",".join(opponents)
        conditions.append(Condition(
            name=c["name"], game=game.RECORD_NAME, players=c["players"],
            seat=seat if isinstance(seat, int) else None, role=c.get("role"), opponents=opponents,
            seeds=tuple(seeds) if seeds is not None else None, duplicate=bool(c.get("duplicate", False)),
        ))
    names = [c.name for c in conditions]
    if len(set(names)) != len(names):
        raise StudyFileError(f"{source}: conditions: names must differ; {sorted({n for n in names if names.count(n) > 1})} repeat")
    participants = raw["participants"]
    codes = list(participants) if isinstance(participants, list) else []
    if len(set(codes)) != len(codes):
        raise StudyFileError(f"{source}: participants: codes must differ")
    server = dict(raw.get("server", {}))
    return StudyPlan(
        name=raw["name"], conditions=conditions, games_per_condition=per_condition,
        order=raw.get("order", "latin_square"), codes=codes,
        generate_codes=participants if isinstance(participants, int) else 0,
        consent=raw.get("consent"), show_agents=bool(raw.get("show_agent_names", False)),
        records=Path(raw["records"]) if "records" in raw else None, database=raw.get("database"),
        agents_dir=Path(raw["agents_dir"]) if "agents_dir" in raw else None, server=server, source=source,
    )


def load(path: str | Path) -> StudyPlan:
    from club_envs.limits import read_yaml

    path = Path(path)
    # the size, depth and alias limits every YAML input has; one StudyFileError line naming the file
    raw = read_yaml(path, StudyFileError, "study file", max_bytes=2**20, max_depth=16, max_values=100_000)
    plan = validate(raw, source=str(path))
    base = path.parent
    if plan.records is not None and not plan.records.is_absolute():
        plan.records = base / plan.records
    if plan.agents_dir is not None and not plan.agents_dir.is_absolute():
        plan.agents_dir = base / plan.agents_dir
    return plan


def check_agents(plan: StudyPlan, make_agent: Any) -> None:
    """Deal one game of every condition (seed 0) so a bad agent name stops the study at start."""
    from club_envs.play.human_game import HumanGame

    for c in plan.conditions:
        try:
            HumanGame.create(c.game, num_players=c.players, seat=c.seat, role=c.role, opponents=c.opponents,
                             seed=0, make_agent=make_agent)
        except ValueError as exc:
            raise StudyFileError(f"{plan.source}: condition {c.name!r}: {exc}") from None

