"""``club-envs card NAME RESULT [--wall TEXT] [--note TEXT]``: an exploit result in a shipped agent's model card.

Adds a ``club-envs exploit`` result (its ``result.json``, or the ``--json`` file) to the
"Exploitability" section of the shipped agent NAME's card and re-renders the card; a result with
the same settings replaces the older one. See :func:`club_envs.training.ship.record_in_card`.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path


def add_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    p = sub.add_parser("card", help="put a club-envs exploit result in a shipped agent's model card")
    p.add_argument("name", help="the shipped agent, e.g. members_only_belief")
    p.add_argument("result", type=Path, help="the run's result.json (or the --json file)")
    p.add_argument("--wall", default=None, help="the run's wall time, as text")
    p.add_argument("--note", default="", help="a paragraph on how to read the figures")
    return p


def run(args: argparse.Namespace) -> int:
    try:
        from club_envs.training import ship
    except ModuleNotFoundError as exc:  # the 'train' extra is not installed
        raise ValueError(f"card needs the 'train' extra (pip install 'club-envs[train]'): {exc}") from None
    path = ship.record_in_card(json.loads(args.result.read_text()), args.name, wall=args.wall, note=args.note)
    print(f"recorded in {path} and {path.with_suffix('.md')}")
    return 0
