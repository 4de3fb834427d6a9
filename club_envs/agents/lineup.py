"""Who sits where: parsing ``--agents`` and building one agent per seat (or per role)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from club_envs.agents.base import Agent


@dataclass(frozen=True)
class Lineup:
    """An ``--agents`` value: one name for every seat, one per seat, or one per role."""

    per_seat: tuple[str, ...] | None = None
    per_role: Mapping[str, str] | None = None

    @classmethod
    def parse(cls, text: str, game: ModuleType, num_players: int) -> Lineup:
        items = [item.strip() for item in text.split(",") if item.strip()]
        if not items:
            raise ValueError("--agents is empty; give one agent name, one per seat, or role=name pairs")
        if any("=" in item for item in items):
            roles = tuple(game.ROLES)
            if not roles:
                raise ValueError(f"{game.RECORD_NAME} has no roles; give agent names without '='")
            per_role: dict[str, str] = {}
            for item in items:
                role, _, name = item.partition("=")
                role, name = role.strip(), name.strip()
                if role not in roles:
                    raise ValueError(f"unknown role {role!r} in --agents; expected one of {', '.join(roles)}")
                if not name:
                    raise ValueError(f"role {role!r} in --agents has no agent name")
                per_role[role] = name
            missing = [r for r in roles if r not in per_role]
            if missing:
                raise ValueError(f"--agents names no agent for role(s) {', '.join(missing)}")
            return cls(per_role=per_role)
        if len(items) == 1:
            return cls(per_seat=tuple(items * num_players))
        if len(items) != num_players:
            raise ValueError(
                f"--agents lists {len(items)} agents for {num_players} players; "
                f"give one name for every seat or exactly {num_players}"
            )
        return cls(per_seat=tuple(items))

    def names(self) -> list[str]:
        return sorted(set(self.per_seat or ()) | set((self.per_role or {}).values()))

    def build(
        self, make: Callable[[str, int], Agent]
    ) -> Sequence[Agent] | Callable[[int, str], Agent]:
        """Agents for one game: ``make(name, seat)`` creates each (fresh per game, per seat)."""
        if self.per_seat is not None:
            return [make(name, seat) for seat, name in enumerate(self.per_seat)]
        per_role = dict(self.per_role or {})
        return lambda seat, role: make(per_role[role], seat)


def make_agent(game: ModuleType, name: str, config: Any, seed: int | None = None) -> Agent:
    """Any agent by name: a game's built-in bot (``random``, ``heuristic``)."""
    return game.make_agent(name, config, seed=seed)
