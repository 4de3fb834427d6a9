"""A Gymnasium vector environment as a stable-baselines3 ``VecEnv``, action masks included.

stable-baselines3 and sb3-contrib train on their own ``VecEnv`` interface, not on Gymnasium's
``VectorEnv``; :class:`SB3VecEnv` translates one into the other, so the batched environments train
directly (needs the ``train`` extra):

```python
import gymnasium, club_envs
from sb3_contrib import MaskablePPO
from club_envs.sb3 import SB3VecEnv

envs = gymnasium.make_vec("club_envs/MembersOnly-v0", num_envs=64, vectorization_mode="vector_entry_point",
                          num_players=4, opponents="random")
model = MaskablePPO("MlpPolicy", SB3VecEnv(envs), seed=0)
model.learn(100_000)
```

What it translates:

* **Autoreset.** stable-baselines3 expects the step that ends game ``i`` to return the next game's
  first observation, with the last one in ``infos[i]["terminal_observation"]``. Gymnasium's
  ``AutoresetMode.SAME_STEP`` (the batched environments' mode) is that, with the last observation
  in ``info["final_obs"][i]``; under ``AutoresetMode.DISABLED`` the finished games are restarted
  with ``reset(options={"reset_mask": done})`` in the same step. ``NEXT_STEP`` (Gymnasium's
  default for ``vectorization_mode="sync"``) cannot be translated -- its next game starts one
  step late -- and is refused with the way out: ``vector_kwargs={"autoreset_mode": "SameStep"}``.
* **Infos.** Gymnasium's dict of arrays (each key with its ``_key`` mask) becomes one dict per
  game; for a finished game the dict is its last step's (``final_info``) and the new game's goes
  to ``reset_infos``, as stable-baselines3's own ``DummyVecEnv`` does it. A game cut short has
  ``"TimeLimit.truncated": True`` (so the learner bootstraps from its last observation).
* **Episode statistics.** A finished game's info holds ``"episode": {"r": return, "l": length,
  "t": seconds since the start}`` -- what stable-baselines3's ``Monitor`` writes -- so
  ``rollout/ep_rew_mean`` and ``ep_len_mean`` are logged.
* **Action masks.** ``env_method("action_masks")`` (what sb3-contrib's ``get_action_masks``
  calls) returns the rows of the environment's ``action_masks()``; for a vector environment of
  one-game environments (``vectorization_mode="sync"``) each game's ``action_masks()``.
* **Seeds.** ``seed(s)`` (called by the algorithm's ``seed=``) reaches the next ``reset`` as
  Gymnasium's ``reset(seed=s)``, which seeds every game; the same seed gives the same run.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

import gymnasium
import numpy as np
from gymnasium.vector import AutoresetMode, VectorEnv
from stable_baselines3.common.env_util import is_wrapped
from stable_baselines3.common.vec_env import VecEnv

ACTION_MASKS = "action_masks"


def unbatch_info(info: dict[str, Any], i: int, num_envs: int) -> dict[str, Any]:
    """Game ``i``'s entries of a Gymnasium vector info (a key whose ``_key`` mask is off for ``i``
    is left out; nested dicts are unbatched too)."""
    out: dict[str, Any] = {}
    for key, value in info.items():
        if key.startswith("_"):
            continue
        mask = info.get("_" + key)
        if mask is not None and not mask[i]:
            continue
        if isinstance(value, dict):
            out[key] = unbatch_info(value, i, num_envs)
        elif isinstance(value, np.ndarray) and value.shape[:1] == (num_envs,):
            out[key] = value[i]
        else:
            out[key] = value
    return out


class SB3VecEnv(VecEnv):
    """A Gymnasium ``VectorEnv`` as a stable-baselines3 ``VecEnv`` (see the module docstring)."""

    def __init__(self, envs: VectorEnv) -> None:
        if not isinstance(envs, VectorEnv):
            raise TypeError(f"SB3VecEnv wraps a gymnasium.vector.VectorEnv; got {type(envs).__name__}")
        mode = AutoresetMode(envs.metadata.get("autoreset_mode", getattr(envs, "autoreset_mode", "NextStep")))
        if mode == AutoresetMode.NEXT_STEP:
            raise ValueError(
                "autoreset_mode NextStep starts a new game one step late, which stable-baselines3 cannot "
                "take; expected SameStep or Disabled (e.g. gymnasium.make_vec(..., vectorization_mode='sync', "
                "vector_kwargs={'autoreset_mode': 'SameStep'}))"
            )
        self.envs = envs
        self.autoreset_mode = mode
        super().__init__(envs.num_envs, envs.single_observation_space, envs.single_action_space)
        self._actions: np.ndarray | None = None
        self._returns = np.zeros(self.num_envs, np.float64)
        self._lengths = np.zeros(self.num_envs, np.int64)
        self._start = time.time()

    # ----------------------------------------------------------------------------- stepping
    def reset(self) -> Any:
        seed = self._seeds[0]
        options = self._options[0]
        if any(o != options for o in self._options):
            raise ValueError("a batched environment takes one reset options dict for all its games")
        obs, info = self.envs.reset(seed=seed, options=options or None)
        self._reset_seeds()
        self._reset_options()
        self.reset_infos = [unbatch_info(info, i, self.num_envs) for i in range(self.num_envs)]
        self._returns[:] = 0.0
        self._lengths[:] = 0
        return obs

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions)

    def step_wait(self) -> tuple[Any, np.ndarray, np.ndarray, list[dict[str, Any]]]:
        obs, rewards, terminated, truncated, info = self.envs.step(self._actions)
        rewards = np.asarray(rewards, dtype=np.float32)
        terminated, truncated = np.asarray(terminated, bool), np.asarray(truncated, bool)
        done = terminated | truncated
        self._returns += rewards
        self._lengths += 1
        if self.autoreset_mode == AutoresetMode.SAME_STEP:
            final_obs, final_info, reset_info = info.get("final_obs"), info.get("final_info", {}), info
        else:
            final_obs, final_info, reset_info = obs, info, {}
            if done.any():
                obs, reset_info = self.envs.reset(options={"reset_mask": done})
        infos = []
        for i in range(self.num_envs):
            if not done[i]:
                infos.append(unbatch_info(info, i, self.num_envs))
                continue
            last = unbatch_info(final_info, i, self.num_envs)
            last["terminal_observation"] = np.copy(final_obs[i])
            last["TimeLimit.truncated"] = bool(truncated[i] and not terminated[i])
            last["episode"] = {"r": float(self._returns[i]), "l": int(self._lengths[i]),
                               "t": round(time.time() - self._start, 6)}
            infos.append(last)
            self.reset_infos[i] = unbatch_info(reset_info, i, self.num_envs)
        self._returns[done] = 0.0
        self._lengths[done] = 0
        return obs, rewards, done, infos

    def action_masks(self) -> np.ndarray:
        """(N, actions) bool: every game's legal actions."""
        if hasattr(self.envs, ACTION_MASKS):
            return np.asarray(self.envs.action_masks(), dtype=bool)
        return np.stack([np.asarray(m, dtype=bool) for m in self.envs.call(ACTION_MASKS)])

    def close(self) -> None:
        self.envs.close()

    # ----------------------------------------------------------------------------- attributes
    def _batched(self, name: str) -> bool:
        """Whether ``name`` belongs to the vector environment itself (else: to each of its games)."""
        return hasattr(self.envs, name) or not hasattr(self.envs, "call")

    def get_attr(self, attr_name: str, indices: Any = None) -> list[Any]:
        where = list(self._get_indices(indices))
        if self._batched(attr_name):
            value = getattr(self.envs, attr_name)
            return [value for _ in where]
        values = self.envs.get_attr(attr_name)
        return [values[i] for i in where]

    def set_attr(self, attr_name: str, value: Any, indices: Any = None) -> None:
        if self._batched(attr_name):
            setattr(self.envs, attr_name, value)
        else:
            self.envs.set_attr(attr_name, value)

    def env_method(self, method_name: str, *method_args, indices: Any = None, **method_kwargs) -> list[Any]:
        """A batched environment's method is called once for all games; a result with a row per
        game is split into its rows (``action_masks`` -> one mask per game)."""
        where = list(self._get_indices(indices))
        if method_name == ACTION_MASKS:
            masks = self.action_masks()
            return [masks[i] for i in where]
        if self._batched(method_name):
            result = getattr(self.envs, method_name)(*method_args, **method_kwargs)
            if isinstance(result, np.ndarray) and result.shape[:1] == (self.num_envs,):
                return [result[i] for i in where]
            return [result for _ in where]
        results = self.envs.call(method_name, *method_args, **method_kwargs)
        return [results[i] for i in where]

    def env_is_wrapped(self, wrapper_class: type[gymnasium.Wrapper], indices: Any = None) -> list[bool]:
        games = getattr(self.envs, "envs", None)  # the one-game environments of a sync vector env
        where = list(self._get_indices(indices))
        if games is None:
            return [False for _ in where]
        return [is_wrapped(games[i], wrapper_class) for i in where]

    def get_images(self) -> Sequence[np.ndarray | None]:
        return [None] * self.num_envs


__all__ = ["SB3VecEnv", "unbatch_info"]
