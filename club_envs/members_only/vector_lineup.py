"""Who sits in the opponents' seats of the Members Only vector environment.

``opponents`` takes the values the one-game environment takes (:mod:`club_envs.members_only.gym_env`),
in the batched engine's terms: a name -- ``"random"``, ``"heuristic"`` or ``"heuristic_bold"``, all
played inside compiled code -- or a :class:`~club_envs.agents.batched.BatchedPolicy` (a callable
``(observations (K, obs), masks (K, A)) -> actions (K,)``), or a list with one of those per other
seat, clockwise from the learner: opponent ``i`` sits at seat ``(learner + 1 + i) % n``. Every
distinct policy object is one group, asked once per round of moves for all the games in which it
is to move.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from club_envs.agents.batched import BatchedPolicy, policy_name
from club_envs.errors import ConfigError
from club_envs.members_only.bots import HeuristicAgent

RANDOM, HEURISTIC, POLICY = 0, 1, 2  # slot kinds, as the compiled driver reads them
# Named opponents the batched engine plays: (kind, chip_cost, rival_weight) -- the settings of
# bots.make_agent's bots of the same names.
NAMED = {
    "random": (RANDOM, (0.5, 1.0), 0.3),
    "heuristic": (HEURISTIC, (0.5, 1.0), 0.3),
    "heuristic_bold": (HEURISTIC, (0.25, 0.5), 0.0),
}


class Group(NamedTuple):
    """One batched policy and the opponent slots it fills."""

    policy: BatchedPolicy
    slots: np.ndarray
    name: str


class Lineup:
    """The opponents, one slot per other seat (slot ``i``: ``i + 1`` seats clockwise of the learner).

    ``kinds`` (RANDOM, HEURISTIC or POLICY), ``chip_cost`` (slots, 2) and ``rival_weight`` (slots,)
    are what the compiled driver reads; ``groups`` the policies; ``names`` the controller names
    written in records; ``reference_bots`` the reference heuristic bot of each heuristic slot (it
    settles the rare near-ties of :mod:`club_envs.members_only.vector_heuristic`).
    """

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
        self.reference_bots: list[HeuristicAgent | None] = []
        groups: dict[int, tuple[BatchedPolicy, list[int]]] = {}
        for slot, item in enumerate(items):
            self.reference_bots.append(None)
            if isinstance(item, str) and item.strip().lower() in NAMED:
                name = item.strip().lower()
                kind, cost, rival = NAMED[name]
                self.kinds[slot], self.chip_cost[slot], self.rival_weight[slot] = kind, cost, rival
                if kind == HEURISTIC:
                    self.reference_bots[slot] = HeuristicAgent(chip_cost=cost, rival_weight=rival)
                self.names.append(name)
            elif callable(item) and not isinstance(item, (str, type)):
                self.kinds[slot] = POLICY
                groups.setdefault(id(item), (item, []))[1].append(slot)
                self.names.append(policy_name(item))
            else:
                raise ConfigError(
                    f"opponent {item!r} is not available in the vector environment; expected one of "
                    f"{', '.join(NAMED)} or a batched policy (observations, action_masks) -> actions, "
                    "or a list of those per other seat (other opponents: vectorization_mode='sync')"
                )
        self.groups = [Group(policy, np.array(slots, np.int64), policy_name(policy))
                       for policy, slots in groups.values()]
