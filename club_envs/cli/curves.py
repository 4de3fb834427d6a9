"""``club-envs curves RUN_DIR [--out PNG] [--title TEXT]``: the learning curve of a run folder as a PNG.

Draws the run's ``evaluations.csv`` (win share against each evaluation opponent over steps, with
its 95% interval) and prints the file written; see :mod:`club_envs.training.curves`.
"""

from __future__ import annotations

import argparse
from pathlib import Path


def add_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    p = sub.add_parser("curves", help="draw a training run's learning curves (win share against each "
                                      "evaluation opponent over steps) as a PNG")
    p.add_argument("run_dir", type=Path, help="a training run folder (it holds evaluations.csv)")
    p.add_argument("--out", type=Path, default=None, help="PNG to write (default RUN_DIR/learning_curve.png)")
    p.add_argument("--title", default=None)
    return p


def run(args: argparse.Namespace) -> int:
    try:
        from club_envs.training.curves import plot
    except ModuleNotFoundError as exc:  # the 'train' extra is not installed
        raise ValueError(f"curves needs the 'train' extra (pip install 'club-envs[train]'): {exc}") from None
    print(plot(args.run_dir, args.out or args.run_dir / "learning_curve.png", args.title))
    return 0
