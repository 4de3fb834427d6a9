"""Many self-play games in one process, with the opponents' decisions batched per frozen policy.

A learner step in a self-play game is followed by the moves of every opponent seat up to the
learner's next turn (about three at a 4-player Members Only table). Played game by game, each of
those moves is one small forward pass of a frozen network on one observation. Here every game's
step is a generator (``step_moves``) that yields ``(agent, decision)`` for each opponent move, so
the vector environment can advance all games together: at each round it gathers the pending
decisions of every game, answers those of one frozen network with a single batched forward pass
(:func:`club_envs.agents.policy.act_batch`) and those of the Members Only heuristics with one
batched evaluation per tuning (:mod:`club_envs.members_only.heuristic_batch`; the sampled bot's
deals still drawn bot by bot, :mod:`club_envs.members_only.heuristic_sampled`) -- any agent with a
``batch_key`` and an ``act_batch`` is asked this way -- asks the other bots one by one, and resumes
the games. Work that several groups of a round need (the exact heuristic's evaluation, read by
the exact bots and by every frozen policy with ``members_only_heuristic`` inputs) is done once for
the round first (``prepare_key``, :mod:`club_envs.members_only.heuristic_round`). The learner's extra policy inputs are likewise computed for all games at once
(:meth:`club_envs.agents.features.Features.transform_batch`). The result is exactly what playing
the games one after another gives (each agent keeps its own random generator), only faster.

:class:`SelfPlayVecEnv` is a stable-baselines3 ``VecEnv`` with ``action_masks`` for sb3-contrib's
``MaskablePPO``; it also does what the per-game wrappers did (the policy's extra inputs, and the
``Monitor``'s episode statistics in ``info["episode"]``). With ``privileged=True`` each input row ends
with what the learner may not see (``privileged_state()``), read by the privileged critic of
:mod:`club_envs.training.privileged` only.
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


def drive_all(moves: Sequence[Generator]) -> list[Any]:
    """Run the step generators of many games to their ends, asking agents with equal ``batch_key``
    together (``type(agent).act_batch(agents, decisions)``); returns each generator's result.

    Before each round's groups are asked, the decisions of agents with equal ``prepare_key`` are
    handed to ``type(agent).prepare_batch(agents, decisions)`` together: work that agents of
    different groups share (the Members Only heuristic's evaluation, wanted by the exact bots and
    by every policy reading ``members_only_heuristic`` inputs) is then done once for the round.
    Agents with equal keys must prepare alike, so any of them may prepare for all."""
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
        shared: dict[Any, list[int]] = defaultdict(list)  # work several groups need, done once
        for i, (agent, _) in pending.items():
            key = getattr(agent, "prepare_key", None)
            if key is not None:
                shared[key].append(i)
        for games in shared.values():
            agents = [pending[i][0] for i in games]
            if len({getattr(agent, "batch_key", None) for agent in agents}) > 1:  # one group alone need not
                type(agents[0]).prepare_batch(agents, [pending[i][1] for i in games])
        groups: dict[tuple, list[int]] = defaultdict(list)
        actions: dict[int, int] = {}
        for i, (agent, decision) in pending.items():
            key = getattr(agent, "batch_key", None)
            if key is None:  # an agent that decides on its own
                actions[i] = agent.act(decision)
            else:
                groups[key].append(i)
        for games in groups.values():
            agents = [pending[i][0] for i in games]
            chosen = type(agents[0]).act_batch(agents, [pending[i][1] for i in games])
            actions.update(zip(games, chosen))
        for i in sorted(actions):
            advance(i, actions[i])
    return results


class SelfPlayVecEnv(VecEnv):
    """``n`` self-play games (:class:`club_envs.training.selfplay.SelfPlayEnv`) stepped together."""

    def __init__(self, env_fns: Sequence[Callable[[], Any]], features: str = "none", privileged: bool = False) -> None:
        self.envs = [fn() for fn in env_fns]
        self.features = get_features(features)
        self.privileged = privileged
        first = self.envs[0]
        if self.features is None and not privileged:
            observation_space = first.observation_space
        else:
            size = first.observation_space.shape[0] if self.features is None else self.features.obs_size + self.features.extra
            size += first.privileged_size if privileged else 0
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
        return self._inputs(range(self.num_envs), [obs for obs, _ in results])

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = actions

    def step_wait(self):
        results = drive_all([env.step_moves(int(a)) for env, a in zip(self.envs, self._actions)])
        observations = self._inputs(range(self.num_envs), [r[0] for r in results])
        rewards, dones, infos = np.zeros(self.num_envs, np.float32), np.zeros(self.num_envs, bool), []
        finished = []
        for i, (_, reward, terminated, truncated, info) in enumerate(results):
            info = dict(info)
            self._returns[i] += reward
            self._lengths[i] += 1
            rewards[i] = reward
            if terminated or truncated:
                dones[i] = True
                info["episode"] = {"r": round(float(self._returns[i]), 6), "l": int(self._lengths[i]),
                                   "t": round(time.time() - self._started, 6)}
                info["TimeLimit.truncated"] = bool(truncated and not terminated)
                info["terminal_observation"] = observations[i].copy()
                self._returns[i], self._lengths[i] = 0.0, 0
                finished.append(i)
            infos.append(info)
        if finished:  # the finished games start again at once (the VecEnv convention)
            restarted = drive_all([self.envs[i].reset_moves() for i in finished])
            observations[finished] = self._inputs(finished, [obs for obs, _ in restarted])
            for i, (_, reset_info) in zip(finished, restarted):
                self.reset_infos[i] = reset_info
        return observations, rewards, dones, infos

    def _inputs(self, indices: Sequence[int], observations: Sequence[np.ndarray]) -> np.ndarray:
        """The learner's inputs in games ``indices``: their observations, plus the policy's extra
        inputs computed for all of them together."""
        batch = np.stack(observations)
        envs = [self.envs[i] for i in indices]
        if self.features is not None:
            batch = self.features.transform_batch(batch, [env.learner_view() for env in envs],
                                                  np.stack([env.action_masks() for env in envs]))
        if self.privileged:
            batch = np.concatenate([batch, np.stack([env.privileged_state() for env in envs])], axis=1)
        return batch.astype(np.float32, copy=False)

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
