"""Turning the opponents a person names into agents, for one game with one human seat.

A name is whatever :func:`club_envs.agents.registry.load` accepts: a built-in bot (``random``,
``heuristic``), a shipped trained agent, a policy file or a run folder. ``--opponents`` takes one
name for every other seat, one name per other seat (in seat order, the human's seat skipped), or
-- for games with roles -- ``role=name`` pairs.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import ModuleType
from typing import Any

import club_envs.agents.registry as registry
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


def public_agent_labels(
    names: Mapping[int, str],
    per_role: Mapping[str, str] | None,
    public_roles: Sequence[str] | None,
    hidden_roles: Mapping[str, Sequence[str]],
    show: bool = True,
) -> dict[int, str | None]:
    """The agent name to show for each agent seat, or ``None`` where it must stay unnamed.

    A name may be shown only if it follows from what the person knows. Seat-by-seat lineups are
    fixed before the deal, so their names are public. A role-by-role lineup is resolved through
    the roles dealt: a seat's name is shown only when every secret role behind its public role
    (Arkham's advisor: Investigator or Black Man) maps to the same agent -- otherwise the name
    would tell which advisor is the Black Man.
    """
    if not show:
        return {s: None for s in names}
    if per_role is None:
        return dict(names)
    shown: dict[int, str | None] = {}
    for seat in names:
        public = public_roles[seat] if public_roles else None
        candidates = tuple(hidden_roles.get(public, (public,))) if public is not None else ()
        possible = {per_role[r] for r in candidates if r in per_role}
        shown[seat] = possible.pop() if len(possible) == 1 else None
    return shown
