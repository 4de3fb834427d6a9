"""How fast does belief iteration play on the batched engine, beside the reference engine?

For ``configs/members_only_belief.yaml`` (its model size, its generation 1: the untrained model),
in one run:

1. **The self-play phase** (:func:`club_envs.training.belief.play_generation`) at each table size,
   ``--games`` games, on the reference engine and on the batched engine -- both with one BLAS
   thread, as a run sets it -- and, with ``--before``, on the reference engine with the BLAS
   threads the machine gives (how runs played before they set one thread). Games per second of
   wall time and of CPU time (``time.process_time``: other work on a shared machine does not
   distort it), best of ``--rounds`` interleaved rounds.
2. With ``--whole``, **one whole generation** of the config at ``--games`` games per table size and
   ``--eval-games`` evaluation games: play, fit and evaluate on each engine (seconds of wall time).
3. With ``--precision``, **the fit in each** ``training.precision`` on the same examples (one
   generation's games on the batched engine), float32 first as the reference: seconds of wall and
   CPU time, and the held-out loss each reaches (nats per category; the uniform prior's beside).

Compilation happens (or is loaded from numba's cache) before the timing.

    python benchmarks/bench_belief.py [--games 300] [--rounds 1] [--before] [--whole] [--eval-games 300]
                                      [--precision]
"""

from __future__ import annotations

import argparse
import time
from dataclasses import replace
from pathlib import Path

from threadpoolctl import threadpool_limits

from club_envs.members_only.belief_model import BeliefModel
from club_envs.training import belief
from club_envs.training import config as configs
from club_envs.training.settings import BeliefConfig
from club_envs.training.torch_mlp import PRECISIONS

CONFIG = Path(__file__).resolve().parents[1] / "configs" / "members_only_belief.yaml"
ENGINES = (("reference", "reference", 1), ("vector", "vector", 1))  # (label, engine, BLAS threads)
BEFORE = ("reference, BLAS threads of the machine", "reference", None)


def play_rate(settings: BeliefConfig, model: BeliefModel, engine: str, threads: int | None) -> tuple[float, float, int]:
    """(games per wall second, games per CPU second, examples) of one self-play phase."""
    with threadpool_limits(threads, user_api="blas"):
        start, cpu = time.perf_counter(), time.process_time()
        _, targets, _ = belief.play_generation(model, settings, 1, engine=engine)
        wall, cpu = time.perf_counter() - start, time.process_time() - cpu
    games = settings.games * len(settings.num_players)
    return games / wall, games / cpu, len(targets)


def whole_generation(settings: BeliefConfig, model: BeliefModel, engine: str, threads: int | None) -> dict[str, float]:
    """Seconds of wall time of one generation's play, fit and evaluation."""
    with threadpool_limits(threads, user_api="blas"):
        t0 = time.perf_counter()
        observations, targets, games = belief.play_generation(model, settings, 1, engine=engine)
        t1 = time.perf_counter()
        trained, _ = belief.fit(model, observations, targets, games, settings, seed=settings.seed * 1000 + 1)
        t2 = time.perf_counter()
        belief.evaluate(trained, settings, "belief@1", engine=engine)
        t3 = time.perf_counter()
    return {"play": t1 - t0, "fit": t2 - t1, "evaluate": t3 - t2, "total": t3 - t0}


def fit_precisions(settings: BeliefConfig, model: BeliefModel) -> dict[str, dict[str, float]]:
    """Each precision's fit of the same examples: wall and CPU seconds, held-out and prior losses."""
    with threadpool_limits(1, user_api="blas"):
        observations, targets, games = belief.play_generation(model, settings, 1, engine="vector")
        out = {}
        for precision in PRECISIONS:
            start, cpu = time.perf_counter(), time.process_time()
            _, figures = belief.fit(model, observations, targets, games, replace(settings, precision=precision),
                                    seed=settings.seed * 1000 + 1)
            out[precision] = {"wall": time.perf_counter() - start, "cpu": time.process_time() - cpu,
                              "nll": figures["nll_after"], "prior": figures["nll_prior"],
                              "examples": figures["examples"]}
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=300, help="self-play games per table size (default 300)")
    parser.add_argument("--rounds", type=int, default=1, help="interleaved rounds; best kept (default 1)")
    parser.add_argument("--before", action="store_true", help="also time the reference engine with the machine's BLAS threads")
    parser.add_argument("--whole", action="store_true", help="also time one whole generation on each engine")
    parser.add_argument("--eval-games", type=int, default=300, help="evaluation games per opponent and table size")
    parser.add_argument("--precision", action="store_true", help="only time the fit in each training.precision")
    args = parser.parse_args(argv)

    settings = replace(configs.load(CONFIG, BeliefConfig), games=args.games, eval_games=args.eval_games)
    model = BeliefModel.untrained(settings.hidden, seed=settings.seed)
    engines = ENGINES + ((BEFORE,) if args.before else ())
    for _, engine, _ in ENGINES:  # compile (or load the cache) before any timing
        belief.play_generation(model, replace(settings, games=2), 1, engine=engine)
    if args.precision:
        fits = fit_precisions(settings, model)
        reference = fits[PRECISIONS[0]]
        print(f"the fit of {CONFIG.name} on {reference['examples']:,} examples ({args.games} games per table size), "
              f"{settings.epochs} epochs of batches of {settings.batch_size}")
        print(f"{'training.precision':<20}{'wall s':>9}{'CPU s':>9}{'vs ' + PRECISIONS[0]:>12}{'held-out nats':>15}"
              f"{'prior':>8}")
        for precision, f in fits.items():
            print(f"{precision:<20}{f['wall']:>9.1f}{f['cpu']:>9.1f}{reference['cpu'] / f['cpu']:>11.2f}x"
                  f"{f['nll']:>15.4f}{f['prior']:>8.4f}")
        return

    best: dict[tuple[int, str], tuple[float, float, int]] = {}
    for _ in range(args.rounds):
        for n in settings.num_players:
            for label, engine, threads in engines:
                rate = play_rate(replace(settings, num_players=(n,)), model, engine, threads)
                best[n, label] = max(best.get((n, label), rate), rate)
                print(f"{n} players, {label}: {rate[0]:,.1f} games/s, {rate[1]:,.1f} games/CPU-s, {rate[2]:,} examples",
                      flush=True)
    print(f"\nself-play phase of {CONFIG.name}, {args.games} games per table size: games per second (per CPU-second)")
    print(f"{'players':<8}" + "".join(f"{label:>44}" for label, _, _ in engines) + f"{'vector / reference':>20}")
    for n in settings.num_players:
        cells = "".join(f"{best[n, label][0]:>30,.1f} ({best[n, label][1]:,.1f})".rjust(44) for label, _, _ in engines)
        ratio = best[n, 'vector'][0] / best[n, 'reference'][0]
        print(f"{n:<8}{cells}{ratio:>19.1f}x")

    if args.whole:
        print(f"\none whole generation: {args.games} games per table size, {args.eval_games} evaluation games per "
              "opponent and table size (seconds)")
        for label, engine, threads in engines:
            parts = whole_generation(settings, model, engine, threads)
            print(f"{label:<40} " + ", ".join(f"{k} {v:,.1f}" for k, v in parts.items()), flush=True)


if __name__ == "__main__":
    main()
