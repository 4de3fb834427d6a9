"""Extra policy inputs computed from the observation alone.

A trained policy may read more than the raw observation: a few numbers a network would otherwise
have to learn to compute, such as the probability that each Members Only bet is correct. They are
functions of the seat's observation and view only, so they can never tell a policy more than its
seat may know. A policy file names its inputs in ``meta["features"]``; every place that plays a policy
(:class:`~club_envs.agents.policy.PolicyAgent`, the training environments) applies the same
function, so the network always sees what it was trained on.

Each entry also has a batched form (:meth:`Features.transform_batch`): the training environments
gather the decisions of many games and compute their inputs together, which is where most of a
training step's time went when they were computed one decision at a time.
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import numpy as np

from club_envs.game_spec import FEATURES_HOOK


class Features(NamedTuple):
    game: str  # the game whose observations it reads (its canonical name)
    obs_size: int  # the raw observation size it expects
    extra: int  # how many numbers it appends
    # (observation, view, action mask) -> observation + extra inputs; the view is the seat's own
    transform: Callable[[np.ndarray, Any, np.ndarray], np.ndarray]
    # (observations (B, obs_size), views, masks (B, actions)) -> (B, obs_size + extra); None: row by row
    batch: Callable[[np.ndarray, Sequence[Any], np.ndarray], np.ndarray] | None = None
    # Work on (views, masks) that other agents need too, done once for a vector environment's round
    # (``prepare_key``/``prepare_batch`` of :func:`club_envs.training.selfplay_vec.drive_all`); None: none
    prepare_key: Any = None
    prepare: Callable[[Sequence[Any], np.ndarray], None] | None = None
    # The batched engines' form: (observations (B, obs_size), masks, GameRows of the engine's games)
    # -> (B, obs_size + extra), equal to ``batch`` on the same positions; None: not available there.
    # May be named as "module:function", imported on first use (a compiled module stays unloaded until then).
    from_state: Callable[[np.ndarray, np.ndarray, Any], np.ndarray] | str | None = None

    def state_inputs(self, observations: np.ndarray, masks: np.ndarray, state: Any) -> np.ndarray:
        """:attr:`from_state` of these rows (``state``: a :class:`~club_envs.agents.batched.GameRows`)."""
        if self.from_state is None:
            raise ValueError(f"policy features {self.game!r} inputs have no batched-engine form")
        return _resolve(self.from_state)(observations, masks, state)

    def transform_batch(self, observations: np.ndarray, views: Sequence[Any], masks: np.ndarray) -> np.ndarray:
        """The inputs of many decisions at once; row ``i`` equals ``transform`` of decision ``i``."""
        if self.batch is not None:
            return self.batch(observations, views, masks)
        return np.stack([self.transform(o, v, m) for o, v, m in zip(observations, views, masks)])


@functools.lru_cache(maxsize=None)
def _named(target: str) -> Callable:
    module, _, attribute = target.partition(":")
    return getattr(importlib.import_module(module), attribute)


def _resolve(function: Callable | str) -> Callable:
    return _named(function) if isinstance(function, str) else function


def _builders() -> dict[str, Any]:
    """Every registered game's named inputs: name -> (game spec, hook)."""
    from club_envs.games import specs

    return {name: spec for spec in specs() for name in spec.feature_names}


def names() -> tuple[str, ...]:
    """``"none"`` and the names of every registered game's inputs, sorted."""
    return ("none", *sorted(_builders()))


@functools.lru_cache(maxsize=None)
def _build(name: str) -> Features:
    spec = _builders()[name]
    return Features(spec.name, **spec.hook(FEATURES_HOOK + name))


def get(name: str | None) -> Features | None:
    """The features called ``name`` (``None`` or ``"none"``: the raw observation)."""
    if name in (None, "none"):
        return None
    if name not in _builders():
        raise ValueError(f"unknown policy features {name!r}; expected one of {', '.join(names())}")
    return _build(name)


def __getattr__(attribute: str) -> Any:
    if attribute == "NAMES":  # read when asked, so that a game registered later is listed too
        return names()
    raise AttributeError(f"module {__name__!r} has no attribute {attribute!r}")
