"""How much faster is the batched Members Only engine than the reference engine?

Plays uniformly random legal games on both engines in the same run and prints decisions per
CPU-second (``time.process_time``, so other work on a shared machine does not distort them) and
the ratio, at 3, 4 and 5 players, in two ways:

* **engine**: legal actions and moves only (the reference: ``legal_actions()`` and
  ``apply_action``, as ``bench_envs.py``'s raw engine; the batched engine: its compiled random
  player and ``step``);
* **engine + observation**: also the legal mask and the observation of the player to move at
  every decision (the reference: ``legal_mask()`` and ``Observer.observe``; the batched engine:
  ``legal_masks`` and ``VectorObserver.observe`` for all games).

Then, as a learner sees it (random legal learner moves): learner steps per CPU-second of
``gymnasium.make(id)`` beside ``gymnasium.make_vec(id, ...,
vectorization_mode="vector_entry_point")`` with ``--games`` games, for Members Only (4 players;
random, then heuristic opponents) and Arkham Decoders Club (4, 5 and 6 players, the learner in a
random seat; random, then heuristic opponents, with the share of the heuristic's decisions handed
back to the reference bot as near-ties).

Last, in fresh processes with an empty numba cache: the first compile of each batched env (CPU
seconds until the first step returns; Arkham also with heuristic opponents), the same with the
cache filled, and the peak memory of a process stepping 1,024 games (with the size of the games'
own arrays).

The batched engine steps ``--games`` games per call and starts a new game wherever one ended.
Compilation happens (or is loaded from numba's cache) before the timing. Each timer runs in
several short rounds, interleaved, and its best round is kept.

    python benchmarks/bench_vector_engine.py [--games 256] [--seconds 1] [--rounds 3]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import gymnasium
import numpy as np

import club_envs  # noqa: F401  (registers the environment ids)

from club_envs.arkham_decoders import vector_bots as arkham_bots
from club_envs.members_only import actions as A
from club_envs.members_only.engine import State
from club_envs.members_only.observer import Observer
from club_envs.members_only.rules import PLAYER_COUNTS, Config
from club_envs.members_only.vector_bots import random_actions
from club_envs.members_only.vector_engine import VectorGames
from club_envs.members_only.vector_observer import VectorObserver
from club_envs.members_only.vector_rng import seed_states


def reference_rate(config: Config, seconds: float, observe: bool) -> float:
    """Decisions per CPU-second of the reference engine, one game after another."""
    rng = random.Random(0)
    observer = Observer(config)
    out = np.empty(observer.size, np.float32)
    decisions = games = 0
    start, cpu_start = time.perf_counter(), time.process_time()
    while time.perf_counter() - start < seconds:
        state = State(config, seed=games)
        while not state.is_over:
            if observe:
                state.legal_mask()
                observer.observe(state.player_view(state.current_player), out)
            legal = state.legal_actions()
            state.apply_action(legal[rng.randrange(len(legal))])
            decisions += 1
        games += 1
    return decisions / (time.process_time() - cpu_start)


def batched_rate(config: Config, num_games: int, seconds: float, observe: bool) -> float:
    """Decisions per CPU-second of the batched engine, ``num_games`` at a time."""
    games = VectorGames(config, num_games, seed=0)
    observer = VectorObserver(config)
    out = np.empty((num_games, observer.size), np.float32)
    states = seed_states(1, num_games)
    actions = np.empty(num_games, np.int64)
    scratch = np.empty(A.NUM_ACTIONS, np.bool_)
    decisions = 0
    start, cpu_start = time.perf_counter(), time.process_time()
    while time.perf_counter() - start < seconds:
        if observe:
            games.legal_masks()
            observer.observe(games, out=out)
        random_actions(games.tables, states, scratch, actions)
        games.step(actions)
        decisions += num_games
        over = games.is_over
        if over.any():
            games.reset_games(over)
    return decisions / (time.process_time() - cpu_start)


def one_game_env_rate(num_players: int, seconds: float) -> float:
    """Learner steps per CPU-second of ``gymnasium.make`` with random opponents, random legal
    learner moves."""
    env = gymnasium.make("club_envs/MembersOnly-v0", num_players=num_players, opponents="random")
    rng = np.random.default_rng(0)
    steps = episodes = 0
    start, cpu_start = time.perf_counter(), time.process_time()
    while time.perf_counter() - start < seconds:
        _, info = env.reset(seed=episodes)
        done = False
        while not done:
            legal = np.flatnonzero(info["action_mask"])
            _, _, terminated, truncated, info = env.step(legal[rng.integers(len(legal))])
            done = terminated or truncated
            steps += 1
        episodes += 1
    return steps / (time.process_time() - cpu_start)


def vector_env_rate(num_players: int, num_envs: int, seconds: float) -> float:
    """Learner steps per CPU-second of ``gymnasium.make_vec(..., "vector_entry_point")``: the
    learner asks for ``action_masks()`` as a learner would, and the compiled random player picks
    its legal moves."""
    envs = gymnasium.make_vec(
        "club_envs/MembersOnly-v0", num_envs=num_envs, vectorization_mode="vector_entry_point",
        num_players=num_players, opponents="random",
    )
    envs.reset(seed=0)
    states = seed_states(2, num_envs)
    actions = np.empty(num_envs, np.int64)
    scratch = np.empty(A.NUM_ACTIONS, np.bool_)
    steps = 0
    start, cpu_start = time.perf_counter(), time.process_time()
    while time.perf_counter() - start < seconds:
        envs.action_masks()
        random_actions(envs.games.tables, states, scratch, actions)
        envs.step(actions)
        steps += num_envs
    return steps / (time.process_time() - cpu_start)


ARKHAM = "club_envs/ArkhamDecoders-v0"


def arkham_one_game_rate(num_players: int, seconds: float, opponents: str = "random") -> float:
    """Learner steps per CPU-second of ``gymnasium.make(ARKHAM)`` with these opponents, the learner
    in a random seat making random legal moves."""
    env = gymnasium.make(ARKHAM, num_players=num_players, role="any", opponents=opponents)
    rng = np.random.default_rng(0)
    steps = episodes = 0
    start, cpu_start = time.perf_counter(), time.process_time()
    while time.perf_counter() - start < seconds:
        _, info = env.reset(seed=episodes)
        done = False
        while not done:
            legal = np.flatnonzero(info["action_mask"])
            _, _, done, _, info = env.step(legal[rng.integers(len(legal))])
            steps += 1
        episodes += 1
    return steps / (time.process_time() - cpu_start)


def arkham_vector_rate(num_players: int, num_envs: int, seconds: float, opponents: str = "random",
                       tally: dict[str, int] | None = None) -> float:
    """Learner steps per CPU-second of ``gymnasium.make_vec(ARKHAM, ..., "vector_entry_point")`` with
    these opponents: ``action_masks()`` as a learner would ask for it, the compiled random
    player's legal moves. ``tally`` receives the environment's ``heuristic_tally`` (added up)."""
    envs = gymnasium.make_vec(
        ARKHAM, num_envs=num_envs, vectorization_mode="vector_entry_point", num_players=num_players,
        role="any", opponents=opponents,
    )
    envs.reset(seed=0)
    states = seed_states(2, num_envs)
    actions = np.empty(num_envs, np.int64)
    scratch = np.empty(envs.single_action_space.n, np.bool_)
    steps = 0
    start, cpu_start = time.perf_counter(), time.process_time()
    while time.perf_counter() - start < seconds:
        envs.action_masks()
        arkham_bots.random_actions(envs.games.tables, states, scratch, actions)
        envs.step(actions)
        steps += num_envs
    rate = steps / (time.process_time() - cpu_start)
    if tally is not None:
        for key, count in envs.heuristic_tally.items():
            tally[key] = tally.get(key, 0) + count
    return rate


_FIRST_USE = """
import json, resource, sys, time, gymnasium, numpy as np, club_envs
cpu = time.process_time()
env_id, players, games, opponents = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
envs = gymnasium.make_vec(env_id, num_envs=games, vectorization_mode="vector_entry_point", num_players=players,
                          opponents=opponents)
