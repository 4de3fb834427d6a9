"""Belief model files, for every game: an MLP's layers and a JSON ``meta`` in one ``.npz`` archive.

A learned belief (:mod:`club_envs.members_only.belief_model`, :mod:`club_envs.arkham_decoders.
belief_model`) is a small ReLU MLP whose logits refine a game's hand-set prior. Its file holds the
layers as ``w0, b0, w1, b1, ...`` and ``meta`` (format, version, the game, the hidden sizes, where
it came from). Files are read with ``allow_pickle=False``, so loading never runs code, and need
numpy only. Everything that can be wrong with a file is one :class:`BeliefFileError` line naming it.
"""

from __future__ import annotations

import json
import os
import zipfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

BELIEF_FORMAT = "club-envs-belief"
BELIEF_VERSION = 1

Layers = list[tuple[np.ndarray, np.ndarray]]


class BeliefFileError(ValueError):
    """A belief file that cannot be read or does not hold the belief model asked for."""


def as_layers(layers: Sequence[tuple[Any, Any]]) -> Layers:
    return [(np.asarray(w, dtype=np.float32), np.asarray(b, dtype=np.float32)) for w, b in layers]


def untrained_layers(input_size: int, hidden: Sequence[int], output_size: int, seed: int = 0) -> Layers:
    """Random hidden layers and a zero last layer: logits of zero, i.e. the prior itself."""
    rng = np.random.default_rng(seed)
    sizes = [input_size, *hidden]
    layers = [(rng.normal(0, 1 / np.sqrt(a), (b, a)), np.zeros(b)) for a, b in zip(sizes, sizes[1:])]
    layers.append((np.zeros((output_size, sizes[-1])), np.zeros(output_size)))
    return as_layers(layers)


def logits(layers: Layers, inputs: np.ndarray) -> np.ndarray:
    """The MLP's output: ReLU after every layer but the last."""
    x = inputs
    for w, b in layers[:-1]:
        x = np.maximum(x @ w.T + b, 0.0)
    w, b = layers[-1]
    return x @ w.T + b


def check_shapes(layers: Layers, input_size: int, output_size: int, source: str, what: str,
                 error: type[Exception] = ValueError) -> None:
    """Every layer's shape chains from ``input_size`` to ``output_size`` (``what`` names the outputs)."""
    expected = input_size
    for i, (w, b) in enumerate(layers):
        if w.ndim != 2 or b.ndim != 1 or w.shape[0] != b.shape[0] or w.shape[1] != expected:
            raise error(f"{source}: layer {i} has weights {tuple(w.shape)} and bias {tuple(b.shape)}; "
                        f"expected (n, {expected}) and (n,)")
        expected = w.shape[0]
    if expected != output_size:
        raise error(f"{source}: the last layer has {expected} outputs; expected {output_size} ({what})")


