"""Self-play training on Ray RLlib from the same YAML configs, top to bottom.

    club-envs train configs/members_only_rllib_smoke.yaml          # a config with ``backend: rllib``
    club-envs train --resume runs/<run>

``rllib.address: local`` starts Ray on this machine (``rllib.num_cpus`` CPUs, no dashboard);
any other address (the head's ``HOST:6379``, or ``auto`` on a node of the cluster) joins that Ray
cluster, and the env runners are spread over its nodes.

The run folder has the same shape as a stable-baselines3 run, so the same tools read it:

``config.yaml``              the resolved config, what ``--resume`` reads back
``checkpoints/rllib/``       the RLlib checkpoint (``Algorithm.save_to_path``) with ``league.json``
``latest/``, ``best/``       exported policies (``policy.pt``, or ``team.pt`` + ``black_man.pt``)
``logs/progress.csv``        one row per training iteration; TensorBoard events beside it
``evaluations.csv``          one row per evaluation against the bots
``summary.json``             steps, time, steps per second, how the time split

Steps are environment steps: every decision at the table, whoever made it (the learner, itself
in another seat, or a snapshot). ``budget.total_steps``, ``selfplay.snapshot_every``,
``evaluation.every`` and ``checkpoint.every`` all count them.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import signal
import sys
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from tqdm import tqdm

from club_envs.training import config as configs
from club_envs.training import games
from club_envs.training.run_folder import append_csv
from club_envs.training.rllib_backend.league_file import LEAGUE_FILE, read_league_state
from club_envs.training.rllib_backend.options import LOCAL, RLLIB_DEFAULTS, check_rllib_sizes

CHECKPOINT = "rllib"
# the folder holding the club_envs package (a checkout or site-packages)
PROJECT_ROOT = Path(__file__).resolve().parents[3]


# --------------------------------------------------------------------------- configuration
def resolve_config(raw: Any, source: str = "config") -> dict[str, Any]:
    """Validate a config with ``backend: rllib`` once against the shared schema (which holds the
    ``rllib`` block, :data:`RLLIB_SCHEMA`), fill the block's defaults and check its sizes."""
    if not isinstance(raw, dict):
        return configs.validate(raw, source)  # raises, naming what a config is
    # the shared schema holds the ``rllib`` block (RLLIB_SCHEMA), so one validation checks it and
    # names a wrong key by its dotted path (``rllib.num_env_runners: ...``)
    cfg = configs.validate(dict(raw), source)
    block = raw.get("rllib", {})
    cfg["backend"] = raw.get("backend", "sb3")
    cfg["rllib"] = {**RLLIB_DEFAULTS, **(block or {})}
    try:
        check_rllib_sizes(cfg, source)
    except ValueError as exc:
        raise configs.ConfigFileError(str(exc)) from None
    options = cfg["rllib"]
    if options["address"] == LOCAL and options["num_env_runners"] > options["num_cpus"]:
        raise configs.ConfigFileError(
            f"{source}: rllib.num_env_runners: {options['num_env_runners']} runners need one CPU each but "
            f"rllib.num_cpus is {options['num_cpus']}; allowed values: 0..{options['num_cpus']}"
        )
    return cfg


def load_config(path: str | Path) -> dict[str, Any]:
    # read within the same size, depth and alias limits as every config (one ConfigFileError line)
    return resolve_config(configs.read_yaml(path), source=str(path))


def load_run_config(run_dir: Path) -> dict[str, Any]:
    if not (Path(run_dir) / "config.yaml").is_file():
        raise FileNotFoundError(f"{run_dir} is not a run folder (no config.yaml)")
    return load_config(Path(run_dir) / "config.yaml")


# settings of the stable-baselines3 backend that have no counterpart here (the ``rllib`` block
# says how to sample; the league is the learners' own snapshots; both Arkham sides learn at once)
SB3_ONLY = (("envs",), ("algorithm", "n_steps"), ("selfplay", "scheme"), ("selfplay", "bots"),
            ("selfplay", "bot_share"), ("selfplay", "phase_steps"), ("pretrain",))


