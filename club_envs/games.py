"""The registry of the games club-envs knows: one line per game package.

Each game package defines its :class:`~club_envs.game_spec.GameSpec` in ``spec.py`` and exports it
as ``SPEC``; :data:`BUILT_IN` lists the packages, and :func:`register` adds another one (a game
outside this repository, or the toy game of the tests). Everything else asks :func:`get_spec` for a
game's facts and hooks, by any of its names (``"members_only"``, ``"arkham_decoders"``,
``"arkham_decoders_club"``, ``"arkham"``), or :func:`spec_of` for the spec of a game package.

A game package also exports, from its ``__init__``, the names the tools call on it directly:
``RECORD_NAME``, ``PLAYER_COUNTS``, ``ROLES``, ``AGENT_NAMES``, ``Config``, ``make_agent``,
``play_match``, ``replay`` and ``outcomes`` (the ``config``, ``make_agent``, ``play_match``,
``replay`` and ``outcomes`` hooks of its spec).
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any

from club_envs.game_spec import GameSpec, SeatOutcome

__all__ = ["BUILT_IN", "GameSpec", "SeatOutcome", "canonical_name", "game_names", "get_spec", "load_game",
           "register", "spec_of", "specs"]

BUILT_IN = ("club_envs.members_only", "club_envs.arkham_decoders")  # the registry: one line per game
_SPECS: dict[str, GameSpec] = {}  # canonical name -> spec, in registration order
_NAMES: dict[str, str] = {}  # every accepted spelling -> canonical name


def register(spec: GameSpec) -> GameSpec:
    """Add a game (its spec names its package) and its environments' ids with Gymnasium and
    PettingZoo; ``ValueError`` if one of its names is taken by another game."""
    for name in spec.names:
        owner = _NAMES.get(name.lower())
        if owner is not None and owner != spec.name:
            raise ValueError(f"game name {name!r} of {spec.name!r} is already taken by {owner!r}")
    _SPECS[spec.name] = spec
    for name in spec.names:
        _NAMES[name.lower()] = spec.name
    _register_environments(spec)
    return spec


def _register_environments(spec: GameSpec) -> None:
    import warnings

    import gymnasium
    import pettingzoo

    if spec.gym_id not in gymnasium.registry:
        gymnasium.register(id=spec.gym_id, entry_point=spec.hook_path("gym_env"), disable_env_checker=True)
    if spec.aec_id not in pettingzoo.aec_registry:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            pettingzoo.register("aec", spec.aec_id, entry_point=spec.hook_path("aec_env"))


def _ensure_built_in() -> None:
    if not all(p in {s.package for s in _SPECS.values()} for p in BUILT_IN):
        for package in BUILT_IN:
            register(importlib.import_module(package + ".spec").SPEC)


def specs() -> tuple[GameSpec, ...]:
    """Every registered game, the built-in ones first."""
    _ensure_built_in()
    return tuple(_SPECS.values())


def get_spec(name: str) -> GameSpec:
    """The spec of the game called ``name`` (any accepted spelling), or a ``ValueError`` naming them."""
    _ensure_built_in()
    key = str(name).strip().lower()
    if key not in _NAMES:
        raise ValueError(f"unknown game {name!r}; expected one of {', '.join(sorted(_NAMES))}")
    return _SPECS[_NAMES[key]]


def spec_of(game: Any) -> GameSpec:
    """The spec of ``game``: a spec, a game package (its ``SPEC``) or any name of a game."""
    if isinstance(game, GameSpec):
        return game
    if isinstance(game, str):
        return get_spec(game)
    spec = getattr(game, "SPEC", None)
    if not isinstance(spec, GameSpec):
        raise ValueError(f"{game!r} is not a game package (it exports no SPEC)")
    return spec


def canonical_name(name: str) -> str:
    """The record name of the game called ``name`` (the ``game`` string of its records)."""
    return get_spec(name).record_name


def load_game(name: str) -> ModuleType:
    """The game package for ``name`` (any accepted spelling)."""
    return get_spec(name).module


def game_names() -> list[str]:
    """The record names of every registered game, sorted."""
    return sorted(s.record_name for s in specs())
