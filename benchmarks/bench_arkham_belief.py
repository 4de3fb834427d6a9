"""How much faster does Arkham belief iteration play its games on the batched engine?

The self-play phase of ``configs/arkham_team_belief.yaml`` on both engines, in the same run:
``--games`` games per table size (game ``g`` seeded as the trainer seeds it), the team the
belief agent of ``--model`` (``shipped``: the shipped ``arkham_team_belief`` model, what a later
generation plays; ``untrained``: the first generation's) in every team seat, the config's Black Man
(``heuristic``). The reference path (:func:`club_envs.training.arkham_belief.reference_table`: one
game after another on the reference engine) and the batched path
(:func:`club_envs.training.arkham_belief_vector.play_table`: every game of the table at once)
alternate in ``--rounds`` rounds, each keeping its best; rates are games per CPU-second of this
process (``time.process_time``, so other work on a shared machine distorts them less) and per
second of wall time.

``--generation`` then times a whole generation's self-play phase (the config's 1,500 games per
table size) on each engine, and trains the config's first generation (self-play, fit, evaluation)
on each engine in a scratch run folder, with the seconds of its ``progress.csv``.

    python benchmarks/bench_arkham_belief.py [--games 300] [--rounds 2] [--model shipped] [--generation]
"""

from __future__ import annotations

import argparse
import csv
import tempfile
import time
from pathlib import Path

import yaml
from threadpoolctl import threadpool_limits

from club_envs.arkham_decoders.belief_model import BeliefModel
from club_envs.arkham_decoders.rules import Config
from club_envs.training import arkham_belief
from club_envs.training import config as configs
from club_envs.training.arkham_belief_vector import play_table

ROOT = Path(__file__).resolve().parents[1]
CONFIG = ROOT / "configs" / "arkham_team_belief.yaml"
SHIPPED = ROOT / "club_envs" / "agents" / "shipped" / "arkham_team_belief.npz"


def timed(play, *args) -> tuple[float, float]:
    """(CPU seconds, wall seconds) of ``play(*args)``."""
    cpu, wall = time.process_time(), time.perf_counter()
    play(*args)
    return time.process_time() - cpu, time.perf_counter() - wall


def table_rates(settings, model: BeliefModel, games: int, rounds: int) -> dict[int, dict[str, tuple[float, float]]]:
    """Per table size and engine: the best (games per CPU-second, games per second) over the rounds."""
    black_men = [settings.opponents[g % len(settings.opponents)] for g in range(games)]
    paths = {"reference": arkham_belief.reference_table, "batched": lambda *a: play_table(*a)[0]}
    best = {n: {name: (0.0, 0.0) for name in paths} for n in settings.num_players}
    for n in settings.num_players:  # compile (or load numba's cache) before any timing
        config = Config(num_players=n)
        play_table(config, model, black_men[:2], [0, 1], None, 0.0, settings.seed)
    for _ in range(rounds):
        for n in settings.num_players:
            config = Config(num_players=n)
            seeds = [arkham_belief.game_seed(settings, 2, n, g) for g in range(games)]
            for name, play in paths.items():
                cpu, wall = timed(play, config, model, black_men, seeds, None, 0.0, settings.seed)
                old = best[n][name]
                best[n][name] = (max(old[0], games / cpu), max(old[1], games / wall))
    return best


def generation_play(settings, model: BeliefModel, engine: str) -> tuple[float, float]:
    """(CPU seconds, wall seconds) of a whole generation's self-play phase on ``engine``: the config's
    games at every table size, as the trainer plays its second generation."""
    with threadpool_limits(1, user_api="blas"):
        return timed(arkham_belief.play_generation, model, settings, 2, None, None, engine)


def whole_generation(engine: str) -> dict[str, float]:
    """The config's first generation (play, fit, evaluation) on ``engine`` in a scratch run folder:
    its seconds as ``progress.csv`` has them, and the process's CPU and wall seconds."""
    from club_envs.training import train as trainer

    raw = yaml.safe_load(CONFIG.read_text())
    raw["selfplay"] = {**raw["selfplay"], "generations": 1, "engine": engine}
    with tempfile.TemporaryDirectory() as scratch:
        path = Path(scratch) / "arkham_team_belief.yaml"
        path.write_text(yaml.safe_dump(raw))
        cpu, wall = time.process_time(), time.perf_counter()
        run = trainer.run(path, runs_dir=Path(scratch) / "runs", progress=False)
        total_cpu, total_wall = time.process_time() - cpu, time.perf_counter() - wall
        with open(run / "progress.csv") as fh:
            row = next(csv.DictReader(fh))
    return {"play": float(row["play_seconds"]), "generation": float(row["seconds"]), "cpu": total_cpu,
            "wall": total_wall}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=300, help="games per table size and round (default 300)")
    parser.add_argument("--rounds", type=int, default=2, help="interleaved rounds; each engine keeps its best (default 2)")
    parser.add_argument("--model", choices=("shipped", "untrained"), default="shipped")
    parser.add_argument("--generation", action="store_true", help="then time one whole generation on each engine")
    args = parser.parse_args(argv)

    settings = configs.load(CONFIG)
    model = BeliefModel.load(SHIPPED) if args.model == "shipped" else BeliefModel.untrained(settings.hidden,
                                                                                               seed=settings.seed)
    with threadpool_limits(1, user_api="blas"):
        rates = table_rates(settings, model, args.games, args.rounds)
    print(f"\nArkham belief iteration, self-play games ({args.model} model vs {', '.join(settings.opponents)}), "
          f"{args.games} games per table size, best of {args.rounds} rounds")
    print(f"{'players':<8} {'reference g/CPU-s':>18} {'batched g/CPU-s':>16} {'ratio':>7} "
          f"{'reference g/s':>14} {'batched g/s':>12} {'ratio':>7}")
    for n, by in rates.items():
        (rc, rw), (bc, bw) = by["reference"], by["batched"]
        print(f"{n:<8} {rc:>18,.1f} {bc:>16,.1f} {bc / rc:>6.1f}x {rw:>14,.1f} {bw:>12,.1f} {bw / rw:>6.1f}x")
    if args.generation:
        plays = {engine: generation_play(settings, model, engine) for engine in ("reference", "vector")}
        games = settings.games * len(settings.num_players)
        print(f"\nA whole generation's self-play ({games:,} games, {args.model} model): CPU seconds, wall seconds")
        for engine, (cpu, wall) in plays.items():
            print(f"{engine:<10} {cpu:>8.1f} {wall:>8.1f}   {games / cpu:,.0f} games/CPU-s")
        print("\nThe config's first generation, trained (seconds: self-play, whole generation, process CPU, wall)")
        for engine in ("reference", "vector"):
            t = whole_generation(engine)
            print(f"{engine:<10} {t['play']:>6.0f} {t['generation']:>6.0f} {t['cpu']:>6.0f} {t['wall']:>6.0f}")


if __name__ == "__main__":
    main()