def unused_settings(cfg: dict[str, Any]) -> list[str]:
    """The dotted keys of ``cfg`` set to something else than their default that this backend ignores."""
    unused = []
    for path in SB3_ONLY:
        value, default = cfg, configs.DEFAULTS
        for key in path:
            value = value.get(key) if isinstance(value, dict) else None
            default = default.get(key) if isinstance(default, dict) else None
        if value is not None and value != default:
            unused.append(".".join(path))
    return unused


# --------------------------------------------------------------------------- Ray
def require_rllib() -> None:
    """Say in one line what to install when Ray RLlib is missing."""
    try:
        import ray.rllib  # noqa: F401
    except ModuleNotFoundError as exc:
        raise configs.ConfigFileError(
            f"backend: rllib needs Ray RLlib, which is not installed ({exc}); "
            "install it with: pip install 'club-envs[rllib]'"
        ) from None


def prepare_ray_environment(options: dict[str, Any]) -> None:
    """Settings Ray reads from the environment when it is first imported."""
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")  # no usage report: the machine may be offline
    if options["address"] != LOCAL and "RAY_AUTH_MODE" not in os.environ and _auth_token_available():
        # a cluster started by `ray start` (Ray 2.60) requires token authentication by default, and
        # a driver joining it must ask for it, or the cluster refuses the connection
        os.environ["RAY_AUTH_MODE"] = "token"


def start_ray(options: dict[str, Any]) -> bool:
    """Start a local Ray or join the cluster at ``options["address"]``; False if Ray was already up."""
    prepare_ray_environment(options)
    import ray

    if ray.is_initialized():
        return False
    # the env runners import club_envs from the same place as this process, installed or not
    python_path = os.pathsep.join(filter(None, [str(PROJECT_ROOT), os.environ.get("PYTHONPATH")]))
    runtime_env = {"env_vars": {"PYTHONPATH": python_path}}
    if options["address"] == LOCAL:
        # address="local": always a new Ray of our own, even if a `ray start` cluster runs here
        ray.init(address="local", num_cpus=options["num_cpus"], include_dashboard=False, log_to_driver=False,
                 runtime_env=runtime_env, logging_level="ERROR")
    else:
        try:
            ray.init(address=options["address"], log_to_driver=False, logging_level="ERROR")
        except (ConnectionError, RuntimeError) as exc:
            raise configs.ConfigFileError(
                f"rllib.address: cannot join the Ray cluster at {options['address']!r} ({exc}). Is the head "
                "node up (`ray start --head`), and is its token here (~/.ray/auth_token, RAY_AUTH_TOKEN "
                "or RAY_AUTH_TOKEN_PATH)? Use rllib.address: local to train on this machine alone."
            ) from exc
    return True


def _auth_token_available() -> bool:
    """Whether a Ray authentication token is at hand, where Ray itself looks for one."""
    if os.environ.get("RAY_AUTH_TOKEN"):
        return True
    path = os.environ.get("RAY_AUTH_TOKEN_PATH") or str(Path.home() / ".ray" / "auth_token")
    return Path(path).is_file()


# --------------------------------------------------------------------------- the league
def copy_into_snapshot(algo: Any, learner: str, slot: int) -> None:
    """Freeze the learner's current weights into its snapshot ``slot``, on the learners and on every
    env runner (RLlib syncs only trained modules after an update, so the copy is pushed here)."""
    from club_envs.training.rllib_backend.league import snapshot_id

    target = snapshot_id(learner, slot)

    def _copy_on_learner(learner_worker: Any) -> None:
        learner_worker.module[target].load_state_dict(learner_worker.module[learner].state_dict())

    algo.learner_group.foreach_learner(_copy_on_learner)
    state = algo.learner_group.get_state(components=f"learner/rl_module/{target}", inference_only=True)
    weights = state["learner"]["rl_module"][target]

    def _set_on_runner(env_runner: Any) -> None:
        env_runner.module[target].set_state(weights)

    algo.env_runner_group.foreach_env_runner(_set_on_runner, local_env_runner=True)


def fill_league(algo: Any, game: str, pool_size: int) -> None:
    """A new run's league: every slot holds the untrained learner (the first opponents)."""
    from club_envs.training.rllib_backend.league import learner_modules

    for learner in learner_modules(game):
        for slot in range(pool_size):
            copy_into_snapshot(algo, learner, slot)


