"""Self-play training from a YAML config, top to bottom.

    club-envs train configs/members_only_4p.yaml
    club-envs train --resume runs/members_only_4p-20260101-120000
    club-envs train configs/arkham_neural_population.yaml --start-from runs/arkham_neural-20260101-120000

A run folder ``runs/<config name>-<time>/`` holds:

``config.yaml``            the resolved config (defaults filled in), what ``--resume`` reads back
``checkpoints/<side>-<step>.zip``  the learners (MaskablePPO) with their optimiser, the two newest kept
``state.json``             step counters, best evaluation, evaluation history
``pool/<side>/``           the self-play pool: ``pool.json`` + frozen snapshots ``snap-<step>.pt``
``best/``, ``latest/``     exported policies (``policy.pt``, or ``team.pt`` + ``black_man.pt``)
``logs/<side>/``           TensorBoard events and ``progress.csv`` (every logged metric)
``evaluations.csv``        one row per evaluation: step, side, opponent, win share and interval

Members Only has one learning *side* (``player``): the learner holds one seat and the other seats
are drawn from its pool. Arkham Decoders Club has two sides, ``team`` and ``black_man``, each its
own policy (the team policy sees its role in the observation and plays leader, members and
Investigator); they learn in alternating phases of ``selfplay.phase_steps`` steps, each against the
other's pool of frozen snapshots (the team's fellow seats are drawn from the team pool).

``--start-from RUN_DIR`` starts a new run of a config from where another run stopped: its newest
learners, snapshot pools and step counts (a curriculum: the same networks, a new population or new
settings). What was measured (evaluations, best policies, the engine) starts afresh; the two configs
must agree on what the learners are (game, network, features, critic).
"""

from __future__ import annotations

import functools
import json
import os
import random
import shutil
import signal
import sys
import time
from pathlib import Path

import numpy as np
import torch
from sb3_contrib import MaskablePPO
from stable_baselines3.common.callbacks import CallbackList
from stable_baselines3.common.logger import configure
from stable_baselines3.common.monitor import Monitor
from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv
from threadpoolctl import threadpool_limits

from club_envs.sb3 import SB3VecEnv
from club_envs.training import anchor, engines, evaluations, games, ppo
from club_envs.training.callbacks import Clock, TimedVecEnv, TrainingCallback, UpdateThreads, postfix
from club_envs.training.launch import run
from club_envs.training.pretrain import imitate, stderr_log, warm_up_critic
from club_envs.training.progress import Reporter
from club_envs.training import config as configs
from club_envs.training.run_folder import CONFIG_FILE, existing_folder, read_state, save_state
from club_envs.training.selfplay import FeatureObservation, PrivilegedObservation, SelfPlayEnv, SnapshotPool
from club_envs.training.selfplay_vec import SelfPlayVecEnv
from club_envs.training.start_policy import check_fits, copy_actor, start_file
from club_envs.training.settings import SelfPlayConfig
from club_envs.training.vector_selfplay import pooled_env
from club_envs.training.worker_vec import WorkerVecEnv

KEEP_CHECKPOINTS = 2


def make_selfplay_game(settings: SelfPlayConfig, side: str, run_dir: str, seed: int) -> SelfPlayEnv:
    """One self-play game slot of ``side``'s learner, unwrapped (what :class:`SelfPlayVecEnv` steps)."""
    game = settings.game
    pools = {s: str(Path(run_dir) / "pool" / s) for s in games.side_names(game.name)}
    return SelfPlayEnv(games.variants(game, side), pools, games.opponents_for(game.name, side), seed=seed,
                       win_share=games.win_share(game.name))


def make_selfplay_env(settings: SelfPlayConfig, side: str, run_dir: str, seed: int) -> Monitor:
    """One environment slot of ``side``'s learner (module level: picklable for subprocesses)."""
    env = make_selfplay_game(settings, side, run_dir, seed)
    if settings.network.features != "none":
        env = FeatureObservation(env, settings.network.features)
    if settings.algorithm.critic == "privileged":
        env = PrivilegedObservation(env)
    return Monitor(env)


