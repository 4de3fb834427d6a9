"""Training throughput against the training loop's own ceiling.

    club-envs bench configs/members_only_4p.yaml [--rollouts 3] [--bots none] [--modes batched dummy] [--update-threads 2]
    club-envs bench --suite [--modes batched]

``--suite`` measures the cases the project tracks, one after another in the same run: the default
config (the example ``members_only_4p``), the same config with pure self-play opponents, the pure
self-play config (``members_only_selfplay``) and Arkham (``arkham_decoders``), each next to its own
ceiling, then a summary table. A CONFIG is a file or an example's name.

For the config's first side, a fresh learner with the config's own PPO settings (environments,
rollout length, batch, epochs, network) trains for ``--rollouts`` rollouts through the self-play
environments -- opponents drawn from a pool holding two frozen snapshots and the config's bots
(``--bots none``: snapshots only, i.e. pure self-play) -- once per vectorisation mode:

``vector``      the batched engine: every game in arrays, stepped together
                (:mod:`club_envs.training.vector_selfplay`; skipped, with the reason, for a config it
                cannot play: :func:`club_envs.training.engines.vector_gaps`);
``batched``     the one-game environments in this process, opponents' decisions batched per frozen policy;
``workers``     the same, the games split over ``envs.workers`` processes (2 if the config says 1);
``dummy``       stable-baselines3's ``DummyVecEnv`` over the same games, one decision at a time;
``subprocess``  ``SubprocVecEnv``, one process per game.

The **ceiling** is the same learner and settings on a trivial environment of the same observation
and action sizes (it does nothing but return a fixed vector), measured in the same run, so the
machine's load cancels out of the ratio. Both run PPO's updates on the config's
``algorithm.update_threads`` (``--update-threads`` overrides it), so more threads raise the
ceiling too. Printed per mode: steps per second, the ratio to the ceiling, the same ratio in steps
per CPU-second of this process (``x cpu``: on a shared machine the wall-clock ratio moves with the
other jobs' load between the two measurements, the CPU-time ratio much less), and the share of
wall time in the environments, in acting and in updates.

Then the **games alone**: the same vector environment stepped with random legal learner actions
and no learner at all, for as many steps. It says how far any training loop could get with these
games. stable-baselines3's loop takes turns (the learner waits while the games move, and the games
wait while it acts and updates), so a mode's ratio is at most ``G / (G + C)`` for games-alone rate
``G`` and ceiling ``C`` (``bound``). Even a loop that kept both cores busy through every rollout
(games and acting overlapped perfectly; only the update, which needs the whole rollout, on its own)
would take at least ``U + (E + A) / 2`` per step, where ``E`` is the games' CPU time per step in one
process and ``A`` and ``U`` the ceiling's acting and update time per step; the last line prints
that ratio (``two-core bound``), from the batched mode's games.

**Loops** (``--loops``): ``turns`` is stable-baselines3's own loop; ``overlap`` the learner that
plays its next rollout while it updates (:mod:`club_envs.training.overlap`, ``algorithm.overlap``),
printed as ``<mode>+ov``. Both are measured against the same ceiling (MaskablePPO's, taking turns on
the trivial environment). An overlapped loop is bounded by its slower half instead of the sum: at
most ``(A + U) / max(1 / G + A, U)`` of the ceiling (the games and acting on one core, the update
on the other), the ``bound`` of its row.
"""

from __future__ import annotations

import functools
import tempfile
import time
from dataclasses import replace
from pathlib import Path

import gymnasium as gym
import numpy as np
from sb3_contrib.common.maskable.utils import get_action_masks
from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv

from club_envs.sb3 import SB3VecEnv
from club_envs.training import ppo
from club_envs.training.engines import vector_gaps
from club_envs.training.callbacks import Clock, TimedVecEnv, TrainingCallback, UpdateThreads
from club_envs.training.games import side_names
from club_envs.training.selfplay import SnapshotPool
from club_envs.training.selfplay_vec import SelfPlayVecEnv
from club_envs.training.settings import SelfPlayConfig
from club_envs.training.worker_vec import WorkerVecEnv
from club_envs.training.train import export_policy, make_selfplay_env, make_selfplay_game
from club_envs.training.vector_selfplay import pooled_env

MODES = ("vector", "batched", "workers", "dummy", "subprocess")
LOOPS = ("turns", "overlap")


class TrivialEnv(gym.Env):
    """The ceiling's environment: the sizes of a real one, none of its work (100-step episodes)."""

    def __init__(self, obs_size: int, num_actions: int) -> None:
        self.observation_space = gym.spaces.Box(-np.inf, np.inf, (obs_size,), np.float32)
        self.action_space = gym.spaces.Discrete(num_actions)
        self._obs = np.zeros(obs_size, np.float32)
        self._mask = np.ones(num_actions, bool)
        self._t = 0

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        self._t = 0
        return self._obs, {}

    def step(self, action):
        self._t += 1
        return self._obs, 0.0, self._t >= 100, False, {}

    def action_masks(self) -> np.ndarray:
        return self._mask