envs.reset(seed=0)
rng = np.random.default_rng(0)
masks = envs.action_masks()
envs.step(np.array([rng.choice(np.flatnonzero(m)) for m in masks]))
first = time.process_time() - cpu
for _ in range(200):
    masks = envs.action_masks()
    envs.step(masks.argmax(axis=1))  # the first legal action of every game
tables = envs.games.tables  # a struct of arrays (Members Only) or a record array (Arkham)
size = sum(a.nbytes for a in tables) if isinstance(tables, tuple) else tables.nbytes
try:  # this process's own peak: getrusage's maxrss also counts the parent's memory it was started from
    peak_kb = next(int(line.split()[1]) for line in open("/proc/self/status") if line.startswith("VmHWM"))
except OSError:
    peak_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"first_step_cpu": first, "peak_rss_mb": peak_kb / 1024,
       "game_arrays_mb": size / 2**20, "scipy": "scipy" in sys.modules}))
"""


def first_use(env_id: str, num_players: int, num_games: int, cache_dir: str, opponents: str) -> dict[str, float]:
    """Runs :data:`_FIRST_USE` in a fresh process with numba's cache in ``cache_dir``."""
    root = Path(__file__).resolve().parents[1]
    env = {**os.environ, "NUMBA_CACHE_DIR": cache_dir, "PYTHONPATH": str(root)}
    done = subprocess.run(
        [sys.executable, "-c", _FIRST_USE, env_id, str(num_players), str(num_games), opponents],
        env=env, capture_output=True, text=True, check=True,
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def first_use_rows(num_games: int = 1024) -> list[tuple[str, dict[str, float], dict[str, float]]]:
    """Per batched env: (id and opponents, first use with an empty cache, first use with the cache filled)."""
    rows = []
    for env_id, players, opponents in (("club_envs/MembersOnly-v0", 4, "random"), ("club_envs/MembersOnly-v0", 4, "heuristic"),
                                       (ARKHAM, 5, "random"), (ARKHAM, 5, "heuristic")):
        with tempfile.TemporaryDirectory() as cache:
            cold = first_use(env_id, players, num_games, cache, opponents)
            warm = first_use(env_id, players, num_games, cache, opponents)
        rows.append((f"{env_id} {opponents}", cold, warm))
    return rows


def main(argv: list[str] | None = None) -> dict[tuple[int, str], tuple[float, float]]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=256, help="games stepped per call by the batched engine (default 256)")
    parser.add_argument("--seconds", type=float, default=1.0, help="length of one timing round (default 1)")
    parser.add_argument("--rounds", type=int, default=3, help="interleaved rounds per timer; best kept (default 3)")
    parser.add_argument("--no-first-use", action="store_true", help="skip the first-compile and memory measurement")
    args = parser.parse_args(argv)

    for n in PLAYER_COUNTS:  # compile (or load the cache) before any timing
        batched_rate(Config(num_players=n), 4, 0.0, observe=True)
    best: dict[tuple[int, str], list[float]] = {}
    for _ in range(args.rounds):
        for n in PLAYER_COUNTS:
            config = Config(num_players=n)
            for mode, observe in (("engine", False), ("engine + observation", True)):
                rates = best.setdefault((n, mode), [0.0, 0.0])
                rates[0] = max(rates[0], reference_rate(config, args.seconds, observe))
                rates[1] = max(rates[1], batched_rate(config, args.games, args.seconds, observe))

    env_rates = [0.0, 0.0]
    vector_env_rate(4, 4, 0.0)
    for _ in range(args.rounds):
        env_rates[0] = max(env_rates[0], one_game_env_rate(4, args.seconds))
        env_rates[1] = max(env_rates[1], vector_env_rate(4, args.games, args.seconds))

    print(f"\nMembers Only, random legal play, decisions per CPU-second ({args.games} batched games)")
    print(f"{'players':<8} {'what is timed':<22} {'reference':>12} {'batched':>14} {'ratio':>8}")
    for (n, mode), (reference, batched) in best.items():
        print(f"{n:<8} {mode:<22} {reference:>12,.0f} {batched:>14,.0f} {batched / reference:>7.1f}x")
    print(f"\nlearner steps per CPU-second, 4 players, opponents='random', random legal learner moves")
    print(f"{'gymnasium.make (one game)':<38} {env_rates[0]:>12,.0f}")
    print(f"{f'gymnasium.make_vec ({args.games} games)':<38} {env_rates[1]:>12,.0f} {env_rates[1] / env_rates[0]:>7.1f}x")
    best[(4, "env")] = env_rates
    best[(4, "env, heuristic opponents")] = heuristic_opponent_rows(args.games, args.seconds, args.rounds)

    arkham: dict[int, list[float]] = {n: [0.0, 0.0] for n in (4, 5, 6)}
    for n in arkham:
        arkham_vector_rate(n, 4, 0.01)  # one step at least: the first compiles the step
    for _ in range(args.rounds):
        for n, rates in arkham.items():
            rates[0] = max(rates[0], arkham_one_game_rate(n, args.seconds))
            rates[1] = max(rates[1], arkham_vector_rate(n, args.games, args.seconds))
    print(f"\nArkham Decoders Club, learner steps per CPU-second, opponents='random', role='any', random legal learner moves")
    print(f"{'players':<8} {'gymnasium.make (one game)':>26} {f'gymnasium.make_vec ({args.games} games)':>30} {'ratio':>8}")
    for n, (one, vector) in arkham.items():
        print(f"{n:<8} {one:>26,.0f} {vector:>30,.0f} {vector / one:>7.1f}x")
        best[(n, "arkham env")] = arkham[n]
    for n, rates in arkham_heuristic_rows(args.games, args.seconds, args.rounds).items():
        best[(n, "arkham env, heuristic opponents")] = rates

    if not args.no_first_use:
        print("\nfirst use of the batched env, 1,024 games, in a fresh process (CPU seconds to the first step's return)")
        print(f"{'env, opponents':<40} {'empty cache':>12} {'cache filled':>13} {'peak RSS':>10} {'game arrays':>12}")
        rows = first_use_rows()
        for env_id, cold, warm in rows:
            print(
                f"{env_id:<40} {cold['first_step_cpu']:>11.1f}s {warm['first_step_cpu']:>12.1f}s "
                f"{warm['peak_rss_mb']:>8.0f}MB {warm['game_arrays_mb']:>10.1f}MB"
            )
        if any(warm.get("scipy") for _, _, warm in rows):
            print("(numba imports SciPy when it is installed -- here by an extra such as rllib or bench -- which adds "
                  "about 15 MB to the peak; the wheel alone does not install it)")
    return {key: (r, b) for key, (r, b) in best.items()}


