"""``club-envs``: the command-line entry point.

Each sub-command lives in its own module exposing ``add_parser(subparsers)`` and ``run(args)``;
this module only collects them. A user error (bad option, unknown agent, corrupt file) prints one
line naming the problem and exits with status 2, never a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import sys

# Sub-commands in the order ``--help`` lists them; a module that cannot be imported (an optional
# extra not installed) is left out of the menu rather than breaking the others.
_COMMANDS = ["simulate", "train", "evaluate", "league", "play", "serve", "report"]


class UsageError(Exception):
    """A mistake in what the user asked for; reported as one line, exit status 2."""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="club-envs", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name in _COMMANDS:
        try:
            module = importlib.import_module(f"club_envs.cli.{name}")
        except ModuleNotFoundError as exc:
            if exc.name and exc.name.startswith("club_envs.cli."):
                continue  # this command does not exist yet
            raise
        command = module.add_parser(sub)
        command.set_defaults(_run=module.run)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args._run(args) or 0)
    except (UsageError, ValueError, FileNotFoundError) as exc:
        print(f"club-envs {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"club-envs {args.command}: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
