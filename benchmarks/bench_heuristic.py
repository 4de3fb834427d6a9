"""Cost of a Members Only heuristic decision: exact count estimates against 200 sampled deals.

    python benchmarks/bench_heuristic.py [--games 40] [--players 4]

Plays the same seeded games with four ``heuristic`` (exact) and four ``heuristic_sampled`` bots on the
bare engine, interleaving the two a few times, and prints decisions per CPU-second of each and
their ratio (the engine's own time included; it is small beside the bots').
"""

from __future__ import annotations

import argparse
import time

from club_envs.members_only import Config, make_agent, play_match


def decisions_per_cpu_second(name: str, players: int, games: int, seed: int) -> float:
    decisions, cpu = 0, 0.0
    for g in range(games):
        agents = [make_agent(name, seed=seed + 10 * g + s) for s in range(players)]
        t = time.process_time()
        record = play_match(Config(num_players=players), agents, seed=seed + g)
        cpu += time.process_time() - t
        # one decision per bet, no-bet and discard event; a reveal event holds two cards, two decisions
        decisions += sum({"bet": 1, "no_bet": 1, "discard": 1, "reveal": 2}.get(e["type"], 0) for e in record["events"])
    return decisions / cpu


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--games", type=int, default=40)
    p.add_argument("--players", type=int, default=4)
    p.add_argument("--rounds", type=int, default=3)
    args = p.parse_args(argv)
    best = {"heuristic": 0.0, "heuristic_sampled": 0.0}
    for r in range(args.rounds):
        for name in best:
            best[name] = max(best[name], decisions_per_cpu_second(name, args.players, args.games, 1000 * r))
    for name, rate in best.items():
        print(f"{name:>18}: {rate:>8.0f} decisions per CPU-second (best of {args.rounds})")
    print(f"{'exact / sampled':>18}: {best['heuristic'] / best['heuristic_sampled']:.2f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
