"""Our PettingZoo AEC games as RLlib multi-agent environments.

RLlib's own :class:`~ray.rllib.env.wrappers.pettingzoo_env.PettingZooEnv` does the turn-taking
(one agent acts per step; at the end every seat gets its last observation and reward). This
adapter adds what our games and RLlib's action-masking module need on top:

* each observation becomes ``{"observations": vector, "action_mask": float32 mask}``, the two
  keys :class:`~ray.rllib.examples.rl_modules.classes.action_masking_rlm.ActionMaskingTorchRLModule`
  reads (our environments say ``observation`` and give an int8 mask);
* agents are named so that a policy-mapping function can send them to the right policy without
  looking into the game. Members Only names the seats ``player_0`` ... (every seat plays the same
  betting policy), rotated by a random offset each episode so that ``player_0``, whom the league
  gives to the learner, sits at any seat. Arkham Decoders Club names the seats *by side* each
  episode: the Black Man's seat is ``black_man`` and the others are ``team_0``, ``team_1``, ... in
  seat order, so a mapping function sends ``team_*`` to the team policy and ``black_man`` to his.
  The names never reach the policies, which see only their observations: no identity leaks;
* a list of player counts: each episode is dealt at one of them (the observations are padded to
  the largest table, so one policy plays them all).
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv

import club_envs  # noqa: F401  -- registers the environments
from club_envs.games import get_spec

BLACK_MAN = "black_man"
ALL_AGENTS = "__all__"


def by_side(game: str) -> bool:
    """Whether the game's seats are named by side (a game with roles) rather than by seat."""
    return bool(get_spec(game).roles)


def agent_ids(game: str, num_players: int) -> list[str]:
    """The agent names of a ``num_players`` table, as RLlib sees them."""
    if by_side(game):
        return [f"team_{i}" for i in range(num_players - 1)] + [BLACK_MAN]
    return [f"player_{i}" for i in range(num_players)]


def masked_observation_space(space: gym.spaces.Dict) -> gym.spaces.Dict:
    """Our ``{"observation", "action_mask"}`` space in the form the masking module expects."""
    mask = space["action_mask"]
    return gym.spaces.Dict(
        {
            "observations": space["observation"],
            "action_mask": gym.spaces.Box(0.0, 1.0, mask.shape, dtype=np.float32),
        }
    )


class ClubMultiAgentEnv(PettingZooEnv):
    """An RLlib ``MultiAgentEnv`` over ``club_envs.<game>_v0.env(...)``.

    ``env_config``: ``game`` (``members_only`` or ``arkham_decoders``), ``num_players`` (an int or a
    list of ints; one is drawn per episode), ``options`` (rule options for ``env()``), ``seed``.
    """

    def __init__(self, env_config: dict[str, Any]) -> None:
        spec = get_spec(env_config["game"])  # a ValueError names the known games
        self.game_name = spec.name
        counts = env_config["num_players"]
        self.counts = [int(counts)] if isinstance(counts, int) else [int(n) for n in counts]
        make = spec.hook("aec_env")
        options = dict(env_config.get("options") or {})
        self.tables = {n: make(num_players=n, **options) for n in self.counts}
        self._rng = np.random.default_rng(env_config.get("seed"))
        super().__init__(self.tables[max(self.counts)])

        # every name any table can use, all with the same spaces
        names = agent_ids(self.game_name, max(self.counts))
        observation_space = masked_observation_space(self.env.observation_space(self.env.possible_agents[0]))
        action_space = self.env.action_space(self.env.possible_agents[0])
        self.possible_agents = list(names)
        self.agents = list(names)
        self._agent_ids = set(names)
        self.observation_spaces = {a: observation_space for a in names}
        self.action_spaces = {a: action_space for a in names}
        self.observation_space = gym.spaces.Dict(self.observation_spaces)
        self.action_space = gym.spaces.Dict(self.action_spaces)
        self._name_of: dict[str, str] = {}
        self._seat_agent_of: dict[str, str] = {}

    # ------------------------------------------------------------------ MultiAgentEnv API
    def reset(self, *, seed: int | None = None, options: dict | None = None):
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        self.env = self.tables[self.counts[int(self._rng.integers(len(self.counts)))]]
        # a fresh game seed from our own generator: a seeded runner replays the same games
        obs, info = super().reset(seed=int(self._rng.integers(2**31)), options=options)
        self._name_seats()
        self.agents = list(self._seat_agent_of)
        return self._rename(obs, self._observation), self._rename(info)

    def step(self, action_dict: dict[str, Any]):
        seat_actions = {self._seat_agent_of[a]: int(act) for a, act in action_dict.items()}
        obs, rewards, terminateds, truncateds, infos = super().step(seat_actions)
        return (
            self._rename(obs, self._observation),
            self._rename(rewards, float),
            self._rename(terminateds),
            self._rename(truncateds),
            self._rename(infos),
        )

    def close(self) -> None:
        for table in self.tables.values():
            table.close()

    # ------------------------------------------------------------------ helpers
    def _name_seats(self) -> None:
        """Name each seat of the new game (by side for Arkham: the Black Man is ``black_man``)."""
        seats = self.env.possible_agents
        names = agent_ids(self.game_name, len(seats))
        if by_side(self.game_name):
            black_man = self.env.unwrapped.game.black_man_seat
            team = iter(names[:-1])
            names = [BLACK_MAN if i == black_man else next(team) for i in range(len(seats))]
        else:  # ``player_0`` (the learner's name in the league) sits at a random seat
            offset = int(self._rng.integers(len(seats)))
            names = [names[(i - offset) % len(seats)] for i in range(len(seats))]
        self._name_of = dict(zip(seats, names))
        self._seat_agent_of = {name: seat for seat, name in self._name_of.items()}

    def _rename(self, per_seat: dict[str, Any], convert=lambda v: v) -> dict[str, Any]:
        return {
            (key if key == ALL_AGENTS else self._name_of[key]): (value if key == ALL_AGENTS else convert(value))
            for key, value in per_seat.items()
        }

    @staticmethod
    def _observation(obs: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        return {"observations": obs["observation"], "action_mask": obs["action_mask"].astype(np.float32)}

    def seat_of(self, agent_id: str) -> int:
        """The table seat an agent name stands for in the current game."""
        return self.env.possible_agents.index(self._seat_agent_of[agent_id])
