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
from pathlib import Path
from typing import Any


from club_envs.training import config as configs
from club_envs.training import evaluations, games, launch
from club_envs.training.run_folder import append_csv
from club_envs.training.progress import Reporter
from club_envs.training.rllib_backend.league_file import LEAGUE_FILE, read_league_state
from club_envs.training.rllib_backend.options import LOCAL
from club_envs.training.settings import RllibConfig

CHECKPOINT = "rllib"
# the folder holding the club_envs package (a checkout or site-packages)
PROJECT_ROOT = Path(__file__).resolve().parents[3]


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


def prepare_ray_environment(address: str) -> None:
    """Settings Ray reads from the environment when it is first imported."""
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")  # no usage report: the machine may be offline
    if address != LOCAL and "RAY_AUTH_MODE" not in os.environ and _auth_token_available():
        # a cluster started by `ray start` (Ray 2.60) requires token authentication by default, and
        # a driver joining it must ask for it, or the cluster refuses the connection
        os.environ["RAY_AUTH_MODE"] = "token"


def start_ray(address: str, num_cpus: int) -> bool:
    """Start a local Ray (``num_cpus`` CPUs) or join the cluster at ``address``; False if Ray was already up."""
    prepare_ray_environment(address)
    import ray

    if ray.is_initialized():
        return False
    # the env runners import club_envs from the same place as this process, installed or not
    python_path = os.pathsep.join(filter(None, [str(PROJECT_ROOT), os.environ.get("PYTHONPATH")]))
    runtime_env = {"env_vars": {"PYTHONPATH": python_path}}
    if address == LOCAL:
        # address="local": always a new Ray of our own, even if a `ray start` cluster runs here
        ray.init(address="local", num_cpus=num_cpus, include_dashboard=False, log_to_driver=False,
                 runtime_env=runtime_env, logging_level="ERROR")
    else:
        try:
            ray.init(address=address, log_to_driver=False, logging_level="ERROR")
        except (ConnectionError, RuntimeError) as exc:
            raise configs.ConfigFileError(
                f"rllib.address: cannot join the Ray cluster at {address!r} ({exc}). Is the head "
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
def evaluate(settings: RllibConfig, algo: Any, env_steps: int, run_dir: Path, best: dict, live: dict,
             report: Reporter | None = None) -> None:
    """Play the evaluation games with the exported policies; a failure is reported, never fatal."""
    from club_envs.training.rllib_backend.export import export_algorithm

    ev = settings.evaluation
    if ev.games <= 0:
        return
    try:
        rows = []
        for side, path in export_algorithm(algo, settings, run_dir / "eval", env_steps).items():
            side_rows = evaluations.evaluate_policy(path, side, settings.game, ev, settings.seed, f"{side}@{env_steps}",
                                                    deterministic=False, report=report)
            for opponent in ev.opponents:
                label = f"eval_{opponent}" if side == "player" else f"eval_{side}_{opponent}"
                live[label] = evaluations.mean_share(side_rows, opponent)
            evaluations.keep_best(run_dir, path, path.name, evaluations.judged_share(side_rows, ev), best, side,
                                  env_steps=env_steps)
            rows += side_rows
        evaluations.write(run_dir, rows, evaluations.RLLIB_COLUMNS, env_steps=env_steps)
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
        progress: bool = True) -> Path:
    """A run on RLlib from ``config_path``, or ``resume`` of its run folder."""
    require_rllib()
    return launch.run(config_path, resume, runs_dir, progress, kind=RllibConfig)


def check_before_run(settings: RllibConfig, resuming: bool) -> None:
    """Ray is installed; for a new run the rule options build the game, and the settings this
    backend ignores are named -- all before a run folder or Ray."""
    require_rllib()
    if resuming:
        return
    games.check_options(settings.game)
    for key in settings.unused:
        print(f"note: {key} belongs to the stable-baselines3 backend; backend: rllib ignores it", file=sys.stderr)