def measure(settings: SelfPlayConfig, venv, rollouts: int) -> dict:
    """Steps per second (wall clock and CPU time of this process) of ``rollouts`` full PPO
    iterations (rollout + update) on ``venv``."""
    timed = TimedVecEnv(venv)
    model = ppo.new_learner(timed, settings.algorithm, settings.network, seed=0)
    clock = Clock()
    callback = [TrainingCallback("throughput", _NoPool(), None, clock, {}),
                UpdateThreads(settings.algorithm.update_threads)]  # as training does
    rollout = settings.algorithm.n_steps * settings.envs.n_envs
    steps = rollouts * rollout
    model.learn(total_timesteps=rollout, callback=callback)  # warm-up
    timed.env_seconds, clock.rollout_seconds, clock.update_seconds, clock.steps = 0.0, 0.0, 0.0, 0
    t0, cpu0 = time.perf_counter(), time.process_time()
    model.learn(total_timesteps=steps, reset_num_timesteps=False, callback=callback)
    wall, cpu = time.perf_counter() - t0, time.process_time() - cpu0
    split = clock.split(timed.env_seconds)
    timed.close()
    return {**{k.split("/")[1]: v for k, v in split.items()}, "steps_per_second": clock.steps / wall,
            "steps_per_cpu_second": clock.steps / cpu}


