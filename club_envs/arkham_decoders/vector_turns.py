"""The turns of the Arkham Decoders Club vector environment, compiled: new games with the learner
seated, the opponents' moves until the learner's turn, and the learner's reward.

The ``random`` and ``heuristic`` opponents (:mod:`club_envs.arkham_decoders.vector_bots`,
:mod:`club_envs.arkham_decoders.vector_heuristic`) move inside :func:`advance`. A game stops there,
waiting, when the seat to move belongs to a batched policy (it needs a forward pass, in Python) or
when the heuristic's choice is a near-tie that the reference bot settles; the environment answers
all waiting games at once and hands the moves to :func:`play_given`, then calls :func:`advance`
again. Every move is kept in the action log (:mod:`club_envs.arkham_decoders.vector_records`).
"""

from __future__ import annotations

import numpy as np

from club_envs.arkham_decoders.env import SAN_REWARD_SCALE
from club_envs.arkham_decoders.vector_bots import random_action
from club_envs.arkham_decoders.vector_engine import (
    END,
    NONE,
    Rules,
    apply_action,
    draw_for,
    reset_game,
    role_of,
    san_total,
)
from club_envs.arkham_decoders.vector_heuristic import UNCLEAR, heuristic_action
from club_envs.arkham_decoders.vector_lineup import HEURISTIC, RANDOM
from club_envs.arkham_decoders.vector_records import log_action
from club_envs.compiled import compiled

WIN, SAN = 0, 1  # reward modes, in env.REWARD_MODES order
ANY_ROLE = -1
NOT_WAITING = -1
DECIDED, HANDED_BACK = 0, 1  # the heuristic's tally: decisions made in compiled code, near-ties handed back


@compiled
def choose_seat(s, r: Rules, role: int) -> int:
    """The learner's seat in a new game: the seat dealt ``role`` (ROLES index; among several
    members one at random), or any seat at random (``role`` -1), drawn from the game's generator."""
    n = r.num_players
    if role == ANY_ROLE:
        return draw_for(s, n)
    count = 0
    for seat in range(n):
        count += role_of(s, seat) == role
    pick = draw_for(s, count) if count > 1 else 0
    for seat in range(n):
        if role_of(s, seat) == role:
            if pick == 0:
                return seat
            pick -= 1
    return NONE


@compiled
def end_reward(s, r: Rules, seat: int, reward_mode: int) -> float:
    """A seat's reward at the end: its side's "win" +1/-1 (the team wins at a SAN total of 1 or
    more), or "san" the clipped, scaled total; the Black Man gets the negative."""
    total = san_total(s, r)
    if reward_mode == SAN:
        team = min(1.0, max(-1.0, (total - 0.5) / SAN_REWARD_SCALE))
    else:
        team = 1.0 if total >= 1 else -1.0
    return -team if seat == s.black_man else team


@compiled
def deal_games(t: np.ndarray, r: Rules, which: np.ndarray, roles: np.ndarray, seats: np.ndarray,
               counts: np.ndarray) -> None:
    """New games where ``which`` is set, dealt from each game's generator, the learner seated in
    the game's role (``roles[g]``, as :func:`choose_seat` takes it) and the game's action log emptied."""
    for g in range(which.shape[0]):
        if which[g]:
            reset_game(t[g], r)
            counts[g] = 0
            seats[g] = choose_seat(t[g], r, roles[g])


@compiled
def opponent_slot(s, r: Rules, seat: int, learner: int, by_role: bool) -> int:
    """The line-up slot that plays ``seat``: its role (ROLES index), or how far clockwise of the
    learner it sits (0 for the next seat)."""
    if by_role:
        return role_of(s, seat)
    return (seat - learner - 1) % r.num_players


@compiled
def advance(
    t: np.ndarray, r: Rules, which: np.ndarray, seats: np.ndarray, by_role: np.ndarray, kinds: np.ndarray,
    states: np.ndarray, mask: np.ndarray, likelihood: np.ndarray, post: np.ndarray, p_true: np.ndarray,
    p_leader: np.ndarray, san: np.ndarray, log: np.ndarray, counts: np.ndarray, tally: np.ndarray,
    waiting: np.ndarray, unclear: np.ndarray,
) -> None:
    """In every game of ``which``: the compiled opponents move until the learner's turn, the end,
    or a seat this code cannot answer (``by_role``, ``kinds``: each game's line-up,
    :class:`~club_envs.arkham_decoders.vector_lineup.GameLineups`) -- then ``waiting[g]`` is that
    seat's line-up slot and ``unclear[g]`` says whether it is a heuristic near-tie (else a
    policy's turn). ``mask`` to ``san`` are the heuristic's work arrays; ``tally`` counts its
    decisions (DECIDED, HANDED_BACK)."""
    for g in range(which.shape[0]):
        if not which[g]:
            continue
        waiting[g] = NOT_WAITING
        unclear[g] = False
        s, learner = t[g], seats[g]
        while s.phase != END and s.current != learner:
            slot = opponent_slot(s, r, s.current, learner, by_role[g])
            kind = kinds[g, slot]
            if kind == RANDOM:
                action = random_action(s, g, states, mask)
            elif kind == HEURISTIC:
                action = heuristic_action(s, r, mask, likelihood, post, p_true, p_leader, san)
                if action == UNCLEAR:
                    tally[HANDED_BACK] += 1
                    waiting[g] = slot
                    unclear[g] = True
                    break
                tally[DECIDED] += 1
            else:
                waiting[g] = slot
                break
            log_action(log, counts, g, action)
            apply_action(s, r, action)


@compiled
def play_given(t: np.ndarray, r: Rules, which: np.ndarray, actions: np.ndarray, log: np.ndarray,
               counts: np.ndarray) -> None:
    """Play ``actions[g]`` (legal) in every game of ``which``, keeping each in the action log."""
    for g in range(which.shape[0]):
        if which[g]:
            log_action(log, counts, g, actions[g])
            apply_action(t[g], r, actions[g])


@compiled
def learner_rewards(t: np.ndarray, r: Rules, seats: np.ndarray, reward_mode: int, out: np.ndarray) -> None:
    """``out[g]``: the learner's reward -- its end reward in a game just over, else 0."""
    for g in range(seats.shape[0]):
        out[g] = end_reward(t[g], r, seats[g], reward_mode) if t[g].phase == END else 0.0
