"""Shared pieces of the fuzz suite: bounded hypothesis settings and ways to damage valid inputs.

Every fuzz test starts from an input that works (a record of a real game, a shipped config, a
policy file as training writes it, a command line that runs) and damages it the way a careless or
hostile user would: a value of the wrong type or size somewhere in the tree, a key removed or
added, a value copied from elsewhere, or bytes cut, flipped or inserted in the file. The settings
are derandomized (the same examples on every run, so a failure always repeats) and bounded so the
whole suite takes seconds; ``CLUB_ENVS_FUZZ_EXAMPLES=2000`` explores further with fresh examples.
"""

from __future__ import annotations

import copy
import os
from typing import Any

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

_EXTRA = int(os.environ.get("CLUB_ENVS_FUZZ_EXAMPLES", "0"))


def fuzz_settings(examples: int) -> settings:
    """``examples`` fixed examples, or ``CLUB_ENVS_FUZZ_EXAMPLES`` random ones when that is set."""
    return settings(
        max_examples=_EXTRA or examples,
        derandomize=not _EXTRA,
        database=None,
        deadline=None,
        suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow,
                               HealthCheck.data_too_large],
    )


# Values a hostile document may hold: huge and negative numbers, long digit strings, deep lists.
scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 10),
    st.integers(-(10**40), 10**40),
    st.sampled_from([2**31, 2**32, 2**63, 2**64, -(2**63) - 1, 10**71]),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=12),
    st.sampled_from(["", "0", "-1", "1e999", "player_0", "heuristic", "black_man", "umbrella", "hat-no",
                     "necronomicon:-7", "../../etc/passwd", "\x00", "é" * 3]),
)
json_values = st.recursive(
    scalars,
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=6), children, max_size=4),
    max_leaves=8,
)


def paths(doc: Any, prefix: tuple = ()) -> list[tuple]:
    """Every path (a tuple of keys and indices) to a value inside ``doc``, the root included."""
    found = [prefix]
    if isinstance(doc, dict):
        for key, value in doc.items():
            found.extend(paths(value, prefix + (key,)))
    elif isinstance(doc, list):
        for i, value in enumerate(doc):
            found.extend(paths(value, prefix + (i,)))
    return found


def _get(doc: Any, path: tuple) -> Any:
    for step in path:
        doc = doc[step]
    return doc


def mutate(data: st.DataObject, doc: Any, values: st.SearchStrategy = json_values, max_steps: int = 3) -> Any:
    """A copy of ``doc`` with 1..``max_steps`` damages drawn by ``data``."""
    doc = copy.deepcopy(doc)
    for _ in range(data.draw(st.integers(1, max_steps), label="steps")):
        where = paths(doc)
        path = data.draw(st.sampled_from(where), label="path")
        kind = data.draw(st.sampled_from(["replace", "delete", "add", "copy"]), label="kind")
        if not path:
            if kind in ("replace", "copy"):
                doc = data.draw(values, label="root")
            continue
        parent = _get(doc, path[:-1])
        key = path[-1]
        if kind == "replace":
            parent[key] = data.draw(values, label="value")
        elif kind == "copy":  # a value from elsewhere in the same document: plausible but wrong
            source = data.draw(st.sampled_from(where), label="source")
            parent[key] = copy.deepcopy(_get(doc, source))
        elif kind == "delete":
            del parent[key]
        elif isinstance(parent, dict):
            parent[data.draw(st.text(max_size=8), label="new key")] = data.draw(values, label="new value")
        else:
            parent.insert(key, data.draw(values, label="new item"))
    return doc


def damage_bytes(data: st.DataObject, blob: bytes) -> bytes:
    """``blob`` cut short, with bytes flipped, or with bytes inserted."""
    kind = data.draw(st.sampled_from(["truncate", "flip", "insert", "empty"]), label="byte damage")
    if kind == "empty" or not blob:
        return b""
    at = data.draw(st.integers(0, len(blob) - 1), label="at")
    if kind == "truncate":
        return blob[:at]
    if kind == "flip":
        count = data.draw(st.integers(1, 8), label="count")
        out = bytearray(blob)
        for i in range(at, min(len(out), at + count)):
            out[i] ^= data.draw(st.integers(1, 255), label="xor")
        return bytes(out)
    return blob[:at] + data.draw(st.binary(min_size=1, max_size=16), label="inserted") + blob[at:]
