"""Turning the opponents a person names into agents, for one game with one human seat.

A name is whatever :func:`club_envs.agents.registry.load` accepts: a built-in bot (``random``,
``heuristic``), a shipped trained agent, a policy file or a run folder. ``--opponents`` takes one
name for every other seat, one name per other seat (in seat order, the human's seat skipped), or
-- for games with roles -- ``role=name`` pairs.
"""

from __future__ import annotations

from collections.abc import Sequence
from types import ModuleType
from typing import Any

from club_envs.agents.base import Agent, as_agent

BUILT_IN = ("random", "heuristic")


def resolve_agent(game: ModuleType, name: str, config: Any, seed: int | None = None) -> Agent:
    """The agent called ``name`` for ``game``; ``ValueError`` lists the accepted names."""
    try:
        from club_envs.agents import registry
    except ImportError:  # an installation without the trained-agent registry: bots only
        if name not in BUILT_IN:
            raise ValueError(f"unknown agent {name!r}; expected one of {', '.join(BUILT_IN)}") from None
        return game.make_agent(name, config, seed=seed)
    return as_agent(registry.load(name, game=game, config=config, seed=seed))


def agent_choices(game: ModuleType) -> list[str]:
    """The agent names to offer in a menu for ``game``: the bots and the installed shipped agents."""
    names = list(BUILT_IN)
    try:
        from club_envs.agents import registry
    except ImportError:
        return names
    for name in registry.shipped_names():
        game_name = registry.SHIPPED[name][0]
        roles = set(registry.SHIPPED[name][1])
        # an agent that plays only some roles (one side of Arkham) cannot fill any seat
        if game_name == game.RECORD_NAME and (roles == {"*"} or roles >= set(game.ROLES)):
            names.append(name)
    return names


def parse_opponents(
    text: str | Sequence[str], game: ModuleType, num_players: int
) -> tuple[list[str] | None, dict[str, str] | None]:
    """Read ``--opponents``: ``(per_other_seat, None)`` or ``(None, per_role)``.

    ``per_other_seat`` has exactly ``num_players - 1`` names, in seat order with the human's
    seat left out. ``per_role`` maps roles to names; whether it names every role the agents
    are dealt is checked once the roles are known.
    """
    items = [item.strip() for item in (text.split(",") if isinstance(text, str) else text) if item.strip()]
    others = num_players - 1
    if not items:
        raise ValueError("--opponents is empty; give one agent name, one per other seat, or role=name pairs")
    if any("=" in item for item in items):
        roles = tuple(game.ROLES)
        if not roles:
            raise ValueError(f"{game.RECORD_NAME} has no roles; give agent names without '='")
        per_role: dict[str, str] = {}
        for item in items:
            role, _, name = (part.strip() for part in item.partition("="))
            if role not in roles:
                raise ValueError(f"unknown role {role!r} in --opponents; expected one of {', '.join(roles)}")
            if not name:
                raise ValueError(f"role {role!r} in --opponents has no agent name")
            per_role[role] = name
        return None, per_role
    if len(items) == 1:
        return items * others, None
    if len(items) != others:
        raise ValueError(
            f"--opponents lists {len(items)} agents but {num_players} players leave {others} other seats; "
            f"give one name for all of them or exactly {others}"
        )
    return items, None
