"""``club-envs train CONFIG [--resume RUN_DIR]``: self-play training from a YAML config.

The same as ``python -m club_envs.training.train --config CONFIG``; see :mod:`club_envs.training.train` for the run
folder it writes and :mod:`club_envs.training.config` for the config schema.
"""

from __future__ import annotations

import argparse
from pathlib import Path


def add_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    p = sub.add_parser("train", help="train agents by self-play from a YAML config")
    p.add_argument("config", type=Path, nargs="?",
                   help="a training config file (configs/members_only_4p.yaml) or an example's name "
                        "(members_only_4p; club-envs configs lists them)")
    p.add_argument("--resume", type=Path, default=None, help="continue the run in this folder from its last checkpoint")
    p.add_argument("--runs-dir", type=Path, default=Path("runs"), help="where new run folders go (default runs/)")
    p.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    return p


def run(args: argparse.Namespace) -> int:
    try:
        from club_envs.training.train import run as train
    except ModuleNotFoundError as exc:  # the 'train' extra is not installed
        raise ValueError(f"training needs the 'train' extra (pip install 'club-envs[train]'): {exc}") from None
    if args.config is None and args.resume is None:
        raise ValueError("give a CONFIG file (a new run) or --resume RUN_DIR")
    if args.resume is None:
        from club_envs.cli.checks import check_output_folder

        check_output_folder(args.runs_dir, "--runs-dir")
    train(args.config, resume=args.resume, runs_dir=args.runs_dir, progress=not args.no_progress)
    return 0
