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
from club_envs.training.config import SIDES, ConfigFileError
from club_envs.training.settings import GameSettings

GYM_IDS = {"members_only": "club_envs/MembersOnly-v0", "arkham_decoders": "club_envs/ArkhamDecoders-v0"}
TEAM_ROLES = ("leader", "member", "investigator")


def game_module(name: str) -> Any:
    from club_envs.games import load_game

    return load_game(name)


def side_roles(name: str, side: str) -> list[str] | None:
    """The roles a side's policy plays (``None``: any seat of a game without roles)."""
    if name == "members_only":
        return None
    return list(TEAM_ROLES) if side == "team" else ["black_man"]


def opponent_side(name: str, side: str) -> str:
    """The pool a side's results are recorded in: the pool its opponents are drawn from."""
    if name == "members_only":
        return side
    return "black_man" if side == "team" else "team"


def policy_file(name: str, side: str) -> str:
    """The name of a side's exported policy inside ``best/`` and ``latest/``."""
    return "policy.pt" if name == "members_only" else f"{side}.pt"


def make_view(game: GameSettings, num_players: int, role: str | None = None) -> gym.Env:
    kwargs: dict[str, Any] = {"num_players": num_players, **game.options}
    if role is not None:
        kwargs["role"] = role
    if game.name == "members_only":
        kwargs.setdefault("seat", "random")  # the learner must learn every seat, the start player's too
    return gym.make(GYM_IDS[game.name], **kwargs)


def variants(game: GameSettings, side: str) -> list:
    """Factories of every (player count, role) the side's learner trains at, one drawn per episode."""
    roles = side_roles(game.name, side) or [None]
    return [functools.partial(make_view, game, n, r) for n in game.num_players for r in roles]


def check_options(game: GameSettings) -> None:
    """Build each environment once so a bad rule option fails now, naming the option."""
    for side in SIDES[game.name]:
        for factory in variants(game, side):
            try:
                factory().close()
            except (ValueError, TypeError) as exc:
                raise ConfigFileError(f"game.options: {exc}") from None


def opponents_for(name: str, side: str):
    """The per-episode opponent draw for ``side``'s environments (a picklable callable)."""
    if name == "members_only":
        return _members_only_opponents
    return functools.partial(_arkham_opponents, side)


def _members_only_opponents(env: gym.Env, readers: dict, rng: np.random.Generator) -> tuple[list, list[str]]:
    """Every other seat draws its own member of the ``player`` pool."""
    n = env.unwrapped.num_players
    drawn = [readers["player"].sample() for _ in range(n - 1)]
    return [agent for _, agent in drawn], [oid for oid, _ in drawn]


def _arkham_opponents(side: str, env: gym.Env, readers: dict, rng: np.random.Generator) -> tuple[dict, list[str]]:
    """Role -> agent for every other seat: the team from one ``team`` draw, the Black Man from his pool."""
    team_id, team_agent = readers["team"].sample()
    opponents: dict[str, Any] = {role: team_agent for role in TEAM_ROLES}
    ids = []
    if side == "team":
        bm_id, bm_agent = readers["black_man"].sample()
        opponents["black_man"] = bm_agent
        ids.append(bm_id)
    else:
        ids.append(team_id)
    return opponents, ids


def win_share(name: str):
    """How much of a win the learner's finished episode was (picklable; reads the view's info)."""
    if name == "members_only":
        return _members_only_win_share
    return _arkham_win_share


def _members_only_win_share(info: dict, episode_return: float) -> float:
    """Highest score wins; k tied players share it (1/k each)."""
    winners = info.get("winners")
    if winners is None:
        return float(episode_return > 0)
    return 1.0 / len(winners) if info["seat"] in winners else 0.0


def _arkham_win_share(info: dict, episode_return: float) -> float:
    """A side wins or loses together: every seat of the winning side has won."""
    winners = info.get("winners")
    if winners is None:
        return float(episode_return > 0)
    return 1.0 if info["seat"] in winners else 0.0


def eval_setup(name: str, side: str, num_players: int) -> tuple[Any, Any, dict[str, str] | None]:
    """(game module, game config, role_side) for evaluating ``side`` at ``num_players``."""
    game = game_module(name)
    config = game.Config(num_players=num_players)
    if name == "members_only":
        return game, config, None
    mine = set(side_roles(name, side))
    return game, config, {r: ("learner" if r in mine else "opponent") for r in (*TEAM_ROLES, "black_man")}