def games_alone(venv, steps: int, seed: int = 0) -> dict[str, float]:
    """Steps per second (wall clock and CPU time of this process) of ``venv``'s games played with
    uniformly random legal learner actions and no learner, after a short warm-up; closes ``venv``."""
    rng = np.random.default_rng(seed)
    n = venv.num_envs

    def play(k: int) -> None:
        for _ in range(k):
            masks = get_action_masks(venv)  # a uniform legal action per game, cheaply (the games' time is measured)
            venv.step(np.argmax(np.where(masks, rng.random(masks.shape), -1.0), axis=1))

    rounds = max(1, steps // n)
    venv.reset()
    play(max(1, rounds // 8))
    t0, cpu0 = time.perf_counter(), time.process_time()
    play(rounds)
    wall, cpu = time.perf_counter() - t0, time.process_time() - cpu0
    venv.close()
    done = rounds * n
    return {"steps_per_second": done / wall, "steps_per_cpu_second": done / cpu}


def row_name(mode: str, loop: str) -> str:
    """How a mode's row is named in the tables: the mode, ``<mode>+ov`` for the overlapped loop."""
    return mode if loop == "turns" else f"{mode}+ov"


def _ceiling_split(ceiling: dict) -> tuple[float, float, float]:
    """``(per step, acting A, update U)`` seconds of the ceiling's own split (the trivial env's time
    counts as acting)."""
    per_step = 1.0 / ceiling["steps_per_second"]
    update = ceiling.get("update_share", 0.0) * per_step
    return per_step, per_step - update, update


def overlap_bound(ceiling: dict, games_rate: float) -> float:
    """The best ratio to the ceiling of the overlapped loop: per step the slower of the games and
    acting ``1 / G + A`` (one core) and the update ``U`` (the other), ``(A + U) / max(1 / G + A, U)``
    with ``A`` and ``U`` from the ceiling's own split."""
    per_step, act, update = _ceiling_split(ceiling)
    return per_step / max(1.0 / games_rate + act, update)


def two_core_bound(ceiling: dict, games_cpu_rate: float) -> float:
    """The best ratio to the ceiling of any loop on two cores that keeps PPO on-policy: the games'
    CPU time per step ``E`` and the learner's acting ``A`` shared perfectly between both cores
    during rollouts, the update ``U`` alone (the next rollout needs its result), i.e.
    ``(A + U) / (U + (E + A) / 2)`` with ``A`` and ``U`` from the ceiling's own split."""
    per_step, act, update = _ceiling_split(ceiling)
    return per_step / (update + (1.0 / games_cpu_rate + act) / 2)


class _NoPool:
    def record(self, *args) -> None:
        pass


# (label, example config, bots override: [] = snapshots only)
SUITE: tuple[tuple[str, str, list[str] | None], ...] = (
    ("default (members_only_4p)", "members_only_4p", None),
    ("default, pure self-play", "members_only_4p", []),
    ("members_only_selfplay", "members_only_selfplay", None),
    ("arkham_decoders", "arkham_decoders", None),
)


def measure_case(settings: SelfPlayConfig, label: str, modes: list[str], rollouts: int,
                 loops: tuple[str, ...] = ("turns",)) -> dict[str, float]:
    """Steps per second of the ceiling and of each mode and loop for one config (``"<mode> cpu"``:
    per CPU-second; the overlapped loop as ``"<mode>+ov"``); prints a table as it goes."""
    sp, algo = settings.selfplay, settings.algorithm
    side = side_names(settings.game.name)[0]
    n = settings.envs.n_envs
    out: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as tmp:
        run_dir = Path(tmp)
        for s in side_names(settings.game.name):  # two frozen (untrained) snapshots per side + the bots
            pool = SnapshotPool(run_dir / "pool" / s, sp.scheme, list(sp.bots), sp.bot_share, sp.pool_size)
            env = make_selfplay_env(settings, s, str(run_dir), 0)
            for k in range(2):
                model = ppo.new_learner(DummyVecEnv([lambda env=env: env]), settings.algorithm, settings.network, seed=0)
                pool.add_snapshot(k, lambda path, m=model, s=s: export_policy(m, settings, s, path, 0))
        obs_size = int(env.observation_space.shape[0])
        print(f"{label}: {n} envs x {algo.n_steps} steps, batch {algo.batch_size}, "
              f"{algo.n_epochs} epochs on {algo.update_threads} thread(s), "
              f"network {list(settings.network.hidden)}, inputs "
              f"{settings.network.features}; opponents: {', '.join(sp.bots) or 'snapshots only'}")
        settings = replace(settings, algorithm=replace(settings.algorithm, overlap=False))  # the ceiling's loop
        top = measure(settings, DummyVecEnv([functools.partial(TrivialEnv, obs_size, int(env.action_space.n))] * n),
                      rollouts)
        ceiling = out["ceiling"] = top["steps_per_second"]
        out["ceiling cpu"] = top["steps_per_cpu_second"]
        print(f"{'mode':>10} {'steps/s':>9} {'x ceiling':>9} {'x cpu':>6} {'env':>6} {'acting':>7} {'update':>7}"
              f" {'games':>8} {'bound':>6}")
        print(f"{'ceiling':>10} {ceiling:>9.0f} {1.0:>9.2f} {1.0:>6.2f} {top.get('env_share', 0):>6.0%} "
              f"{top.get('act_share', 0):>7.0%} {top.get('update_share', 0):>7.0%}", flush=True)
        for mode in modes:
            gaps = vector_gaps(settings) if mode == "vector" else []
            if gaps:
                print(f"{mode:>10} skipped: the batched engine cannot play {'; '.join(gaps)}", flush=True)
                continue
            alone = games_alone(_venv(settings, mode, side, run_dir), rollouts * algo.n_steps * n)
            games = alone["steps_per_second"]
            for loop in loops:
                name, overlap = row_name(mode, loop), loop == "overlap"
                # the overlapped update runs on one thread beside the rollout (more is a config error)
                threads = 1 if overlap else settings.algorithm.update_threads
                looped = replace(settings, algorithm=replace(settings.algorithm, overlap=overlap, update_threads=threads))
                r = measure(looped, _venv(looped, mode, side, run_dir), rollouts)
                out[name], out[f"{name} cpu"] = r["steps_per_second"], r["steps_per_cpu_second"]
                # taking turns with its games, or overlapping them with the update
                out[f"{name} bound"] = games / (games + ceiling) if loop == "turns" else overlap_bound(top, games)
                print(f"{name:>10} {r['steps_per_second']:>9.0f} {r['steps_per_second'] / ceiling:>9.2f} "
                      f"{r['steps_per_cpu_second'] / out['ceiling cpu']:>6.2f} {r.get('env_share', 0):>6.0%} "
                      f"{r.get('act_share', 0):>7.0%} {r.get('update_share', 0):>7.0%}"
                      f" {games:>8.0f} {out[f'{name} bound']:>6.2f}", flush=True)
            if mode == ("vector" if "vector" in modes and not gaps else "batched") and "two-core bound" not in out:
                out["two-core bound"] = two_core_bound(top, alone["steps_per_cpu_second"])
        if "two-core bound" in out:
            print(f"two-core bound: {out['two-core bound']:.2f} x ceiling (games and acting perfectly shared "
                  "between two cores, from the first measured mode's games' CPU time)", flush=True)
    print()
    return out


def _venv(settings: SelfPlayConfig, mode: str, side: str, run_dir: Path):
    """The config's self-play games for ``side`` (slots seeded 1000, 1001, ...) in ``mode``."""
    seeds = [1000 + i for i in range(settings.envs.n_envs)]
    features = settings.network.features
    if mode == "vector":
        return SB3VecEnv(pooled_env(settings.game, side, run_dir, settings.envs.n_envs, seeds[0], features,
                                    privileged=settings.algorithm.critic == "privileged"))
    fns = [functools.partial(make_selfplay_game, settings, side, str(run_dir), s) for s in seeds]
    if mode == "batched":
        return SelfPlayVecEnv(fns, features=features)
    if mode == "workers":
        return WorkerVecEnv(fns, features=features, workers=max(2, settings.envs.workers))
    cls = DummyVecEnv if mode == "dummy" else SubprocVecEnv
    return cls([functools.partial(make_selfplay_env, settings, side, str(run_dir), s) for s in seeds])
