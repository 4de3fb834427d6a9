"""Self-play on the batched multi-agent game: one small torch policy plays every seat of many games.

    python docs/tutorials/vector_selfplay.py [--games N] [--iterations K] [--eval-games G]

``club_envs.make_vector_game`` steps N games of Members Only together; each step takes one action
per game, for the player to move there, and returns every seat's reward. One policy plays all seats
(self-play), learns by REINFORCE from the seats' rewards, and is then measured against random play.
Needs torch (the ``train`` extra).
"""

import argparse

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--games", type=int, default=64, help="games played together (default 64)")
parser.add_argument("--iterations", type=int, default=40, help="policy updates, one per round of games (default 40)")
parser.add_argument("--eval-games", type=int, default=400, help="games of the final measurement (default 400)")
args = parser.parse_args()

# --8<-- [start:setup]
import numpy as np
import torch

import club_envs

torch.manual_seed(0)
# Every game played to its end, then all restarted together: autoreset off, a finished game waits
# (its current_player is -1 and its action is ignored) until reset(options={"reset_mask": ...}).
game = club_envs.make_vector_game("members_only", num_games=args.games, num_players=4, heat_shaping=0.05,
                                  autoreset=False, seed=0)
policy = torch.nn.Sequential(torch.nn.Linear(game.observation_size, 64), torch.nn.Tanh(),
                             torch.nn.Linear(64, game.num_actions))
optimizer = torch.optim.Adam(policy.parameters(), lr=1e-3)


def act(observation, action_mask, greedy=False):
    """One action per game from the policy, among the legal ones, and its log-probability."""
    logits = policy(torch.as_tensor(observation))
    logits = logits.masked_fill(~torch.as_tensor(action_mask), -torch.inf)
    dist = torch.distributions.Categorical(logits=logits)
    action = logits.argmax(dim=1) if greedy else dist.sample()
    return action, dist.log_prob(action)
# --8<-- [end:setup]


# --8<-- [start:play]
def play_round(seed):
    """Every game once, to its end, the policy at every seat. Returns, per decision, its
    log-probability and what its seat got from then on, and every seat's total per game."""
    step = game.reset(seed=seed)
    log_probs, movers, rewards = [], [], []
    while (step.current_player >= 0).any():
        playing = step.current_player >= 0
        action, log_prob = act(step.observation, step.action_mask)
        log_probs.append(log_prob)
        movers.append(np.where(playing, step.current_player, -1))
        step = game.step(action.numpy())
        rewards.append(step.rewards)  # (games, seats): what this move gave every seat
    rewards = np.stack(rewards)  # (moves, games, seats)
    to_go = np.flip(np.cumsum(np.flip(rewards, 0), 0), 0)  # each seat's reward from each move on
    movers = np.stack(movers)  # (moves, games): the seat that moved, -1 once a game was over
    move, g = np.nonzero(movers >= 0)
    weights = torch.as_tensor(to_go[move, g, movers[move, g]].copy(), dtype=torch.float32)
    return torch.stack(log_probs)[move, g], weights, rewards.sum(0)
# --8<-- [end:play]


# --8<-- [start:learn]
for iteration in range(args.iterations):
    log_probs, weights, totals = play_round(seed=iteration)
    loss = -(log_probs * weights).mean()  # REINFORCE: more of what led to a seat's later rewards
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    if iteration % 10 == 0 or iteration == args.iterations - 1:
        print(f"iteration {iteration:3d}: {len(weights):6d} decisions, reward per seat {np.round(totals.mean(0), 3)}")
# --8<-- [end:learn]


# --8<-- [start:evaluate]
def measure(policy_seats, games_wanted, seed=10_000):
    """The policy at ``policy_seats``, uniformly random legal moves at the others: each seat's mean
    reward per game and its share of the wins, over at least ``games_wanted`` games (autoreset on)."""
    table = club_envs.make_vector_game("members_only", num_games=min(64, games_wanted), num_players=4, seed=seed)
    step, rng = table.reset(seed=seed), np.random.default_rng(seed)
    totals, wins, finished = np.zeros(4), np.zeros(4), 0
    while finished < games_wanted:
        with torch.no_grad():
            chosen = act(step.observation, step.action_mask, greedy=True)[0].numpy()
        random_moves = np.argmax(np.where(step.action_mask, rng.random(step.action_mask.shape), -1), axis=1)
        step = table.step(np.where(np.isin(step.current_player, policy_seats), chosen, random_moves))
        totals += step.rewards.sum(0)
        ended = step.terminated | step.truncated
        if ended.any():
            winners = step.info["final_info"]["winners"][ended]
            wins += (winners / winners.sum(1, keepdims=True)).sum(0)  # a shared win counts 1/k
            finished += int(ended.sum())
    return totals / finished, wins / finished, finished


for label, seats in (("policy at seat 0, random at 1-3", [0]), ("random at every seat", [])):
    reward, share, played = measure(seats, args.eval_games)
    print(f"{label:>32}: reward per seat {np.round(reward, 3)}, win share {np.round(share, 3)} ({played} games)")
# --8<-- [end:evaluate]
