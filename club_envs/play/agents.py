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

from club_envs.agents import registry
from club_envs.agents.base import Agent
from club_envs.agents.lineup import Lineup, make_agent

def resolve_agent(game: ModuleType, name: str, config: Any, seed: int | None = None) -> Agent:
    """The agent called ``name`` for ``game``; ``ValueError`` lists the accepted names."""
    return make_agent(game, name, config, seed=seed)


def agent_choices(game: ModuleType) -> list[str]:
    """The agent names to offer in a menu for ``game``: the bots and the installed shipped agents."""
    names = list(registry.bot_names(game))
    for name in registry.shipped_names():
        game_name, files = registry.SHIPPED[name]
        roles = set(files)
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
    lineup = Lineup.parse(text, game, num_players, seats=num_players - 1, option="--opponents", every_role=False)
    if lineup.per_role is not None:
        return None, dict(lineup.per_role)
    return list(lineup.per_seat or ()), None
