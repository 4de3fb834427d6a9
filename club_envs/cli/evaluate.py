"""``club-envs evaluate``: play many games between agents and report each one's strength.

Agents are bots (``random``, ``heuristic``), shipped trained agents (``members_only``,
``arkham_team``, ...), policy files or run folders (``runs/<run>/best``). Seats rotate from game to
game; the summary gives, per agent (and per role for Arkham), the mean score and the win share
with its 95% Wilson interval.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from club_envs.agents.lineup import Lineup, is_role_pair
from club_envs.agents.registry import load as load_agent
from club_envs.cli.checks import check_count, check_output_file, check_output_folder, check_roles, check_seed
from club_envs.evaluation import format_table, play_series, play_series_parallel
from club_envs.evaluation_pools import POOL_NAMES, evaluate_pool, format_rows, pool
from club_envs.games import game_names, load_game


def add_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    p = sub.add_parser("evaluate", help="measure agents against each other (seats rotated)")
    p.add_argument("game", help=f"one of {', '.join(game_names())} (or arkham_decoders)")
    p.add_argument("--players", type=int, required=True, help="number of players")
    p.add_argument("--agents", required=True,
                   help="one agent per seat (a,b,c,d), one for every seat, or role=agent pairs; an agent is "
                        "random, heuristic, a shipped name, a policy file or a run folder")
    p.add_argument("--games", type=int, default=1000, help="number of games (default 1000)")
    p.add_argument("--seed", type=int, default=0, help="seed of the series (default 0)")
    p.add_argument("--records", type=Path, default=None, help="folder to save every game's record in")
    p.add_argument("--json", type=Path, default=None, help="write the summary as JSON to this file")
    p.add_argument("--workers", type=int, default=1, help="processes to play in (default 1); same games, same totals")
    p.add_argument("--pool", choices=POOL_NAMES, default=None,
                   help="play the one agent of --agents against every opponent of this pool (holdout: the held-out "
                        "pool no training run sees), --games games each")
    p.add_argument("--members", default=None,
                   help="with --pool: only these of its members, comma-separated (e.g. holdout_greedy,holdout_counter; "
                        "a long search series left out)")
    p.add_argument("--baseline", default=None,
                   help="with --pool: also play this agent (e.g. heuristic, the held-out pool's bar) in the agent's "
                        "seats on the same deals, and print its win share and the agent's gain over it")
    p.add_argument("--engine", choices=("auto", "vector", "reference"), default="auto",
                   help="auto (default): the batched engine when the line-up is one agent against one bot it plays "
                        "(all games at once; no --records, one process), else game by game on the reference engine")
    p.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    return p


def check_players(game, players: int) -> None:
    if players not in game.PLAYER_COUNTS:
        raise ValueError(
            f"{game.RECORD_NAME} takes {', '.join(map(str, game.PLAYER_COUNTS))} players, not {players}"
        )


def run(args: argparse.Namespace) -> int:
    game = load_game(args.game)
    check_players(game, args.players)
    check_count(args.games, "--games")
    check_seed(args.seed)
    check_count(args.workers, "--workers", high=256)
    check_output_folder(args.records, "--records")
    check_output_file(args.json, "--json")
    config = game.Config(num_players=args.players)
    if args.pool is not None:
        return _run_pool(args, game, config)
    if args.baseline is not None:
        raise ValueError("--baseline goes with --pool (the agent and the baseline each against every member)")
    if args.members is not None:
        raise ValueError("--members goes with --pool (it chooses which of the pool's members play)")
    lineup = Lineup.parse(args.agents, game, args.players)
    for name in lineup.names():  # an unknown or unreadable agent fails before the first game
        roles = [r for r, n in lineup.per_role.items() if n == name] if lineup.per_role else game.ROLES
        check_roles(load_agent(name, game=game, config=config), name, game, roles)
    seat_agents = list(lineup.per_seat) if lineup.per_seat else None
    role_agents = dict(lineup.per_role) if lineup.per_role else None
    if args.workers < 1:
        raise ValueError(f"--workers must be at least 1, got {args.workers}")
    batched = _batched_series(args, game, config, seat_agents, role_agents)
    if batched is not None:
        result = batched
    elif args.workers > 1:
        result = play_series_parallel(game, config, seat_agents, role_agents, games=args.games, seed=args.seed,
                                      records_dir=args.records, workers=args.workers)
    else:
        result = play_series(game, config, seat_agents=seat_agents, role_agents=role_agents, games=args.games,
                             seed=args.seed, records_dir=args.records, progress=not args.no_progress)
    print(format_table(result))
    if args.json is not None:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        summary = {"game": game.RECORD_NAME, "players": args.players, "agents_arg": args.agents,
                   "seed": args.seed, "engine": "vector" if batched is not None else "reference", **result.as_json()}
        args.json.write_text(json.dumps(summary, indent=2))
        print(f"summary written to {args.json}")
    if args.records is not None:
        print(f"{args.games} records written to {args.records}")
    return 0


def _batched_series(args: argparse.Namespace, game, config, seat_agents: list[str] | None,
                    role_agents: dict[str, str] | None = None):
    """The series on the batched engine (:mod:`club_envs.vector_evaluation`) when ``--engine`` allows
    and the line-up is one agent against bots the batched engine plays in the other seats, or a
    line-up by role whose agents it seats (bots, and policies it answers in batches); else
    ``None`` (``--engine vector`` then stops with the reason)."""
    import functools
    import time

    from club_envs.agents.vector_opponents import seated_by_role, vector_opponent
    from club_envs.vector_evaluation import available, role_series, series

    reason, play = None, None
    if args.engine == "reference":
        return None
    if args.records is not None or args.workers != 1:
        reason = "it keeps no records and plays in one process (drop --records and --workers)"
    elif role_agents is not None:
        seated, reason = seated_by_role(game, config, role_agents, args.seed)
        play = functools.partial(role_series, game.RECORD_NAME, args.players, role_agents, seated)
    elif seat_agents is None or seat_agents[0] in seat_agents[1:]:
        reason = "it plays one agent against bots in the other seats (a,b,b,b or a,b,c,d)"
    elif not all(available(game.RECORD_NAME, bot) for bot in seat_agents[1:]):
        reason = f"it does not play {next(b for b in seat_agents[1:] if not available(game.RECORD_NAME, b))!r}"
    else:
        learner = vector_opponent(game.RECORD_NAME, load_agent(seat_agents[0], game=game, config=config, seed=args.seed),
                                  args.seed)
        if learner is None or isinstance(learner, (str, dict)):
            reason = f"it cannot play {seat_agents[0]!r} as a batch (a search, or an agent with its own random moves)"
        play = functools.partial(series, game.RECORD_NAME, args.players, seat_agents[0], learner, list(seat_agents[1:]))
    if reason is not None:
        if args.engine == "vector":
            raise ValueError(f"--engine vector: the batched engine cannot play this series: {reason}")
        return None
    started = time.perf_counter()
    with _one_blas_thread():  # the policies' forward passes are small matrix products: threads only contend
        result = play(args.games, args.seed)
    seconds = time.perf_counter() - started
    print(f"{args.games} games on the batched engine in {seconds:.1f} s ({args.games / max(seconds, 1e-9):,.0f} games/s)")
    return result


def _one_blas_thread():
    """One BLAS thread while the series plays (as training does), where threadpoolctl is installed."""
    try:
        from threadpoolctl import threadpool_limits
    except ModuleNotFoundError:  # the 'train' extra is not installed: numpy keeps its threads
        import contextlib

        return contextlib.nullcontext()
    return threadpool_limits(1, user_api="blas")


def _run_pool(args: argparse.Namespace, game, config) -> int:
    """``--pool``: the one agent of ``--agents`` against every member of the pool."""
    if "," in args.agents or is_role_pair(args.agents):  # its own options (name:temper=0.2) are one agent
        raise ValueError(f"--pool plays one agent against the pool; --agents must name one agent, got {args.agents!r}")
    if args.workers != 1 or args.records is not None:
        raise ValueError("--pool plays in one process and keeps no records; drop --workers and --records")
    for name in (args.agents, args.baseline):  # an unknown agent fails before the first game
        if name is not None:
            load_agent(name, game=game, config=config)
    members = pool(args.pool, game)
    if args.members is not None:
        members = _chosen_members(members, args.members, args.pool)
    rows = evaluate_pool(game, config, args.agents, members, games=args.games, seed=args.seed,
                         batched=args.engine != "reference", baseline=args.baseline)
    print(format_rows(args.agents, rows))
    if args.json is not None:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        summary = {"game": game.RECORD_NAME, "players": args.players, "agent": args.agents, "pool": args.pool,
                   "members": [m.name for m in members], "games": args.games, "seed": args.seed,
                   "engine": args.engine, "baseline": args.baseline, "rows": [r.as_json() for r in rows]}
        args.json.write_text(json.dumps(summary, indent=2))
        print(f"summary written to {args.json}")
    return 0


def _chosen_members(members: list, names: str, pool_name: str) -> list:
    """``--members``: the pool's members named, in the pool's order; a name not in it is refused."""
    wanted = [n for n in names.split(",") if n]
    known = [m.name for m in members]
    unknown = [n for n in wanted if n not in known]
    if not wanted or unknown:
        raise ValueError(f"--members: {', '.join(unknown) or 'no name given'} not in the {pool_name} pool; "
                         f"its members: {', '.join(known)}")
    return [m for m in members if m.name in wanted]