def save(path: str | os.PathLike, layers: Layers, meta: Mapping[str, Any], game: str) -> Path:
    """Write a belief file whole, then rename it into place (a crash leaves the old file)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    info = {**meta, "format": BELIEF_FORMAT, "version": BELIEF_VERSION, "game": game,
            "hidden": [int(w.shape[0]) for w, _ in layers[:-1]]}
    arrays = {"meta": np.array(json.dumps(info, sort_keys=True))}
    for i, (w, b) in enumerate(layers):
        arrays[f"w{i}"], arrays[f"b{i}"] = w, b
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "wb") as fh:
        np.savez(fh, **arrays)
    os.replace(tmp, path)
    return path


def read(path: str | os.PathLike, error: type[Exception] = BeliefFileError) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    """The arrays and the meta of a belief file of any game, or ``error`` naming what is wrong."""
    path = Path(path)
    if not path.is_file():
        raise error(f"belief file {path} does not exist")
    try:
        with np.load(path, allow_pickle=False) as data:
            arrays = {k: data[k] for k in data.files}
    except (OSError, ValueError, zipfile.BadZipFile, EOFError) as exc:
        raise error(f"belief file {path} is not a readable .npz archive ({type(exc).__name__}: {exc})") from None
    if "meta" not in arrays:
        raise error(f"belief file {path} has no 'meta' entry; expected a {BELIEF_FORMAT} file")
    try:
        meta = json.loads(str(arrays["meta"]))
    except json.JSONDecodeError as exc:
        raise error(f"belief file {path}: its meta is not JSON ({exc})") from None
    if not isinstance(meta, dict) or meta.get("format") != BELIEF_FORMAT:
        found = meta.get("format") if isinstance(meta, dict) else None
        raise error(f"{path} is not a {BELIEF_FORMAT} file (format {found!r})")
    return arrays, meta


def load_layers(path: str | os.PathLike, game: str, error: type[Exception] = BeliefFileError) -> tuple[Layers, dict[str, Any]]:
    """The layers and meta of ``game``'s belief file: its game and version checked, every layer a
    finite float array (the caller checks the shapes its model needs)."""
    arrays, meta = read(path, error)
    if meta.get("game", game) != game:
        raise error(f"belief file {path} is for {meta.get('game')!r}, not {game}")
    if meta.get("version") != BELIEF_VERSION:
        raise error(f"belief file {path} has version {meta.get('version')!r}; this library reads version {BELIEF_VERSION}")
    layers, i = [], 0
    while f"w{i}" in arrays and f"b{i}" in arrays:
        layers.append((arrays[f"w{i}"], arrays[f"b{i}"]))
        i += 1
    if not layers:
        raise error(f"belief file {path} holds no layers (w0, b0, ...)")
    for w, b in layers:
        if not (np.issubdtype(w.dtype, np.floating) and np.issubdtype(b.dtype, np.floating)):
            raise error(f"belief file {path}: layers must be float arrays")
        if not (np.isfinite(w).all() and np.isfinite(b).all()):
            raise error(f"belief file {path}: a layer holds NaN or infinite weights")
    return as_layers(layers), meta


class BeliefMLP:
    """What every game's belief model is besides its inputs and its prior: the MLP, built
    untrained, evaluated, saved and loaded. A game's model subclasses it, naming its ``GAME``, its
    ``INPUT_SIZE`` and ``OUTPUT_SIZE`` (``OUTPUTS`` says what the outputs are, for error messages)
    and its ``DEFAULT_HIDDEN`` layers, and adds ``predict``."""

    GAME: str
    KIND = "belief"  # what the model predicts; a file's meta names it (files without one: a belief)
    INPUT_SIZE: int
    OUTPUT_SIZE: int
    OUTPUTS: str
    DEFAULT_HIDDEN: tuple[int, ...]

    def __init__(self, layers: Sequence[tuple[np.ndarray, np.ndarray]], meta: Mapping[str, Any] | None = None):
        self.layers = as_layers(layers)
        self.meta = dict(meta or {})
        self.check_shapes(self.layers, "the given layers")

    @classmethod
    def untrained(cls, hidden: Sequence[int] | None = None, seed: int = 0):
        """A model that predicts the game's prior itself (random hidden layers, zero last layer)."""
        hidden = cls.DEFAULT_HIDDEN if hidden is None else tuple(hidden)
        return cls(untrained_layers(cls.INPUT_SIZE, hidden, cls.OUTPUT_SIZE, seed), {"hidden": list(hidden)})

    def logits(self, inputs: np.ndarray) -> np.ndarray:
        return logits(self.layers, inputs)

    def tempered(self, factor: float):
        """The same model with its logits scaled by ``factor`` (0 < factor <= 1): the posterior
        becomes prior x exp(factor x logits), so the learned evidence moves the hand-set prior
        less. A belief fitted on some opponents learns their tells as well as the game; a smaller
        step keeps what holds across opponents while a mistaken tell costs less. Done by scaling
        the last layer, so the file keeps its format and every reader (the batched team included)
        plays the tempered belief; ``meta["tempered"]`` records the total factor."""
        factor = float(factor)
        if not 0.0 < factor <= 1.0:
            raise ValueError(f"a belief's temper factor must be in (0, 1], not {factor!r}")
        w, b = self.layers[-1]
        layers = [*self.layers[:-1], (w * np.float32(factor), b * np.float32(factor))]
        return type(self)(layers, {**self.meta, "tempered": float(self.meta.get("tempered", 1.0)) * factor})

    def save(self, path: str | os.PathLike, meta: Mapping[str, Any] | None = None) -> Path:
        return save(path, self.layers, {**self.meta, **(meta or {}), "kind": self.KIND}, self.GAME)

    @classmethod
    def load(cls, path: str | os.PathLike):
        layers, meta = load_layers(path, cls.GAME)
        if file_kind(meta) != cls.KIND:
            raise BeliefFileError(f"{Path(path)} holds a {file_kind(meta)} model; expected a {cls.KIND} model")
        cls.check_shapes(layers, f"belief file {Path(path)}", BeliefFileError)
        return cls(layers, meta)

    @classmethod
    def check_shapes(cls, layers: Layers, source: str, error: type[Exception] = ValueError) -> None:
        check_shapes(layers, cls.INPUT_SIZE, cls.OUTPUT_SIZE, source, cls.OUTPUTS, error)


def file_kind(meta: Mapping[str, Any]) -> str:
    """What a file's model predicts (``belief`` for files written before kinds were recorded)."""
    kind = meta.get("kind", BeliefMLP.KIND)
    return kind if isinstance(kind, str) else repr(kind)


def read_meta(path: str | os.PathLike) -> dict[str, Any]:
    """A belief file's meta, read only to pick its game's loader: empty when the file cannot be
    read (that loader then says what is wrong with it)."""
    try:
        return read(path)[1]
    except BeliefFileError:
        return {}


def meta_game(meta: Mapping[str, Any]) -> str | None:
    """The game a belief file's meta names, or ``None`` when it names none."""
    game = meta.get("game")
    return game if isinstance(game, str) else None


def file_game(path: str | os.PathLike) -> str | None:
    """The game a belief file's meta names, or ``None`` when it names none or cannot be read (the
    game's own loader then says what is wrong with the file)."""
    return meta_game(read_meta(path))
