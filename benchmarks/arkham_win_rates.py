"""Team win rates of Arkham Decoders Club's baseline bots, with 95% Wilson intervals.

For 4, 5 and 6 players, four line-ups (the team = leader, members and Investigator):
random vs random, heuristic team vs random Black Man, random team vs heuristic Black Man,
heuristic vs heuristic. Game ``i`` of every cell uses seed ``seed + i``, so the table is
reproducible:

    python benchmarks/arkham_win_rates.py --games 1000 --seed 0
"""

from __future__ import annotations

import argparse
import time

from club_envs.arkham_decoders import Config, make_agent, play_match
from club_envs.stats import wilson_interval

LINEUPS = [
    ("random", "random"),
    ("heuristic", "random"),
    ("random", "heuristic"),
    ("heuristic", "heuristic"),
]


def team_win_rate(num_players: int, team: str, black_man: str, games: int, seed: int) -> tuple[int, float]:
    """(team wins, mean final SAN total) over ``games`` games."""
    config = Config(num_players=num_players)
    wins = 0
    total = 0.0
    for i in range(games):
        record = play_match(
            config,
            lambda seat, role: make_agent(black_man if role == "black_man" else team, config),
            seed=seed + i,
        )
        wins += record["result"]["winner"] == "team"
        total += record["result"]["total"]
    return wins, total / games


def main(argv: list[str] | None = None) -> str:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000, help="games per cell (default 1000)")
    parser.add_argument("--seed", type=int, default=0, help="seed of game 0 of every cell")
    args = parser.parse_args(argv)
    lines = [
        "| players | team | Black Man | team win rate | 95% interval | mean SAN total |",
        "|---|---|---|---|---|---|",
    ]
    start = time.perf_counter()
    for n in (4, 5, 6):
        for team, black_man in LINEUPS:
            wins, mean_total = team_win_rate(n, team, black_man, args.games, args.seed)
            lo, hi = wilson_interval(wins, args.games)
            lines.append(
                f"| {n} | {team} | {black_man} | {wins / args.games:.3f} | [{lo:.3f}, {hi:.3f}] | {mean_total:+.2f} |"
            )
    table = "\n".join(lines)
    print(table)
    print(f"\n{args.games} games per cell, seeds {args.seed}..{args.seed + args.games - 1}, "
          f"{time.perf_counter() - start:.0f} s")
    return table


if __name__ == "__main__":
    main()