# --------------------------------------------------------------------------- heuristic opponents


def learner_steps_one_game(num_players: int, opponents, seconds: float) -> float:
    """Learner steps per CPU-second of ``gymnasium.make`` with these opponents, random legal learner moves."""
    env = gymnasium.make("club_envs/MembersOnly-v0", num_players=num_players, opponents=opponents)
    rng = np.random.default_rng(0)
    steps = episodes = 0
    start, cpu_start = time.perf_counter(), time.process_time()
    while time.perf_counter() - start < seconds:
        _, info = env.reset(seed=episodes)
        done = False
        while not done:
            legal = np.flatnonzero(info["action_mask"])
            _, _, terminated, truncated, info = env.step(legal[rng.integers(len(legal))])
            done = terminated or truncated
            steps += 1
        episodes += 1
    return steps / (time.process_time() - cpu_start)


def learner_steps_vector(num_players: int, opponents, num_envs: int, seconds: float) -> float:
    """Learner steps per CPU-second of ``gymnasium.make_vec(..., "vector_entry_point")`` with these
    opponents; the learner's random legal moves come from the compiled random player."""
    envs = gymnasium.make_vec(
        "club_envs/MembersOnly-v0", num_envs=num_envs, vectorization_mode="vector_entry_point",
        num_players=num_players, opponents=opponents,
    )
    envs.reset(seed=0)
    states = seed_states(2, num_envs)
    actions = np.empty(num_envs, np.int64)
    scratch = np.empty(A.NUM_ACTIONS, np.bool_)
    steps = 0
    start, cpu_start = time.perf_counter(), time.process_time()
    while time.perf_counter() - start < seconds:
        envs.action_masks()
        random_actions(envs.games.tables, states, scratch, actions)
        envs.step(actions)
        steps += num_envs
    return steps / (time.process_time() - cpu_start)