def export_policy(model: MaskablePPO, settings: SelfPlayConfig, side: str, path: Path, step: int,
                  judged: bool = False) -> Path:
    """The learner's actor as a weights-only policy file (what snapshots and shipped agents are).
    A ``judged`` file (``eval/``, kept as ``best/``, and ``latest/``) acts by default as the run's
    evaluation played it (``evaluation.greedy``), so evaluating the file repeats the run's figures;
    snapshots keep sampling, as the self-play pool plays them."""
    extra = {"deterministic": bool(settings.evaluation.greedy)} if judged else {}
    return ppo.export(model, settings.game.name, side, settings.network, path, step, **extra)


def latest_checkpoint(run_dir: Path, side: str) -> list[Path]:
    return sorted((run_dir / "checkpoints").glob(f"{side}-*.zip"), reverse=True)


# What a run started from another one must share with it: the learners' own shape.
START_FROM_KEYS = (("game", "name"), ("network",), ("algorithm", "critic"))


def check_start(settings: SelfPlayConfig, source: Path) -> None:
    """Refuse ``--start-from source`` (one line naming the difference) before any folder is made:
    ``source`` must be a run folder of learners of this config's shape, with a checkpoint per side."""
    existing_folder(source, CONFIG_FILE)
    theirs = configs.load(source / CONFIG_FILE).raw
    for keys in START_FROM_KEYS:
        mine, other = settings.raw, theirs
        for key in keys:
            mine, other = (mine or {}).get(key), (other or {}).get(key)
        if mine != other:
            raise configs.ConfigFileError(f"--start-from {source}: {'.'.join(keys)} is {other!r} there and {mine!r} in "
                                          "this config; a run can only start from learners of the same shape")
    for side in games.side_names(settings.game.name):
        if not latest_checkpoint(source, side):
            raise FileNotFoundError(f"--start-from {source}: no checkpoint of {side} in {source / 'checkpoints'}")


def start_from(settings: SelfPlayConfig, run_dir: Path, source: Path) -> dict:
    """Copy the newest checkpoint of each side and the snapshot pools of the run folder ``source``
    (checked by :func:`check_start` before ``run_dir`` was made) into the new ``run_dir``; the state
    to start with (the source's step counts and phase)."""
    sp = settings.selfplay
    old = read_state(source)
    (run_dir / "checkpoints").mkdir(exist_ok=True)
    for side in games.side_names(settings.game.name):
        for ckpt in latest_checkpoint(source, side)[:KEEP_CHECKPOINTS]:  # the one before, if the newest is torn
            shutil.copy2(ckpt, run_dir / "checkpoints" / ckpt.name)
        pool = SnapshotPool(run_dir / "pool" / side, sp.scheme, list(sp.bots), sp.bot_share, sp.pool_size)
        if (source / "pool" / side / "pool.json").is_file():
            copy_snapshots(SnapshotPool(source / "pool" / side, sp.scheme, [], sp.bot_share, sp.pool_size), pool)
    state = {key: old[key] for key in ("steps", "phase", "phase_done") if key in old}
    state["started_from"] = {"run": str(source), "steps": dict(old.get("steps", {}))}
    save_state(run_dir, state)
    return state


def copy_snapshots(source: SnapshotPool, pool: SnapshotPool) -> None:
    """The frozen snapshots of ``source`` into the new ``pool``, which keeps its own bots (this
    config's population); their game counts start at zero, as the population they meet is new."""
    for member in source.snapshots():
        shutil.copy2(source.folder / member["path"], pool.folder / member["path"])
        pool.members.append({**member, "games": 0, "learner_wins": 0.0})
    pool.write()


def check_before_run(settings: SelfPlayConfig, resuming: bool) -> None:
    """Rule options (the game's own validation), ``envs.engine: vector``'s reach and the policies of
    ``pretrain.from_policy`` (there, readable, of the config's network), before a run folder exists."""
    games.check_options(settings.game)
    if not resuming:
        engines.resolve(settings, {})
        for side, name in settings.pretrain.from_policy.items():  # there, readable, of this network
            check_fits(start_file(settings.game.name, side, name), settings.game.name, side, settings.network)


