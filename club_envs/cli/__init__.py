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
_COMMANDS = ["simulate", "train", "configs", "curves", "export", "bench", "evaluate", "league", "exploit", "ship", "card",
             "play", "serve", "study", "report", "view"]


class UsageError(Exception):
    """A mistake in what the user asked for; reported as one line, exit status 2."""


class _Parser(argparse.ArgumentParser):
    """argparse with its errors on one line (the usage is one ``--help`` away), exit status 2."""

    def error(self, message: str):  # type: ignore[override]
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="club-envs", description=__doc__.splitlines()[0])
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
    except (UsageError, ValueError) as exc:
        from club_envs.limits import one_line

        print(f"club-envs {args.command}: error: {one_line(str(exc), 4000)}", file=sys.stderr)
        return 2
    except OSError as exc:  # a file or folder the command could not read or write
        where = f"{exc.filename}: " if exc.filename else ""
        print(f"club-envs {args.command}: error: {where}{exc.strerror or exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"club-envs {args.command}: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
