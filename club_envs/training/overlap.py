"""MaskablePPO that plays its next rollout while it learns from the last one (``algorithm.overlap``).

stable-baselines3's loop takes turns: the games wait while the learner updates, and the learner
waits while the games move. On the batched engine the games and the learner's acting take about as
long as the update, so the loop cannot pass ``G / (G + C)`` of its ceiling (games-alone rate ``G``,
ceiling ``C``; ``club-envs bench``). Two cores can do both at once: torch releases the interpreter
lock for its arithmetic, and the compiled games release it too (:mod:`club_envs.compiled`).

:class:`OverlappedMaskablePPO` keeps two policies and two rollout buffers. Rollout ``k + 1`` is
played by the **acting** copy, which holds the weights from before update ``k``, while update ``k``
runs in a second thread on rollout ``k`` with the learner's own policy; when both are done the
acting copy takes the new weights. So each update learns from play one update old. The stored
log-probabilities and values are the acting copy's, so PPO's ratio and clip measure that lag
(the clip fraction rises; ``ppo.overlap`` of :mod:`club_envs.training.table_ppo` does the same in
our own loop). The first rollout of every ``learn`` call is played, and its last update run, alone:
``learn`` returns with everything it counted learned, as stable-baselines3's does, so snapshots,
evaluations and checkpoints between calls see a finished learner.

Which policy ``self.policy`` is depends on the thread asking: the thread collecting a rollout sees
the acting copy, every other thread (the update, checkpoints, exports) the learner. That is how
stable-baselines3's own ``collect_rollouts`` and ``train`` run unchanged side by side. Checkpoints
hold the learner only and load into either class.

Runs repeat: the rollout's sampling uses torch's generator in the collecting thread only, and the
update's minibatch order numpy's global generator in the update thread only.
"""

from __future__ import annotations

import copy
import threading
from typing import Any

from sb3_contrib import MaskablePPO


class OverlappedMaskablePPO(MaskablePPO):
    """MaskablePPO with rollout ``k + 1`` collected while update ``k`` runs (see the module docstring)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self._collecting = threading.local()
        self._acting_policy = None
        self._spare_buffer = None
        super().__init__(*args, **kwargs)

    @property
    def policy(self):  # type: ignore[override]
        acting = getattr(self._collecting, "policy", None)
        return acting if acting is not None else self.__dict__.get("_learner_policy")

    @policy.setter
    def policy(self, value) -> None:
        self.__dict__["_learner_policy"] = value
        # a new learner (built or loaded, its rollout buffer made anew): the copy and the spare buffer too
        self._acting_policy = self._spare_buffer = None

    def _excluded_save_params(self) -> list[str]:
        return [*super()._excluded_save_params(), "_collecting", "_learner_policy", "_acting_policy", "_spare_buffer"]

    def _collect(self, callback: Any, buffer: Any, use_masking: bool) -> bool:
        """``collect_rollouts`` into ``buffer``, played by the acting copy."""
        self._collecting.policy = self._acting_policy
        try:
            return self.collect_rollouts(self.env, callback, buffer, self.n_steps, use_masking)
        finally:
            del self._collecting.policy

    def _sync_acting(self) -> None:
        """The acting copy takes the learner's weights (made on first use)."""
        learner = self.__dict__["_learner_policy"]
        if self._acting_policy is None:
            self._acting_policy = copy.deepcopy(learner)
        else:
            self._acting_policy.load_state_dict(learner.state_dict())

    def learn(  # type: ignore[override]
        self,
        total_timesteps: int,
        callback: Any = None,
        log_interval: int = 1,
        tb_log_name: str = "MaskablePPO",
        reset_num_timesteps: bool = True,
        use_masking: bool = True,
        progress_bar: bool = False,
    ) -> OverlappedMaskablePPO:
        total_timesteps, callback = self._setup_learn(total_timesteps, callback, reset_num_timesteps, tb_log_name,
                                                      progress_bar)
        callback.on_training_start(locals(), globals())
        assert self.env is not None
        self._sync_acting()
        if self._spare_buffer is None:
            self._spare_buffer = copy.deepcopy(self.rollout_buffer)
        filled, spare = self.rollout_buffer, self._spare_buffer
        iteration = 0
        collected = self.num_timesteps < total_timesteps and self._collect(callback, filled, use_masking)
        while collected:
            iteration += 1
            self._update_current_progress_remaining(self.num_timesteps, total_timesteps)
            if log_interval is not None and iteration % log_interval == 0:
                self.dump_logs(iteration)
            self.rollout_buffer = filled  # what train() reads
            if self.num_timesteps >= total_timesteps:
                self.train()  # the last update: nothing left to play beside it
                break
            collected = self._train_while_collecting(callback, spare, use_masking)
            self._sync_acting()
            filled, spare = spare, filled
        self.rollout_buffer, self._spare_buffer = filled, spare
        callback.on_training_end()
        return self

    def _train_while_collecting(self, callback: Any, buffer: Any, use_masking: bool) -> bool:
        """Update on ``self.rollout_buffer`` in a second thread while ``buffer`` is collected here
        (callbacks, signals and progress bars stay in this thread). An error in the update is
        raised here once both are done."""
        errors: list[BaseException] = []

        def update() -> None:
            try:
                self.train()
            except BaseException as error:  # noqa: BLE001 -- re-raised in the calling thread
                errors.append(error)

        worker = threading.Thread(target=update, name="ppo-update", daemon=True)
        worker.start()
        try:
            collected = self._collect(callback, buffer, use_masking)
        finally:
            worker.join()
        if errors:
            raise errors[0]
        return collected
