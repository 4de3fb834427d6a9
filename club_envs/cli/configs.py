"""``club-envs configs [list | copy NAME [DEST]]``: the example training configs.

``club-envs train NAME`` trains from an example directly; ``copy`` writes an editable copy to start
your own config from (``club-envs train my_copy.yaml``). See :mod:`club_envs.training.examples`
for where the examples come from.
"""

from __future__ import annotations

import argparse

from club_envs.training import examples


def add_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    p = sub.add_parser("configs", help="list the example training configs, or copy one to edit")
    actions = p.add_subparsers(
        dest="configs_action", metavar="ACTION",
        help="list (the default): each example's name and what it is for; copy NAME DEST: write an editable "
             "copy of NAME to DEST (a file, or a folder for NAME.yaml; default NAME.yaml here; --force overwrites)")
    actions.add_parser("list", help="the example names and what each is for (the default)")
    copy = actions.add_parser("copy", help="write an editable copy of an example")
    copy.add_argument("name", help="an example name, e.g. members_only_4p")
    copy.add_argument("dest", nargs="?", default=None,
                      help="the file to write, or a folder for NAME.yaml (default: NAME.yaml here)")
    copy.add_argument("--force", action="store_true", help="overwrite an existing file")
    return p


def run(args: argparse.Namespace) -> int:
    if args.configs_action == "copy":
        target = examples.copy(args.name, args.dest, overwrite=args.force)
        print(f"wrote {target}; train from it with: club-envs train {target}")
        return 0
    names = examples.names()
    width = max(map(len, names), default=0)
    for name in names:
        print(f"{name:<{width}}  {examples.describe(name)}")
    print(f"\n{len(names)} examples in {examples.examples_dir()}: club-envs train NAME trains from one, "
          "club-envs configs copy NAME [DEST] writes a copy to edit")
    return 0
