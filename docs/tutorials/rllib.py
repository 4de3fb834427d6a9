"""Train the same kind of config on Ray RLlib, locally or on a cluster, and play the exported policy.

    python docs/tutorials/rllib.py [--steps N] [--runners R] [--address ADDRESS] [--games G]

A config with ``backend: rllib`` keeps every shared section and adds an ``rllib`` block. With
``address: local`` Ray starts on this machine; with a cluster head's address (``HOST:6379``, or
``auto`` on a node) the environment runners spread over the cluster. The run folder has the same
shape as a stable-baselines3 run, and its exported policy plays without Ray. Needs the ``rllib``
extra.
"""

import argparse
from pathlib import Path

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--steps", type=int, default=200_000, help="environment steps (default 200000)")
parser.add_argument("--runners", type=int, default=2, help="environment runners (default 2)")
parser.add_argument("--address", default="local", help="'local', or a Ray cluster's HOST:6379 or 'auto'")
parser.add_argument("--games", type=int, default=200, help="evaluation games at the end (default 200)")
parser.add_argument("--runs-dir", type=Path, default=Path("runs"), help="where the run folder goes")
args = parser.parse_args()

# --8<-- [start:config]
batch = 4000 if args.steps >= 40_000 else 400       # environment steps per PPO update
CONFIG = f"""
backend: rllib
rllib:
  address: {args.address}
  num_env_runners: {args.runners}
  num_envs_per_env_runner: 4
  train_batch_size: {batch}
game:
  name: members_only
  num_players: [3, 4, 5]
algorithm:
  batch_size: {batch // 4}
  n_epochs: 2
network:
  hidden: [64, 64]
selfplay:
  snapshot_every: {batch * 5}
  pool_size: 3
evaluation:
  every: {max(args.steps // 2, batch)}
  games: {min(args.games, 50)}
  opponents: [random]
checkpoint:
  every: {max(args.steps // 2, batch)}
budget:
  total_steps: {args.steps}
seed: 0
"""
# --8<-- [end:config]

# --8<-- [start:train]
from club_envs.training.train import run

args.runs_dir.mkdir(parents=True, exist_ok=True)
path = args.runs_dir / "tutorial_rllib.yaml"
path.write_text(CONFIG)
run_dir = run(path, runs_dir=args.runs_dir, progress=False)   # what `club-envs train` runs
# --8<-- [end:train]

# --8<-- [start:play]
import club_envs.members_only as members_only
from club_envs.evaluation import format_table, play_series

print("exported policies:", sorted(p.name for p in (run_dir / "latest").iterdir()))
result = play_series(members_only, members_only.Config(num_players=4),
                     seat_agents=[str(run_dir / "latest"), "random", "random", "random"], games=args.games, seed=1)
print(format_table(result))
# --8<-- [end:play]