# --------------------------------------------------------------------------- evaluation
def evaluate(cfg: dict[str, Any], algo: Any, env_steps: int, run_dir: Path, best: dict, live: dict) -> None:
    """Play the evaluation games with the exported policies; a failure is reported, never fatal."""
    from club_envs.agents.policy import PolicyAgent, load_policy_file
    from club_envs.evaluation import learner_win_share
    from club_envs.training.rllib_backend.export import export_algorithm

    ev = cfg["evaluation"]
    if ev["games"] <= 0:
        return
    try:
        rows = []
        for path in export_algorithm(algo, cfg, run_dir / "eval", env_steps):
            net, meta = load_policy_file(path)
            side = meta["side"]
            shares = []
            for opponent in ev["opponents"]:
                against = []
                for n in cfg["game"]["num_players"]:
                    learner = PolicyAgent(net, name=f"{side}@{env_steps}", meta=meta)
                    game, game_config, role_side = games.eval_setup(cfg, side, n)
                    share, (lo, hi) = learner_win_share(game, game_config, learner, opponent, ev["games"],
                                                        seed=cfg["seed"] + 17, role_side=role_side)
                    against.append(share)
                    rows.append([env_steps, side, opponent, n, ev["games"], share, lo, hi])
                label = f"eval_{opponent}" if side == "player" else f"eval_{side}_{opponent}"
                live[label] = sum(against) / len(against)
                shares += against
            score = sum(shares) / len(shares)
            if score >= best.get(side, {}).get("score", -1.0):
                best[side] = {"score": score, "env_steps": env_steps}
                (run_dir / "best").mkdir(exist_ok=True)
                shutil.copyfile(path, run_dir / "best" / path.name)
        append_csv(run_dir / "evaluations.csv", rows,
                    ["env_steps", "side", "opponent", "players", "games", "win_share", "ci_lo", "ci_hi"])
    except Exception as exc:  # noqa: BLE001 -- hours of training must survive a broken evaluation
        print(f"evaluation at step {env_steps} failed and was skipped: {exc.__class__.__name__}: {exc}",
              file=sys.stderr)


# --------------------------------------------------------------------------- checkpoints
def save_checkpoint(algo: Any, run_dir: Path, league: dict[str, Any]) -> Path:
    """Write the RLlib checkpoint and the league state beside it; the old one is replaced only
    once the new one is complete, so a kill leaves one whole checkpoint."""
    final = run_dir / "checkpoints" / CHECKPOINT
    tmp = run_dir / "checkpoints" / f"{CHECKPOINT}.tmp"
    shutil.rmtree(tmp, ignore_errors=True)
    algo.save_to_path(str(tmp.resolve()))
    (tmp / LEAGUE_FILE).write_text(json.dumps(league, indent=1))
    old = run_dir / "checkpoints" / f"{CHECKPOINT}.old"
    shutil.rmtree(old, ignore_errors=True)
    if final.exists():
        os.replace(final, old)
    os.replace(tmp, final)
    shutil.rmtree(old, ignore_errors=True)
    return final


def checkpoint_to_resume(run_dir: Path) -> Path | None:
    """The run's checkpoint, or the previous one if a kill fell between the two renames of
    :func:`save_checkpoint`; None for a run killed before its first checkpoint."""
    for name in (CHECKPOINT, f"{CHECKPOINT}.old"):
        candidate = run_dir / "checkpoints" / name
        if (candidate / LEAGUE_FILE).is_file():
            return candidate
    return None