def train(settings: RllibConfig, run_dir: Path, state: dict, progress: bool | Reporter = True) -> Path:
    """RLlib iterations up to ``budget.total_steps`` in ``run_dir``, from its checkpoint if it has one."""
    (run_dir / "checkpoints").mkdir(exist_ok=True)
    (run_dir / "logs").mkdir(exist_ok=True)
    options = settings.rllib
    prepare_ray_environment(options.address)
    import ray
    import torch

    # RLlib's start-up notices (new API stack, deprecations inside its own example module) say
    # nothing a user of this command can act on; errors still show
    logging.getLogger("ray.rllib").setLevel(logging.ERROR)
    # the learner runs in this process: with small networks one thread is several times faster
    # than torch's default of one per core, which fight the env runners for the same cores
    torch.set_num_threads(1)
    report = Reporter.of(progress)
    report.say("starting Ray" + (f" at {options.address}" if options.address else "") + " and building the algorithm")
    started_ray = start_ray(options.address, options.num_cpus)
    try:
        algo, league = start_algorithm(settings, run_dir)
        loop = RllibLoop(settings, run_dir, algo, league, progress)
        loop.run()
        summary = loop.summarise()
        algo.stop()
    finally:
        if started_ray:
            ray.shutdown()
    print(f"run folder: {run_dir}", file=sys.stderr)
    print(f"{summary['steps_per_second']:.0f} env steps/s with {options.num_env_runners} env runners; "
          f"sampling {loop.sample_s:.1f}s, learning {loop.learn_s:.1f}s", file=sys.stderr)
    return run_dir


def start_algorithm(settings: RllibConfig, run_dir: Path) -> tuple[Any, dict[str, Any]]:
    """The RLlib algorithm and the league state: restored from the run's checkpoint, or new with
    every snapshot slot holding the untrained learner."""
    from club_envs.training.rllib_backend.algorithm import build_config

    algo = build_config(settings).build_algo()
    checkpoint = checkpoint_to_resume(run_dir)
    league: dict[str, Any] = {"env_steps": 0, "iteration": 0, "next_slot": 0, "snapshots": [], "best": {}}
    if checkpoint is not None:
        algo.restore_from_path(str(checkpoint.resolve()))
        # push every module (snapshots included) to the env runners
        algo.env_runner_group.sync_weights(from_worker_or_learner_group=algo.learner_group, inference_only=True)
        league.update(read_league_state(checkpoint))
        print(f"resumed from {checkpoint} at {league['env_steps']} steps", file=sys.stderr)
    else:
        fill_league(algo, settings.game.name, settings.selfplay.pool_size)
    return algo, league


