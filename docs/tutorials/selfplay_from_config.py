"""Train a Members Only agent by self-play from a YAML config, then play the result as an agent.

    python docs/tutorials/selfplay_from_config.py [--steps N] [--games G] [--runs-dir DIR]

A config states only what it changes; everything else takes the defaults listed in the
config reference (docs/config.md). ``club-envs train CONFIG`` does the same as ``club_envs.training.train.run``
below. Needs the ``train`` extra.
"""

import argparse
from pathlib import Path

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--steps", type=int, default=100_000, help="environment steps (default 100000)")
parser.add_argument("--games", type=int, default=200, help="evaluation games at the end (default 200)")
parser.add_argument("--runs-dir", type=Path, default=Path("runs"), help="where the run folder goes")
args = parser.parse_args()

# --8<-- [start:config]
CONFIG = f"""
game:
  name: members_only
  num_players: 4
algorithm:
  n_steps: 256
  batch_size: 256
network:
  hidden: [64, 64]
envs:
  n_envs: 4
selfplay:
  scheme: recent            # draw recent snapshots of the learner more often
  snapshot_every: {max(args.steps // 10, 64)}
  bots: [random]            # and the random bot, for a quarter of the opponents
  bot_share: 0.25
evaluation:
  every: {max(args.steps // 4, 64)}
  games: {min(args.games, 100)}
  opponents: [random, heuristic]
checkpoint:
  every: {max(args.steps // 4, 64)}
budget:
  total_steps: {args.steps}
seed: 0
"""
# --8<-- [end:config]

# --8<-- [start:train]
from club_envs.training import config as configs
from club_envs.training.train import run

args.runs_dir.mkdir(parents=True, exist_ok=True)
path = args.runs_dir / "tutorial_selfplay.yaml"
path.write_text(CONFIG)
configs.load(path)                       # the same check `club-envs train` makes first: one line per mistake
run_dir = run(path, runs_dir=args.runs_dir, progress=False)   # prints the run folder
# --8<-- [end:train]

# --8<-- [start:play]
import club_envs.members_only as members_only
from club_envs.evaluation import format_table, play_series

config = members_only.Config(num_players=4)
trained = str(run_dir / "best")          # a run folder, its best/ or latest/, or a policy file
result = play_series(members_only, config, seat_agents=[trained, "random", "random", "random"],
                     games=args.games, seed=1)
print(format_table(result))
# --8<-- [end:play]