def train(settings: SelfPlayConfig, run_dir: Path, state: dict, progress: bool | Reporter = True) -> Path:
    """Self-play up to ``budget.total_steps`` in ``run_dir``, from its checkpoints if it has any."""
    report = Reporter.of(progress)
    (run_dir / "checkpoints").mkdir(exist_ok=True)
    seed_everything(settings.seed)
    sp = settings.selfplay
    sides = games.side_names(settings.game.name)
    pools = {s: SnapshotPool(run_dir / "pool" / s, sp.scheme, list(sp.bots), sp.bot_share, sp.pool_size)
             for s in sides}
    engine, why = engines.resolve(settings, state)
    state["engine"] = engine
    report.say(f"games on the {'batched' if engine == engines.VECTOR else 'one-game'} engine ({why})")
    venvs: dict[str, TimedVecEnv] = {}
    models: dict[str, MaskablePPO] = {}
    overlapping = " (its next rollout played while it updates: algorithm.overlap)" if settings.algorithm.overlap else ""
    started = time.perf_counter()
    for k, side in enumerate(sides):
        report.say(f"{side}: starting {settings.envs.n_envs} self-play games and the learner{overlapping}")
        venvs[side], models[side] = side_learner(settings, side, k, run_dir, pools[side], report, engine)
    # the run's wall time counts the set-up too: an imitation warm start can take longer than the PPO
    state["seconds"] = state.get("seconds", 0.0) + time.perf_counter() - started
    loop = SelfPlayLoop(settings, run_dir, state, pools, models, venvs, report)
    loop.run()
    loop.summarise()
    return run_dir


def seed_everything(seed: int) -> None:
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    torch.set_num_threads(1)  # small batches: one thread is fastest and leaves the other core to the envs
    # (updates may use more: algorithm.update_threads, callbacks.UpdateThreads)
    # The same for numpy's BLAS: the opponents' batched forward passes are small matrix products, which
    # a multi-threaded BLAS makes tens of times slower on a busy 2-core machine.
    threadpool_limits(1, user_api="blas")


def side_vec_env(settings: SelfPlayConfig, side: str, run_dir: Path, side_seed: int, engine: str = engines.REFERENCE):
    """The games of ``side``'s learner. On the batched engine (``engine`` vector) all of them are
    stepped together in arrays (:mod:`club_envs.training.vector_selfplay`). On the one-game
    environments they run in this process and their opponents' decisions are batched per frozen
    policy (SelfPlayVecEnv); envs.workers > 1 splits them over that many worker processes
    (WorkerVecEnv); subprocesses (SubprocVecEnv) or plain DummyVecEnv on request."""
    envs = settings.envs
    if engine == engines.VECTOR:
        return SB3VecEnv(pooled_env(settings.game, side, run_dir, envs.n_envs, side_seed, settings.network.features,
                                    privileged=settings.algorithm.critic == "privileged"))
    seeds = [side_seed + i for i in range(envs.n_envs)]
    if envs.subprocess or not envs.batched:
        vec_cls = SubprocVecEnv if envs.subprocess else DummyVecEnv
        return vec_cls([functools.partial(make_selfplay_env, settings, side, str(run_dir), s) for s in seeds])
    games_of_side = [functools.partial(make_selfplay_game, settings, side, str(run_dir), s) for s in seeds]
    privileged = settings.algorithm.critic == "privileged"  # inputs end with the hidden state, for the critic
    if envs.workers > 1:  # the games' slices stepped by worker processes at the same time
        return WorkerVecEnv(games_of_side, features=settings.network.features, workers=envs.workers,
                            privileged=privileged)
    return SelfPlayVecEnv(games_of_side, features=settings.network.features, privileged=privileged)


