"""Self-play games split over worker processes, each stepping its share as one batched vector env.

On this project's machines (two cores) the learner and the games take turns: while MaskablePPO
chooses the learner's actions, no game moves, and while the games move (opponents' decisions,
observations, the learner's extra inputs) the learner waits. Most of a step's time is the games'.
:class:`WorkerVecEnv` gives them the other core: ``envs.workers`` processes each hold a contiguous
slice of the games in a :class:`~club_envs.training.selfplay_vec.SelfPlayVecEnv` (so opponents'
decisions stay batched within a worker) and step their slices at the same time. One message per
worker and step carries the actions there and the observations, rewards, ends, infos and the
learner's action masks back (``action_masks()`` is answered from that copy, not another round trip).

Games are seeded per slot exactly as in one process, and a worker's batching depends only on its own
slice, so the same config (with the same number of workers) gives the same run. Changing the number
of workers can change the last bits of a frozen network's batched logits (the batches are split
differently), hence occasionally an opponent's sampled move: runs are comparable, not identical.

Nothing but actions and results crosses the pipes during training: the opponents' pool is read by
each game from the run folder (:mod:`club_envs.training.selfplay`). An exception in a worker reaches
the training process as :class:`WorkerError` with the worker's traceback; the workers are stopped.
"""

from __future__ import annotations

import multiprocessing as mp
import signal
import traceback
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from stable_baselines3.common.vec_env.base_vec_env import VecEnv

from club_envs.training.selfplay_vec import SelfPlayVecEnv


class WorkerError(RuntimeError):
    """An exception raised inside a game worker (its traceback is in the message)."""


def _serve(remote, parent_remote, env_fns: Sequence[Callable[[], Any]], features: str, privileged: bool) -> None:
    """A worker's loop: build the slice's vector env, then answer commands until ``close``."""
    parent_remote.close()
    # Ctrl-C reaches the whole process group: the training process decides when to stop (it ends
    # its chunk and writes a checkpoint first), so a worker must not die of it on its own.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        from threadpoolctl import threadpool_limits

        threadpool_limits(1, user_api="blas")  # small batched products: one thread (see train.py)
        venv = SelfPlayVecEnv(env_fns, features=features, privileged=privileged)
    except BaseException:  # noqa: BLE001 -- reported to the training process, which raises it
        remote.send(("error", traceback.format_exc()))
        remote.close()
        return
    remote.send(("ok", (venv.observation_space, venv.action_space)))
    while True:
        try:
            command, data = remote.recv()
        except EOFError:  # the training process is gone
            break
        try:
            if command == "step":
                observations, rewards, dones, infos = venv.step(data)
                result = (observations, rewards, dones, infos, venv.action_masks())
            elif command == "reset":
                if data is not None:
                    venv.seed(data)
                observations = venv.reset()
                result = (observations, venv.reset_infos, venv.action_masks())
            elif command == "get_attr":
                result = venv.get_attr(data[0], data[1])
            elif command == "set_attr":
                result = venv.set_attr(data[0], data[1], data[2])
            elif command == "env_method":
                name, args, kwargs, indices = data
                result = venv.env_method(name, *args, indices=indices, **kwargs)
            elif command == "has_attr":
                result = venv.has_attr(data)
            elif command == "close":
                venv.close()
                remote.send(("ok", None))
                break
            else:
                raise ValueError(f"unknown worker command {command!r}")
        except BaseException:  # noqa: BLE001
            remote.send(("error", traceback.format_exc()))
            continue
        remote.send(("ok", result))
    remote.close()


