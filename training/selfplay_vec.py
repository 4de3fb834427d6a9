"""Many self-play games in one process, with the opponents' decisions batched per frozen policy.

A learner step in a self-play game is followed by the moves of every opponent seat up to the
learner's next turn (about three at a 4-player Members Only table). Played game by game, each of
those moves is one small forward pass of a frozen network on one observation. Here every game's
step is a generator (``step_moves``) that yields ``(agent, decision)`` for each opponent move, so
the vector environment can advance all games together: at each round it gathers the pending
decisions of every game, answers those of one frozen network with a single batched forward pass
(:func:`club_envs.agents.policy.act_batch`), asks the bots one by one, and resumes the games. The
result is exactly what playing the games one after another gives (each agent keeps its own random
generator), only faster.

:class:`SelfPlayVecEnv` is a stable-baselines3 ``VecEnv`` with ``action_masks`` for sb3-contrib's
``MaskablePPO``; it also does what the per-game wrappers did (the policy's extra inputs, and the
``Monitor``'s episode statistics in ``info["episode"]``).
"""

from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Callable, Generator, Sequence
from typing import Any

import gymnasium as gym
import numpy as np
from stable_baselines3.common.vec_env.base_vec_env import VecEnv

from club_envs.agents.features import get as get_features
from club_envs.agents.policy import PolicyAgent, act_batch


def drive_all(moves: Sequence[Generator]) -> list[Any]:
    """Run the step generators of many games to their ends, batching the decisions of agents that
    share one network; returns each generator's result."""
    results: list[Any] = [None] * len(moves)
    pending: dict[int, tuple[Any, Any]] = {}

    def advance(i: int, action: Any) -> None:
        try:
            pending[i] = moves[i].send(action)
        except StopIteration as stop:
            results[i] = stop.value
            pending.pop(i, None)

    for i in range(len(moves)):
        advance(i, None)
    while pending:
        by_net: dict[int, list[int]] = defaultdict(list)
        actions: dict[int, int] = {}
        for i, (agent, decision) in pending.items():
            if isinstance(agent, PolicyAgent):
                by_net[id(agent.net)].append(i)
            else:  # a bot (or any other agent) decides on its own
                actions[i] = agent.act(decision)
        for games in by_net.values():
            chosen = act_batch([pending[i][0] for i in games], [pending[i][1] for i in games])
            actions.update(zip(games, chosen))
        for i in sorted(actions):
            advance(i, actions[i])
    return results


class SelfPlayVecEnv(VecEnv):
    """``n`` self-play games (:class:`training.selfplay.SelfPlayEnv`) stepped together."""

    def __init__(self, env_fns: Sequence[Callable[[], Any]], features: str = "none") -> None:
        self.envs = [fn() for fn in env_fns]
        self.features = get_features(features)
        first = self.envs[0]
        if self.features is None:
            observation_space = first.observation_space
        else:
            size = self.features.obs_size + self.features.extra
            observation_space = gym.spaces.Box(-np.inf, np.inf, (size,), np.float32)
        super().__init__(len(self.envs), observation_space, first.action_space)
        self._seeds: list[int | None] = [None] * self.num_envs
        self._returns = np.zeros(self.num_envs)
        self._lengths = np.zeros(self.num_envs, dtype=int)
        self._started = time.time()
        self._actions: np.ndarray | None = None

    # ------------------------------------------------------------------ the VecEnv API

    def reset(self) -> np.ndarray:
        seeds, self._seeds = self._seeds, [None] * self.num_envs
        results = drive_all([env.reset_moves(seed=seed) for env, seed in zip(self.envs, seeds)])
        self.reset_infos = [info for _, info in results]
        self._returns[:] = 0.0
        self._lengths[:] = 0
        return np.stack([self._inputs(i, obs) for i, (obs, _) in enumerate(results)])

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = actions

    def step_wait(self):
        results = drive_all([env.step_moves(int(a)) for env, a in zip(self.envs, self._actions)])
        observations, rewards, dones, infos = [], np.zeros(self.num_envs, np.float32), np.zeros(self.num_envs, bool), []
        finished = []
        for i, (obs, reward, terminated, truncated, info) in enumerate(results):
            info = dict(info)
            self._returns[i] += reward
            self._lengths[i] += 1
            rewards[i] = reward
            observation = self._inputs(i, obs)
            if terminated or truncated:
                dones[i] = True
                info["episode"] = {"r": round(float(self._returns[i]), 6), "l": int(self._lengths[i]),
                                   "t": round(time.time() - self._started, 6)}
                info["TimeLimit.truncated"] = bool(truncated and not terminated)
                info["terminal_observation"] = observation
                self._returns[i], self._lengths[i] = 0.0, 0
                finished.append(i)
            observations.append(observation)
            infos.append(info)
        if finished:  # the finished games start again at once (the VecEnv convention)
            restarted = drive_all([self.envs[i].reset_moves() for i in finished])
            for i, (obs, reset_info) in zip(finished, restarted):
                observations[i] = self._inputs(i, obs)
                self.reset_infos[i] = reset_info
        return np.stack(observations), rewards, dones, infos

    def _inputs(self, i: int, observation: np.ndarray) -> np.ndarray:
        if self.features is None:
            return observation
        env = self.envs[i]
        return self.features.transform(observation, env.learner_view(), env.action_masks())

    def action_masks(self) -> np.ndarray:
        return np.stack([env.action_masks() for env in self.envs])

    def close(self) -> None:
        for env in self.envs:
            env.close()

    def seed(self, seed: int | None = None) -> list[int | None]:
        self._seeds = [None if seed is None else seed + i for i in range(self.num_envs)]
        return self._seeds

    def get_images(self) -> list[np.ndarray]:
        return []

    def _targets(self, indices) -> list[Any]:
        return [self.envs[i] for i in self._get_indices(indices)]

    def get_attr(self, attr_name: str, indices=None) -> list[Any]:
        if attr_name == "action_masks":
            return [env.action_masks for env in self._targets(indices)]
        return [getattr(env, attr_name) for env in self._targets(indices)]

    def set_attr(self, attr_name: str, value: Any, indices=None) -> None:
        for env in self._targets(indices):
            setattr(env, attr_name, value)

    def env_method(self, method_name: str, *method_args, indices=None, **method_kwargs) -> list[Any]:
        return [getattr(env, method_name)(*method_args, **method_kwargs) for env in self._targets(indices)]

    def env_is_wrapped(self, wrapper_class, indices=None) -> list[bool]:
        return [False for _ in self._targets(indices)]

    def has_attr(self, attr_name: str) -> bool:
        return hasattr(self.envs[0], attr_name)
