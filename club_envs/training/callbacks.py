"""What a training run watches while it runs: time split, progress bar, self-play results."""

from __future__ import annotations

import time
from collections import deque

import numpy as np
import torch
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.vec_env import VecEnvWrapper


class TimedVecEnv(VecEnvWrapper):
    """Counts the wall time spent inside the environments' ``step`` (where the games also restart)."""

    def __init__(self, venv) -> None:
        super().__init__(venv)
        self.env_seconds = 0.0

    def reset(self):
        # Not counted: the first reset happens before the learner's clock starts (and on the batched
        # engine it may include the compilation of its functions), so counting it would put more time
        # in the games than the whole run took. The games' own restarts happen inside step().
        return self.venv.reset()

    def step_async(self, actions) -> None:
        self._t = time.perf_counter()
        self.venv.step_async(actions)

    def step_wait(self):
        out = self.venv.step_wait()
        self.env_seconds += time.perf_counter() - self._t
        return out


class Clock:
    """Where a side's time went: environment steps, the learner acting in rollouts, and updates."""

    def __init__(self) -> None:
        self.rollout_seconds = 0.0
        self.update_seconds = 0.0
        self.steps = 0

    def split(self, env_seconds: float) -> dict[str, float]:
        total = self.rollout_seconds + self.update_seconds
        if total <= 0:
            return {}
        act = max(0.0, self.rollout_seconds - env_seconds)
        return {
            "time/env_share": env_seconds / total,
            "time/act_share": act / total,
            "time/update_share": self.update_seconds / total,
            "time/steps_per_second": self.steps / total,
        }


def postfix(live: dict) -> dict:
    """The progress bar's live figures (keys starting with '_' are control flags, not shown)."""
    return {k: f"{v:.3g}" if isinstance(v, float) else v for k, v in live.items() if not k.startswith("_")}


class TrainingCallback(BaseCallback):
    """Feeds the progress bar, the self-play pool's results and the time split for one side."""

    def __init__(self, side: str, pool, bar, clock: Clock, live: dict, prefix: str = "") -> None:
        super().__init__()
        self.side, self.pool, self.bar, self.clock, self.live = side, pool, bar, clock, live
        self.prefix = prefix
        self.wins: deque[float] = deque(maxlen=200)
        self._t_rollout = self._t_update = None

    def _on_rollout_start(self) -> None:
        now = time.perf_counter()
        if self._t_update is not None:
            self.clock.update_seconds += now - self._t_update
        self._t_rollout = now

    def _on_rollout_end(self) -> None:
        now = time.perf_counter()
        self.clock.rollout_seconds += now - self._t_rollout
        self._t_update = now
        # the spread of the GAE advantages before normalisation: how much noise the critic leaves in
        # the policy gradient (with train/explained_variance, what algorithm.critic changes)
        buffer = getattr(self.model, "rollout_buffer", None)
        if buffer is not None and buffer.full:
            self.logger.record("train/advantage_std", float(buffer.advantages.std()))

    def _on_training_end(self) -> None:
        if self._t_update is not None:
            self.clock.update_seconds += time.perf_counter() - self._t_update
            self._t_update = None

    def _on_step(self) -> bool:
        if self.live.get("_stop"):
            return False  # a stop was asked for (SIGTERM / Ctrl-C): end this chunk now
        n = self.training_env.num_envs
        self.clock.steps += n
        for info in self.locals.get("infos", []):
            result = info.get("selfplay")
            if result is not None:
                self.pool.record(result["opponents"], result["win"])
                self.wins.append(result["win"])
        if self.bar is not None:
            self.bar.update(n)
            buf = self.model.ep_info_buffer
            if buf:
                self.live[f"{self.prefix}ep_rew"] = float(np.mean([e["r"] for e in buf]))
            if self.wins:
                self.live[f"{self.prefix}train_win"] = float(np.mean(self.wins))
            if self.n_calls % 64 == 0:
                self.bar.set_postfix(postfix(self.live), refresh=False)
        return True


class UpdateThreads(BaseCallback):
    """Torch threads for PPO's updates only (``algorithm.update_threads``).

    While a rollout is collected, the learner's forward passes are a few dozen rows each -- fastest
    on one thread -- and the games want every other core (worker processes, or this process's own
    stepping). During the update nothing else runs, and minibatches of a thousand rows through
    256-wide layers split well over threads: on a two-core machine two threads make the update about
    1.6x faster. So the update gets ``threads`` and the rollout the number found when training began.
    A busy machine is the exception: a thread that waits for a core held by other work slows the
    update down instead, hence the default of one.
    """

    def __init__(self, threads: int) -> None:
        super().__init__()
        self.threads = threads
        self._rollout_threads = 1

    def _on_training_start(self) -> None:
        self._rollout_threads = torch.get_num_threads()

    def _on_rollout_end(self) -> None:
        torch.set_num_threads(self.threads)

    def _on_rollout_start(self) -> None:
        torch.set_num_threads(self._rollout_threads)

    def _on_training_end(self) -> None:
        torch.set_num_threads(self._rollout_threads)

    def _on_step(self) -> bool:
        return True


class PhaseCallback(BaseCallback):
    """Counts a learner's steps on a progress phase (:class:`club_envs.training.progress.Phase`):
    for a ``learn`` call that no :class:`TrainingCallback` watches (an exploit responder's)."""

    def __init__(self, phase) -> None:
        super().__init__()
        self.phase = phase

    def _on_step(self) -> bool:
        self.phase.update(self.training_env.num_envs)
        return True
