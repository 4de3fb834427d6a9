"""How much faster is the batched multi-agent game than the PettingZoo environment, for self-play?

Every seat plays uniformly random legal moves, and each decision reads what a self-play trainer
reads: the mover's observation and legal actions and every seat's reward. Decisions per CPU-second
(``time.process_time``, so other work on a shared machine does not distort them) of

* ``pettingzoo.make("aec", "club_envs/members_only-v0")``: ``env.last()`` (observation, mask,
  reward) and ``env.step`` for the agent to move, one game after another;
* ``club_envs.make_vector_game("members_only", num_games=--games)``: ``step(actions)`` for all games
  (observation, mask, ``current_player`` and rewards of every game), the random legal moves picked
  by numpy from the returned masks; same-step autoreset.

The two run interleaved in several short rounds, in the same run; each keeps its best round.
Compilation happens (or is loaded from numba's cache) before the timing.

    python benchmarks/bench_vector_game.py [--games 256] [--seconds 1] [--rounds 3]
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import pettingzoo

import club_envs
from club_envs.members_only.rules import PLAYER_COUNTS


def pettingzoo_rate(num_players: int, seconds: float) -> float:
    """Decisions per CPU-second of the AEC environment, random legal moves at every seat."""
    env = pettingzoo.make("aec", "club_envs/members_only-v0", num_players=num_players)
    rng = np.random.default_rng(0)
    decisions = games = 0
    start, cpu_start = time.perf_counter(), time.process_time()
    while time.perf_counter() - start < seconds:
        env.reset(seed=games)
        for _agent in env.agent_iter():
            observation, _reward, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            legal = np.flatnonzero(observation["action_mask"])
            env.step(legal[rng.integers(len(legal))])
            decisions += 1
        games += 1
    return decisions / (time.process_time() - cpu_start)


def vector_game_rate(num_players: int, num_games: int, seconds: float) -> float:
    """Decisions per CPU-second of the batched multi-agent game, ``num_games`` at a time."""
    game = club_envs.make_vector_game("members_only", num_games=num_games, num_players=num_players, seed=0)
    step = game.reset(seed=0)
    rng = np.random.default_rng(0)
    decisions = 0
    start, cpu_start = time.perf_counter(), time.process_time()
    while time.perf_counter() - start < seconds:
        actions = np.argmax(np.where(step.action_mask, rng.random(step.action_mask.shape), -1.0), axis=1)
        step = game.step(actions)
        decisions += num_games
    return decisions / (time.process_time() - cpu_start)


def main(argv: list[str] | None = None) -> dict[int, tuple[float, float]]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=256, help="games stepped per call (default 256)")
    parser.add_argument("--seconds", type=float, default=1.0, help="length of one timing round (default 1)")
    parser.add_argument("--rounds", type=int, default=3, help="interleaved rounds per timer; best kept (default 3)")
    args = parser.parse_args(argv)

    for n in PLAYER_COUNTS:  # compile (or load the cache) before any timing
        vector_game_rate(n, 4, 0.0)
    best = {n: [0.0, 0.0] for n in PLAYER_COUNTS}
    for _ in range(args.rounds):
        for n in PLAYER_COUNTS:
            best[n][0] = max(best[n][0], pettingzoo_rate(n, args.seconds))
            best[n][1] = max(best[n][1], vector_game_rate(n, args.games, args.seconds))
    print(f"\nMembers Only self-play, random legal moves at every seat, decisions per CPU-second ({args.games} games)")
    print(f"{'players':<8} {'PettingZoo AEC':>16} {'make_vector_game':>18} {'ratio':>8}")
    for n, (aec, batched) in best.items():
        print(f"{n:<8} {aec:>16,.0f} {batched:>18,.0f} {batched / aec:>7.1f}x")
    return {n: (a, b) for n, (a, b) in best.items()}


if __name__ == "__main__":
    main()
