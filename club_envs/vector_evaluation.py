"""Series of games on the batched engines: a batched policy against a bot, every game at once.

:func:`club_envs.evaluation.learner_win_share` plays a policy's evaluation games one after another
on the reference engine; here the same kind of series is one vector environment per learner seat
(``gymnasium.make_vec(..., vectorization_mode="vector_entry_point")``), each game played to its
end once, the learner's moves answered for all games by one call of the policy. Used wherever the
opponent is a bot the batched engine plays itself (:func:`available`): the training runs'
evaluations on the batched engine.

The series is balanced as the reference one is: without roles the learner sits in every seat
equally often (games split over the seats); with roles it plays one side (``role_side``) and its
fellow seats are played by the same policy. A tie for the win shares it (1/k), a side's win is
whole. The deals come from ``seed``: the same seed, the same deals at every evaluation -- not the
reference engine's deals for that seed, so the two series agree in expectation, not game by game.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import gymnasium
import numpy as np

from club_envs.agents.batched import BatchedPolicy, GameRows, ask
from club_envs.evaluation import SeriesResult, Tally
from club_envs.games import get_spec
from club_envs.stats import wilson_interval

VECTOR_ENV_HOOK = "vector_env"


def available(game: str, opponent: str) -> bool:
    """Whether ``game``'s batched engine plays the bot ``opponent`` itself."""
    spec = get_spec(game)
    if not spec.has_hook(VECTOR_ENV_HOOK):
        return False
    return opponent in getattr(spec.hook(VECTOR_ENV_HOOK), "OPPONENT_BOTS", ())


def policy_win_share(game: str, num_players: int, learner: BatchedPolicy, opponent: Any, games: int, seed: int,
                     role_side: dict[str, str] | None = None) -> tuple[float, tuple[float, float]]:
    """The win share of ``learner`` against ``opponent`` (a bot's name, or anything else the vector
    environment seats: :func:`club_envs.agents.vector_opponents.vector_opponent`) over ``games``
    games at ``num_players``, with its 95% Wilson interval (see the module docstring)."""
    finished = play_games(game, num_players, learner, opponent, games, seed, role_side)
    wins = sum(f.shares[f.seat] for f in finished)
    return wins / games, wilson_interval(wins, games)


class Finished(NamedTuple):
    """One game of a batched series: the learner's seat, every seat's score and win share, and in a
    game with roles every seat's role (its index in the game's roles)."""

    seat: int
    scores: np.ndarray
    shares: np.ndarray
    roles: np.ndarray | None = None


