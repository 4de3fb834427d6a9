"""Self-play against a league of frozen snapshots, the way RLlib's self-play examples do it.

As in ``ray/rllib/examples/multi_agent/self_play_with_open_spiel.py``, the learning policies and
their frozen copies are modules of one multi-agent RLModule; a policy-mapping function decides,
per episode, which module plays which agent, and a callback copies the learner into a snapshot
as training goes on. Two choices differ from the example, both so that a resumed run is the same
run: the snapshot slots exist from the start (each holds the untrained policy until it is first
overwritten), and new snapshots overwrite the oldest slot, so the module set never changes.

Modules:

* Members Only: ``main`` (the one betting policy every seat shares) and ``main_snap0`` ...
* Arkham Decoders Club: ``team`` and ``black_man`` (the two learners, mapped by side) and
  ``team_snap0`` ..., ``black_man_snap0`` ...

Each episode the learner holds at least one seat (Members Only: ``player_0``, whom the adapter seats at
random; Arkham: the whole of one side, drawn 50/50); every other seat plays the learner itself with
probability ``self_play_share`` and otherwise a snapshot drawn uniformly from the league (in Arkham
one draw serves the whole opposing side: the team plays as one).
"""

from __future__ import annotations

import zlib
from typing import Any

import numpy as np

from club_envs.training.rllib_backend.env_adapter import BLACK_MAN, by_side

MAX_SEATS = 8  # more than any table
LEARNERS = {"members_only": ("main",), "arkham_decoders": ("team", BLACK_MAN)}


def learner_modules(game: str) -> tuple[str, ...]:
    return LEARNERS[game]


def snapshot_id(learner: str, slot: int) -> str:
    return f"{learner}_snap{slot}"


def is_snapshot(module_id: str) -> bool:
    return "_snap" in module_id


def all_modules(game: str, pool_size: int) -> list[str]:
    learners = learner_modules(game)
    return [*learners, *(snapshot_id(m, k) for m in learners for k in range(pool_size))]


def side_of(agent_id: str) -> str:
    """The learner module an Arkham agent name belongs to (``team_3`` -> ``team``)."""
    return BLACK_MAN if agent_id == BLACK_MAN else "team"


class LeagueMapping:
    """The policy-mapping function: ``(agent_id, episode) -> module id``.

    Every draw is made from a generator seeded by the episode's id, so the agents of one episode
    agree on the line-up whichever order RLlib asks in. Picklable (it travels to the env runners).
    """

    def __init__(self, game: str, pool_size: int, self_play_share: float) -> None:
        self.game = game
        self.by_side = by_side(game)  # Arkham: the team and the Black Man
        self.pool_size = pool_size
        self.self_play_share = self_play_share

    def __call__(self, agent_id: str, episode: Any, **kwargs: Any) -> str:
        rng = np.random.default_rng(zlib.crc32(str(episode.id_).encode()))
        if self.by_side:
            return self._arkham(agent_id, rng)
        return self._members_only(agent_id, rng)

    def _opponent(self, learner: str, rng: np.random.Generator) -> str:
        if self.pool_size == 0 or rng.random() < self.self_play_share:
            return learner
        return snapshot_id(learner, int(rng.integers(self.pool_size)))

    def _members_only(self, agent_id: str, rng: np.random.Generator) -> str:
        # ``player_0`` is the learner's seat (the adapter puts it at a random seat each game); one
        # draw per possible seat, made in a fixed order, so every seat's answer is the same
        # whenever it is asked
        draws = [self._opponent("main", rng) for _ in range(MAX_SEATS)]
        seat = int(agent_id.rsplit("_", 1)[1])
        return "main" if seat == 0 else draws[seat]

    def _arkham(self, agent_id: str, rng: np.random.Generator) -> str:
        focus = BLACK_MAN if rng.random() < 0.5 else "team"  # the side that surely plays its learner
        other = "team" if focus == BLACK_MAN else BLACK_MAN
        opponent = self._opponent(other, rng)
        return focus if side_of(agent_id) == focus else opponent