def side_learner(settings: SelfPlayConfig, side: str, k: int, run_dir: Path, pool: SnapshotPool,
                 report: Reporter | None = None, engine: str = engines.REFERENCE) -> tuple[TimedVecEnv, MaskablePPO]:
    """The environments and the learner of the ``k``-th side: its newest loadable checkpoint, or a
    new learner (warm-started when ``pretrain.games`` says so); its pool holds at least the start."""
    side_seed = (settings.seed * 7919 + 1000 * k) % 2**32  # numpy's seed range; unchanged for seeds below 542,000
    venv = TimedVecEnv(side_vec_env(settings, side, run_dir, side_seed, engine))
    model = None
    for ckpt in latest_checkpoint(run_dir, side):
        try:
            model = ppo.load_learner(settings.algorithm, ckpt, venv)
            print(f"resumed {side} from {ckpt.name} at step {model.num_timesteps}", file=sys.stderr)
            break
        except Exception as exc:  # a checkpoint torn by the kill: fall back to the one before
            print(f"checkpoint {ckpt} cannot be loaded ({exc}); trying an older one", file=sys.stderr)
    if model is None:
        model = ppo.new_learner(venv, settings.algorithm, settings.network, side_seed,
                                anchored=settings.anchor.pulls(side))
        start = settings.pretrain.from_policy.get(side)
        if start is not None and not pool.snapshots():  # a new run: the actor starts as the policy
            copy_actor(model, start_file(settings.game.name, side, start), f"the {side} learner")
            (report.say if report is not None else stderr_log)(f"{side}: the learner starts as the policy {start}")
    model.set_logger(configure(str(run_dir / "logs" / side), ["csv", "tensorboard"]))
    if model.num_timesteps == 0 and settings.pretrain.games > 0 and not pool.snapshots() \
            and side not in settings.pretrain.from_policy:  # the sides not started from a policy imitate
        figures = imitate(model, settings.game, side, settings.pretrain, settings.network.features, settings.seed + k,
                          log=stderr_log if report is None or report.lines else (lambda _: None), report=report)
        for key, value in figures.items():
            model.logger.record(key, value)
        model.logger.dump(0)
    if not pool.snapshots():  # the pool starts with the untrained policy
        pool.add_snapshot(model.num_timesteps, lambda p: export_policy(model, settings, side, p, 0))
        if settings.anchor.pulls(side):  # and the pull towards the start keeps it (the pool may drop it)
            export_policy(model, settings, side, anchor_file(run_dir, settings, side), 0)
    pool.write()
    if settings.anchor.pulls(side):
        start_anchor(model, settings, side, run_dir)
    return venv, model


def anchor_file(run_dir: Path, settings: SelfPlayConfig, side: str) -> Path:
    return run_dir / "anchor" / games.policy_file(settings.game.name, side)


def start_anchor(model: MaskablePPO, settings: SelfPlayConfig, side: str, run_dir: Path) -> None:
    """Pull ``model`` towards the side's start (``anchor/<side>.pt``, written when the run began)."""
    path = anchor_file(run_dir, settings, side)
    if not path.exists():
        raise FileNotFoundError(f"{path}: the anchor (the policy {side} started as) is missing; a run begun without "
                                "anchor.coef > 0 cannot take one on resume: start a new run (pretrain.from_policy)")
    anchor.attach(model, anchor.StartAnchor(path, settings.anchor.coef, settings.anchor.anneal_steps,
                                            settings.algorithm.ent_coef))


