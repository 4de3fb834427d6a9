"""``club-envs train CONFIG [--resume RUN_DIR | --start-from RUN_DIR]``: self-play training from a YAML config.

Every trainer runs from here: the config picks it (MaskablePPO, :mod:`club_envs.training.train`; a
``recipe:`` picks belief iteration, :mod:`club_envs.training.belief` or
:mod:`club_envs.training.arkham_belief`; ``backend: rllib`` picks :mod:`club_envs.training.rllib_backend`).
``--config CONFIG`` is the same as CONFIG (the form the checkout's ``python -m training.train`` takes).
See :mod:`club_envs.training.train` for the run folder it writes and :mod:`club_envs.training.config`
for the config schema.

What it prints (on standard error, every line flushed): a line naming the run as soon as the config
is read, then a progress bar for every long phase (count, rate, time left) and a line as each ends;
to a file or a pipe the bars become a plain line every 30 seconds (:mod:`club_envs.training.progress`).
``--no-progress`` drops the bars and keeps the lines; ``--quiet`` prints neither.
"""

from __future__ import annotations

import argparse
from pathlib import Path


def add_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    p = sub.add_parser("train", help="train agents by self-play from a YAML config")
    p.add_argument("config", type=Path, nargs="?",
                   help="a training config file (configs/members_only_4p.yaml) or an example's name "
                        "(members_only_4p; club-envs configs lists them)")
    p.add_argument("--config", type=Path, default=None, dest="config_option", metavar="CONFIG",
                   help="the same as CONFIG")
    p.add_argument("--resume", type=Path, default=None, help="continue the run in this folder from its last checkpoint")
    p.add_argument("--start-from", type=Path, default=None, metavar="RUN_DIR",
                   help="a new run of CONFIG that starts with this run folder's newest learners, snapshot pools "
                        "and step counts (MaskablePPO self-play; same game, network and critic)")
    p.add_argument("--runs-dir", type=Path, default=Path("runs"), help="where new run folders go (default runs/)")
    shown = p.add_mutually_exclusive_group()
    shown.add_argument("--no-progress", action="store_true",
                       help="no progress bars (a line per finished phase, generation and evaluation stays)")
    shown.add_argument("--quiet", "-q", action="store_true",
                       help="no progress bars and no progress lines (warnings and errors still show)")
    return p


def run(args: argparse.Namespace) -> int:
    try:  # the trainer itself (torch, stable-baselines3) is imported once the config is read
        from club_envs.training.launch import run as train
        from club_envs.training.progress import Reporter
    except ModuleNotFoundError as exc:  # the 'train' extra is not installed
        raise ValueError(f"training needs the 'train' extra (pip install 'club-envs[train]'): {exc}") from None
    if args.config is not None and args.config_option is not None:
        raise ValueError("give the CONFIG file once (as CONFIG or as --config CONFIG)")
    config = args.config if args.config_option is None else args.config_option
    if config is None and args.resume is None:
        raise ValueError("give a CONFIG file (a new run) or --resume RUN_DIR")
    if args.resume is None:
        from club_envs.cli.checks import check_output_folder

        check_output_folder(args.runs_dir, "--runs-dir")
    report = Reporter.quiet() if args.quiet else Reporter(bars=not args.no_progress)
    train(config, resume=args.resume, runs_dir=args.runs_dir, progress=report, start_from=args.start_from)
    return 0
