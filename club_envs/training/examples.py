"""The example training configs, by name: ``club-envs train members_only_4p`` after a plain install.

One source: the YAML files in the repository's ``configs/`` folder, the folder people read, edit
and pass as paths (``club-envs train configs/members_only_4p.yaml``). Building the wheel copies them
into the package as ``club_envs/configs/*.yaml`` (``setup.py``), so an installed package finds
them there; an editable install from a checkout has no such copy and reads ``configs/`` itself.

A config argument is a file if one exists at that path; otherwise a bare name (``members_only_4p``,
``members_only_4p.yaml``) names an example. Anything else fails with a message listing the names.
This module needs no optional extra: ``club-envs configs`` lists and copies without torch or yaml.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

SUFFIX = ".yaml"
_PACKAGE = Path(__file__).resolve().parents[1]  # club_envs/


def examples_dir() -> Path:
    """Where the example configs are: the wheel's copy, else the checkout's ``configs/``."""
    packaged = _PACKAGE / "configs"
    if packaged.is_dir():
        return packaged
    return _PACKAGE.parent / "configs"


def names() -> list[str]:
    """The example names, sorted (file names without ``.yaml``)."""
    folder = examples_dir()
    return sorted(p.stem for p in folder.glob(f"*{SUFFIX}")) if folder.is_dir() else []


def describe(name: str) -> str:
    """The opening clause of an example's leading comment (up to its first colon or full stop):
    what it is for, short enough for one line of ``club-envs configs``."""
    lines = []
    for line in path_of(name).read_text(encoding="utf-8").splitlines():
        if not line.startswith("#"):
            break
        text = line.lstrip("#").strip()
        if not text:
            break
        lines.append(text)
    text = " ".join(lines) + " "
    end = min(i for i in (text.find(". "), text.find(": "), len(text) - 1) if i >= 0)
    return text[:end].strip()


def path_of(name: str) -> Path:
    """The file of example ``name``; ``ValueError`` listing the names if there is none."""
    stem = name[: -len(SUFFIX)] if name.endswith(SUFFIX) else name
    available = names()
    if stem not in available:
        listed = ", ".join(available) or "none found in " + str(examples_dir())
        raise ValueError(f"no example config named {name!r}; the examples are: {listed} "
                         f"(club-envs configs lists them, club-envs configs copy NAME writes an editable copy)")
    return examples_dir() / f"{stem}{SUFFIX}"


def is_bare_name(arg: str | Path) -> bool:
    """``members_only_4p`` or ``members_only_4p.yaml``: no folder part, so possibly an example."""
    text = str(arg)
    return bool(text) and Path(text).name == text and Path(text).stem == text.removesuffix(SUFFIX)


def resolve(arg: str | Path) -> Path:
    """The config file ``arg`` means: the file at that path if there is one, else the example of that
    name. A missing path with a folder part (``configs/typo.yaml``) is reported as a missing file."""
    path = Path(arg)
    if path.is_file():
        return path
    if is_bare_name(arg):
        try:
            return path_of(str(arg))
        except ValueError as exc:
            raise FileNotFoundError(f"{arg}: no such config file, and {exc}") from None
    raise FileNotFoundError(f"{arg}: no such config file (an example config is named without a folder: "
                            f"{', '.join(names())})")


def copy(name: str, dest: str | Path | None = None, overwrite: bool = False) -> Path:
    """Write an editable copy of example ``name`` to ``dest`` (a file, or a folder to put
    ``NAME.yaml`` in; default the current folder) and return its path. An existing file is kept
    unless ``overwrite``."""
    source = path_of(name)
    target = Path(dest) if dest is not None else Path(source.name)
    if target.is_dir() or str(dest).endswith(("/", os.sep)):
        target = target / source.name
    if target.exists() and not overwrite:
        raise FileExistsError(f"{target} exists; pass --force to overwrite it")
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(source, target)
    return target
