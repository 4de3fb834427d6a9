"""Who sits where: parsing ``--agents`` and building one agent per seat (or per role)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from club_envs.agents.base import Agent, as_agent


@dataclass(frozen=True)
class Lineup:
    """An ``--agents`` value: one name for every seat, one per seat, or one per role."""

    per_seat: tuple[str, ...] | None = None
    per_role: Mapping[str, str] | None = None

    @classmethod
    def parse(cls, text: str | Sequence[str], game: ModuleType, num_players: int, seats: int | None = None,
              option: str = "--agents", every_role: bool = True) -> Lineup:
        """Read a comma-separated lineup for ``seats`` seats (default: every seat of the table).

        With ``role=name`` pairs every role must be named, unless ``every_role`` is false (a
        table with a human seat checks only the roles its agents are dealt, once they are).
        """
        items = [item.strip() for item in (text.split(",") if isinstance(text, str) else text) if item.strip()]
        seats = num_players if seats is None else seats
        if not items:
            raise ValueError(f"{option} is empty; give one agent name, one per seat, or role=name pairs")
        if any(is_role_pair(item) for item in items):
            per_role = _parse_roles(items, game, option)
            missing = [r for r in game.ROLES if r not in per_role]
            if every_role and missing:
                raise ValueError(f"{option} names no agent for role(s) {', '.join(missing)}")
            return cls(per_role=per_role)
        if len(items) == 1:
            return cls(per_seat=tuple(items * seats))
        if len(items) != seats:
            raise ValueError(
                f"{option} lists {len(items)} agents for {seats} "
                f"{'players' if seats == num_players else 'other seats'}; "
                f"give one name for every seat or exactly {seats}"
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


def is_role_pair(item: str) -> bool:
    """``role=name``; an agent's own options (``ismcts:iters=200``) come after a colon instead."""
    return "=" in item and ":" not in item.partition("=")[0]


def _parse_roles(items: list[str], game: ModuleType, option: str) -> dict[str, str]:
    roles = tuple(game.ROLES)
    if not roles:
        raise ValueError(f"{game.RECORD_NAME} has no roles; give agent names without '='")
    per_role: dict[str, str] = {}
    for item in items:
        role, _, name = (part.strip() for part in item.partition("="))
        if role not in roles:
            raise ValueError(f"unknown role {role!r} in {option}; expected one of {', '.join(roles)}")
        if not name:
            raise ValueError(f"role {role!r} in {option} has no agent name")
        per_role[role] = name
    return per_role


def make_agent(game: ModuleType, name: str, config: Any, seed: int | None = None) -> Agent:
    """Any agent by name: a built-in bot, a shipped agent, a policy file or a run folder.

    ``ValueError`` lists the accepted names.
    """
    import club_envs.agents.registry as registry

    return as_agent(registry.load(name, game=game, config=config, seed=seed))