def play_games(game: str, num_players: int, learner: BatchedPolicy, opponent: Any, games: int, seed: int,
               role_side: dict[str, str] | None = None) -> list[Finished]:
    """``games`` games of ``learner`` against ``opponent``, balanced over the learner's seats (or
    its side's roles), each played once to its end."""
    spec = get_spec(game)
    named = [opponent] if isinstance(opponent, str) else opponent if isinstance(opponent, list) else \
        list(opponent.values()) if isinstance(opponent, dict) else []
    for bot in named:
        if isinstance(bot, str) and not available(game, bot):
            raise ValueError(f"{spec.name}'s batched engine does not play {bot!r}")
    seatings = _seatings(num_players, learner, opponent, role_side)
    counts = [games // len(seatings) + (1 if k < games % len(seatings) else 0) for k in range(len(seatings))]
    finished: list[Finished] = []
    for k, ((place, opponents), count) in enumerate(zip(seatings, counts)):
        if count:
            env = gymnasium.make_vec(spec.gym_id, num_envs=count, vectorization_mode="vector_entry_point",
                                     num_players=num_players, opponents=opponents, **place).unwrapped
            finished += _play_once(env, learner, seed * 1_000_003 + k, spec.shared_wins)
            env.close()
    return finished


def series(game: str, num_players: int, name: str, learner: BatchedPolicy, opponents: str | list[str], games: int,
           seed: int) -> SeriesResult:
    """``name`` (played by ``learner``) against ``opponents`` -- one bot in every other seat, or a
    list of bots, one per other seat clockwise from it -- as :func:`club_envs.evaluation.play_series`
    tallies a rotated line-up: per agent its seats, wins (a tie shared) and scores."""
    others = [opponents] * (num_players - 1) if isinstance(opponents, str) else list(opponents)
    if len(others) != num_players - 1:
        raise ValueError(f"{num_players} players need {num_players - 1} opponents, got {len(others)}")
    by_agent = {agent: Tally(agent) for agent in (name, *others)}
    seated = others[0] if len(set(others)) == 1 else others
    for f in play_games(game, num_players, learner, seated, games, seed):
        for seat, (score, share) in enumerate(zip(f.scores, f.shares)):
            agent = name if seat == f.seat else others[(seat - f.seat - 1) % num_players]
            by_agent[agent].add(float(share), float(score))
    return SeriesResult(games, by_agent, {})


def role_series(game: str, num_players: int, role_agents: dict[str, str], seated: dict[str, Any], games: int,
                seed: int) -> SeriesResult:
    """A line-up by role (``role_agents``: role -> agent name) on the batched engine, tallied as
    :func:`club_envs.evaluation.play_series` tallies it (per agent, and per agent and role).
    ``seated`` maps every role to what the vector environment seats there -- a batched policy or
    a bot's name; the first role held by a policy is the environment's learner, the other roles its
    opponents, so every game is played once to its end."""
    roles = list(get_spec(game).roles)
    first = next((r for r in roles if not isinstance(seated[r], str)), None)
    if first is None:
        raise ValueError("a series on the batched engine needs a batched policy in one of the roles")
    role_side = {r: ("learner" if r == first else "opponent") for r in roles}
    opponents = {r: seated[r] for r in roles if r != first}
    by_agent: dict[str, Tally] = {}
    by_role: dict[tuple[str, str], Tally] = {}
    for f in play_games(game, num_players, seated[first], opponents, games, seed, role_side):
        for seat, (score, share) in enumerate(zip(f.scores, f.shares)):
            role = roles[int(f.roles[seat])]
            name = role_agents[role]
            by_agent.setdefault(name, Tally(name)).add(float(share), float(score))
            by_role.setdefault((name, role), Tally(name, role)).add(float(share), float(score))
    return SeriesResult(games, by_agent, by_role)


def _seatings(num_players: int, learner: BatchedPolicy, opponent: str,
              role_side: dict[str, str] | None) -> list[tuple[dict[str, Any], Any]]:
    """(where the learner sits, the opponents) of each part of the series."""
    if role_side is None:
        return [({"seat": s}, opponent) for s in range(num_players)]
    mine = [r for r, side in role_side.items() if side == "learner"]
    role = mine[0]

    def other(r: str) -> Any:  # a one-role-per-entry opponent (an agent's roles) or one for all
        return opponent[r] if isinstance(opponent, dict) else opponent

    return [({"role": role}, {r: (learner if side == "learner" else other(r)) for r, side in role_side.items()
                              if r != role})]


def _play_once(env: Any, learner: BatchedPolicy, seed: int, shared_wins: bool) -> list[Finished]:
    """Every game of ``env`` played to its end once (games that restart meanwhile are not counted),
    in the order of the games."""
    obs, _ = env.reset(seed=seed)
    counted = np.zeros(env.num_envs, bool)
    results: list[Finished | None] = [None] * env.num_envs
    rows = np.arange(env.num_envs)
    with_roles = callable(getattr(env.games, "roles", None))
    while not counted.all():
        masks = env.action_masks()
        seats = np.asarray(env.seats, dtype=np.int64).copy()  # a finished game's seat, before its restart
        roles = env.games.roles().copy() if with_roles else None  # and its roles
        actions = np.asarray(ask(learner, obs, masks, GameRows(env.games, rows, seats)))
        obs, _, terminated, truncated, info = env.step(actions.astype(np.int64))
        done = (terminated | truncated) & ~counted
        if done.any():
            final = info["final_info"]
            winners = final["winners"] if "winners" in final else top_scores(final["scores"])
            for g in np.flatnonzero(done):
                won = np.asarray(winners[g], bool)
                share = 1.0 / int(won.sum()) if shared_wins and won.any() else 1.0
                results[g] = Finished(int(seats[g]), np.asarray(final["scores"][g], np.float64), won * share,
                                      None if roles is None else roles[g])
            counted |= done
    return [r for r in results if r is not None]


def top_scores(scores: np.ndarray) -> np.ndarray:
    """Who won each game (rows of scores): the highest score, ties sharing."""
    scores = np.asarray(scores)
    return scores == scores.max(axis=1, keepdims=True)


__all__ = ["Finished", "available", "play_games", "policy_win_share", "series"]
