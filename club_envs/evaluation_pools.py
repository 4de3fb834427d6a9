"""Evaluation pools: named sets of opponents an agent is measured against, one after another.

``holdout`` is the **held-out pool**: opponents no training run may see, so that a result against
it tells how an agent does against players it never learned the tells of. It holds, per game,

* the game's held-out bot families -- every built-in bot whose name starts with ``holdout_``
  (:mod:`club_envs.members_only.holdout`, :mod:`club_envs.arkham_decoders.holdout`): decision
  rules written apart from the heuristic, not retunings of it;
* ``ismcts`` (:mod:`club_envs.search`), a search that plays by the rules rather than by a model of
  our bots;
* every shipped agent of the game installed here (``members_only_belief``, ``arkham_team``, ...),
  each on the sides it plays.

The training configs refuse the ``holdout_`` bots wherever they name an agent
(:func:`holdout_names_in`, asked by :mod:`club_envs.training.config` before its schema): as opponents, as evaluation
opponents (which pick the best checkpoint), as belief-data opponents. ``ismcts`` and the shipped
agents cannot be named there in the first place (the configs take only built-in bots).

``club-envs evaluate GAME --players N --agents NAME --pool holdout`` plays ``NAME`` against every
member (:func:`evaluate_pool`): without roles in one seat against the member in every other seat;
with sides (Arkham), on each side ``NAME`` plays, against members that play the other side.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from club_envs.agents.registry import SEARCH_BOT, SHIPPED, load, shipped_names
from club_envs.agents.vector_opponents import seated_by_role, seated_for, vector_opponent
from club_envs.evaluation import play_series
from club_envs.games import get_spec, spec_of
from club_envs.stats import wilson_interval
from club_envs.study_stats import paired_difference
from club_envs.vector_evaluation import play_games, role_series

HOLDOUT_PREFIX = "holdout_"
POOL_NAMES = ("holdout",)


def is_holdout(name: str) -> bool:
    """Whether ``name`` (an agent name, options after a colon allowed) is a held-out bot."""
    return isinstance(name, str) and name.split(":")[0].strip().lower().startswith(HOLDOUT_PREFIX)


def holdout_names_in(data: Any, path: str = "") -> list[tuple[str, str]]:
    """Every ``(dotted key, name)`` in a config's raw data whose value is a held-out bot's name,
    however deep (a list item's key is its list's key)."""
    found: list[tuple[str, str]] = []
    if isinstance(data, dict):
        for key, value in data.items():
            found += holdout_names_in(value, f"{path}.{key}" if path else str(key))
    elif isinstance(data, (list, tuple)):
        for value in data:
            found += holdout_names_in(value, path)
    elif is_holdout(data):
        found.append((path, data))
    return found


@dataclass(frozen=True)
class PoolMember:
    """One opponent of a pool: an agent name and the roles it plays (``None``: every seat)."""

    name: str
    roles: tuple[str, ...] | None = None


def holdout_pool(game: Any) -> list[PoolMember]:
    """The held-out pool of ``game`` (module docstring), in a fixed order."""
    spec = spec_of(game)
    members = [PoolMember(b) for b in spec.bots if is_holdout(b)]
    members.append(PoolMember(SEARCH_BOT))
    for name in shipped_names():
        game_name, files = SHIPPED[name]
        if get_spec(game_name).record_name != spec.record_name:
            continue
        members.append(PoolMember(name, None if "*" in files else tuple(files)))
    return members


POOLS: dict[str, Callable[[Any], list[PoolMember]]] = {"holdout": holdout_pool}


def pool(name: str, game: Any) -> list[PoolMember]:
    """The members of pool ``name`` for ``game``."""
    if name not in POOLS:
        raise ValueError(f"unknown evaluation pool {name!r}; expected one of {', '.join(POOL_NAMES)}")
    return POOLS[name](game)


@dataclass(frozen=True)
class PoolRow:
    """The evaluated agent's result against one member, on one side (``None``: a game without sides);
    with a baseline, the baseline's result in the same seats on the same deals."""

    opponent: str
    side: str | None
    games: int
    wins: float
    engine: str = "reference"  # where the series was played: "vector" (the batched engine) or "reference"
    baseline: str | None = None  # the agent whose result in the same seats is the bar (e.g. heuristic)
    baseline_wins: float | None = None
    gain_interval: tuple[float, float] | None = None  # 95%, paired game by game on the shared deals

    @property
    def win_share(self) -> float:
        return self.wins / self.games if self.games else float("nan")

    @property
    def interval(self) -> tuple[float, float]:
        return wilson_interval(self.wins, self.games)

    @property
    def baseline_share(self) -> float | None:
        return None if self.baseline_wins is None else self.baseline_wins / self.games

    def as_json(self) -> dict[str, Any]:
        lo, hi = self.interval
        out = {"opponent": self.opponent, "side": self.side, "games": self.games, "win_share": self.win_share,
               "win_share_95ci": [lo, hi], "engine": self.engine}
        if self.baseline is not None:
            out |= {"baseline": self.baseline, "baseline_win_share": self.baseline_share,
                    "gain": self.win_share - self.baseline_share,
                    "gain_95ci": None if self.gain_interval is None else list(self.gain_interval)}
        return out


def _plays(roles_of: tuple[str, ...] | None, wanted: tuple[str, ...]) -> bool:
    return roles_of is None or all(r in roles_of for r in wanted)


