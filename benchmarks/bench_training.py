"""Training-loop throughput against its own ceiling, for the configs the project tracks.

    python benchmarks/bench_training.py [--rollouts 3] [--modes batched workers dummy]

Runs ``club-envs bench --suite``: the default config,
its pure self-play variant, ``members_only_selfplay`` and Arkham, each measured next to the same
learner on a trivial environment of the same sizes (the ceiling) in the same run, so the ratio is
meaningful on a loaded machine; by default in two modes, all games in the training process
(``batched``) and split over worker processes (``workers``). Each mode's games are also timed alone
(random legal learner moves, no learner), which bounds the ratio any loop can reach with them: the
``bound`` column for stable-baselines3's loop, which takes turns, and the ``two-core bound`` for a
loop that would overlap games and acting perfectly on both cores. Each mode runs with both loops
(``--loops turns overlap``): stable-baselines3's own, and the learner that plays its next rollout
while it updates (``algorithm.overlap``, rows ``<mode>+ov``). Figures: docs/benchmarks.md.
"""

from __future__ import annotations

import sys

from club_envs.cli import main

if __name__ == "__main__":
    args = sys.argv[1:]
    raise SystemExit(main(["bench", "--suite", *(args or ["--modes", "vector", "batched"])]))
