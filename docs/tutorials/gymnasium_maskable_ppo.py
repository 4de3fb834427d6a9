"""Train sb3-contrib's MaskablePPO on the Gymnasium view and measure it against random play.

    python docs/tutorials/gymnasium_maskable_ppo.py [--steps N] [--games G] [--save PATH]

The Gymnasium view puts one learner at a table whose other seats are played by named policies (here
the ``random`` bot). ``MaskablePPO`` reads the legal actions from ``env.action_masks()``, so it never
tries an illegal move. Needs the ``train`` extra.
"""

import argparse
from pathlib import Path

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--steps", type=int, default=100_000, help="learner decisions to train on (default 100000)")
parser.add_argument("--games", type=int, default=200, help="evaluation games (default 200)")
parser.add_argument("--save", type=Path, default=None, help="save the model here (a .zip)")
args = parser.parse_args()

# --8<-- [start:train]
import gymnasium
import numpy as np
from sb3_contrib import MaskablePPO

import club_envs  # noqa: F401  (registers the environments)

# heat_shaping: a small reward after every heat for the points it moved on the own tracks (relative
# to the others), so the learner hears more than the one win/loss at the end of a ~100-decision game
env = gymnasium.make("club_envs/MembersOnly-v0", num_players=4, opponents="random", seat="random",
                     heat_shaping=0.05)
model = MaskablePPO("MlpPolicy", env, n_steps=1024, batch_size=256, gamma=0.995, seed=0, verbose=0)
model.learn(total_timesteps=args.steps)
# --8<-- [end:train]
if args.save:
    model.save(args.save)

# --8<-- [start:evaluate]
from club_envs.stats import wilson_interval


def win_share(choose, games, seed=1000):
    """The learner's share of the wins over ``games`` games (a shared win counts 1/k)."""
    wins = 0.0
    for g in range(games):
        obs, info = env.reset(seed=seed + g)
        done = False
        while not done:
            obs, reward, terminated, truncated, info = env.step(choose(obs))
            done = terminated or truncated
        if info["winners"] and env.unwrapped.seat in info["winners"]:
            wins += 1.0 / len(info["winners"])
    return wins / games, wilson_interval(wins, games)


rng = np.random.default_rng(0)
trained = win_share(lambda obs: int(model.predict(obs, action_masks=env.unwrapped.action_masks(),
                                                  deterministic=True)[0]), args.games)
random_play = win_share(lambda obs: int(rng.choice(np.flatnonzero(env.unwrapped.action_masks()))), args.games)
for label, (share, (lo, hi)) in (("MaskablePPO", trained), ("random", random_play)):
    print(f"{label:>12}: win share {share:.3f} [{lo:.3f}, {hi:.3f}] against 3 random bots (fair share 0.25)")
# --8<-- [end:evaluate]
