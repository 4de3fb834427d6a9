"""Playing many games between agents and summarising who did how well.

Shared by ``club-envs evaluate``, ``club-envs league`` and the evaluations inside training. Games are
played on the bare engine (the game package's ``play_match``), which is much faster than going
through an environment. With one agent per seat, the seats rotate from game to game (game ``g``
gives seat ``s`` to agent ``(s + g) mod n``), so no agent profits from its seat; with one agent per
role the game deals the roles at random, which already evens seats out.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from tqdm import tqdm

from club_envs import records
from club_envs.agents.registry import load as load_agent
from club_envs.stats import wilson_interval


@dataclass
class Tally:
    """Results of one agent (in one role, for games with roles) over many seats."""

    agent: str
    role: str | None = None
    seats: int = 0
    wins: float = 0.0
    score: float = 0.0
    scores: list[float] = field(default_factory=list, repr=False)
    # each seat's win (a tie's share), in the order played: game g's seats of one agent or role
    # come together, so two series on the same deals pair game by game (a gain's paired interval)
    outcomes: list[float] = field(default_factory=list, repr=False)

    def add(self, win: float, score: float) -> None:
        self.seats += 1
        self.wins += win
        self.score += score
        self.scores.append(score)
        self.outcomes.append(win)

    def by_game(self, games: int) -> np.ndarray:
        """The seats' wins summed game by game, for a tally of ``games`` games with the same number
        of seats in each (a role's seats in one game come together in ``outcomes``)."""
        return np.reshape(self.outcomes, (games, -1)).sum(axis=1)

    @property
    def win_share(self) -> float:
        return self.wins / self.seats if self.seats else float("nan")

    @property
    def interval(self) -> tuple[float, float]:
        return wilson_interval(self.wins, self.seats)

    @property
    def mean_score(self) -> float:
        return self.score / self.seats if self.seats else float("nan")

    def as_json(self) -> dict[str, Any]:
        lo, hi = self.interval
        d = {k: v for k, v in asdict(self).items() if k not in ("scores", "outcomes")}
        d.update(win_share=self.win_share, win_share_95ci=[lo, hi], mean_score=self.mean_score,
                 score_sd=float(np.std(self.scores)) if self.scores else float("nan"))
        return d


@dataclass
class SeriesResult:
    games: int
    by_agent: dict[str, Tally]
    by_role: dict[tuple[str, str], Tally]
    records: list[dict] = field(default_factory=list, repr=False)

    def as_json(self) -> dict[str, Any]:
        return {
            "games": self.games,
            "agents": [t.as_json() for t in self.by_agent.values()],
            "roles": [t.as_json() for t in self.by_role.values()],
        }


def play_series(
    game: Any,
    config: Any,
    seat_agents: Sequence[str] | None = None,
    role_agents: dict[str, str] | None = None,
    games: int = 100,
    seed: int | None = 0,
    records_dir: Path | None = None,
    keep_records: bool = False,
    make: Callable[[str, int | None], Any] | None = None,
    progress: bool = False,
    desc: str = "evaluate",
    first_game: int = 0,
) -> SeriesResult:
    """Play games ``first_game .. first_game + games - 1``, one agent name per seat (rotated) or per
    role, and tally the outcomes.

    ``make(name, seed)`` builds an agent (default: :func:`club_envs.agents.registry.load`); agents
    are built once per name and seat position and ``reset`` by the engine, with a seed drawn from the
    game's own seed, before every game -- so game ``g`` plays out the same whichever games come
    before it, and a series split into parts (``first_game``) adds up to the same result.
    """
    if (seat_agents is None) == (role_agents is None):
        raise ValueError("give agents either per seat or per role")
    make = make or (lambda name, s: load_agent(name, game=game, config=config, seed=s))
    seeds = np.random.SeedSequence(seed)
    cache: dict[tuple[str, int], Any] = {}

    def agent(name: str, slot: int) -> Any:
        key = (name, slot)
        if key not in cache:
            cache[key] = make(name, int(seeds.spawn(1)[0].generate_state(1)[0]))
        return cache[key]

    n = config.num_players
    by_agent: dict[str, Tally] = {}
    by_role: dict[tuple[str, str], Tally] = {}
    kept: list[dict] = []
    bar = tqdm(range(first_game, first_game + games), desc=desc, unit="game", disable=not progress, leave=False)
    for g in bar:
        game_seed = None if seed is None else seed * 1_000_003 + g
        if seat_agents is not None:
            lineup = [seat_agents[(s + g) % n] for s in range(n)]
            players: Any = [agent(name, s) for s, name in enumerate(lineup)]
        else:
            players = lambda seat, role: agent(role_agents[role], seat)  # noqa: E731
        record = game.play_match(config, players, seed=game_seed)
        for row in game.outcomes(record):
            name = lineup[row.seat] if seat_agents is not None else role_agents[row.role]
            by_agent.setdefault(name, Tally(name)).add(row.win, row.score)
            if row.role is not None:
                by_role.setdefault((name, row.role), Tally(name, row.role)).add(row.win, row.score)
        if records_dir is not None:
            records.save(record, Path(records_dir) / f"{game.RECORD_NAME}_{g:05d}.json")
        if keep_records:
            kept.append(record)
    return SeriesResult(games, by_agent, by_role, kept)


def merge(results: Sequence[SeriesResult]) -> SeriesResult:
    """One result from the parts of a series (see ``first_game``)."""
    by_agent: dict[str, Tally] = {}
    by_role: dict[tuple[str, str], Tally] = {}
    for part in results:
        for target, source in ((by_agent, part.by_agent), (by_role, part.by_role)):
            for key, t in source.items():
                total = target.setdefault(key, Tally(t.agent, t.role))
                total.seats += t.seats
                total.wins += t.wins
                total.score += t.score
                total.scores.extend(t.scores)
                total.outcomes.extend(t.outcomes)
    return SeriesResult(sum(r.games for r in results), by_agent, by_role, [rec for r in results for rec in r.records])


def _play_part(args: tuple) -> SeriesResult:
    game_name, num_players, seat_agents, role_agents, games, seed, records_dir, first_game = args
    from club_envs.games import load_game

    game = load_game(game_name)
    return play_series(game, game.Config(num_players=num_players), seat_agents=seat_agents, role_agents=role_agents,
                       games=games, seed=seed, records_dir=records_dir, first_game=first_game)


def play_series_parallel(game: Any, config: Any, seat_agents=None, role_agents=None, games: int = 100,
                         seed: int = 0, records_dir: Path | None = None, workers: int = 2) -> SeriesResult:
    """:func:`play_series` split over ``workers`` processes; the same games, the same totals.

    The workers are started fresh (``spawn``), not forked: a fork of a process that has already
    run torch (a policy file was read to check it) can hang in the child on a lock torch's
    thread pool held at the fork -- measured: an evaluation with a shipped policy and two workers
    never finished."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    bounds = np.linspace(0, games, workers + 1).astype(int)
    parts = [(game.RECORD_NAME, config.num_players, seat_agents, role_agents, int(hi - lo), seed, records_dir, int(lo))
             for lo, hi in zip(bounds[:-1], bounds[1:]) if hi > lo]
    with ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("spawn")) as pool:
        return merge(list(pool.map(_play_part, parts)))


def format_table(result: SeriesResult) -> str:
    lines = [f"{result.games} games",
             f"{'agent':<36} {'role':<13} {'seats':>6} {'win share':>10} {'95% interval':>16} {'mean score':>11}"]
    rows = [(t, "all") for t in result.by_agent.values()] + [(t, t.role) for t in result.by_role.values()]
    for t, role in rows:
        lo, hi = t.interval
        lines.append(f"{t.agent:<36} {role:<13} {t.seats:>6} {t.win_share:>10.3f} "
                     f"{f'[{lo:.3f}, {hi:.3f}]':>16} {t.mean_score:>11.2f}")
    return "\n".join(lines)


def learner_win_share(game: Any, config: Any, learner: Any, opponent: str, games: int, seed: int,
                      role_side: dict[str, str] | None = None) -> tuple[float, tuple[float, float]]:
    """The win share of an in-memory ``learner`` agent against the bot ``opponent``.

    Without roles the learner takes one seat (rotated) against ``opponent`` in every other seat.
    With ``role_side`` ({role: "learner" | "opponent"}) the learner plays every role marked so.
    """
    def make(name: str, s: int | None) -> Any:
        if name == "__learner__":
            learner.reset(0, s)
            return learner
        return load_agent(name, game=game, config=config, seed=s)

    if role_side is None:
        lineup = ["__learner__"] + [opponent] * (config.num_players - 1)
        result = play_series(game, config, seat_agents=lineup, games=games, seed=seed, make=make)
    else:
        roles = {r: ("__learner__" if side == "learner" else opponent) for r, side in role_side.items()}
        result = play_series(game, config, role_agents=roles, games=games, seed=seed, make=make)
    tally = result.by_agent["__learner__"]
    if role_side is not None:
        # a team's games count once, not once per team seat
        learner_roles = [t for (a, _), t in result.by_role.items() if a == "__learner__"]
        wins = sum(t.wins for t in learner_roles) / max(1, sum(t.seats for t in learner_roles)) * games
        return wins / games, wilson_interval(wins, games)
    return tally.win_share, tally.interval
