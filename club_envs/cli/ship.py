"""``club-envs ship RUN_DIR --side SIDE --name NAME [--eval FILE ...]``: a trained agent shipped with its model card.

Copies the run's best policy (or its last with ``--policy latest``; a belief run's best model)
into ``club_envs/agents/shipped/`` under NAME and
writes its model card beside it; see :mod:`club_envs.training.ship` for what the card holds.
``club-envs card`` later adds a ``club-envs exploit`` result to a shipped card.
"""

from __future__ import annotations

import argparse
from pathlib import Path


def add_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    p = sub.add_parser("ship", help="ship a trained policy inside the package, with its model card")
    p.add_argument("run_dir", type=Path,
                   help="a training run folder (its best/ policy or belief model is shipped, or latest/ with --policy latest)")
    p.add_argument("--policy", choices=["best", "latest"], default="best",
                   help="best: the policy the run's evaluation kept (best/); latest: the run's last policy (latest/), "
                        "for a point fixed in advance rather than picked by the run")
    p.add_argument("--side", required=True, help="player (Members Only), team or black_man")
    p.add_argument("--name", required=True, help="shipped name, e.g. members_only, arkham_team")
    p.add_argument("--eval", type=Path, nargs="*", default=[],
                   help="club-envs evaluate --json files (line-ups, or --pool results with their gains)")
    p.add_argument("--command", default=None, help="the training command to quote (default: from the config name)")
    p.add_argument("--greedy", action="store_true", help="the shipped agent takes its most probable action by default")
    p.add_argument("--notes", default="", help="a paragraph for the card (what was tried, caveats)")
    p.add_argument("--temper", type=float, default=None, metavar="FACTOR",
                   help="belief runs: scale the learned belief's logits by FACTOR in (0, 1] before shipping "
                        "(posterior = prior x exp(FACTOR x logits)); the card records it")
    p.add_argument("--exploit", type=Path, nargs="*", default=[],
                   help="result.json files of club-envs exploit runs against these weights")
    return p


def run(args: argparse.Namespace) -> int:
    try:
        from club_envs.training import ship
    except ModuleNotFoundError as exc:  # the 'train' extra is not installed
        raise ValueError(f"ship needs the 'train' extra (pip install 'club-envs[train]'): {exc}") from None
    paths = ship.ship(args.run_dir, args.side, args.name, evaluations=args.eval, command=args.command,
                      greedy=args.greedy, notes=args.notes, exploit=args.exploit, taken=args.policy,
                      temper=args.temper)
    print(f"shipped {args.name}: " + " and ".join(map(str, paths)))
    return 0
