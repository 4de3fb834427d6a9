"""The turns of the Members Only vector environment, compiled: the learner's move, then the
opponents' until the learner's next turn, with the learner's reward for it all.

The ``random`` and ``heuristic`` opponents (:mod:`club_envs.members_only.vector_bots`,
:mod:`club_envs.members_only.vector_heuristic`) move inside :func:`advance`. A game stops there,
waiting, when the seat to move belongs to a batched policy (it needs a forward pass, in Python) or
when the heuristic's choice is a near-tie that the reference bot settles; the environment answers
all waiting games at once and hands the moves to :func:`play_given`, then calls :func:`advance`
again. With ``keep`` set every move and every heat's deck order is logged, for the game's record.
"""

from __future__ import annotations

import numpy as np

from club_envs.members_only.compiled import compiled
from club_envs.members_only.engine import OVER
from club_envs.members_only.vector_bots import random_action
from club_envs.members_only.vector_engine import Rules, Tables, apply_action, final_score, winners_of
from club_envs.members_only.vector_heuristic import UNCLEAR, heuristic_action
from club_envs.members_only.vector_lineup import HEURISTIC, RANDOM

WIN, SCORE = 0, 1  # reward modes, in env.REWARD_MODES order
NOT_WAITING = -1


@compiled
def end_reward(t: Tables, r: Rules, g: int, seat: int, reward_mode: int, winners: np.ndarray) -> float:
    """The learner's reward when game ``g`` ends: "win" -- winners share +1 and the others -1 (0
    for all when everyone ties); "score" -- its score minus the mean of the others'."""
    n = r.num_players
    if reward_mode == WIN:
        winners_of(t, g, n, winners)
        k = 0
        for s in range(n):
            k += winners[s]
        if k == n:
            return 0.0
        if winners[seat]:
            return 1.0 / k
        return -1.0 / (n - k)
    total = 0.0
    for s in range(n):
        total += final_score(t, g, s)
    own = float(final_score(t, g, seat))
    return own - (total - own) / (n - 1)


@compiled
def move_reward(
    t: Tables, r: Rules, g: int, seat: int, heat_before: int, reward_mode: int, heat_shaping: float, winners: np.ndarray
) -> float:
    """The learner's reward from one move of game ``g``: nothing unless the move settled a heat;
    then ``heat_shaping`` x (its points minus the mean of the others'), plus :func:`end_reward` if
    the game ended."""
    over = t.phase[g] == OVER
    if t.heat[g] == heat_before and not over:
        return 0.0
    reward = 0.0
    n = r.num_players
    if heat_shaping != 0.0:
        total = 0.0
        for s in range(n):
            total += t.heat_points[g, s]
        own = float(t.heat_points[g, seat])
        reward += heat_shaping * (own - (total - own) / (n - 1))
    if over:
        reward += end_reward(t, r, g, seat, reward_mode, winners)
    return reward


@compiled
def play_move(t: Tables, r: Rules, g: int, action: int, seat: int, reward_mode: int, heat_shaping: float,
              winners: np.ndarray, keep: bool, log: np.ndarray, lengths: np.ndarray, decks: np.ndarray) -> float:
    """Play ``action`` (legal) in game ``g``, log it if ``keep`` (and the deck of a heat it deals),
    and return the learner's reward from it."""
    heat = t.heat[g]
    apply_action(t, r, g, action)
    if keep:
        log[g, lengths[g]] = action
        lengths[g] += 1
        if t.heat[g] != heat:
            for i in range(t.deck.shape[1]):
                decks[g, t.heat[g] - 1, i] = t.deck[g, i]
    return move_reward(t, r, g, seat, heat, reward_mode, heat_shaping, winners)


@compiled
def advance(
    t: Tables, r: Rules, which: np.ndarray, seats: np.ndarray, kinds: np.ndarray, chip_cost: np.ndarray,
    rival_weight: np.ndarray, states: np.ndarray, reward_mode: int, heat_shaping: float, winners: np.ndarray,
    keep: bool, log: np.ndarray, lengths: np.ndarray, decks: np.ndarray, mask: np.ndarray, unseen: np.ndarray,
    shown: np.ndarray, offsets: np.ndarray, counts: np.ndarray, p: np.ndarray, values: np.ndarray,
    worth: np.ndarray, rewards: np.ndarray, waiting: np.ndarray, unclear: np.ndarray,
) -> None:
    """In every game of ``which``: the compiled opponents move until the learner's turn, the end,
    or a seat this code cannot answer (``kinds``, ``chip_cost``, ``rival_weight``: each game's
    line-up per opponent slot, :class:`~club_envs.members_only.vector_lineup.GameLineups`) -- then ``waiting[g]`` is that seat's opponent slot and
    ``unclear[g]`` says whether it is a heuristic near-tie (else a policy's turn). The learner's
    rewards meanwhile are added to ``rewards[g]``."""
    n = r.num_players
    for g in range(which.shape[0]):
        if not which[g]:
            continue
        waiting[g] = NOT_WAITING
        unclear[g] = False
        seat = seats[g]
        while t.phase[g] != OVER and t.current[g] != seat:
            slot = (t.current[g] - seat - 1) % n
            kind = kinds[g, slot]
            if kind == RANDOM:
                action = random_action(t, g, states, mask)
            elif kind == HEURISTIC:
                action = heuristic_action(t, r, g, chip_cost[g, slot], rival_weight[g, slot], mask, unseen, shown,
                                          offsets, counts, p, values, worth)
                if action == UNCLEAR:
                    waiting[g] = slot
                    unclear[g] = True
                    break
            else:
                waiting[g] = slot
                break
            rewards[g] += play_move(t, r, g, action, seat, reward_mode, heat_shaping, winners, keep, log, lengths,
                                    decks)


@compiled
def play_given(
    t: Tables, r: Rules, which: np.ndarray, actions: np.ndarray, seats: np.ndarray, reward_mode: int,
    heat_shaping: float, winners: np.ndarray, keep: bool, log: np.ndarray, lengths: np.ndarray, decks: np.ndarray,
    rewards: np.ndarray, add: bool,
) -> None:
    """Play ``actions[g]`` (legal) in every game of ``which``; the learner's reward is added to
    ``rewards[g]`` (``add``) or replaces it (the learner's own move, the first of its step)."""
    for g in range(which.shape[0]):
        if which[g]:
            reward = play_move(t, r, g, actions[g], seats[g], reward_mode, heat_shaping, winners, keep, log,
                               lengths, decks)
            rewards[g] = rewards[g] + reward if add else reward
