"""What a game tells the rest of club-envs about itself: one frozen :class:`GameSpec` per game.

OpenSpiel keeps a ``Game`` object that every tool asks for the game's facts; this is ours. Each
game package defines its spec in its own ``spec.py`` and exports it as ``SPEC``; the registry
(:mod:`club_envs.games`) lists the packages. Every other layer -- training, play, the web pages,
evaluation, search, the shipped agents -- asks the spec instead of comparing against a game's name,
so a new game is one new package and one registry line (see ``docs/adding_a_game.md``).

The spec holds plain facts (names, player counts, roles, sides, bots, environment ids) and *hooks*:
the functions and classes the game provides, named as ``"module:attribute"`` and imported when first
asked for. A module path starting with ``.`` is inside the game's own package; a full path names a
module of an upper layer (the presenter of :mod:`club_envs.play`, the page table of
:mod:`club_envs.web`) that adapts the game for that layer. Naming them keeps this module, and every
spec, free of imports: reading a spec never loads torch or the web stack, and no layer below the
one that needs a hook ever imports it.

Hooks every game provides (:data:`REQUIRED_HOOKS`):

``config``
    the rules options, a frozen dataclass; ``Config(**kwargs)`` raises ``ValueError`` naming the
    bad option and the allowed values; ``to_record()``/``from_record(d)`` map it to records.
``make_agent(name, config, seed=None)``
    the built-in bots by name (:attr:`GameSpec.bots`).
``play_match(config, agents, seed=None)``, ``replay(record)``, ``outcomes(record)``
    one game on the bare engine and its record; a record re-played and checked; one
    :class:`SeatOutcome` per seat.
``engine``, ``observer``, ``actions``, ``render``
    the engine module (``new_game``, ``State``, ``View``), the observer class (``Observer(config)``
    with ``size`` and ``observe(view)``), the actions module (``NUM_ACTIONS``) and the text drawing
    module (``render_text``).
``gym_env``, ``aec_env``
    the Gymnasium single-agent view class and the PettingZoo ``env()`` factory.

Optional hooks (asked with :meth:`GameSpec.has_hook` first): ``search`` (ISMCTS hooks),
``presenter`` and ``web_table`` (terminal and browser play), ``belief_agent``, ``black_man_agent``
(belief files), ``win_share`` (training's view of a finished episode) and ``opponents`` (training's
per-episode opponent draw), ``vector_game`` (the batched multi-agent class, a
:class:`~club_envs.vector_game.VectorGame` called as ``cls(num_games=N, **options)``), one
``features:<name>`` hook per named set of extra policy inputs, and the replay viewer's:
``replay_steps(record)`` (the record walked on the engine: ``(state, seat, action)`` before each
action, then ``(state, None, None)``), ``hidden_facts(state)`` (``(what, value)`` pairs no seat
sees), ``belief_truths(state, seat)`` (the truth behind an agent's ``beliefs``) and
``replay_chapter(view)`` (the heat or round a moment belongs to).
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

REQUIRED_HOOKS = ("config", "make_agent", "play_match", "replay", "outcomes", "engine", "observer",
                  "actions", "render", "gym_env", "aec_env")
FEATURES_HOOK = "features:"  # prefix of the hooks naming a game's sets of extra policy inputs
# The required hooks of a package laid out as the built-in games are (rules, bots, match, replay,
# engine, observer, actions, render, env); a spec adds its Gymnasium view class and its own extras.
PACKAGE_LAYOUT_HOOKS = {
    "config": ".rules:Config",
    "make_agent": ".bots:make_agent",
    "play_match": ".match:play_match",
    "replay": ".replay:replay",
    "outcomes": ".match:outcomes",
    "engine": ".engine",
    "observer": ".observer:Observer",
    "actions": ".actions",
    "render": ".render",
    "aec_env": ".env:env",
    "search": ".search",
    "belief_agent": ".belief_agent:BeliefAgent",
    "replay_steps": ".replay:replay_steps",
    "hidden_facts": ".insight:hidden_facts",
    "belief_truths": ".insight:belief_truths",
    "replay_chapter": ".insight:chapter",
}


@dataclass(frozen=True)
class SeatOutcome:
    """How one seat fared in one game: the common currency of simulate, evaluate and report."""

    seat: int
    controller: str
    score: float
    win: float  # 1 for a sole win, 1/k for a k-way shared win, 0 for a loss
    role: str | None = None


@dataclass(frozen=True)
class Side:
    """A policy that training learns: the roles it plays and the pool its opponents come from.

    ``roles`` is ``None`` for a side that plays any seat of a game without roles. A side's results
    are recorded in the pool its opponents are drawn from (``opponents``): a Members Only player
    against other players, the Arkham team against Black Men and the other way round.
    """

    name: str
    roles: tuple[str, ...] | None
    opponents: str
    policy_file: str  # the exported policy's name inside a checkpoint folder (best/, latest/)
    # the side is one seat at every table (the Black Man): a learner of it has no fellow seats, and
    # every other seat is another side's
    one_seat: bool = False

    @property
    def fellow_seats(self) -> bool:
        """Whether a learner of this side shares it with other seats, which play as it does (the
        Arkham team); every other seat of a game without roles is an opponent."""
        return self.roles is not None and not self.one_seat


@dataclass(frozen=True)
class GameSpec:
    """One game's facts and hooks (see the module docstring)."""

    name: str  # the canonical name: configs, policy files, the CLI
    record_name: str  # the ``game`` string of its records
    title: str  # what a person reads
    package: str  # the game package, e.g. ``club_envs.members_only``
    player_counts: tuple[int, ...]
    default_players: int
    roles: tuple[str, ...]  # roles an agent can be assigned to (empty: none)
    sides: tuple[Side, ...]
    bots: tuple[str, ...]  # the built-in bots, ``make_agent``'s names
    gym_id: str
    aec_id: str
    shared_wins: bool  # tied winners share a win (1/k each); False: a side wins or loses together
    hooks: Mapping[str, str] = field(default_factory=dict)
    aliases: tuple[str, ...] = ()  # further spellings accepted for the game (old configs and records)

    def __post_init__(self) -> None:
        missing = [h for h in REQUIRED_HOOKS if h not in self.hooks]
        if missing:
            raise ValueError(f"game spec {self.name!r} lacks the hooks {', '.join(missing)}")
        if self.default_players not in self.player_counts:
            raise ValueError(f"game spec {self.name!r}: default_players {self.default_players} is not one of "
                             f"{', '.join(map(str, self.player_counts))}")
        if not self.sides:
            raise ValueError(f"game spec {self.name!r} has no sides")
        object.__setattr__(self, "hooks", MappingProxyType(dict(self.hooks)))

    # ----------------------------------------------------------------------------- names
    @property
    def names(self) -> tuple[str, ...]:
        """Every spelling that means this game, the canonical name first."""
        return tuple(dict.fromkeys((self.name, self.record_name, *self.aliases)))

    @property
    def side_names(self) -> tuple[str, ...]:
        return tuple(s.name for s in self.sides)

    def side(self, name: str) -> Side:
        """The side called ``name``; ``ValueError`` lists this game's sides."""
        for side in self.sides:
            if side.name == name:
                return side
        raise ValueError(f"{self.name} has no side {name!r}; expected one of {', '.join(self.side_names)}")

    def role_seating(self, side: str) -> dict[str, str] | None:
        """Role -> ``"learner"`` or ``"opponent"`` when ``side`` is the one evaluated: every
        evaluation, responder and watch check seats agents by it (``None``: a game without roles)."""
        mine = self.side(side).roles
        if mine is None:
            return None
        return {role: ("learner" if role in mine else "opponent") for role in self.roles}

    def opponent_roles(self, side: str) -> tuple[str, ...] | None:
        """The roles an opponent of ``side`` plays (``None``: a game without roles, any seat)."""
        seating = self.role_seating(side)
        return None if seating is None else tuple(r for r, who in seating.items() if who == "opponent")

    def side_of_role(self, role: str | None) -> Side:
        """The side whose policy plays ``role`` (the only side of a game without roles)."""
        for side in self.sides:
            if side.roles is None or role in side.roles:
                return side
        raise ValueError(f"{self.name} has no side playing role {role!r}")

    # ----------------------------------------------------------------------------- hooks
    @property
    def module(self) -> Any:
        """The game package itself (``Config``, ``make_agent``, ``play_match``, ... at its top)."""
        return importlib.import_module(self.package)

    def has_hook(self, name: str) -> bool:
        return name in self.hooks

    def hook_path(self, name: str) -> str:
        """The hook's ``module:attribute`` with its module path made absolute (an entry point)."""
        if name not in self.hooks:
            raise KeyError(f"{self.name} provides no {name!r} hook; it has {', '.join(sorted(self.hooks))}")
        target = self.hooks[name]
        return self.package + target if target.startswith(".") else target

    def hook(self, name: str) -> Any:
        """The object a hook names, imported on first use; ``KeyError`` names the game's hooks."""
        module_name, _, attribute = self.hook_path(name).partition(":")
        module = importlib.import_module(module_name)
        return getattr(module, attribute) if attribute else module

    @property
    def feature_names(self) -> tuple[str, ...]:
        """The names of this game's sets of extra policy inputs (see :mod:`club_envs.agents.features`)."""
        return tuple(h[len(FEATURES_HOOK):] for h in self.hooks if h.startswith(FEATURES_HOOK))

    def config(self, **options: Any) -> Any:
        """The game's rules options (``ValueError`` names a bad one)."""
        return self.hook("config")(**options)
