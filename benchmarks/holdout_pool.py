"""Shipped agents against the held-out pool (:mod:`club_envs.evaluation_pools`), with 95% intervals.

Members Only at 4 players: ``heuristic`` and ``members_only_belief`` each in one seat (rotated)
against three bots of one held-out family, and against a table of one bot of each family.
Arkham Decoders Club at 5 players: the ``heuristic`` team and the ``arkham_team_belief`` team
against each held-out Black Man, and against the heuristic Black Man for reference. Both agents
of a row play the same deals (the same seed series); the seeds are used by no other measurement:

    python benchmarks/holdout_pool.py --games 300 --seed 70331
"""

from __future__ import annotations

import argparse
import time

from club_envs.agents.registry import load
from club_envs.evaluation import play_series
from club_envs.games import load_game
from club_envs.stats import wilson_interval

MO_AGENTS = ("heuristic", "members_only_belief")
MO_TABLES = {
    "3 x holdout_margin": ("holdout_margin",) * 3,
    "3 x holdout_prover": ("holdout_prover",) * 3,
    "3 x holdout_gambler": ("holdout_gambler",) * 3,
    "margin + prover + gambler": ("holdout_margin", "holdout_prover", "holdout_gambler"),
    "3 x heuristic (reference)": ("heuristic",) * 3,
}
ARKHAM_TEAMS = ("heuristic", "arkham_team_belief")
ARKHAM_BLACK_MEN = ("holdout_greedy", "holdout_impostor", "holdout_counter", "heuristic")


def cell(wins: float, games: int) -> str:
    lo, hi = wilson_interval(wins, games)
    return f"{wins / games:.3f} [{lo:.3f}, {hi:.3f}]"


def _maker(game, config, agent: str):
    """Agents by name for play_series, ``"me"`` standing for ``agent`` (so that its seats are told
    apart from opponents of the same name)."""
    def make(name: str, seed: int | None):
        return load(agent if name == "me" else name, game=game, config=config, seed=seed)
    return make


def members_only(games: int, seed: int) -> list[str]:
    game = load_game("members_only")
    config = game.Config(num_players=4)
    lines = ["| opponents (4 players) | " + " | ".join(MO_AGENTS) + " |", "|---|" + "---|" * len(MO_AGENTS)]
    for label, others in MO_TABLES.items():
        row = []
        for agent in MO_AGENTS:
            result = play_series(game, config, seat_agents=["me", *others], games=games, seed=seed,
                                 make=_maker(game, config, agent))
            tally = result.by_agent["me"]
            row.append(cell(tally.wins, tally.seats))
        lines.append(f"| {label} | " + " | ".join(row) + " |")
    return lines


def arkham(games: int, seed: int) -> list[str]:
    game = load_game("arkham_decoders")
    config = game.Config(num_players=5)
    lines = ["| Black Man (5 players) | " + " | ".join(f"{t} team" for t in ARKHAM_TEAMS) + " |",
             "|---|" + "---|" * len(ARKHAM_TEAMS)]
    for black_man in ARKHAM_BLACK_MEN:
        row = []
        for team in ARKHAM_TEAMS:
            roles = {r: "me" for r in game.ROLES if r != "black_man"} | {"black_man": black_man}
            result = play_series(game, config, role_agents=roles, games=games, seed=seed,
                                 make=_maker(game, config, team))
            leader = result.by_role[("me", "leader")]  # one leader a game: the team's wins, once each
            row.append(cell(leader.wins, leader.seats))
        lines.append(f"| {black_man} | " + " | ".join(row) + " |")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--seed", type=int, default=70331)
    parser.add_argument("--game", choices=("members_only", "arkham", "both"), default="both")
    args = parser.parse_args()
    start = time.perf_counter()
    if args.game in ("members_only", "both"):
        print("\n".join(members_only(args.games, args.seed)), flush=True)
        print()
    if args.game in ("arkham", "both"):
        print("\n".join(arkham(args.games, args.seed + 1)))
    print(f"\n{args.games} games a cell, seeds {args.seed} (Members Only) and {args.seed + 1} (Arkham); "
          f"{time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
