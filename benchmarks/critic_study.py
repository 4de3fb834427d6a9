"""The observation-only critic against the privileged one (``algorithm.critic``), same budget and seeds.

    python benchmarks/critic_study.py --runs runs/critic-study            # train the grid, then summarise
    python benchmarks/critic_study.py --runs runs/critic-study --summarise  # summarise existing runs

Members Only at 4 players, the learner against three heuristics, for each critic and seed a run of
``--steps`` steps (the runs of a grid are started together, in the background of this process).
Per run it reads from the run folder:

* ``train/explained_variance``: stable-baselines3 computes it on each new rollout from the values
  the critic predicted while collecting it, before any update on it -- an out-of-sample figure;
* ``train/advantage_std``: the spread of the GAE advantages before normalisation (the noise the
  critic leaves in the policy gradient);
* ``evaluations.csv``: the greedy policy's win share against three heuristics at each evaluation.

It prints two Markdown tables: per critic, the mean over the runs' second halves of each figure
(with a 95% interval over the seeds' means) and the win share at the last evaluation (Wilson
interval); per run, the second-half means with ± 1.96 standard errors over its rollouts.
"""

from __future__ import annotations

import argparse
import csv
import subprocess
import sys
from pathlib import Path

import numpy as np
import yaml

from club_envs.stats import t_quantile, wilson_interval

CRITICS = ("observation", "privileged")


def study_config(critic: str, seed: int, steps: int) -> dict:
    return {
        "game": {"name": "members_only", "num_players": 4, "options": {"reward_mode": "win", "heat_shaping": 0.02}},
        "algorithm": {"learning_rate": 3.0e-4, "n_steps": 128, "batch_size": 512, "n_epochs": 4, "gamma": 0.995,
                      "gae_lambda": 0.95, "ent_coef": 0.01, "critic": critic},
        "network": {"hidden": [128, 128]},
        "envs": {"n_envs": 32},
        "selfplay": {"snapshot_every": 50_000, "bots": ["heuristic"], "bot_share": 1.0},
        "evaluation": {"every": 25_000, "games": 100, "opponents": ["heuristic"]},
        "checkpoint": {"every": 50_000},
        "budget": {"total_steps": steps},
        "seed": seed,
    }


def launch(runs: Path, seeds: list[int], steps: int) -> None:
    """Train every (critic, seed) run at once and wait for them all."""
    runs.mkdir(parents=True, exist_ok=True)
    processes = []
    for critic in CRITICS:
        for seed in seeds:
            path = runs / f"mo4_{critic}_s{seed}.yaml"
            path.write_text(yaml.safe_dump(study_config(critic, seed, steps), sort_keys=False))
            processes.append(subprocess.Popen([sys.executable, "-m", "club_envs", "train", str(path), "--runs-dir",
                                               str(runs), "--quiet"]))
    for process in processes:
        process.wait()


def column(rows: list[dict], key: str) -> tuple[np.ndarray, np.ndarray]:
    pairs = [(float(r["time/total_timesteps"]), float(r[key])) for r in rows if r.get(key) and r.get("time/total_timesteps")]
    steps, values = (np.array(v) for v in zip(*pairs)) if pairs else (np.array([]), np.array([]))
    return steps, values


def interval(values: list[float]) -> str:
    """Mean ± the half-width of a 95% Student-t interval over the seeds."""
    values = np.asarray(values, dtype=float)
    if len(values) < 2:
        return f"{values.mean():.3f}"
    half = t_quantile(0.975, len(values) - 1) * values.std(ddof=1) / np.sqrt(len(values))
    return f"{values.mean():.3f} ± {half:.3f}"


def summarise(runs: Path) -> str:
    figures: dict[str, dict[str, list]] = {c: {"ev": [], "adv": [], "wins": []} for c in CRITICS}
    per_run: list[str] = []  # each run's second-half means, ± 1.96 standard errors over its rollouts
    for folder in sorted(p for p in runs.iterdir() if p.is_dir() and (p / "config.yaml").exists()):
        critic = yaml.safe_load((folder / "config.yaml").read_text())["algorithm"].get("critic", "observation")
        with open(folder / "logs" / "player" / "progress.csv") as f:
            rows = list(csv.DictReader(f))
        seed = yaml.safe_load((folder / "config.yaml").read_text())["seed"]
        half = []
        for key, name in (("train/explained_variance", "ev"), ("train/advantage_std", "adv")):
            steps, values = column(rows, key)
            values = values[(steps >= steps.max() / 2) & np.isfinite(values)]
            figures[critic][name].append(float(values.mean()))
            half.append(f"{values.mean():.3f} ± {1.96 * values.std(ddof=1) / np.sqrt(len(values)):.3f}")
        per_run.append(f"| `{critic}` | {seed} | {half[0]} | {half[1]} |")
        with open(folder / "evaluations.csv") as f:
            figures[critic]["wins"].append({int(r["total_step"]): (float(r["win_share"]), int(r["games"]))
                                            for r in csv.DictReader(f)})
    lines = ["| critic | runs | explained variance (2nd half) | advantage std (2nd half) | win share vs 3 heuristics, last evaluation |",
             "|---|---|---|---|---|"]
    for critic, fig in figures.items():
        if not fig["wins"]:
            continue
        last = min(max(w) for w in fig["wins"])  # the last step every run reached
        won = sum(w[last][0] * w[last][1] for w in fig["wins"])
        games = sum(w[last][1] for w in fig["wins"])
        lines.append(f"| `{critic}` | {len(fig['wins'])} | {interval(fig['ev'])} | {interval(fig['adv'])} | "
                     f"{won / games:.3f} ({games} games at {last:,} steps; {wilson(won, games)}) |")
    runs_table = ["| critic | seed | explained variance (2nd half) | advantage std (2nd half) |", "|---|---|---|---|"]
    return "\n".join(lines + [""] + runs_table + per_run)


def wilson(wins: float, games: int) -> str:
    """The 95% Wilson interval of a win share."""
    low, high = wilson_interval(wins, games)
    return f"95% {low:.3f}–{high:.3f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=Path, required=True, help="the folder of the grid's runs")
    parser.add_argument("--seeds", type=int, nargs="+", default=[11, 12])
    parser.add_argument("--steps", type=int, default=150_000)
    parser.add_argument("--summarise", action="store_true", help="only summarise the runs already there")
    args = parser.parse_args()
    if not args.summarise:
        launch(args.runs, args.seeds, args.steps)
    print(summarise(args.runs))


if __name__ == "__main__":
    main()
