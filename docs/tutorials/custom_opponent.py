"""Write your own Members Only agent and seat it at the table: in evaluation and as an opponent.

    python docs/tutorials/custom_opponent.py [--games G]

An agent is any object with a ``name``, ``reset(seat, seed)`` and ``act(decision)``. The decision
carries the seat's *view* (what that seat may know, as engine values), the legal actions, and on
demand the flat observation and the action mask, so a rule-based agent can read the view and a
neural one the observation; neither can see what its seat could not.
"""

import argparse

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--games", type=int, default=400, help="games per comparison (default 400)")
args = parser.parse_args()

# --8<-- [start:agent]
import numpy as np

from club_envs.members_only import actions as A

NORMAL = range(5)  # card types 0-4: umbrella, crown, teacup, big_ben, hat; 5-9: their NO! cards
OTHERS_SHOW = 2  # a rough guess of what the other players will still add to a category


class FavouriteCategory:
    """Backs the category it holds most cards of: bets on its count, reveals it, keeps it."""

    name = "favourite"

    def reset(self, seat, seed=None):
        self.rng = np.random.default_rng(seed)

    def act(self, decision):
        view, legal = decision.view, set(decision.legal_actions)
        favourite = max(NORMAL, key=lambda c: view.hand[c] - view.hand[5 + c])
        if any(A.is_bet(a) for a in legal) or A.NO_BET in legal:
            # the count so far (NO! cards cancel), plus its own cards, plus a guess for the others
            estimate = (view.display[favourite] - view.display[5 + favourite]
                        + view.hand[favourite] - view.hand[5 + favourite] + OTHERS_SHOW)
            space = int(np.clip(round(estimate), 1, 8)) - 1  # spaces 0-7: <=1 <=2 <=3 <=4 >=5 >=6 >=7 >=8
            if estimate < 5:
                space = min(space, 3)
            wanted = [A.encode_bet(favourite, space, chip) for chip in (0, 1)] + [A.NO_BET]  # single, double
        elif any(A.is_reveal(a) for a in legal):
            wanted = [A.encode_reveal(favourite)] + [A.encode_reveal(5 + c) for c in NORMAL if c != favourite]
        else:  # the end-of-heat discard: drop the favourite's NO! card first, never the favourite
            wanted = [A.encode_discard(5 + favourite)] + [A.encode_discard(c) for c in NORMAL if c != favourite]
        for action in wanted:
            if action in legal:
                return action
        return int(self.rng.choice(sorted(legal)))
# --8<-- [end:agent]


# --8<-- [start:evaluate]
import club_envs.members_only as members_only
from club_envs.agents import load
from club_envs.evaluation import format_table, play_series

config = members_only.Config(num_players=4)


def make(name, seed):
    """Our agent by its name, every other name as the registry knows it (bots, shipped agents)."""
    return FavouriteCategory() if name == "favourite" else load(name, game=members_only, config=config, seed=seed)


for others in ("random", "heuristic"):
    result = play_series(members_only, config, seat_agents=["favourite", others, others, others],
                         games=args.games, seed=0, make=make)
    print(f"favourite against 3 x {others} ({args.games} games, seats rotated):")
    print(format_table(result))
# --8<-- [end:evaluate]

# --8<-- [start:gym]
import gymnasium

import club_envs  # noqa: F401  (registers the environments)

env = gymnasium.make("club_envs/MembersOnly-v0", num_players=4,
                     opponents=[FavouriteCategory(), FavouriteCategory(), "heuristic"])
obs, info = env.reset(seed=0)
done = False
while not done:  # the learner's seat plays uniformly at random among the legal actions
    action = int(np.random.default_rng(0).choice(np.flatnonzero(info["action_mask"])))
    obs, reward, terminated, truncated, info = env.step(action)
    done = terminated or truncated
print(f"one Gymnasium episode against two 'favourite' opponents and the heuristic: reward {reward:+.2f}, "
      f"scores {info['scores']}")
# --8<-- [end:gym]
