"""RLlib training throughput on this machine: environment steps per second with 1 and with 2 env runners.

A local Ray is started once; for each runner count the same PPO setup (the ``rllib`` backend's
algorithm for a config) trains a warm-up iteration, then ``--iterations`` timed ones. Printed per
count: environment steps per second over whole iterations (sampling and learning, as training sees
it), and the rate of sampling alone (the runners playing as many steps again, in parallel)::

    python benchmarks/bench_rllib.py --game members_only --players 4 --iterations 5
    python benchmarks/bench_rllib.py --game arkham_decoders --players 5 --runners 1 2

Needs the ``rllib`` extra. Steps are decisions at the table (every seat's), as RLlib counts them.
"""

from __future__ import annotations

import argparse
import time

import torch

from club_envs.training.rllib_backend.algorithm import build_config
from club_envs.training.config import from_mapping
from club_envs.training.rllib_backend.run import fill_league, start_ray


def play(runner, steps: int) -> int:
    """Let one env runner sample ``steps`` steps in the chunks it hands in during training."""
    done = 0
    while done < steps:
        done += sum(len(episode) for episode in runner.sample())
    return done


def measure(game: str, players: int, runners: int, envs_per_runner: int, iterations: int, batch: int,
            seed: int) -> dict[str, float]:
    settings = from_mapping({
        "backend": "rllib",
        "rllib": {"num_env_runners": runners, "num_cpus": max(2, runners), "num_envs_per_env_runner": envs_per_runner,
                  "rollout_fragment_length": "auto", "train_batch_size": batch},
        "game": {"name": game, "num_players": players},
        "algorithm": {"batch_size": min(256, batch), "n_epochs": 4},
        "network": {"hidden": [128, 128]},
        "selfplay": {"pool_size": 4},
        "seed": seed,
    }, source="benchmark")
    algo = build_config(settings).build_algo()
    fill_league(algo, game, settings.selfplay.pool_size)
    algo.train()  # warm-up: first episodes, first compilation of the update
    steps = 0
    started = time.perf_counter()
    for _ in range(iterations):
        steps += algo.train()["env_runners"]["num_env_steps_sampled"]
    train_seconds = time.perf_counter() - started
    # sampling alone: every runner plays its share of the same number of steps at once
    share = int(steps) // max(1, runners)
    started = time.perf_counter()
    if runners:
        sampled = sum(algo.env_runner_group.foreach_env_runner(lambda r: play(r, share), local_env_runner=False))
    else:
        sampled = play(algo.env_runner, share)
    sample_seconds = time.perf_counter() - started
    algo.stop()
    return {"runners": runners, "steps_per_second": steps / train_seconds,
            "sampling_steps_per_second": sampled / sample_seconds}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--game", default="members_only", choices=["members_only", "arkham_decoders"])
    p.add_argument("--players", type=int, default=4)
    p.add_argument("--runners", type=int, nargs="+", default=[1, 2])
    p.add_argument("--envs-per-runner", type=int, default=1, help="games each runner steps at once (default 1)")
    p.add_argument("--iterations", type=int, default=5)
    p.add_argument("--batch", type=int, default=4000, help="environment steps per iteration (default 4000)")
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args()
    torch.set_num_threads(1)  # as training does: the learner shares the cores with the env runners
    start_ray("local", num_cpus=max(2, *args.runners))
    print(f"{args.game}, {args.players} players, {args.envs_per_runner} game(s) per runner, "
          f"{args.batch} steps per iteration, {args.iterations} iterations")
    print("env runners | env steps/s, training | env steps/s, sampling only")
    for runners in args.runners:
        r = measure(args.game, args.players, runners, args.envs_per_runner, args.iterations, args.batch, args.seed)
        print(f"{r['runners']:>11} | {r['steps_per_second']:>20.0f} | {r['sampling_steps_per_second']:>27.0f}")


if __name__ == "__main__":
    main()
