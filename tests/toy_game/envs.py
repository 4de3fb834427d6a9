"""High Card Swap's environments: the Gymnasium single-agent view and a PettingZoo AEC env."""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from club_envs.agents.base import Decision, as_agent, play_through
from tests.toy_game.game import NUM_ACTIONS, Config, Observer, State, make_agent


class HighCardGymEnv(gymnasium.Env):
    """The learner holds ``seat`` (or a random seat); the others are played by ``opponents``."""

    metadata = {"render_modes": [], "render_fps": 1}

    def __init__(self, num_players: int = 2, opponents: Any = "random", seat: int | str = 0) -> None:
        self.config = Config(num_players=num_players)
        self.num_players = num_players
        self.seat_option = seat
        self.seat = seat if isinstance(seat, int) else 0
        self.observer = Observer(self.config)
        self.observation_space = spaces.Box(0.0, 1.0, shape=(Observer.size,), dtype=np.float32)
        self.action_space = spaces.Discrete(NUM_ACTIONS)
        self._spec = opponents
        self._opponents: list | None = None
        self.game: State | None = None

    def set_opponents(self, opponents: Any) -> None:
        self._spec, self._opponents = opponents, None

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        return play_through(self.reset_moves(seed=seed, options=options))

    def step(self, action: Any):
        return play_through(self.step_moves(action))

    def reset_moves(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        if self._opponents is None:
            items = self._spec if isinstance(self._spec, (list, tuple)) else [self._spec] * (self.num_players - 1)
            self._opponents = [make_agent(i, self.config) if isinstance(i, str) else as_agent(i) for i in items]
        if self.seat_option == "random":
            self.seat = int(self.np_random.integers(self.num_players))
        self.game = State(self.config, seed=int(self.np_random.integers(2**31 - 1)))
        self._by_seat = {(self.seat + 1 + i) % self.num_players: a for i, a in enumerate(self._opponents)}
        for seat, agent in self._by_seat.items():
            agent.reset(seat, None)
        yield from self._opponent_moves()
        return self._observation(), self._info()

    def step_moves(self, action: Any):
        game = self.game
        if not game.is_legal(int(action)):
            game.forfeit(self.seat)
            return self._observation(), -1.0, True, False, self._info()
        game.apply_action(int(action))
        yield from self._opponent_moves()
        reward = 0.0
        if game.is_over:
            winners = game.result["winners"]
            reward = 1.0 / len(winners) if self.seat in winners else -1.0 / (self.num_players - 1)
        return self._observation(), reward, game.is_over, False, self._info()

    def _opponent_moves(self):
        game = self.game
        while not game.is_over and game.current_player != self.seat:
            seat = game.current_player
            view = game.player_view(seat)
            action = yield self._by_seat[seat], Decision(seat, view, game.legal_actions(),
                                                         lambda v=view: self.observer.observe(v), game.legal_mask)
            game.apply_action(action)

    def action_masks(self) -> np.ndarray:
        if self.game is None or self.game.current_player != self.seat:
            return np.zeros(NUM_ACTIONS, dtype=bool)
        return self.game.legal_mask().astype(bool)

    def learner_view(self):
        return self.game.player_view(self.seat)

    def _observation(self) -> np.ndarray:
        return self.observer.observe(self.game.player_view(self.seat))

    def _info(self) -> dict[str, Any]:
        info: dict[str, Any] = {"action_mask": self.action_masks(), "seat": self.seat}
        if self.game.result is not None:
            info["scores"], info["winners"] = list(self.game.result["scores"]), list(self.game.result["winners"])
        return info

    def record(self) -> dict[str, Any]:
        return self.game.record(["learner" if s == self.seat else self._by_seat[s].name
                                 for s in range(self.num_players)])


class raw_env(AECEnv):
    metadata = {"name": "high_card_swap_v0", "render_modes": [], "is_parallelizable": False}

    def __init__(self, num_players: int = 2) -> None:
        super().__init__()
        self.config = Config(num_players=num_players)
        self.observer = Observer(self.config)
        self.possible_agents = [f"player_{i}" for i in range(num_players)]
        self.observation_spaces = {a: spaces.Dict({
            "observation": spaces.Box(0.0, 1.0, shape=(Observer.size,), dtype=np.float32),
            "action_mask": spaces.Box(0, 1, shape=(NUM_ACTIONS,), dtype=np.int8)}) for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(NUM_ACTIONS) for a in self.possible_agents}

    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        self.game = State(self.config, seed=seed)
        self.agents = list(self.possible_agents)
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self.agent_selection = self.agents[0]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        seat = self.possible_agents.index(agent)
        mask = self.game.legal_mask() if self.game.current_player == seat else np.zeros(NUM_ACTIONS, dtype=np.int8)
        return {"observation": self.observer.observe(self.game.player_view(seat)), "action_mask": mask}

    def step(self, action: int | None) -> None:
        if self.terminations[self.agent_selection] or self.truncations[self.agent_selection]:
            self._was_dead_step(action)
            return
        self._cumulative_rewards[self.agent_selection] = 0.0
        self.game.apply_action(int(action))
        if self.game.is_over:
            winners = self.game.result["winners"]
            for seat, agent in enumerate(self.agents):
                self.rewards[agent] = 1.0 if seat in winners else -1.0
                self.terminations[agent] = True
        else:
            self.agent_selection = self.possible_agents[self.game.current_player]
        self._accumulate_rewards()


def env(**kwargs: Any) -> AECEnv:
    return raw_env(**kwargs)