def evaluate_pool(game: Any, config: Any, agent: str, members: list[PoolMember], games: int,
                  seed: int, batched: bool = True, baseline: str | None = None) -> list[PoolRow]:
    """``agent`` against every member of a pool, ``games`` games each on the seed series ``seed``.
    With ``batched`` a series the batched engine can play -- ``agent`` a policy or a stateless
    agent, the member a bot it seats or one of those; in a game with sides, a policy on one side of
    the line-up -- plays there (:mod:`club_envs.vector_evaluation`: all games at once; the same seed,
    the same deals for every agent measured, though not the reference engine's deals). A search
    member, or a line-up the batched engine cannot play, is played one game after another.

    ``baseline`` (e.g. ``"heuristic"``, the held-out pool's bar): each row also plays it in the
    agent's seats against the same member, on the same deals -- both series on the batched engine
    when it plays both, else both on the reference engine -- and the gain's interval is paired game
    by game (:func:`club_envs.study_stats.paired_difference`: a t interval over the games' differences)."""
    spec = spec_of(game)
    loaded = load(agent, game=game, config=config)
    agent_roles = getattr(loaded, "by_role", None)
    agent_roles = tuple(agent_roles) if agent_roles is not None else None
    bar = load(baseline, game=game, config=config) if baseline is not None else None
    rows = []
    for member in members:
        if member.name in (agent, baseline):  # their seats could not be told apart in the tally
            continue
        sides = [None] if not spec.roles else [
            side for side in spec.sides
            if _plays(agent_roles, side.roles) and _plays(member.roles, tuple(r for r in spec.roles if r not in side.roles))]
        for side in sides:
            if bar is None:
                mine = _series(game, config, spec, agent, loaded, member, side, games, seed, batched)
                rows.append(PoolRow(member.name, side and side.name, len(mine.outcomes), mine.wins, mine.engine))
                continue
            # the baseline first (a bot's line-up mostly plays on the reference engine): the agent's
            # series then goes to the batched engine only if the baseline's did, for the same deals
            theirs = _series(game, config, spec, baseline, bar, member, side, games, seed, batched)
            mine = _series(game, config, spec, agent, loaded, member, side, games, seed,
                           batched and theirs.engine == "vector")
            if mine.engine != theirs.engine:  # the batched engine played the baseline but not the agent
                theirs = _series(game, config, spec, baseline, bar, member, side, games, seed, False)
            paired = paired_difference(mine.outcomes, theirs.outcomes) if len(mine.outcomes) > 1 else None
            rows.append(PoolRow(member.name, side and side.name, len(mine.outcomes), mine.wins, mine.engine,
                                baseline, theirs.wins, paired and (paired.low, paired.high)))
    return rows


@dataclass(frozen=True)
class _Series:
    """One agent's series against one pool member: its result in each game, in the order of the deals."""

    outcomes: list[float]  # the agent's win (its seats' mean, a tie's share) game by game
    engine: str

    @property
    def wins(self) -> float:
        return math.fsum(self.outcomes)


def _series(game: Any, config: Any, spec: Any, agent: str, loaded: Any, member: PoolMember, side: Any, games: int,
            seed: int, batched: bool) -> _Series:
    """``agent`` (``loaded``) against ``member`` -- in one seat against the member in every other,
    or on ``side`` against the member on the other side -- game by game."""
    if side is None:
        opponent = seated_for(game, config, member.name, seed) if batched else None
        opponent = None if isinstance(opponent, dict) else opponent  # every other seat: one opponent
        learner = vector_opponent(spec.name, loaded, seed) if opponent is not None else None
        if learner is not None and not isinstance(learner, (str, dict)):
            finished = play_games(spec.name, config.num_players, learner, opponent, games, seed)
            return _Series([float(f.shares[f.seat]) for f in finished], "vector")
        lineup = [agent] + [member.name] * (config.num_players - 1)
        tally = play_series(game, config, seat_agents=lineup, games=games, seed=seed).by_agent[agent]
        return _Series(list(tally.outcomes), "reference")  # one seat a game
    roles = {r: agent for r in side.roles} | {r: member.name for r in spec.roles if r not in side.roles}
    seated = seated_by_role(game, config, roles, seed)[0] if batched else None
    result = role_series(spec.name, config.num_players, roles, seated, games, seed) if seated is not None \
        else play_series(game, config, role_agents=roles, games=games, seed=seed)
    # a side's seats share each game's result: one game counts once, as its seats' mean; a role
    # holds the same number of seats in every game, which come together in its tally
    tallies = [t for (a, r), t in result.by_role.items() if a == agent and r in side.roles]
    per_game = np.sum([t.by_game(games) for t in tallies], axis=0)
    seats = sum(t.seats for t in tallies) // games
    return _Series((per_game / max(1, seats)).tolist(), "reference" if seated is None else "vector")


def format_rows(agent: str, rows: list[PoolRow]) -> str:
    bar = next((row.baseline for row in rows if row.baseline is not None), None)
    extra = f" {bar[:10]:>10} {'gain':>7} {'paired 95%':>18}" if bar else ""
    lines = [f"{agent} against the pool" + (f" ({bar} in the same seats on the same deals)" if bar else ""),
             f"{'opponent':<28} {'side':<10} {'games':>6} {'win share':>10} {'95% interval':>16}{extra}  engine"]
    for row in rows:
        lo, hi = row.interval
        paired = row.gain_interval
        extra = (f" {row.baseline_share:>10.3f} {row.win_share - row.baseline_share:>+7.3f} "
                 + (f"{f'[{paired[0]:+.3f}, {paired[1]:+.3f}]':>18}" if paired else f"{'':>18}")) if bar else ""
        lines.append(f"{row.opponent:<28} {row.side or 'all':<10} {row.games:>6} {row.win_share:>10.3f} "
                     f"{f'[{lo:.3f}, {hi:.3f}]':>16}{extra}  {row.engine}")
    return "\n".join(lines)
