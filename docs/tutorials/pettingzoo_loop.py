"""Play whole games through the PettingZoo AEC API, save their records and replay them.

    python docs/tutorials/pettingzoo_loop.py [--games N] [--out DIR]

Every seat picks a random legal action from its action mask: the loop every PettingZoo user writes
first. The record of each game holds everything needed to replay it, and replaying checks that the
engine agrees with every recorded event.
"""

import argparse
from pathlib import Path

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--games", type=int, default=10, help="games of each game after the first (default 10)")
parser.add_argument("--out", type=Path, default=Path("runs/tutorial_pettingzoo"), help="records folder")
args = parser.parse_args()

# --8<-- [start:loop]
import numpy as np
from club_envs import members_only_v0

env = members_only_v0.env(num_players=4, render_mode="ansi")
env.reset(seed=7)
rng = np.random.default_rng(0)
for agent in env.agent_iter():
    obs, reward, terminated, truncated, info = env.last()
    mask = obs["action_mask"]                      # 1 for every legal action
    action = None if terminated or truncated else int(rng.choice(np.flatnonzero(mask)))
    env.step(action)
print(env.render())                                # the final table, as text
# --8<-- [end:loop]

# --8<-- [start:records]
from club_envs import arkham_decoders_v0, records

for name, module, players in (("members_only", members_only_v0, 4), ("arkham_decoders", arkham_decoders_v0, 5)):
    env = module.env(num_players=players)
    rewards = np.zeros(players)
    for game in range(args.games):
        env.reset(seed=game)
        for agent in env.agent_iter():
            obs, reward, terminated, truncated, info = env.last()
            rewards[env.possible_agents.index(agent)] += reward
            action = None if terminated or truncated else int(rng.choice(np.flatnonzero(obs["action_mask"])))
            env.step(action)
        path = env.unwrapped.save_record(args.out / f"{name}_{game:03d}.json")  # validated against the schema
        assert records.replay(records.load(path)) == env.unwrapped.record()["result"]
    print(f"{name}: {args.games} games, mean reward per seat {np.round(rewards / args.games, 3).tolist()}, "
          f"records in {args.out}")
# --8<-- [end:records]
