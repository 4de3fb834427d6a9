"""Self-play training from a YAML config, top to bottom.

    club-envs train configs/members_only_4p.yaml
    club-envs train --resume runs/members_only_4p-20260101-120000

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
from datetime import datetime, timezone
from pathlib import Path

import numpy as np
import torch
from sb3_contrib import MaskablePPO
from stable_baselines3.common.callbacks import CallbackList
from stable_baselines3.common.logger import configure
from stable_baselines3.common.monitor import Monitor
from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv
from threadpoolctl import threadpool_limits
from tqdm import tqdm

from club_envs.agents.policy import PolicyAgent, actor_weights_from_sb3, load_policy_file, save_policy
from club_envs.evaluation import learner_win_share
from club_envs.training import config as configs
from club_envs.training import belief, examples, games
from club_envs.training.run_folder import append_csv, read_state, save_state
from club_envs.training.callbacks import Clock, TimedVecEnv, TrainingCallback, UpdateThreads, postfix
from club_envs.training.pretrain import imitate, stderr_log, warm_up_critic
from club_envs.training.selfplay import FeatureObservation, SelfPlayEnv, SnapshotPool
from club_envs.training.selfplay_vec import SelfPlayVecEnv
from club_envs.training.worker_vec import WorkerVecEnv

KEEP_CHECKPOINTS = 2


def make_selfplay_game(cfg: dict, side: str, run_dir: str, seed: int) -> SelfPlayEnv:
    """One self-play game slot of ``side``'s learner, unwrapped (what :class:`SelfPlayVecEnv` steps)."""
    variants = games.variants(cfg, side)
    pools = {s: str(Path(run_dir) / "pool" / s) for s in configs.SIDES[cfg["game"]["name"]]}
    return SelfPlayEnv(variants, pools, games.opponents_for(cfg, side), seed=seed, win_share=games.win_share(cfg))


def make_selfplay_env(cfg: dict, side: str, run_dir: str, seed: int) -> Monitor:
    """One environment slot of ``side``'s learner (module level: picklable for subprocesses)."""
    env = make_selfplay_game(cfg, side, run_dir, seed)
    if cfg["network"]["features"] != "none":
        env = FeatureObservation(env, cfg["network"]["features"])
    return Monitor(env)


def export_policy(model: MaskablePPO, cfg: dict, side: str, path: Path, step: int) -> Path:
    """The learner's actor as a weights-only policy file (what snapshots and shipped agents are)."""
    meta = {
        "game": cfg["game"]["name"], "side": side, "roles": games.side_roles(cfg, side),
        "obs_size": int(model.observation_space.shape[0]), "num_actions": int(model.action_space.n),
        "hidden": list(cfg["network"]["hidden"]), "activation": cfg["network"]["activation"], "steps": int(step),
    }
    if cfg["network"]["features"] != "none":
        meta["features"] = cfg["network"]["features"]
    return save_policy(path, actor_weights_from_sb3(model.policy), meta)


def latest_checkpoint(run_dir: Path, side: str) -> list[Path]:
    return sorted((run_dir / "checkpoints").glob(f"{side}-*.zip"), reverse=True)


