"""Who sits in the opponents' seats of the Members Only vector environment, game by game.

``opponents`` takes the values the one-game environment takes (:mod:`club_envs.members_only.gym_env`),
in the batched engine's terms: a bot's name, or a :class:`~club_envs.agents.batched.BatchedPolicy` (a
callable ``(observations (K, obs), masks (K, A)) -> actions (K,)``), or a list with one of those per
other seat, clockwise from the learner: opponent ``i`` sits at seat ``(learner + 1 + i) % n``.

``"random"``, ``"heuristic"`` and ``"heuristic_bold"`` (:data:`NAMED`) are played inside compiled
code. Every other built-in bot (:mod:`club_envs.members_only.roster`: ``heuristic_sampled``, the
style families, the held-out bots) is the reference bot itself, one per game and seat, asked on the
seat's view rebuilt from the arrays (:mod:`club_envs.members_only.vector_views`) -- the same
decisions as at a one-game table, at the reference bot's speed.

Each game has its own line-up (:class:`GameLineups`): a trainer that draws every game's opponents
from a pool when the game starts sets them for that game alone. Every distinct policy object is one
group, asked once per round of moves for all the games and seats in which it is to move.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from club_envs.agents.batched import BatchedPolicy, Group, PolicyGroups, policy_name
from club_envs.errors import ConfigError
from club_envs.members_only.bots import HeuristicAgent
from club_envs.members_only.roster import AGENT_NAMES, make_agent

RANDOM, HEURISTIC, POLICY, AGENT = 0, 1, 2, 3  # slot kinds, as the compiled driver reads them
NO_GROUP = -1
# Named opponents the batched engine plays: (kind, chip_cost, rival_weight) -- the settings of
# bots.make_agent's bots of the same names.
NAMED = {
    "random": (RANDOM, (0.5, 1.0), 0.3),
    "heuristic": (HEURISTIC, (0.5, 1.0), 0.3),
    "heuristic_bold": (HEURISTIC, (0.25, 0.5), 0.0),
}
# every bot the vector environments play in compiled code: NAMED inside the engine's loop, the sampled
# heuristic beside it (club_envs.members_only.vector_sampled)
COMPILED_NAMES = (*NAMED, "heuristic_sampled")


def batched_name(item: Any) -> str | None:
    """The name of a bot the batched engine plays itself, or ``None``."""
    if isinstance(item, str) and item.strip().lower() in NAMED:
        return item.strip().lower()
    return None


def reference_name(item: Any) -> str | None:
    """The name of a built-in bot played by its reference code, one per game and seat, or ``None``."""
    if isinstance(item, str) and item.strip().lower() in AGENT_NAMES and batched_name(item) is None:
        return item.strip().lower()
    return None


class Lineup:
    """One line-up, one entry per other seat (slot ``i``: ``i + 1`` seats clockwise of the learner):
    each a name the compiled driver plays or a batched policy. Raises :class:`ConfigError` naming
    what the vector environment can play when an entry is none of those."""

    def __init__(self, spec: Any, num_players: int) -> None:
        count = num_players - 1
        if isinstance(spec, (list, tuple)):
            if len(spec) != count:
                raise ConfigError(f"opponents lists {len(spec)} opponents; {num_players} players need {count}")
            items = list(spec)
        else:
            items = [spec] * count
        self.kinds = np.zeros(count, np.int64)
        self.chip_cost = np.zeros((count, 2), np.float64)
        self.rival_weight = np.zeros(count, np.float64)
        self.names: list[str] = []
        self.policies: list[BatchedPolicy | None] = []
        for slot, item in enumerate(items):
            name = batched_name(item)
            if name is not None:
                kind, cost, rival = NAMED[name]
                self.kinds[slot], self.chip_cost[slot], self.rival_weight[slot] = kind, cost, rival
                self.names.append(name)
                self.policies.append(None)
            elif reference_name(item) is not None:
                self.kinds[slot] = AGENT
                self.names.append(reference_name(item))
                self.policies.append(None)
            elif callable(item) and not isinstance(item, (str, type)):
                self.kinds[slot] = POLICY
                self.names.append(policy_name(item))
                self.policies.append(item)
            else:
                raise ConfigError(
                    f"opponent {item!r} is not available in the vector environment; expected a bot "
                    f"({', '.join(AGENT_NAMES)}; compiled: {', '.join(COMPILED_NAMES)}) or a batched policy "
                    "(observations, action_masks) -> actions, or a list of those per other seat "
                    "(other opponents: vectorization_mode='sync')"
                )


class GameLineups:
    """The opponents of every game: what the compiled driver reads, per game and slot --
    ``kinds`` (N, slots) RANDOM, HEURISTIC or POLICY, ``chip_cost`` (N, slots, 2),
    ``rival_weight`` (N, slots), ``group`` (N, slots) the policy group of a POLICY slot (else
    :data:`NO_GROUP`) -- and ``names`` (N, slots), the controller names written in records.
    ``groups`` maps a group number to its :class:`Group`; a policy no game seats any more is let go.
    ``agents`` holds the reference bot of every AGENT slot, by ``(game, slot)``."""

    def __init__(self, spec: Any, num_players: int, num_games: int) -> None:
        self.num_players, self.num_games = num_players, num_games
        slots = num_players - 1
        self.kinds = np.zeros((num_games, slots), np.int64)
        self.chip_cost = np.zeros((num_games, slots, 2), np.float64)
        self.rival_weight = np.zeros((num_games, slots), np.float64)
        self.group = np.full((num_games, slots), NO_GROUP, np.int64)
        self.names = np.full((num_games, slots), "", dtype=object)
        self._groups = PolicyGroups()
        self.groups = self._groups.groups  # group number -> Group
        self._reference_bots: dict[tuple[float, float, float], HeuristicAgent] = {}
        self.agents: dict[tuple[int, int], Any] = {}
        self.set(spec)

    def set(self, spec: Any, games: Any = None) -> None:
        """Seat ``spec`` (any ``opponents`` value) in ``games`` (indices or a bool mask; ``None``: all)."""
        lineup = Lineup(spec, self.num_players)
        rows = np.arange(self.num_games)[games] if games is not None else np.arange(self.num_games)
        groups = np.full(len(lineup.kinds), NO_GROUP, np.int64)
        for slot, policy in enumerate(lineup.policies):
            if policy is not None:
                groups[slot] = self._group_number(policy)
        self.kinds[rows] = lineup.kinds
        self.chip_cost[rows] = lineup.chip_cost
        self.rival_weight[rows] = lineup.rival_weight
        self.group[rows] = groups
        self.names[rows] = np.array(lineup.names, dtype=object)
        for g in rows.tolist():
            for slot, name in enumerate(lineup.names):
                if lineup.kinds[slot] == AGENT:
                    self.agents[g, slot] = make_agent(name)
                else:
                    self.agents.pop((g, slot), None)
        self._let_go()

    def _group_number(self, policy: BatchedPolicy) -> int:
        return self._groups.number(policy)

    def _let_go(self) -> None:
        self._groups.let_go(self.group[self.group != NO_GROUP])

    def reference_bot(self, g: int, slot: int) -> HeuristicAgent:
        """The reference heuristic bot of game ``g``'s ``slot`` (it settles the compiled code's rare
        near-ties, :mod:`club_envs.members_only.vector_heuristic`)."""
        key = (*self.chip_cost[g, slot].tolist(), float(self.rival_weight[g, slot]))
        if key not in self._reference_bots:
            self._reference_bots[key] = HeuristicAgent(chip_cost=key[:2], rival_weight=key[2])
        return self._reference_bots[key]