class RllibLoop:
    """One RLlib iteration at a time; snapshot, evaluate and checkpoint when due. SIGTERM (``kill``)
    or Ctrl-C ends the current iteration, writes a checkpoint and the summary, then stops."""

    def __init__(self, settings: RllibConfig, run_dir: Path, algo: Any, league: dict[str, Any],
                 progress: bool | Reporter) -> None:
        from club_envs.training.rllib_backend.league import learner_modules

        self.settings, self.run_dir, self.algo, self.league = settings, run_dir, algo, league
        self.env_steps, self.best, self.live = int(league["env_steps"]), dict(league["best"]), {}
        self.marks = {name: self.env_steps // every for name, every in
                      (("snapshot", settings.selfplay.snapshot_every), ("eval", settings.evaluation.every),
                       ("checkpoint", settings.checkpoint_every))}
        self.writer = _tensorboard(run_dir / "logs")
        self.report = Reporter.of(progress)
        self.bar = self.report.phase(f"train {settings.game.name} (rllib)", settings.total_steps, unit="step",
                                     initial=min(settings.total_steps, self.env_steps), unit_scale=True, mininterval=1.0)
        self.started, self.steps_at_start = time.perf_counter(), self.env_steps
        self.win_rate_keys = [f"{m}_win_rate" for m in learner_modules(settings.game.name)]
        self.sample_s = self.learn_s = 0.0

    def run(self) -> None:
        total, live = self.settings.total_steps, self.live
        stop = lambda *_: live.__setitem__("_stop", True)  # noqa: E731
        previous_handlers = {sig: signal.signal(sig, stop) for sig in (signal.SIGTERM, signal.SIGINT)}
        while self.env_steps < total and not live.get("_stop"):
            self.iterate()
            self.when_due()
            live["fps"] = int((self.env_steps - self.steps_at_start) / max(1e-9, time.perf_counter() - self.started))
            self.bar.update(min(total, self.env_steps) - self.bar.n)
            self.bar.set_postfix({k: f"{v:.3g}" if isinstance(v, float) else v for k, v in live.items()
                                  if not k.startswith("_")}, refresh=False)
        self.bar.close()
        self.writer.close()
        for sig, handler in previous_handlers.items():
            signal.signal(sig, handler)
        if live.get("_stop"):
            print(f"stopped at {self.env_steps} steps; continue with --resume {self.run_dir}", file=sys.stderr)

    def iterate(self) -> None:
        """One ``algo.train()``, logged to ``logs/progress.csv`` and TensorBoard."""
        from ray.rllib.utils.metrics import ENV_RUNNER_RESULTS, NUM_ENV_STEPS_SAMPLED

        tick = time.perf_counter()
        result = self.algo.train()
        seconds = time.perf_counter() - tick
        runners = result[ENV_RUNNER_RESULTS]
        done_now = int(runners.get(NUM_ENV_STEPS_SAMPLED, 0))
        self.env_steps += done_now
        self.league["iteration"] = int(self.league["iteration"]) + 1
        timers = result.get("timers", {})
        self.sample_s += float(timers.get("env_runner_sampling_timer", 0.0))
        self.learn_s += float(timers.get("learner_update_timer", 0.0))
        for key, value in (runners.get("league") or {}).items():
            self.live[key] = float(value)
        row = {"iteration": self.league["iteration"], "env_steps": self.env_steps, "seconds": round(seconds, 3),
               "steps_per_second": round(done_now / max(seconds, 1e-9), 1),
               "sample_seconds": round(float(timers.get("env_runner_sampling_timer", 0.0)), 3),
               "learn_seconds": round(float(timers.get("learner_update_timer", 0.0)), 3),
               "episodes": _count(runners.get("num_episodes")),
               "episode_len_mean": round(float(runners.get("episode_len_mean", float("nan"))), 2),
               "snapshots": len(self.league["snapshots"])}
        row.update({key: round(self.live.get(key, float("nan")), 4) for key in self.win_rate_keys})
        append_csv(self.run_dir / "logs" / "progress.csv", [list(row.values())], list(row))
        for key, value in row.items():
            if key != "iteration":
                self.writer.add_scalar(f"rllib/{key}", value, self.env_steps)

    def when_due(self) -> None:
        """A snapshot into the league's next slot, an evaluation, a checkpoint: whichever has fallen due."""
        from club_envs.training.rllib_backend.export import export_algorithm
        from club_envs.training.rllib_backend.league import learner_modules

        settings, env_steps, league = self.settings, self.env_steps, self.league
        pool_size, total = settings.selfplay.pool_size, settings.total_steps
        if env_steps // settings.selfplay.snapshot_every > self.marks["snapshot"] and pool_size > 0:
            self.marks["snapshot"] = env_steps // settings.selfplay.snapshot_every
            slot = int(league["next_slot"])
            for learner in learner_modules(settings.game.name):
                copy_into_snapshot(self.algo, learner, slot)
            league["snapshots"] = [s for s in league["snapshots"] if s["slot"] != slot]
            league["snapshots"].append({"slot": slot, "env_steps": env_steps})
            league["next_slot"] = (slot + 1) % pool_size
        due = env_steps // settings.evaluation.every > self.marks["eval"] or env_steps >= total
        if due and not self.live.get("_stop"):
            self.marks["eval"] = env_steps // settings.evaluation.every
            evaluate(settings, self.algo, env_steps, self.run_dir, self.best, self.live, self.report)
        if env_steps // settings.checkpoint_every > self.marks["checkpoint"] or env_steps >= total or self.live.get("_stop"):
            self.marks["checkpoint"] = env_steps // settings.checkpoint_every
            league.update(env_steps=env_steps, best=self.best)
            save_checkpoint(self.algo, self.run_dir, league)
            export_algorithm(self.algo, settings, self.run_dir / "latest", env_steps)

    def summarise(self) -> dict[str, Any]:
        options = self.settings.rllib
        seconds = time.perf_counter() - self.started
        summary = {"backend": "rllib", "env_steps": self.env_steps, "seconds": round(seconds, 2),
                   "steps_per_second": round((self.env_steps - self.steps_at_start) / max(seconds, 1e-9), 1),
                   "num_env_runners": options.num_env_runners, "address": options.address,
                   "time_split": {"sampling_seconds": round(self.sample_s, 2), "learning_seconds": round(self.learn_s, 2)},
                   "best": self.best}
        (self.run_dir / "summary.json").write_text(json.dumps(summary, indent=2))
        return summary


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
