"""Start or resume any training run: the config is read and checked once, its class names the trainer.

Every trainer (PPO self-play on stable-baselines3 or on Ray RLlib, the two belief iterations) is a
module with ``train(settings, run_dir, state, progress)`` (``progress``: a
:class:`~club_envs.training.progress.Reporter`, or True / False for bars and lines or nothing) and,
when a config needs checks that only the trainer can make before a run folder exists (rule options
that build the game, an installed Ray), ``check_before_run(settings, resuming)``.

The first line a run prints comes as soon as its config is read (``settings.describe()``), before
the trainer's own imports (torch and stable-baselines3 take seconds to load); the second names the
run folder.
"""

from __future__ import annotations

import importlib
from pathlib import Path

from club_envs.training import config as configs
from club_envs.training import run_folder
from club_envs.training.progress import Reporter


def run(config_path: Path | None = None, resume: Path | None = None, runs_dir: Path = Path("runs"),
        progress: bool | Reporter = True, kind: type | None = None, start_from: Path | None = None) -> Path:
    """Train from ``config_path`` (a file or an example's name) in a new run folder under ``runs_dir``,
    or go on with the run folder ``resume``; returns the run folder. ``kind`` reads the config as
    that class's (a trainer's own command line); by default its ``recipe`` and ``backend`` decide.
    ``start_from``: a run folder whose learners the new run starts with (trainers that have
    ``start_from(settings, run_dir, source)``: MaskablePPO self-play)."""
    report = Reporter.of(progress)
    source = run_folder.config_file(config_path, resume)
    settings = configs.load(source, kind)
    report.say(f"{source}: {settings.describe()}; loading the trainer")
    try:
        trainer = importlib.import_module(settings.TRAINER)
    except ModuleNotFoundError as exc:  # the 'train' extra is not installed
        raise ValueError(f"training needs the 'train' extra (pip install 'club-envs[train]'): {exc}") from None
    if start_from is not None:
        if resume is not None:
            raise ValueError("--start-from starts a new MaskablePPO self-play run (a config without recipe or "
                             "backend), not a --resume")
        if not hasattr(trainer, "start_from"):
            raise ValueError(f"--start-from works with MaskablePPO self-play configs; this config trains with "
                             f"{settings.TRAINER}")
        trainer.check_start(settings, Path(start_from))  # before any folder is made
    check = getattr(trainer, "check_before_run", None)
    if check is not None:
        check(settings, resuming=resume is not None)
    run_dir, state = run_folder.open_run(settings.raw, source, resume, runs_dir)
    report.say(f"resuming {run_dir}" if resume is not None else f"new run in {run_dir}")
    if start_from is not None:
        state = trainer.start_from(settings, run_dir, Path(start_from))
        report.say(f"starting from the learners of {start_from} at steps {state['started_from']['steps']}")
    return trainer.train(settings, run_dir, state, report)