class SelfPlayLoop:
    """Learn in chunks, one side at a time (Arkham: phases of ``selfplay.phase_steps``); snapshot,
    evaluate and checkpoint when due. SIGTERM (``kill``) or Ctrl-C ends the current chunk, writes a
    checkpoint and the summary, then stops."""

    def __init__(self, settings: SelfPlayConfig, run_dir: Path, state: dict, pools: dict[str, SnapshotPool],
                 models: dict[str, MaskablePPO], venvs: dict[str, TimedVecEnv], progress: bool | Reporter) -> None:
        self.settings, self.run_dir, self.state = settings, run_dir, state
        self.pools, self.models, self.venvs = pools, models, venvs
        self.sides = list(models)
        sp, ev, total = settings.selfplay, settings.evaluation, settings.total_steps
        self.steps = {s: int(models[s].num_timesteps) for s in self.sides}
        self.best = state.get("best", {})
        self.chunk = min(sp.snapshot_every, ev.every, settings.checkpoint_every)
        if len(self.sides) > 1:
            self.chunk = min(self.chunk, sp.phase_steps)
        self.phase = int(state.get("phase", 0))
        self.phase_done = int(state.get("phase_done", 0))
        self.clocks = {s: Clock() for s in self.sides}
        self.live: dict[str, object] = {}
        self.report = Reporter.of(progress)
        self.bar = self.report.phase(f"train {settings.game.name}", total, unit="step",
                                     initial=min(total, sum(self.steps.values())), unit_scale=True, mininterval=1.0,
                                     smoothing=0.05)
        self.marks = {name: (sum(self.steps.values()) // every) for name, every in
                      (("snapshot", sp.snapshot_every), ("eval", ev.every), ("checkpoint", settings.checkpoint_every))}
        self.callbacks = {s: CallbackList([
            TrainingCallback(s, pools[games.opponent_side(settings.game.name, s)], self.bar, self.clocks[s], self.live,
                             prefix="" if len(self.sides) == 1 else f"{s}_"),
            UpdateThreads(settings.algorithm.update_threads),
            *([anchor.AnchorCallback(models[s].policy.anchor)] if settings.anchor.pulls(s) else [])])
            for s in self.sides}
        self.started = time.perf_counter()

    def run(self) -> None:
        pre = self.settings.pretrain
        warmed = False
        for s in self.sides:
            if (pre.games > 0 or s in pre.from_policy) and pre.critic_steps > 0 and self.steps[s] == 0:
                warm_up_critic(self.models[s], pre.critic_steps, callback=self.callbacks[s], log=stderr_log)
                self.steps[s] = int(self.models[s].num_timesteps)
                warmed = True
        stop = lambda *_: self.live.__setitem__("_stop", True)  # noqa: E731
        previous_handlers = {sig: signal.signal(sig, stop) for sig in (signal.SIGTERM, signal.SIGINT)}
        if warmed and sum(self.steps.values()) >= self.settings.total_steps:
            # the warm-up spent the budget: the run is the warm start itself (an imitation-only copy),
            # which still gets its evaluation, best/, latest/ and a checkpoint like any finished run;
            # state.json says so, and a model card made from the run reads it there
            self.state["imitation_only"] = True
            self.after_chunk()
        while sum(self.steps.values()) < self.settings.total_steps and not self.live.get("_stop"):
            self.learn_chunk()
            self.bar.set_postfix(postfix(self.live), refresh=True)
        self.bar.close()
        for sig, handler in previous_handlers.items():
            signal.signal(sig, handler)

    def learn_chunk(self) -> None:
        """One chunk of the side whose phase it is, then whatever has fallen due."""
        sp, total = self.settings.selfplay, self.settings.total_steps
        side = self.sides[self.phase % len(self.sides)]
        model = self.models[side]
        learn = min(self.chunk, total - sum(self.steps.values()))
        model.learn(total_timesteps=learn, reset_num_timesteps=False, callback=self.callbacks[side], progress_bar=False)
        self.phase_done += model.num_timesteps - self.steps[side]
        self.steps[side] = int(model.num_timesteps)
        self.live["fps"] = int(sum(c.steps for c in self.clocks.values()) / max(1e-9, time.perf_counter() - self.started))
        if len(self.sides) > 1 and self.phase_done >= sp.phase_steps:  # the other side's turn to learn
            self.phase, self.phase_done = self.phase + 1, 0
        self.after_chunk()

    def after_chunk(self) -> None:
        """Snapshot, evaluate and checkpoint, each when due (always at the end of the budget)."""
        sp, total = self.settings.selfplay, self.settings.total_steps
        done = sum(self.steps.values())
        if done // sp.snapshot_every > self.marks["snapshot"] or done >= total:
            self.marks["snapshot"] = done // sp.snapshot_every
            self.snapshot()
        for s in self.sides:
            self.pools[s].write()  # fresh results -> fresh sampling probabilities for the envs
        every = self.settings.evaluation.every
        if (done // every > self.marks["eval"] or done >= total) and not self.live.get("_stop"):
            self.marks["eval"] = done // every
            for s in self.sides:
                evaluate_side(self.settings, s, self.models[s], self.steps[s], done, self.run_dir, self.best, self.live,
                              self.report, self.state["engine"])
        every = self.settings.checkpoint_every
        if done // every > self.marks["checkpoint"] or done >= total or self.live.get("_stop"):
            self.marks["checkpoint"] = done // every
            self.checkpoint()

    def snapshot(self) -> None:
        for s in self.sides:
            pool = self.pools[s]
            if pool.snapshots() and pool.snapshots()[-1]["step"] == self.steps[s]:
                continue  # this side has not learned since its last snapshot
            pool.add_snapshot(self.steps[s], lambda p, s=s: export_policy(self.models[s], self.settings, s, p, self.steps[s]))

    def checkpoint(self) -> None:
        for s in self.sides:
            model = self.models[s]
            save_checkpoint(model, self.run_dir, s)
            export_policy(model, self.settings, s, self.run_dir / "latest" / games.policy_file(self.settings.game.name, s),
                          self.steps[s], judged=True)
            for key, value in self.clocks[s].split(self.venvs[s].env_seconds).items():
                model.logger.record(key, value)
            model.logger.dump(self.steps[s])
        save_state(self.run_dir, {"steps": self.steps, "phase": self.phase, "phase_done": self.phase_done,
                                  "best": self.best, "seconds": self.seconds(), "engine": self.state["engine"],
                                  **{k: self.state[k] for k in ("started_from", "imitation_only") if k in self.state}})

    def seconds(self) -> float:
        return self.state.get("seconds", 0.0) + time.perf_counter() - self.started

    def summarise(self) -> None:
        """``summary.json`` (a no-op resume keeps the old one), the environments closed, the time split."""
        envs, run_dir = self.settings.envs, self.run_dir
        if self.live.get("_stop"):
            print(f"stopped at {sum(self.steps.values())} steps; continue with --resume {run_dir}", file=sys.stderr)
        summary = {"steps": self.steps, "seconds": self.seconds(),
                   "n_envs": envs.n_envs, "subprocess": envs.subprocess, "workers": envs.workers, "best": self.best,
                   "time_split": {s: self.clocks[s].split(self.venvs[s].env_seconds) for s in self.sides}}
        if any(c.steps for c in self.clocks.values()) or not (run_dir / "summary.json").exists():
            (run_dir / "summary.json").write_text(json.dumps(summary, indent=2))
        for venv in self.venvs.values():
            venv.close()
        print(f"run folder: {run_dir}", file=sys.stderr)
        for s in self.sides:
            split = summary["time_split"][s]
            if split:
                print(f"{s}: {split['time/steps_per_second']:.0f} steps/s with {envs.n_envs} envs; time in "
                      f"envs {split['time/env_share']:.0%}, acting {split['time/act_share']:.0%}, "
                      f"updates {split['time/update_share']:.0%}", file=sys.stderr)


def evaluate_side(settings: SelfPlayConfig, side: str, model: MaskablePPO, step: int, total_step: int, run_dir: Path,
                  best: dict, live: dict, report: Reporter | None = None, engine: str = engines.REFERENCE) -> None:
    """Play the evaluation games; a failure is reported and skipped, never fatal to the run."""
    ev = settings.evaluation
    if ev.games <= 0:
        return
    try:
        path = export_policy(model, settings, side, run_dir / "eval" / f"{side}.pt", step, judged=True)
        rows = evaluations.evaluate_policy(path, side, settings.game, ev, settings.seed, f"{side}@{step}", ev.greedy,
                                           report, batched=engine == engines.VECTOR)
        for r in rows:
            model.logger.record(f"eval/win_vs_{r.opponent}_{r.players}p", r.win_share)
        label = "eval" if len(games.side_names(settings.game.name)) == 1 else f"{side}_eval"
        for opponent in ev.opponents:
            live[f"{label}_{opponent}"] = float(np.mean([r.win_share for r in rows if r.opponent == opponent]))
        model.logger.dump(step)
        evaluations.write(run_dir, rows, total_step=total_step, side_step=step)
        evaluations.keep_best(run_dir, path, games.policy_file(settings.game.name, side),
                              evaluations.judged_share(rows, ev), best, side, step=step)
    except Exception as exc:  # noqa: BLE001 -- hours of training must survive a broken evaluation
        print(f"evaluation of {side} at step {step} failed and was skipped: {exc.__class__.__name__}: {exc}",
              file=sys.stderr)


def save_checkpoint(model: MaskablePPO, run_dir: Path, side: str) -> None:
    """Write ``<side>-<step>.zip`` atomically and keep the newest :data:`KEEP_CHECKPOINTS`."""
    final = run_dir / "checkpoints" / f"{side}-{model.num_timesteps:010d}.zip"
    tmp = final.with_name("tmp-" + final.name)
    model.save(tmp)
    os.replace(tmp, final)
    for old in latest_checkpoint(run_dir, side)[KEEP_CHECKPOINTS:]:
        old.unlink(missing_ok=True)