def heuristic_opponent_rows(num_envs: int, seconds: float, rounds: int) -> list[float]:
    """The learner's view with ``opponents="heuristic"`` (4 players): the one-game environment
    beside the vector environment (its heuristic compiled), interleaved rounds, best kept; printed
    and returned as ``[one game, vector]``."""
    learner_steps_vector(4, "heuristic", 4, 0.0)  # compile (or load the cache) first
    rates = [0.0, 0.0]
    for _ in range(rounds):
        rates[0] = max(rates[0], learner_steps_one_game(4, "heuristic", seconds))
        rates[1] = max(rates[1], learner_steps_vector(4, "heuristic", num_envs, seconds))
    print("\nlearner steps per CPU-second, 4 players, opponents='heuristic', random legal learner moves")
    print(f"{'gymnasium.make (one game)':<38} {rates[0]:>12,.0f}")
    print(f"{f'gymnasium.make_vec ({num_envs} games)':<38} {rates[1]:>12,.0f} {rates[1] / rates[0]:>7.1f}x")
    return rates


def arkham_heuristic_rows(num_envs: int, seconds: float, rounds: int) -> dict[int, list[float]]:
    """Arkham Decoders Club with ``opponents="heuristic"`` (4, 5 and 6 players, ``role="any"``): the
    one-game environment beside the vector environment (its heuristic compiled), interleaved
    rounds, best kept; printed with the share of the heuristic's decisions handed back to the
    reference bot, and returned as ``{players: [one game, vector]}``."""
    rates: dict[int, list[float]] = {n: [0.0, 0.0] for n in (4, 5, 6)}
    tallies: dict[int, dict[str, int]] = {n: {} for n in rates}
    for n in rates:
        arkham_vector_rate(n, 4, 0.01, "heuristic")  # compile (or load the cache) first
    for _ in range(rounds):
        for n, pair in rates.items():
            pair[0] = max(pair[0], arkham_one_game_rate(n, seconds, "heuristic"))
            pair[1] = max(pair[1], arkham_vector_rate(n, num_envs, seconds, "heuristic", tallies[n]))
    print("\nArkham Decoders Club, learner steps per CPU-second, opponents='heuristic', role='any', random legal "
          "learner moves")
    print(f"{'players':<8} {'gymnasium.make (one game)':>26} {f'gymnasium.make_vec ({num_envs} games)':>30} "
          f"{'ratio':>8} {'handed back':>12}")
    for n, (one, vector) in rates.items():
        tally = tallies[n]
        share = tally["handed_back"] / max(1, tally["decided"] + tally["handed_back"])
        print(f"{n:<8} {one:>26,.0f} {vector:>30,.0f} {vector / one:>7.1f}x {share:>11.2%}")
    return rates


if __name__ == "__main__":
    main()
