"""Checks of command-line values, made before a command plays a game or writes a file.

Each raises ``ValueError`` with one line naming the option, the bad value and what is allowed;
:func:`club_envs.cli.main` prints it and exits with status 2. Outputs are checked, not created:
a command refused for a bad option leaves nothing behind.
"""

from __future__ import annotations

import math
import os
from pathlib import Path

# Seeds reach numpy's generators directly and through derived seeds (``seed * 1_000_003 + game``);
# 32 bits keep every derived seed within what records store (64 bits).
MAX_SEED = 2**32 - 1
MAX_GAMES = 10**9


def check_seed(value: int | None, option: str = "--seed") -> None:
    if value is not None and not 0 <= value <= MAX_SEED:
        raise ValueError(f"{option} {value} is not allowed; allowed values: 0..{MAX_SEED}")


def check_count(value: int, option: str, low: int = 1, high: int = MAX_GAMES) -> None:
    if not low <= value <= high:
        raise ValueError(f"{option} {value} is not allowed; allowed values: {low}..{high}")


def check_seconds(value: float | None, option: str) -> None:
    if value is not None and (not math.isfinite(value) or value < 0):
        raise ValueError(f"{option} {value} is not allowed; allowed values: 0 or more seconds")


def _check_parent(path: Path, option: str) -> None:
    """The nearest existing folder above ``path`` must be a folder this user can write in."""
    parent = path.parent
    while not parent.exists() and parent != parent.parent:
        parent = parent.parent
    if not parent.is_dir():
        raise ValueError(f"{option} {path}: {parent} is a file, not a folder; give a path inside a folder")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise ValueError(f"{option} {path}: cannot write in {parent} (permission denied); give a writable path")


def check_output_folder(path: Path | None, option: str) -> None:
    """``path`` is a folder, or can be created as one (it is created when the first file is written)."""
    if path is None:
        return
    if path.exists():
        if not path.is_dir():
            raise ValueError(f"{option} {path}: is a file; give a folder (it is created if missing)")
        if not os.access(path, os.W_OK | os.X_OK):
            raise ValueError(f"{option} {path}: cannot write in this folder (permission denied)")
        return
    _check_parent(path, option)


def check_output_file(path: Path | None, option: str) -> None:
    """``path`` names a file that can be written (an existing file is replaced; a folder is refused)."""
    if path is None:
        return
    if path.is_dir():
        raise ValueError(f"{option} {path}: is a folder; give a file name")
    if path.exists() and not os.access(path, os.W_OK):
        raise ValueError(f"{option} {path}: cannot write this file (permission denied)")
    _check_parent(path, option)


def check_roles(agent: object, name: str, game: object, roles: tuple[str, ...] | list[str],
                role_pairs: bool = True) -> None:
    """An agent that plays only some roles (one side of Arkham) must be given only those.

    Checked when the lineup is read, not at the agent's first move: with one name for every seat
    the roles are dealt at random, so such an agent must play every role.
    """
    by_role = getattr(agent, "by_role", None)
    if by_role is None:  # bots and single policies play any seat
        return
    missing = [r for r in roles if r not in by_role]
    if missing:
        pairs = "give it as role=agent for its roles, or " if role_pairs else ""
        raise ValueError(f"agent {name!r} plays only {', '.join(by_role)}, but here it may be dealt "
                         f"{', '.join(missing)}; {pairs}use an agent that plays every role "
                         f"({', '.join(getattr(game, 'ROLES', ()))})")