def run(config_path: Path | None = None, resume: Path | None = None, runs_dir: Path = Path("runs"),
        progress: bool = True) -> Path:
    # --- 1. configuration: validated before anything else happens --------------------------------
    if resume is not None:
        run_dir = Path(resume)
        if not (run_dir / "config.yaml").is_file():
            raise FileNotFoundError(f"{run_dir} is not a run folder (no config.yaml)")
        cfg = configs.load(run_dir / "config.yaml")
        state = read_state(run_dir)
    else:
        config_path = examples.resolve(config_path)  # a file, or the name of an example config
        cfg = configs.load(config_path)
        state = {}
    if "recipe" in cfg:  # belief iteration (club_envs/training/belief.py, arkham_belief.py): trainers of their own
        from club_envs.training import arkham_belief

        trainer = arkham_belief if cfg["recipe"] == arkham_belief.RECIPE else belief
        return trainer.run(config_path if resume is None else None, resume=resume, runs_dir=runs_dir, progress=progress)
    if cfg.get("backend") == "rllib":  # the same config on Ray RLlib: club_envs/training/rllib_backend
        from club_envs.training.rllib_backend.run import run as run_rllib

        return run_rllib(config_path, resume=resume, runs_dir=runs_dir, progress=progress)
    games.check_options(cfg)  # rule options: the game's own validation, still before training
    game_name, sides = cfg["game"]["name"], configs.SIDES[cfg["game"]["name"]]
    algo, sp, ev = cfg["algorithm"], cfg["selfplay"], cfg["evaluation"]
    total = cfg["budget"]["total_steps"]

    # --- 2. the run folder ----------------------------------------------------------------------
    if resume is None:
        stamp = datetime.now(timezone.utc).strftime("%Y%m%d-%H%M%S")
        run_dir = Path(runs_dir) / f"{Path(config_path).stem}-{stamp}"
        run_dir.mkdir(parents=True, exist_ok=False)
        (run_dir / "config.yaml").write_text(configs.dump(cfg))
    (run_dir / "checkpoints").mkdir(exist_ok=True)

    # --- 3. seeding -----------------------------------------------------------------------------
    seed = cfg["seed"]
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    torch.set_num_threads(1)  # small batches: one thread is fastest and leaves the other core to the envs
    # (updates may use more: algorithm.update_threads, callbacks.UpdateThreads)
    # The same for numpy's BLAS: the opponents' batched forward passes are small matrix products, which
    # a multi-threaded BLAS makes tens of times slower on a busy 2-core machine.
    threadpool_limits(1, user_api="blas")

    # --- 4. one self-play pool per side ---------------------------------------------------------
    pools = {s: SnapshotPool(run_dir / "pool" / s, sp["scheme"], sp["bots"], sp["bot_share"], sp["pool_size"])
             for s in sides}

    # --- 5. environments and learners, one per side ---------------------------------------------
    # By default all games of a side run in this process and their opponents' decisions are batched
    # per frozen policy (SelfPlayVecEnv); envs.workers > 1 splits them over that many worker processes
    # (WorkerVecEnv); subprocesses (SubprocVecEnv) or plain DummyVecEnv on request.
    models: dict[str, MaskablePPO] = {}
    venvs: dict[str, TimedVecEnv] = {}
    for k, side in enumerate(sides):
        side_seed = (seed * 7919 + 1000 * k) % 2**32  # numpy's seed range; unchanged for seeds below 542,000
        seeds = [side_seed + i for i in range(cfg["envs"]["n_envs"])]
        if cfg["envs"]["subprocess"] or not cfg["envs"]["batched"]:
            vec_cls = SubprocVecEnv if cfg["envs"]["subprocess"] else DummyVecEnv
            venv = vec_cls([functools.partial(make_selfplay_env, cfg, side, str(run_dir), s) for s in seeds])
        elif cfg["envs"]["workers"] > 1:  # the games' slices stepped by worker processes at the same time
            venv = WorkerVecEnv([functools.partial(make_selfplay_game, cfg, side, str(run_dir), s) for s in seeds],
                                features=cfg["network"]["features"], workers=cfg["envs"]["workers"])
        else:
            venv = SelfPlayVecEnv([functools.partial(make_selfplay_game, cfg, side, str(run_dir), s) for s in seeds],
                                  features=cfg["network"]["features"])
        venvs[side] = TimedVecEnv(venv)
        model = None
        for ckpt in latest_checkpoint(run_dir, side) if resume is not None else []:
            try:
                model = MaskablePPO.load(ckpt, env=venvs[side], device="cpu")
                print(f"resumed {side} from {ckpt.name} at step {model.num_timesteps}", file=sys.stderr)
                break
            except Exception as exc:  # a checkpoint torn by the kill: fall back to the one before
                print(f"checkpoint {ckpt} cannot be loaded ({exc}); trying an older one", file=sys.stderr)
        if model is None:
            model = MaskablePPO(
                "MlpPolicy", venvs[side], seed=side_seed, device="cpu", verbose=0,
                learning_rate=algo["learning_rate"], n_steps=algo["n_steps"], batch_size=algo["batch_size"],
                n_epochs=algo["n_epochs"], gamma=algo["gamma"], gae_lambda=algo["gae_lambda"],
                clip_range=algo["clip_range"], ent_coef=algo["ent_coef"], vf_coef=algo["vf_coef"],
                max_grad_norm=algo["max_grad_norm"],
                policy_kwargs={"net_arch": {"pi": list(cfg["network"]["hidden"]), "vf": list(cfg["network"]["hidden"])},
                               "activation_fn": {"tanh": torch.nn.Tanh, "relu": torch.nn.ReLU}[cfg["network"]["activation"]]},
            )
        model.set_logger(configure(str(run_dir / "logs" / side), ["csv", "tensorboard"]))
        if model.num_timesteps == 0 and cfg["pretrain"]["games"] > 0 and not pools[side].snapshots():
            for key, value in imitate(model, cfg, side, seed + k, log=stderr_log).items():
                model.logger.record(key, value)
            model.logger.dump(0)
        models[side] = model
        if not pools[side].snapshots():  # the pool starts with the untrained policy
            pools[side].add_snapshot(model.num_timesteps, lambda p, m=model, s=side: export_policy(m, cfg, s, p, 0))
        pools[side].write()

    # --- 6. the loop: learn in chunks; snapshot, evaluate and checkpoint when due ---------------
    steps = {s: int(models[s].num_timesteps) for s in sides}
    best = state.get("best", {})
    chunk = min(sp["snapshot_every"], ev["every"], cfg["checkpoint"]["every"])
    if len(sides) > 1:
        chunk = min(chunk, sp["phase_steps"])
    phase = int(state.get("phase", 0))
    phase_done = int(state.get("phase_done", 0))
    clocks = {s: Clock() for s in sides}
    live: dict[str, object] = {}
    bar = tqdm(total=total, initial=min(total, sum(steps.values())), unit="step", dynamic_ncols=True,
               desc=f"train {game_name}", disable=not progress, mininterval=1.0, smoothing=0.05)
    marks = {name: (sum(steps.values()) // every) for name, every in
             (("snapshot", sp["snapshot_every"]), ("eval", ev["every"]), ("checkpoint", cfg["checkpoint"]["every"]))}
    callbacks = {s: CallbackList([TrainingCallback(s, pools[games.opponent_side(cfg, s)], bar, clocks[s], live,
                                                   prefix="" if len(sides) == 1 else f"{s}_"),
                                  UpdateThreads(algo["update_threads"])]) for s in sides}
    started = time.perf_counter()
    for s in sides:
        critic_steps = cfg["pretrain"]["critic_steps"]
        if cfg["pretrain"]["games"] > 0 and critic_steps > 0 and steps[s] == 0:
            warm_up_critic(models[s], critic_steps, callback=callbacks[s], log=stderr_log)
            steps[s] = int(models[s].num_timesteps)
    # SIGTERM (`kill`) or Ctrl-C ends the current chunk, writes a checkpoint and the summary, then stops.
    stop = lambda *_: live.__setitem__("_stop", True)  # noqa: E731
    previous_handlers = {sig: signal.signal(sig, stop) for sig in (signal.SIGTERM, signal.SIGINT)}
    while sum(steps.values()) < total and not live.get("_stop"):
        side = sides[phase % len(sides)]
        model = models[side]
        callback = callbacks[side]
        learn = min(chunk, total - sum(steps.values()))
        model.learn(total_timesteps=learn, reset_num_timesteps=False, callback=callback, progress_bar=False)
        phase_done += model.num_timesteps - steps[side]
        steps[side] = int(model.num_timesteps)
        done = sum(steps.values())
        live["fps"] = int(sum(c.steps for c in clocks.values()) / max(1e-9, time.perf_counter() - started))

        if len(sides) > 1 and phase_done >= sp["phase_steps"]:  # the other side's turn to learn
            phase, phase_done = phase + 1, 0
        if done // sp["snapshot_every"] > marks["snapshot"] or done >= total:
            marks["snapshot"] = done // sp["snapshot_every"]
            for s in sides:
                if pools[s].snapshots() and pools[s].snapshots()[-1]["step"] == steps[s]:
                    continue  # this side has not learned since its last snapshot
                pools[s].add_snapshot(steps[s], lambda p, s=s: export_policy(models[s], cfg, s, p, steps[s]))
        for s in sides:
            pools[s].write()  # fresh results -> fresh sampling probabilities for the envs
        if (done // ev["every"] > marks["eval"] or done >= total) and not live.get("_stop"):
            marks["eval"] = done // ev["every"]
            for s in sides:
                evaluate_side(cfg, s, models[s], steps[s], done, run_dir, best, live)
        if done // cfg["checkpoint"]["every"] > marks["checkpoint"] or done >= total or live.get("_stop"):
            marks["checkpoint"] = done // cfg["checkpoint"]["every"]
            for s in sides:
                save_checkpoint(models[s], run_dir, s)
                export_policy(models[s], cfg, s, run_dir / "latest" / games.policy_file(cfg, s), steps[s])
                for key, value in clocks[s].split(venvs[s].env_seconds).items():
                    models[s].logger.record(key, value)
                models[s].logger.dump(steps[s])
            save_state(run_dir, {"steps": steps, "phase": phase, "phase_done": phase_done, "best": best,
                                 "seconds": state.get("seconds", 0.0) + time.perf_counter() - started})
        bar.set_postfix(postfix(live), refresh=True)
    bar.close()
    for sig, handler in previous_handlers.items():
        signal.signal(sig, handler)

    # --- 7. the summary -------------------------------------------------------------------------
    if live.get("_stop"):
        print(f"stopped at {sum(steps.values())} steps; continue with --resume {run_dir}", file=sys.stderr)
    summary = {"steps": steps, "seconds": state.get("seconds", 0.0) + time.perf_counter() - started,
               "n_envs": cfg["envs"]["n_envs"], "subprocess": cfg["envs"]["subprocess"],
               "workers": cfg["envs"]["workers"], "best": best,
               "time_split": {s: clocks[s].split(venvs[s].env_seconds) for s in sides}}
    if any(c.steps for c in clocks.values()) or not (run_dir / "summary.json").exists():
        (run_dir / "summary.json").write_text(json.dumps(summary, indent=2))  # a no-op resume keeps the old one
    for venv in venvs.values():
        venv.close()
    print(f"run folder: {run_dir}", file=sys.stderr)
    for s in sides:
        split = summary["time_split"][s]
        if split:
            print(f"{s}: {split['time/steps_per_second']:.0f} steps/s with {cfg['envs']['n_envs']} envs; time in "
                  f"envs {split['time/env_share']:.0%}, acting {split['time/act_share']:.0%}, "
                  f"updates {split['time/update_share']:.0%}", file=sys.stderr)
    return run_dir


def evaluate_side(cfg: dict, side: str, model: MaskablePPO, step: int, total_step: int, run_dir: Path,
                  best: dict, live: dict) -> None:
    """Play the evaluation games; a failure is reported and skipped, never fatal to the run."""
    ev = cfg["evaluation"]
    if ev["games"] <= 0:
        return
    try:
        path = export_policy(model, cfg, side, run_dir / "eval" / f"{side}.pt", step)
        net, meta = load_policy_file(path)
        rows = []
        for opponent in ev["opponents"]:
            shares = []
            for n in cfg["game"]["num_players"]:
                learner = PolicyAgent(net, name=f"{side}@{step}", meta=meta, deterministic=ev["greedy"])
                game, game_config, role_side = games.eval_setup(cfg, side, n)
                share, (lo, hi) = learner_win_share(game, game_config, learner, opponent, ev["games"],
                                                    seed=cfg["seed"] + 17, role_side=role_side)
                shares.append(share)
                rows.append([total_step, side, step, opponent, n, ev["games"], share, lo, hi])
                model.logger.record(f"eval/win_vs_{opponent}_{n}p", share)
            label = "eval" if len(configs.SIDES[cfg["game"]["name"]]) == 1 else f"{side}_eval"
            live[f"{label}_{opponent}"] = float(np.mean(shares))
        model.logger.dump(step)
        append_csv(run_dir / "evaluations.csv", rows,
                    ["total_step", "side", "side_step", "opponent", "players", "games", "win_share", "ci_lo", "ci_hi"])
        score = float(np.mean([r[6] for r in rows]))
        if score >= best.get(side, {}).get("score", -1.0):
            best[side] = {"score": score, "step": step}
            (run_dir / "best").mkdir(exist_ok=True)
            shutil.copyfile(path, run_dir / "best" / games.policy_file(cfg, side))
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
