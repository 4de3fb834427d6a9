"""``recipe: table_ppo`` learner decisions per second, its update taken in turns with the rollout
(the reference) and overlapped with the next rollout (``ppo.overlap``), measured in the same run.

    python benchmarks/bench_table_ppo.py [--steps 150000] [--features members_only_belief_inputs]
    python benchmarks/bench_table_ppo.py --config configs/members_only_neural_selfplay_long.yaml \
        --reference configs/members_only_neural_selfplay.yaml [--steps 1000000]

The second form measures two config files' own settings one after the other in the same run (their
budgets replaced by ``--steps``, no evaluation, no checkpoint, no imitation) and prints the first's
rate beside the reference's: what a change of settings buys on this machine.

Each variant trains a fresh run folder from the same config and seed (no evaluation, no imitation)
for ``--steps`` learner decisions; the rate is the trainer's own (``progress.csv``: decisions since
the PPO loop started over its wall time), so loading the trainer and compiling are left out. On
2 cores the overlapped loop can at best take the longer of rollout and update per iteration
instead of their sum; the ``bound`` column says what that would give from the serial run's own
rollout and update seconds. Figures: docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import csv
import tempfile
from pathlib import Path

import yaml

from club_envs.training.launch import run

CONFIG = {
    "recipe": "table_ppo",
    "game": {"name": "members_only", "num_players": [3, 4, 5], "options": {"reward_mode": "win", "heat_shaping": 0.02}},
    "ppo": {"games": 255, "steps": 64, "learning_rate": 1.0e-4, "epochs": 4, "minibatch": 4096, "critic": "privileged"},
    "network": {"hidden": [256, 256], "activation": "tanh"},
    "league": {"share": 0.7, "snapshot_every": 50_000, "pool_size": 30, "bots": ["heuristic", "heuristic_bold", "random"],
               "bot_share": 0.5},
    "evaluation": {"every": 10**9, "games": 0},
    "checkpoint": {"every": 10**9},
    "seed": 7,
}


def measure(features: str, steps: int, overlap: bool, folder: Path) -> dict[str, float]:
    cfg = yaml.safe_load(yaml.safe_dump(CONFIG))
    cfg["network"]["features"] = features
    cfg["ppo"]["overlap"] = overlap
    return measure_config(cfg, steps, folder, f"overlap-{overlap}")


def measure_config(cfg: dict, steps: int, folder: Path, name: str) -> dict[str, float]:
    """Train ``cfg`` for ``steps`` learner decisions in a fresh folder and read the trainer's own rate."""
    cfg = {**cfg, "budget": {"total_steps": steps}, "evaluation": {"every": 10**9, "games": 0},
           "checkpoint": {"every": 10**9}}
    cfg.pop("imitation", None)
    path = folder / f"{name}.yaml"
    path.write_text(yaml.safe_dump(cfg))
    run_dir = run(path, runs_dir=folder / f"runs-{name}", progress=False)
    rows = list(csv.DictReader((run_dir / "progress.csv").open()))
    rollout = sum(float(r["rollout_seconds"]) for r in rows)
    update = sum(float(r["update_seconds"]) for r in rows)
    return {"rate": float(rows[-1]["steps_per_second"]), "steps": float(rows[-1]["steps"]), "rollout": rollout,
            "update": update}


def compare(config: Path, reference: Path, steps: int) -> None:
    """Two configs' own settings, the reference first, in the same run."""
    rates = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name, path in (("reference", reference), ("config", config)):
            rates[name] = measure_config(yaml.safe_load(path.read_text()), steps, Path(tmp), name)
    print(f"table_ppo, {int(rates['config']['steps']):,} learner decisions each")
    print(f"{'config':<52} {'decisions/s':>12} {'vs reference':>13}")
    for name, path in (("reference", reference), ("config", config)):
        rate = rates[name]["rate"]
        print(f"{path.name + (' (reference)' if name == 'reference' else ''):<52} {rate:>12,.0f} "
              f"{rate / rates['reference']['rate']:>12.2f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=150_000)
    parser.add_argument("--features", default="members_only_belief_inputs",
                        choices=["members_only_beliefs", "members_only_heuristic", "members_only_belief_inputs"])
    parser.add_argument("--config", type=Path, help="a table_ppo config file to measure on its own settings")
    parser.add_argument("--reference", type=Path, help="with --config: the config file to measure beside it")
    args = parser.parse_args()
    if (args.config is None) != (args.reference is None):
        parser.error("--config and --reference go together")
    if args.config is not None:
        compare(args.config, args.reference, args.steps)
        return
    with tempfile.TemporaryDirectory() as tmp:
        serial = measure(args.features, args.steps, False, Path(tmp))
        overlapped = measure(args.features, args.steps, True, Path(tmp))
    # serial: rollout_seconds and update_seconds are the two halves of each iteration
    bound = serial["rate"] * (serial["rollout"] + serial["update"]) / max(serial["rollout"], serial["update"])
    print(f"table_ppo, members_only 3/4/5p, {args.features}, {int(serial['steps']):,} learner decisions each")
    print(f"{'loop':<26} {'decisions/s':>12} {'vs serial':>10}")
    print(f"{'serial (reference)':<26} {serial['rate']:>12,.0f} {1.0:>9.2f}x")
    print(f"{'overlap':<26} {overlapped['rate']:>12,.0f} {overlapped['rate'] / serial['rate']:>9.2f}x")
    print(f"{'bound max(rollout, update)':<26} {bound:>12,.0f} {bound / serial['rate']:>9.2f}x")
    print(f"serial run: rollout {serial['rollout']:.1f} s, update {serial['update']:.1f} s")


if __name__ == "__main__":
    main()