class WorkerVecEnv(VecEnv):
    """``len(env_fns)`` self-play games stepped by ``workers`` processes (see the module docstring).

    ``env_fns`` must be picklable (module-level functions or ``functools.partial`` of them); game
    ``i`` goes to worker ``i * workers // len(env_fns)``. ``start_method``: multiprocessing's
    (``forkserver`` where available, else ``spawn``; never ``fork``, unsafe beside torch's threads).
    """

    def __init__(self, env_fns: Sequence[Callable[[], Any]], features: str = "none", workers: int = 2,
                 start_method: str | None = None, privileged: bool = False) -> None:
        n = len(env_fns)
        if not 1 <= workers <= n:
            raise ValueError(f"workers={workers}: expected 1..{n} (one or more games per worker)")
        bounds = [k * n // workers for k in range(workers + 1)]
        self._slices = [range(bounds[k], bounds[k + 1]) for k in range(workers)]
        self._owner = [(k, i - r.start) for k, r in enumerate(self._slices) for i in r]  # global -> (worker, local)
        if start_method is None:
            start_method = "forkserver" if "forkserver" in mp.get_all_start_methods() else "spawn"
        ctx = mp.get_context(start_method)
        self._remotes, self._processes = [], []
        for r in self._slices:
            remote, worker_remote = ctx.Pipe()
            process = ctx.Process(target=_serve, args=(worker_remote, remote, [env_fns[i] for i in r], features, privileged),
                                  daemon=True)
            process.start()
            worker_remote.close()
            self._remotes.append(remote)
            self._processes.append(process)
        self.closed = False
        spaces = [self._receive(k) for k in range(workers)]  # each worker has built its games (or raises)
        super().__init__(n, *spaces[0])
        self._seeds_next: int | None = None
        self._masks: np.ndarray | None = None
        self.reset_infos = [{} for _ in range(n)]

    # ------------------------------------------------------------------ pipes

    def _receive(self, k: int) -> Any:
        try:
            status, payload = self._remotes[k].recv()
        except (EOFError, ConnectionResetError) as exc:
            code = self._processes[k].exitcode
            self.close()
            raise WorkerError(f"game worker {k} stopped unexpectedly (exit code {code})") from exc
        if status == "error":
            self.close()
            raise WorkerError(f"game worker {k} failed:\n{payload}")
        return payload

    def _send(self, k: int, command: str, data: Any) -> None:
        try:
            self._remotes[k].send((command, data))
        except (BrokenPipeError, ConnectionResetError) as exc:
            code = self._processes[k].exitcode
            self.close()
            raise WorkerError(f"game worker {k} stopped unexpectedly (exit code {code})") from exc

    def _call(self, k: int, command: str, data: Any) -> Any:
        self._send(k, command, data)
        return self._receive(k)

    def _by_worker(self, indices) -> dict[int, list[int]]:
        """Global env indices grouped as ``{worker: [local index, ...]}`` (in the given order)."""
        grouped: dict[int, list[int]] = {}
        for i in self._get_indices(indices):
            k, local = self._owner[i]
            grouped.setdefault(k, []).append(local)
        return grouped

    def _gather(self, command: str, data: Callable[[list[int]], Any], indices) -> list[Any]:
        """One ``command`` per worker holding any of ``indices`` (``data(local indices)`` its
        payload, answered with one value per local index), the answers in the order of ``indices``."""
        out: dict[int, Any] = {}
        for k, local in self._by_worker(indices).items():
            for j, value in zip(local, self._call(k, command, data(local))):
                out[self._slices[k].start + j] = value
        return [out[i] for i in self._get_indices(indices)]

    # ------------------------------------------------------------------ the VecEnv API

    def reset(self) -> np.ndarray:
        seed, self._seeds_next = self._seeds_next, None
        for k, r in enumerate(self._slices):
            self._send(k, "reset", None if seed is None else seed + r.start)
        results = [self._receive(k) for k in range(len(self._slices))]
        self.reset_infos = [info for _, infos, _ in results for info in infos]
        self._masks = np.concatenate([masks for _, _, masks in results])
        return np.concatenate([obs for obs, _, _ in results])

    def step_async(self, actions: np.ndarray) -> None:
        for k, r in enumerate(self._slices):
            self._send(k, "step", np.asarray(actions)[r.start : r.stop])

    def step_wait(self):
        results = [self._receive(k) for k in range(len(self._slices))]
        self._masks = np.concatenate([r[4] for r in results])
        return (np.concatenate([r[0] for r in results]), np.concatenate([r[1] for r in results]),
                np.concatenate([r[2] for r in results]), [info for r in results for info in r[3]])

    def action_masks(self) -> np.ndarray:
        return self._masks.copy()

    def seed(self, seed: int | None = None) -> list[int | None]:
        self._seeds_next = seed
        return [None if seed is None else seed + i for i in range(self.num_envs)]

    def close(self) -> None:
        if getattr(self, "closed", True):
            return
        self.closed = True
        for remote, process in zip(self._remotes, self._processes):
            try:
                if process.is_alive():
                    remote.send(("close", None))
                    remote.recv()
            except (BrokenPipeError, EOFError, ConnectionResetError):
                pass
            process.join(timeout=5)
            if process.is_alive():
                process.terminate()
            remote.close()

    def get_images(self) -> list[np.ndarray]:
        return []

    def get_attr(self, attr_name: str, indices=None) -> list[Any]:
        if attr_name == "action_masks":  # sb3-contrib asks for the bound methods; answer with the masks
            return [_mask_reader(self, i) for i in self._get_indices(indices)]
        return self._gather("get_attr", lambda local: (attr_name, local), indices)

    def set_attr(self, attr_name: str, value: Any, indices=None) -> None:
        for k, local in self._by_worker(indices).items():
            self._call(k, "set_attr", (attr_name, value, local))

    def env_method(self, method_name: str, *method_args, indices=None, **method_kwargs) -> list[Any]:
        if method_name == "action_masks" and not method_args and not method_kwargs:
            return list(self._masks[self._get_indices(indices)])
        return self._gather("env_method", lambda local: (method_name, method_args, method_kwargs, local), indices)

    def env_is_wrapped(self, wrapper_class, indices=None) -> list[bool]:
        return [False for _ in self._get_indices(indices)]

    def has_attr(self, attr_name: str) -> bool:
        return attr_name == "action_masks" or self._call(0, "has_attr", attr_name)


def _mask_reader(venv: WorkerVecEnv, i: int) -> Callable[[], np.ndarray]:
    """Game ``i``'s ``action_masks`` as a callable reading the copy sent with the last step."""
    return lambda: venv._masks[i].copy()
