"""Who sits in the opponents' seats of the Arkham Decoders Club vector environment, game by game.

``opponents`` takes the values the one-game environment takes (:mod:`club_envs.arkham_decoders.gym_env`),
in the batched engine's terms: a name -- ``"random"`` or ``"heuristic"``, both played inside
compiled code -- or a :class:`~club_envs.agents.batched.BatchedPolicy` (a callable
``(observations (K, obs), masks (K, A)) -> actions (K,)``, or with ``reads_state = True`` one that
also takes the :class:`~club_envs.agents.batched.GameRows` of its rows); a list with one of those
per other seat, clockwise from the learner (opponent ``i`` sits at seat ``(learner + 1 + i) % n``);
or a dict ``{role: one of those}`` for the roles leader, member, investigator and black_man (the
learner's own role may be left out), which seats each game's opponents by the roles it deals.

Every other built-in bot (:mod:`club_envs.arkham_decoders.roster`: the style families, the held-out
bots) is the reference bot itself, a new one per game and seat as at a one-game table, asked on the
seat's view rebuilt from the arrays (:mod:`club_envs.arkham_decoders.vector_views`): the same
decisions, at the reference bot's speed.

Each game has its own line-up (:class:`GameLineups`): a trainer that draws every game's opponents
from a pool when the game starts sets them for that game alone. Every distinct policy object is one
group, asked once per round of moves for all the games and seats in which it is to move.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from club_envs.agents.batched import BatchedPolicy, Group, PolicyGroups, policy_name
from club_envs.arkham_decoders.roster import AGENT_NAMES
from club_envs.arkham_decoders.rules import ROLES
from club_envs.arkham_decoders.vector_engine import MAX_SEATS
from club_envs.errors import ConfigError

RANDOM, HEURISTIC, POLICY, NOBODY, AGENT = 0, 1, 2, 3, 4  # slot kinds, as the compiled driver reads them
NAMED = {"random": RANDOM, "heuristic": HEURISTIC}  # the bots the batched engine plays itself
NO_GROUP = -1
# A line-up's slots: one per other seat (clockwise from the learner), or one per role (ROLES order).
SLOTS = max(MAX_SEATS - 1, len(ROLES))


class Lineup:
    """One line-up: per slot a kind (RANDOM, HEURISTIC, POLICY, AGENT -- a reference bot by name --,
    or NOBODY for the learner's own role in a dict), the policy of a POLICY slot and the controller name written in records;
    ``by_role`` says whether the slots are roles or seats clockwise from the learner. Raises
    :class:`ConfigError` naming what the vector environment can play when an entry is none of
    those."""

    def __init__(self, spec: Any, num_players: int, learner_role: str) -> None:
        count = num_players - 1
        self.by_role = isinstance(spec, Mapping)
        if self.by_role:
            items = _role_items(spec, learner_role)
        elif isinstance(spec, (list, tuple)):
            if len(spec) != count:
                raise ConfigError(f"opponents lists {len(spec)} opponents; {num_players} players need {count}")
            items = list(spec)
        else:
            items = [spec] * count
        self.kinds = np.full(SLOTS, NOBODY, np.int64)
        self.names = [""] * SLOTS
        self.policies: list[BatchedPolicy | None] = [None] * SLOTS
        for slot, item in enumerate(items):
            if item is None:
                continue
            if isinstance(item, str) and item.strip().lower() in NAMED:
                self.names[slot] = item.strip().lower()
                self.kinds[slot] = NAMED[self.names[slot]]
            elif isinstance(item, str) and item.strip().lower() in AGENT_NAMES:
                self.kinds[slot], self.names[slot] = AGENT, item.strip().lower()
            elif callable(item) and not isinstance(item, (str, type)):
                self.kinds[slot], self.names[slot], self.policies[slot] = POLICY, policy_name(item), item
            else:
                raise ConfigError(
                    f"opponent {item!r} is not available in the vector environment; expected a bot "
                    f"({', '.join(AGENT_NAMES)}; compiled: {', '.join(NAMED)}) or a batched policy (observations, action_masks) -> actions, a list of "
                    "those per other seat or a dict role -> one of those (other opponents: vectorization_mode='sync')"
                )


def _role_items(spec: Mapping, learner_role: str) -> list[Any]:
    """The entries of a dict line-up in ROLES order (None for the learner's own role left out)."""
    unknown = [role for role in spec if role not in ROLES]
    if unknown:
        raise ConfigError(f"opponents names unknown role {unknown[0]!r}; expected roles {', '.join(ROLES)}")
    needed = [role for role in ROLES if role not in spec and (learner_role == "any" or role != learner_role)]
    if needed:
        raise ConfigError(f"opponents gives no opponent for role(s) {', '.join(needed)}")
    return [spec.get(role) for role in ROLES]


class GameLineups:
    """The opponents of every game: what the compiled driver reads -- ``by_role`` (N,) whether a
    game's slots are roles, ``kinds`` (N, SLOTS) RANDOM, HEURISTIC, POLICY or NOBODY, ``group``
    (N, SLOTS) the policy group of a POLICY slot (else :data:`NO_GROUP`) -- and ``names`` (N,
    SLOTS), the controller names written in records (an AGENT slot's bot is built by name from them). ``groups`` maps a group number to its
    :class:`Group`; a policy no game seats any more is let go."""

    def __init__(self, spec: Any, num_players: int, num_games: int, learner_role: str) -> None:
        self.num_players, self.num_games, self.learner_role = num_players, num_games, learner_role
        self.by_role = np.zeros(num_games, np.bool_)
        self.kinds = np.full((num_games, SLOTS), NOBODY, np.int64)
        self.group = np.full((num_games, SLOTS), NO_GROUP, np.int64)
        self.names = np.full((num_games, SLOTS), "", dtype=object)
        self._groups = PolicyGroups()
        self.groups = self._groups.groups  # group number -> Group
        self.set(spec)

    def set(self, spec: Any, games: Any = None) -> None:
        """Seat ``spec`` (any ``opponents`` value) in ``games`` (indices or a bool mask; ``None``: all)."""
        lineup = Lineup(spec, self.num_players, self.learner_role)
        rows = np.arange(self.num_games) if games is None else _selection(games, self.num_games)
        groups = np.full(SLOTS, NO_GROUP, np.int64)
        for slot, policy in enumerate(lineup.policies):
            if policy is not None:
                groups[slot] = self._group_number(policy)
        self.by_role[rows] = lineup.by_role
        self.kinds[rows] = lineup.kinds
        self.group[rows] = groups
        self.names[rows] = np.array(lineup.names, dtype=object)
        self._let_go()

    def slot(self, g: int, seat: int, learner: int, role: int) -> int:
        """The slot of game ``g`` that plays ``seat`` (``role``: its role, ROLES index)."""
        return role if self.by_role[g] else (seat - learner - 1) % self.num_players

    def _group_number(self, policy: BatchedPolicy) -> int:
        return self._groups.number(policy)

    def _let_go(self) -> None:
        self._groups.let_go(self.group[self.group != NO_GROUP])


def _selection(games: Any, num_games: int) -> np.ndarray:
    """``games`` (indices or a bool mask over the games) as an index array, or a ConfigError."""
    games = np.asarray(games)
    if games.dtype == np.bool_:
        if games.shape != (num_games,):
            raise ConfigError(f"games is a mask of shape {games.shape}; expected ({num_games},), one flag per game")
        return np.flatnonzero(games)
    if games.ndim != 1 or (games.size and not np.issubdtype(games.dtype, np.integer)):
        raise ConfigError(f"games={games!r}: expected game indices 0..{num_games - 1} or a bool mask")
    if games.size and (games.min() < 0 or games.max() >= num_games):
        wrong = games.min() if games.min() < 0 else games.max()
        raise ConfigError(f"games holds {wrong}; games are 0..{num_games - 1}")
    return games.astype(np.int64)


__all__ = ["AGENT", "GameLineups", "Group", "HEURISTIC", "Lineup", "NO_GROUP", "NOBODY", "POLICY", "RANDOM", "SLOTS"]
