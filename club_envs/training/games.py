"""What training needs to know about each game: its Gymnasium views, sides, roles and opponents.

Members Only has one side, ``player``: the learner takes one seat of a 3-, 4- or 5-player table and
every other seat draws its own opponent from the ``player`` pool.

Arkham Decoders Club has two sides with a policy each:

* ``team`` plays leader, member and Investigator (its role is in the observation). Each episode the
  learner holds one team seat; the fellow team seats draw one member of the ``team`` pool (the whole
  team plays the same snapshot or bot), the Black Man draws from the ``black_man`` pool.
* ``black_man`` plays the Black Man against a team drawn from the ``team`` pool.
"""

from __future__ import annotations

import functools
from typing import Any

import gymnasium as gym
import numpy as np

import club_envs  # noqa: F401  -- registers the environments
from club_envs.games import get_spec
from club_envs.training.config import ConfigFileError
from club_envs.training.settings import GameSettings


def game_module(name: str) -> Any:
    return get_spec(name).module


def side_names(name: str) -> tuple[str, ...]:
    """The sides of a game, each a policy that training learns."""
    return get_spec(name).side_names


def side_roles(name: str, side: str) -> list[str] | None:
    """The roles a side's policy plays (``None``: any seat of a game without roles)."""
    roles = get_spec(name).side(side).roles
    return None if roles is None else list(roles)


def opponent_side(name: str, side: str) -> str:
    """The pool a side's results are recorded in: the pool its opponents are drawn from."""
    return get_spec(name).side(side).opponents


def policy_file(name: str, side: str) -> str:
    """The name of a side's exported policy inside ``best/`` and ``latest/``."""
    return get_spec(name).side(side).policy_file


def make_view(game: GameSettings, num_players: int, role: str | None = None) -> gym.Env:
    return gym.make(get_spec(game.name).gym_id, **view_options(game, num_players, role))


def variants(game: GameSettings, side: str) -> list:
    """Factories of every (player count, role) the side's learner trains at, one drawn per episode."""
    roles = side_roles(game.name, side) or [None]
    return [functools.partial(make_view, game, n, r) for n in game.num_players for r in roles]


def view_options(game: GameSettings, num_players: int, role: str | None = None) -> dict[str, Any]:
    """The options of one training variant's Gymnasium view (one game, or a vector of them)."""
    kwargs: dict[str, Any] = {"num_players": num_players, **game.options}
    if role is not None:
        kwargs["role"] = role
    else:  # a game without roles: the learner must learn every seat, the start player's too
        kwargs.setdefault("seat", "random")
    return kwargs


def vector_variants(game: GameSettings, side: str) -> list[dict[str, Any]]:
    """The options of every player count the side's learner trains at, for the batched engine's
    vector environment (each holds a share of the games). A side of several roles holds them all in
    each (its games take the roles in turn): one vector environment per role would pay each call's
    fixed cost once per role, on a handful of games each."""
    roles = side_roles(game.name, side)
    role = None if not roles else roles[0] if len(roles) == 1 else tuple(roles)
    return [view_options(game, n, role) for n in game.num_players]


MAX_SHOWN = 300  # characters of an environment's refusal a config error shows


def check_options(game: GameSettings) -> None:
    """Build each environment once so a bad rule option fails now, naming the option."""
    for side in side_names(game.name):
        for factory in variants(game, side):
            try:
                factory().close()
            except (ValueError, TypeError) as exc:  # one line, and short: a bad value is not echoed whole
                text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
                raise ConfigFileError(f"game.options: {text[:MAX_SHOWN]}{'...' if len(text) > MAX_SHOWN else ''}") from None


def opponents_for(name: str, side: str):
    """The per-episode opponent draw for ``side``'s environments (a picklable callable
    ``(num_players, readers, rng) -> (opponents, member ids)``)."""
    spec = get_spec(name)
    if spec.side(side).roles is None:
        return functools.partial(_each_seat_draws, spec.side(side).opponents)
    return functools.partial(_each_side_draws, side, tuple((s.name, s.roles, s.one_seat) for s in spec.sides))


def _each_seat_draws(pool: str, num_players: int, readers: dict, rng: np.random.Generator) -> tuple[list, list[str]]:
    """A game without roles: every other seat draws its own member of the side's opponent ``pool``."""
    drawn = [readers[pool].sample() for _ in range(num_players - 1)]
    return [agent for _, agent in drawn], [oid for oid, _ in drawn]


def _each_side_draws(side: str, sides: tuple[tuple[str, tuple[str, ...], bool], ...], num_players: int, readers: dict,
                     rng: np.random.Generator) -> tuple[dict, list[str]]:
    """Role -> agent for every other seat: each side plays as one, from one draw of its pool (the
    learner's fellow seats from the learner's own pool; a one-seat side of the learner's is the
    learner alone). The ids are those of the other sides' draws."""
    opponents: dict[str, Any] = {}
    ids = []
    for other, roles, one_seat in sides:
        if other == side and one_seat:
            continue
        drawn_id, agent = readers[other].sample()
        opponents.update({role: agent for role in roles})
        if other != side:
            ids.append(drawn_id)
    return opponents, ids


def win_share(name: str):
    """How much of a win the learner's finished episode was (picklable; reads the view's info)."""
    return functools.partial(_win_share, get_spec(name).shared_wins)


def _win_share(shared_wins: bool, info: dict, episode_return: float) -> float:
    """Tied winners share a win (1/k each), or a side wins or loses together (every seat of the
    winning side has won)."""
    winners = info.get("winners")
    if winners is None:
        return float(episode_return > 0)
    if info["seat"] not in winners:
        return 0.0
    return 1.0 / len(winners) if shared_wins else 1.0


def fellow_seats(name: str, side: str) -> bool:
    """Whether a learner of ``side`` shares its side with other seats, which play as it does (the Arkham team)."""
    return get_spec(name).side(side).fellow_seats


def role_side(name: str, side: str) -> dict[str, str] | None:
    """Role -> ``learner`` or ``opponent`` when ``side`` is evaluated (``None``: a game without roles)."""
    return get_spec(name).role_seating(side)


def eval_setup(name: str, side: str, num_players: int) -> tuple[Any, Any, dict[str, str] | None]:
    """(game module, game config, role_side) for evaluating ``side`` at ``num_players``."""
    game = get_spec(name).module
    return game, game.Config(num_players=num_players), role_side(name, side)
