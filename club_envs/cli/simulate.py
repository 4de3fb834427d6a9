"""``club-envs simulate``: play many games between named agents and write one record per game."""

from __future__ import annotations

import argparse
from collections import defaultdict
from pathlib import Path

import numpy as np
from tqdm import tqdm

from club_envs import records
from club_envs.agents.lineup import Lineup, make_agent
from club_envs.cli.checks import check_count, check_output_folder, check_roles, check_seed
from club_envs.games import game_names, load_game
from club_envs.stats import wilson_interval


def add_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    p = sub.add_parser("simulate", help="play games between agents and write their records")
    p.add_argument("game", help=f"one of {', '.join(game_names())} (or arkham_decoders)")
    p.add_argument("--players", type=int, required=True, help="number of players")
    p.add_argument("--games", type=int, default=100, help="number of games (default 100)")
    p.add_argument(
        "--agents",
        default="random",
        help="one agent name for every seat, one per seat (a,b,c,d), or role=name pairs",
    )
    p.add_argument("--seed", type=int, default=None, help="seed of the first game; game i uses seed+i")
    p.add_argument("--out", type=Path, default=None, help="folder for the JSON records (none if omitted)")
    p.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    return p


def run(args: argparse.Namespace) -> int:
    game = load_game(args.game)
    if args.players not in game.PLAYER_COUNTS:
        raise ValueError(
            f"{game.RECORD_NAME} takes {', '.join(map(str, game.PLAYER_COUNTS))} players, not {args.players}"
        )
    check_count(args.games, "--games")
    check_seed(args.seed)
    check_output_folder(args.out, "--out")
    config = game.Config(num_players=args.players)
    lineup = Lineup.parse(args.agents, game, args.players)
    for name in lineup.names():  # fail on an unknown name before the first game, not mid-run
        roles = [r for r, n in lineup.per_role.items() if n == name] if lineup.per_role else game.ROLES
        check_roles(make_agent(game, name, config), name, game, roles)

    seeds = np.random.SeedSequence(args.seed) if args.seed is not None else None
    totals: dict[str, list[float]] = defaultdict(lambda: [0, 0.0, 0.0])  # seats, wins, score
    bar = tqdm(range(args.games), desc=f"simulate {game.RECORD_NAME}", unit="game", disable=args.no_progress)
    for i in bar:
        seed = args.seed + i if args.seed is not None else None
        agent_seeds = iter(seeds.spawn(16)) if seeds is not None else None
        def make(name: str, seat: int):
            s = int(next(agent_seeds).generate_state(1)[0]) if agent_seeds is not None else None
            return make_agent(game, name, config, seed=s)
        record = game.play_match(config, lineup.build(make), seed=seed)
        if args.out is not None:
            records.save(record, args.out / f"{game.RECORD_NAME}_{i:05d}.json")
        for row in game.outcomes(record):
            key = row.controller if row.role is None else f"{row.controller} ({row.role})"
            t = totals[key]
            t[0] += 1
            t[1] += row.win
            t[2] += row.score
    _print_summary(totals, args.games)
    if args.out is not None:
        print(f"{args.games} records written to {args.out}")
    return 0


def _print_summary(totals: dict[str, list[float]], games: int) -> None:
    print(f"\n{games} games")
    print(f"{'agent':<28} {'seats':>6} {'win share':>10} {'95% interval':>16} {'mean score':>11}")
    for key in sorted(totals):
        seats, wins, score = totals[key]
        lo, hi = wilson_interval(wins, int(seats))
        print(f"{key:<28} {int(seats):>6} {wins / seats:>10.3f} {f'[{lo:.3f}, {hi:.3f}]':>16} {score / seats:>11.2f}")
