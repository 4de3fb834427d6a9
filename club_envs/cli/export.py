"""``club-envs export CHECKPOINT OUT_DIR``: an RLlib checkpoint as the project's policy files.

Writes ``policy.pt`` (or ``team.pt`` and ``black_man.pt``) into OUT_DIR, weights-only files that
every command and ``club_envs.agents.load`` play without Ray; prints each file written. See
:mod:`club_envs.training.rllib_backend.export`.
"""

from __future__ import annotations

import argparse
from pathlib import Path


def add_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    p = sub.add_parser("export", help="export an RLlib checkpoint as the project's policy files, which every "
                                      "command plays without Ray")
    p.add_argument("checkpoint", type=Path, help="an RLlib checkpoint folder (runs/<run>/checkpoints/rllib)")
    p.add_argument("out_dir", type=Path, help="where to write policy.pt (or team.pt and black_man.pt)")
    return p


def run(args: argparse.Namespace) -> int:
    try:
        from club_envs.training.rllib_backend.export import export_checkpoint

        paths = export_checkpoint(args.checkpoint, args.out_dir)
    except ModuleNotFoundError as exc:  # the 'rllib' extra (Ray) is not installed
        raise ValueError(f"export needs the 'rllib' extra (pip install 'club-envs[rllib]'): {exc}") from None
    for path in paths:
        print(path)
    return 0