# --------------------------------------------------------------------------- the run
def run(config_path: Path | None = None, resume: Path | None = None, runs_dir: Path = Path("runs"),
        progress: bool = True, cfg: dict[str, Any] | None = None) -> Path:
    # --- 1. configuration, validated before Ray starts -------------------------------------------
    require_rllib()
    if resume is not None:
        run_dir = Path(resume)
        cfg = load_run_config(run_dir)
    else:
        if cfg is None:
            cfg = load_config(config_path)
        games.check_options(cfg)  # rule options: the game's own validation, before a folder or Ray
        for key in unused_settings(cfg):
            print(f"note: {key} belongs to the stable-baselines3 backend; backend: rllib ignores it", file=sys.stderr)
        stamp = datetime.now(timezone.utc).strftime("%Y%m%d-%H%M%S")
        run_dir = Path(runs_dir) / f"{Path(config_path).stem if config_path else 'rllib'}-{stamp}"
        run_dir.mkdir(parents=True, exist_ok=False)
        (run_dir / "config.yaml").write_text(configs.dump(cfg))
    (run_dir / "checkpoints").mkdir(exist_ok=True)
    (run_dir / "logs").mkdir(exist_ok=True)
    game, options, pool_size = cfg["game"]["name"], cfg["rllib"], cfg["selfplay"]["pool_size"]
    total = cfg["budget"]["total_steps"]

    # --- 2. Ray and the algorithm ----------------------------------------------------------------
    prepare_ray_environment(options)
    import ray
    import torch
    from ray.rllib.utils.metrics import ENV_RUNNER_RESULTS, NUM_ENV_STEPS_SAMPLED

    # RLlib's start-up notices (new API stack, deprecations inside its own example module) say
    # nothing a user of this command can act on; errors still show
    logging.getLogger("ray.rllib").setLevel(logging.ERROR)

    from club_envs.training.rllib_backend.algorithm import build_config
    from club_envs.training.rllib_backend.export import export_algorithm
    from club_envs.training.rllib_backend.league import learner_modules

    # the learner runs in this process: with small networks one thread is several times faster
    # than torch's default of one per core, which fight the env runners for the same cores
    torch.set_num_threads(1)
    started_ray = start_ray(options)
    try:
        algo = build_config(cfg).build_algo()
        checkpoint = checkpoint_to_resume(run_dir) if resume is not None else None
        league: dict[str, Any] = {"env_steps": 0, "iteration": 0, "next_slot": 0, "snapshots": [], "best": {}}
        if checkpoint is not None:
            algo.restore_from_path(str(checkpoint.resolve()))
            # push every module (snapshots included) to the env runners
            algo.env_runner_group.sync_weights(from_worker_or_learner_group=algo.learner_group, inference_only=True)
            league.update(read_league_state(checkpoint))
            print(f"resumed from {checkpoint} at {league['env_steps']} steps", file=sys.stderr)
        else:
            fill_league(algo, game, pool_size)

        # --- 3. the loop: one RLlib iteration at a time; snapshot, evaluate, checkpoint when due --
        env_steps, best, live = int(league["env_steps"]), dict(league["best"]), {}
        marks = {name: env_steps // cfg[section]["every" if section != "selfplay" else "snapshot_every"]
                 for name, section in (("snapshot", "selfplay"), ("eval", "evaluation"), ("checkpoint", "checkpoint"))}
        writer = _tensorboard(run_dir / "logs")
        bar = tqdm(total=total, initial=min(total, env_steps), unit="step", dynamic_ncols=True,
                   desc=f"train {game} (rllib)", disable=not progress, mininterval=1.0)
        started, steps_at_start = time.perf_counter(), env_steps
        win_rate_keys = [f"{m}_win_rate" for m in learner_modules(game)]
        sample_s = learn_s = 0.0
        # SIGTERM (`kill`) or Ctrl-C ends the current iteration, writes a checkpoint and the summary, then stops.
        stop = lambda *_: live.__setitem__("_stop", True)  # noqa: E731
        previous_handlers = {sig: signal.signal(sig, stop) for sig in (signal.SIGTERM, signal.SIGINT)}
        while env_steps < total and not live.get("_stop"):
            tick = time.perf_counter()
            result = algo.train()
            seconds = time.perf_counter() - tick
            runners = result[ENV_RUNNER_RESULTS]
            done_now = int(runners.get(NUM_ENV_STEPS_SAMPLED, 0))
            env_steps += done_now
            league["iteration"] = int(league["iteration"]) + 1
            timers = result.get("timers", {})
            sample_s += float(timers.get("env_runner_sampling_timer", 0.0))
            learn_s += float(timers.get("learner_update_timer", 0.0))
            for key, value in (runners.get("league") or {}).items():
                live[key] = float(value)
            row = {"iteration": league["iteration"], "env_steps": env_steps, "seconds": round(seconds, 3),
                   "steps_per_second": round(done_now / max(seconds, 1e-9), 1),
                   "sample_seconds": round(float(timers.get("env_runner_sampling_timer", 0.0)), 3),
                   "learn_seconds": round(float(timers.get("learner_update_timer", 0.0)), 3),
                   "episodes": _count(runners.get("num_episodes")),
                   "episode_len_mean": round(float(runners.get("episode_len_mean", float("nan"))), 2),
                   "snapshots": len(league["snapshots"])}
            row.update({key: round(live.get(key, float("nan")), 4) for key in win_rate_keys})
            append_csv(run_dir / "logs" / "progress.csv", [list(row.values())], list(row))
            for key, value in row.items():
                if key != "iteration":
                    writer.add_scalar(f"rllib/{key}", value, env_steps)

            if env_steps // cfg["selfplay"]["snapshot_every"] > marks["snapshot"] and pool_size > 0:
                marks["snapshot"] = env_steps // cfg["selfplay"]["snapshot_every"]
                slot = int(league["next_slot"])
                for learner in learner_modules(game):
                    copy_into_snapshot(algo, learner, slot)
                league["snapshots"] = [s for s in league["snapshots"] if s["slot"] != slot]
                league["snapshots"].append({"slot": slot, "env_steps": env_steps})
                league["next_slot"] = (slot + 1) % pool_size
            due = env_steps // cfg["evaluation"]["every"] > marks["eval"] or env_steps >= total
            if due and not live.get("_stop"):
                marks["eval"] = env_steps // cfg["evaluation"]["every"]
                evaluate(cfg, algo, env_steps, run_dir, best, live)
            if env_steps // cfg["checkpoint"]["every"] > marks["checkpoint"] or env_steps >= total or live.get("_stop"):
                marks["checkpoint"] = env_steps // cfg["checkpoint"]["every"]
                league.update(env_steps=env_steps, best=best)
                save_checkpoint(algo, run_dir, league)
                export_algorithm(algo, cfg, run_dir / "latest", env_steps)
            live["fps"] = int((env_steps - steps_at_start) / max(1e-9, time.perf_counter() - started))
            bar.update(min(total, env_steps) - bar.n)
            bar.set_postfix({k: f"{v:.3g}" if isinstance(v, float) else v for k, v in live.items()
                             if not k.startswith("_")}, refresh=False)
        bar.close()
        writer.close()
        for sig, handler in previous_handlers.items():
            signal.signal(sig, handler)
        if live.get("_stop"):
            print(f"stopped at {env_steps} steps; continue with --resume {run_dir}", file=sys.stderr)

        # --- 4. the summary --------------------------------------------------------------------------
        seconds = time.perf_counter() - started
        summary = {"backend": "rllib", "env_steps": env_steps, "seconds": round(seconds, 2),
                   "steps_per_second": round((env_steps - steps_at_start) / max(seconds, 1e-9), 1),
                   "num_env_runners": options["num_env_runners"], "address": options["address"],
                   "time_split": {"sampling_seconds": round(sample_s, 2), "learning_seconds": round(learn_s, 2)},
                   "best": best}
        (run_dir / "summary.json").write_text(json.dumps(summary, indent=2))
        algo.stop()
    finally:
        if started_ray:
            ray.shutdown()
    print(f"run folder: {run_dir}", file=sys.stderr)
    print(f"{summary['steps_per_second']:.0f} env steps/s with {options['num_env_runners']} env runners; "
          f"sampling {sample_s:.1f}s, learning {learn_s:.1f}s", file=sys.stderr)
    return run_dir


def _count(value: Any) -> int:
    """An RLlib episode counter, which is NaN in an iteration that finished no episode."""
    try:
        return int(value)
    except (TypeError, ValueError):
        return 0


def _tensorboard(folder: Path) -> Any:
    """TensorBoard events beside ``progress.csv`` (a no-op writer when TensorBoard is missing)."""
    try:
        from torch.utils.tensorboard import SummaryWriter

        return SummaryWriter(str(folder))
    except ImportError:  # pragma: no cover -- tensorboard is in the train extra
        class _Null:
            def add_scalar(self, *args: Any, **kwargs: Any) -> None: ...
            def close(self) -> None: ...
        return _Null()
