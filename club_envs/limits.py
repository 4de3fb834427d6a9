"""Reading files a user names, within limits, with one error class per kind of file.

Records, training configs and policy files come from users, other machines and downloads; a
careless or hostile file must cost no more than a valid one and fail with one line that names the
file, the problem and what is allowed. Each loader passes its own error class
(``RecordError``, ``ConfigFileError``, ``PolicyFileError``) so its callers catch one type whatever
went wrong: a folder, a missing or unreadable file, a special file such as a pipe or
``/dev/zero``, a file too large, data nested too deep.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml


def size_text(limit: int) -> str:
    """``limit`` bytes in the unit a person reads best (``64 MiB``, ``256 KiB``)."""
    if limit >= 2**20 and limit % 2**20 == 0:
        return f"{limit // 2**20} MiB"
    if limit >= 2**10 and limit % 2**10 == 0:
        return f"{limit // 2**10} KiB"
    return f"{limit} bytes"


def read_bytes(path: str | Path, limit: int, what: str, error: type[Exception]) -> bytes:
    """The bytes of the regular file ``path`` if it holds at most ``limit`` bytes, else ``error``.

    ``what`` names the kind of file in the message (``"record file"``).
    """
    path = Path(path)
    too_large = f"{path}: the file is larger than {size_text(limit)}, the most a {what} may be"
    problem, data = None, b""
    try:
        if path.is_dir():
            problem = f"{path}: is a folder, not a {what}"
        elif not path.exists():
            problem = f"{path}: no such {what}"
        elif not path.is_file():
            problem = f"{path}: not a regular file; a {what} must be a regular file"
        elif path.stat().st_size > limit:
            problem = too_large
        else:
            with path.open("rb") as f:
                data = f.read(limit + 1)  # a file still growing cannot slip past the limit
            if len(data) > limit:
                problem = too_large
    except OSError as exc:
        problem = f"{path}: cannot read the {what} ({exc.strerror or exc.__class__.__name__})"
    except ValueError as exc:  # e.g. a path with a NUL character
        problem = f"{str(path)!r}: not a usable file name ({exc})"
    if problem is not None:
        raise error(problem)
    return data


def nesting_depth(value: Any, limit: int) -> int:
    """How deep lists and mappings nest in ``value`` (a scalar is 0).

    Counted without recursion, and given up as soon as it passes ``limit``, so a document nested
    a million levels deep is refused as quickly as one nested ``limit + 1`` deep. Shared objects
    (YAML aliases) are walked once per place they appear, so the walk also stops after a bounded
    number of nodes: see :func:`count_nodes`.
    """
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children = item.values()
        elif isinstance(item, (list, tuple)):
            children = item
        else:
            continue
        deepest = max(deepest, depth)
        if deepest > limit:
            return deepest
        stack.extend((child, depth + 1) for child in children)
    return deepest


def count_nodes(value: Any, limit: int) -> int:
    """How many values ``value`` holds when written out in full (aliases expanded), up to ``limit + 1``.

    A YAML alias bomb is a few hundred bytes whose expansion holds billions of values; counting
    stops just past ``limit``, so the check itself stays cheap.
    """
    count, stack = 0, [value]
    while stack:
        item = stack.pop()
        count += 1
        if count > limit:
            return count
        if isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, (list, tuple)):
            stack.extend(item)
    return count


def brief(value: Any, limit: int = 60) -> str:
    """``repr(value)`` cut to ``limit`` characters, for quoting a bad value in a one-line message."""
    text = repr(value) if not isinstance(value, (dict, list)) or len(value) < 20 else \
        f"<{type(value).__name__} of {len(value)} items>"
    return one_line(text, limit)


def one_line(text: str, limit: int = 300) -> str:
    """``text`` on one line, cut to ``limit`` characters: error messages quote user data, which may be huge."""
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


class _UniqueKeys(yaml.SafeLoader):
    """``yaml.SafeLoader`` that refuses a mapping naming one key twice (plain PyYAML keeps the
    last silently, so a setting written twice would quietly lose its first value)."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        seen: dict[Any, Any] = {}
        for key_node, _ in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge":  # '<<: *base' merges keys, it repeats none
                continue
            key = self.construct_object(key_node, deep=deep)
            try:
                first = seen.setdefault(key, key_node)
            except TypeError:  # an unhashable key: the constructor names it below
                continue
            if first is not key_node:
                raise yaml.constructor.ConstructorError(
                    None, None, f"duplicate key {one_line(repr(key), 60)} (first at line {first.start_mark.line + 1})",
                    key_node.start_mark)
        return super().construct_mapping(node, deep=deep)


def read_yaml(path: str | Path, error: type[Exception], what: str, max_bytes: int = 2**20, max_depth: int = 16,
              max_values: int = 10_000, typical: str = "") -> Any:
    """The one YAML document in ``path`` as plain data (PyYAML's safe loader), or ``error`` in one line.

    Refused: a file that :func:`read_bytes` refuses, text that is not UTF-8 YAML, more than one
    document, a key given twice in one mapping, nesting deeper than ``max_depth`` or more than ``max_values`` values once aliases are
    expanded (an "alias bomb"), tags that would build Python objects, numbers Python will not
    convert. Depth and aliases are checked on the parser's event stream, before any object is
    built, so a hostile file costs no more than a valid one. ``typical`` ends the size messages.
    """
    path = Path(path)
    data = read_bytes(path, max_bytes, what, error)
    hint = f"; {typical}" if typical else ""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise error(f"{path}: not valid YAML (not UTF-8 text: {exc.reason} at byte {exc.start})") from None
    problem = None
    try:
        depth = aliases = documents = 0
        for event in yaml.parse(text, Loader=yaml.SafeLoader):
            if isinstance(event, (yaml.MappingStartEvent, yaml.SequenceStartEvent)):
                depth += 1
                if depth > max_depth:
                    problem = f"nests deeper than {max_depth} levels{hint}"
                    break
            elif isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
                depth -= 1
            elif isinstance(event, yaml.AliasEvent):
                aliases += 1
                if aliases > max_values:
                    problem = f"uses more than {max_values} aliases{hint}"
                    break
            elif isinstance(event, yaml.DocumentStartEvent):
                documents += 1
                if documents > 1:
                    problem = f"holds more than one YAML document; a {what} is one document"
                    break
        raw = None if problem else yaml.load(text, Loader=_UniqueKeys)  # noqa: S506 (a SafeLoader)
    except yaml.YAMLError as exc:
        problem = f"not valid YAML ({_yaml_problem(exc)})"
    except (ValueError, TypeError, OverflowError) as exc:  # e.g. a 5000-digit number, a date 2026-13-45
        text_of = str(exc).splitlines()[0] if str(exc) else exc.__class__.__name__
        if "integer string conversion" in text_of:
            text_of = "a number of thousands of digits"
        problem = f"not valid YAML ({one_line(text_of, 200)})"
    except RecursionError:  # not reached after the depth check; kept so no input can give a traceback
        problem = f"nests deeper than {max_depth} levels{hint}"
    if problem is None and count_nodes(raw, max_values) > max_values:
        problem = f"holds more than {max_values} values once its aliases are expanded{hint}"
    if problem is not None:
        raise error(f"{path}: {problem}")
    return raw


def _yaml_problem(exc: yaml.YAMLError) -> str:
    """PyYAML's several-line message as one line: the problem and where it is."""
    problem = getattr(exc, "problem", None) or getattr(exc, "context", None) or str(exc)
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
    return one_line(f"{problem}{where}", 200)
