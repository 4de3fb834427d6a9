"""Load the shipped trained agents, watch one play, measure it, and seat it as an opponent.

    python docs/tutorials/shipped_agent.py [--games G]

The shipped agents are small weights-only policy files in ``club_envs/agents/shipped/`` with a model
card beside each; ``club_envs.agents.load(name)`` turns a name into an agent, exactly as the command
line does. Needs the ``train`` extra (torch reads the weights; loading never runs code from a file).
"""

import argparse

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--games", type=int, default=200, help="games per comparison (default 200)")
args = parser.parse_args()

# --8<-- [start:load]
from club_envs.agents import load, shipped_names
from club_envs.agents.registry import model_card

for name in shipped_names():
    card = model_card(name) or {}
    print(f"{name}: game {card.get('game', '?')}, trained by `{card.get('command', '?')}`")

agent = load("members_only")             # add ":sample" to sample instead of the greedy default
# --8<-- [end:load]

# --8<-- [start:watch]
import club_envs.members_only as members_only
from club_envs import records

config = members_only.Config(num_players=4)
players = [agent] + [load("heuristic", game=members_only, config=config) for _ in range(3)]
record = members_only.play_match(config, players, seed=7)    # one game on the bare engine
print("scores", record["result"]["scores"], "winners", record["result"]["winners"])
assert records.replay(record) == record["result"]            # the record replays exactly
# --8<-- [end:watch]

# --8<-- [start:measure]
import club_envs.arkham_decoders as arkham
from club_envs.evaluation import format_table, play_series

result = play_series(members_only, config, seat_agents=["members_only", "random", "random", "random"],
                     games=args.games, seed=7)
print(format_table(result))

roles = {"leader": "arkham_team", "member": "arkham_team", "investigator": "arkham_team", "black_man": "heuristic"}
result = play_series(arkham, arkham.Config(num_players=5), role_agents=roles, games=args.games, seed=7)
print(format_table(result))
# --8<-- [end:measure]

# --8<-- [start:opponent]
import gymnasium
import numpy as np

import club_envs  # noqa: F401  (registers the environments)

env = gymnasium.make("club_envs/ArkhamDecoders-v0", num_players=5, role="black_man",
                     opponents={"leader": load("arkham_team"), "member": load("arkham_team"),
                                "investigator": load("arkham_team")})
obs, info = env.reset(seed=0)
done = False
while not done:                          # a naive Black Man (first legal action) against the trained team
    obs, reward, terminated, truncated, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
    done = terminated or truncated
print(f"the Black Man's reward against the shipped team: {reward:+.0f}")
# --8<-- [end:opponent]
