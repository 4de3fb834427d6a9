"""``club-envs bench CONFIG ... | --suite``: training throughput against the training loop's own ceiling.

For each config (a file or an example's name; ``--suite`` for the cases the project tracks), a
fresh learner with the config's PPO settings trains for a few rollouts in each vectorisation mode,
next to the same learner on a trivial environment of the same sizes (the ceiling) and the games
stepped alone; then a summary table when there is more than one case. See
:mod:`club_envs.training.throughput` for what each figure means and ``docs/benchmarks.md`` for results.
"""

from __future__ import annotations

import argparse
from dataclasses import replace

# The vectorisation modes of club_envs.training.throughput.MODES (named here so that the menu and
# --help need no torch; a test keeps the two equal).
MODES = ("vector", "batched", "workers", "dummy", "subprocess")
LOOPS = ("turns", "overlap")  # club_envs.training.throughput.LOOPS


def add_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    p = sub.add_parser("bench", help="measure training throughput against the training loop's own ceiling")
    p.add_argument("config", nargs="*", help="training config files or example names to measure (or --suite)")
    p.add_argument("--suite", action="store_true", help="measure the default, its pure self-play variant, "
                   "members_only_selfplay and arkham_decoders configs")
    p.add_argument("--rollouts", type=int, default=3, help="timed PPO iterations per measurement (after one warm-up)")
    p.add_argument("--modes", nargs="+", choices=MODES, default=["vector", "batched"])
    p.add_argument("--loops", nargs="+", choices=LOOPS, default=list(LOOPS),
                   help="stable-baselines3's loop (turns) and the learner that plays its next rollout while it "
                   "updates (overlap, algorithm.overlap; printed as <mode>+ov)")
    p.add_argument("--bots", nargs="*", default=None, help="override the pool's bots (none: pure self-play)")
    p.add_argument("--update-threads", type=int, choices=range(1, 17), metavar="1..16", default=None,
                   help="override algorithm.update_threads (torch threads in PPO's updates, ceiling included)")
    return p


def run(args: argparse.Namespace) -> int:
    if bool(args.config) == args.suite:
        raise ValueError("give CONFIG files or --suite")
    try:
        import torch
        from threadpoolctl import threadpool_limits

        from club_envs.training import config as configs
        from club_envs.training import examples, throughput
    except ModuleNotFoundError as exc:  # the 'train' extra is not installed
        raise ValueError(f"bench needs the 'train' extra (pip install 'club-envs[train]'): {exc}") from None
    if args.suite:
        cases = [(label, examples.path_of(name), bots) for label, name, bots in throughput.SUITE]
    else:
        bots = None if args.bots is None else [b for b in args.bots if b != "none"]
        cases = [(str(arg), examples.resolve(arg), bots) for arg in args.config]
    torch.set_num_threads(1)
    threadpool_limits(1, user_api="blas")  # as training does
    results = []
    for label, path, bots in cases:
        settings = configs.load(path)
        if bots is not None:
            settings = replace(settings, selfplay=replace(settings.selfplay, bots=tuple(bots)))
        if args.update_threads is not None:
            settings = replace(settings, algorithm=replace(settings.algorithm, update_threads=args.update_threads))
        results.append((label, throughput.measure_case(settings, label, args.modes, args.rollouts,
                                                                  tuple(args.loops))))
    if len(results) > 1:
        _print_summary(results, [throughput.row_name(m, loop) for m in args.modes for loop in args.loops])
    return 0


def _print_summary(results: list[tuple[str, dict]], modes: list[str]) -> None:
    """Per case: the ceiling, then per mode steps/s, the ratio to the ceiling (wall and CPU time)
    and the in-turn bound, then the two-core bound."""
    print(f"{'case':<28} {'ceiling':>8} " + " ".join(f"{m:>10} {'x':>5} {'x cpu':>5} {'bound':>5}" for m in modes)
          + f" {'2-core':>6}")
    for label, r in results:
        print(f"{label:<28} {r['ceiling']:>8.0f} "
              + " ".join(f"{r[m]:>10.0f} {r[m] / r['ceiling']:>5.2f} {r[m + ' cpu'] / r['ceiling cpu']:>5.2f} "
                         f"{r[m + ' bound']:>5.2f}" if m in r else f"{'-':>10} {'-':>5} {'-':>5} {'-':>5}" for m in modes)
              + (f" {r['two-core bound']:>6.2f}" if "two-core bound" in r else ""))
