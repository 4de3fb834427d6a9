"""Learning curves of a training run: win share against each evaluation opponent over steps.

    club-envs curves RUN_DIR [--out RUN_DIR/learning_curve.png]

Reads ``RUN_DIR/evaluations.csv`` (one row per evaluation: steps, side, opponent, players, win
share and its 95% Wilson interval) and draws one panel per side, one line per opponent and table
size, with the interval as a band. The evaluations are greedy games on a fixed seed series, so a
curve shows the policy's progress, not the noise of self-play results.
"""

from __future__ import annotations

import csv
from collections import defaultdict
from pathlib import Path


def read_evaluations(run_dir: Path) -> dict[str, dict[tuple[str, int], list[tuple[int, float, float, float]]]]:
    """side -> (opponent, players) -> [(side steps, win share, low, high), ...] in step order."""
    path = Path(run_dir) / "evaluations.csv"
    if not path.is_file():
        raise FileNotFoundError(f"{run_dir} has no evaluations.csv (no evaluation has run yet)")
    curves: dict = defaultdict(lambda: defaultdict(list))
    with path.open(newline="") as f:
        for row in csv.DictReader(f):
            key = (row["opponent"], int(row["players"]))
            curves[row["side"]][key].append((int(row["side_step"]), float(row["win_share"]),
                                             float(row["ci_lo"]), float(row["ci_hi"])))
    return {side: {k: sorted(v) for k, v in by.items()} for side, by in curves.items()}


def plot(run_dir: Path, out: Path, title: str | None = None) -> Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    curves = read_evaluations(run_dir)
    sides = sorted(curves)
    fig, axes = plt.subplots(1, len(sides), figsize=(6.5 * len(sides), 4.2), squeeze=False)
    for ax, side in zip(axes[0], sides):
        for (opponent, players), points in sorted(curves[side].items()):
            steps = [p[0] for p in points]
            ax.plot(steps, [p[1] for p in points], marker="o", markersize=3, label=f"vs {opponent}, {players}p")
            ax.fill_between(steps, [p[2] for p in points], [p[3] for p in points], alpha=0.2)
        parity = {p for (_, p) in curves[side]}
        if len(sides) == 1 and len(parity) == 1:  # Members Only: an even share of the table
            ax.axhline(1.0 / parity.pop(), color="grey", linestyle="--", linewidth=1, label="even share")
        ax.set_xlabel(f"{side} steps")
        ax.set_ylabel("win share (greedy evaluation, 95% interval)")
        ax.set_ylim(0, 1)
        ax.set_title(side if len(sides) > 1 else (title or side))
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    if title and len(sides) > 1:
        fig.suptitle(title)
    fig.tight_layout()
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return out
