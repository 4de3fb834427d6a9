"""Belief iteration's games on the batched engine: the games of a table size played together, in arrays.

:func:`club_envs.training.belief.play_generation` with ``selfplay.engine`` resolved to ``vector``
plays here. The games of one table size are one
:class:`~club_envs.members_only.vector_game.MembersOnlyVectorGame` (no autoreset: each game is
played once). Every round, each game still going makes one move: the belief agent's seats are
answered together by :class:`~club_envs.members_only.vector_belief.VectorBeliefPolicy` (one forward
pass of the model for all of them), the bots' by
:class:`~club_envs.members_only.vector_seats.TableSeats` (``random``, ``heuristic`` and
``heuristic_bold`` compiled, every other bot by its reference code on the seat's view).

The examples are those :func:`club_envs.training.belief.game_examples` records, read from the
arrays instead of the reference engine's state: at every decision with a choice, the mover's
observation (``float16``), the cards it knows will be shown (display, hand, a picked reveal), its
heat and its discard if already made; at the start of each heat's discards, every card bound for
the display or a discard; every discard as it is played. When the games are over each decision's
target is what the other players added to each category after it, "normal minus NO!" + 2, as the
reference computes it. The examples come out game by game, each game's in the order played: given
the same decks and the same decisions, exactly the reference path's (tested).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np

from club_envs.agents.batched import GameRows
from club_envs.members_only import actions as A
from club_envs.members_only.belief_agent import BeliefAgent
from club_envs.members_only.engine import DISCARD
from club_envs.members_only.observer import SIZE as OBS_SIZE
from club_envs.members_only.rules import NUM_CARD_TYPES, NUM_CATEGORIES, Config
from club_envs.members_only.vector_belief import VectorBeliefPolicy
from club_envs.members_only.vector_engine import NO_SEAT, Tables
from club_envs.members_only.vector_game import MembersOnlyVectorGame
from club_envs.members_only.vector_seats import TableSeats

MOVES_PER_SIGN_OF_LIFE = 1000  # the bar's postfix (moves so far, their rate) is renewed this often


class TableExamples(NamedTuple):
    """What the games of one table size gave: examples game by game (``games``: the game's index
    among them), and how many of the belief agent's and the compiled bots' decisions were
    near-ties settled by the reference code."""

    observations: np.ndarray  # (K, 510) float16
    targets: np.ndarray  # (K, 5) int8, 0..13
    games: np.ndarray  # (K,) int32
    belief_unclear: int
    bot_unclear: int


class Labels:
    """What labelling needs, gathered while the games are played (see the module docstring)."""

    def __init__(self, num_games: int, num_players: int, max_heats: int) -> None:
        self.num_players = num_players
        # per game and heat: every card bound for the display or a discard, and each seat's discard
        self.bound = np.zeros((num_games, max_heats + 1, NUM_CARD_TYPES), np.int16)
        self.discards = np.full((num_games, max_heats + 1, num_players), NO_SEAT, np.int16)
        self.observations: list[np.ndarray] = []
        self.shown: list[np.ndarray] = []  # the cards the mover knows will be shown
        self.where: list[np.ndarray] = []  # (game, heat, seat, own discard or -1)

    def before_moves(self, t: Tables, rows: np.ndarray, seats: np.ndarray, observations: np.ndarray,
                     masks: np.ndarray) -> None:
        """The decisions about to be made (``seats[k]`` to move in game ``rows[k]``), and the cards
        of every heat whose discards begin now."""
        starting = (t.phase[rows] == DISCARD) & (seats == 0)  # seat 0 discards first: nothing discarded yet
        at = rows[starting]
        self.bound[at, t.heat[at]] = t.display[at] + t.hands[at].sum(axis=1)
        choice = masks.sum(axis=1) > 1
        at, who = rows[choice], seats[choice]
        shown = t.display[at].astype(np.int16) + t.hands[at, who]
        picked = t.pending[at]
        shown[np.flatnonzero(picked != NO_SEAT), picked[picked != NO_SEAT]] += 1
        self.observations.append(observations[choice].astype(np.float16))
        self.shown.append(shown)
        where = np.empty((len(at), 4), np.int64)
        where[:, 0], where[:, 1], where[:, 2], where[:, 3] = at, t.heat[at], who, t.discards[at, who]
        self.where.append(where)

    def moves(self, t: Tables, rows: np.ndarray, seats: np.ndarray, actions: np.ndarray) -> None:
        """The moves about to be played: the discards among them."""
        discarding = t.phase[rows] == DISCARD
        at = rows[discarding]
        self.discards[at, t.heat[at], seats[discarding]] = actions[discarding] - A.DISCARD_BASE

    def examples(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(observations, targets, games)`` game by game, each game's decisions in order."""
        where = np.concatenate(self.where) if self.where else np.zeros((0, 4), np.int64)
        game, heat, seat, own_discard = where.T
        k = len(where)
        added = self.bound[game, heat].astype(np.int64) - np.concatenate(self.shown or [np.zeros((0, NUM_CARD_TYPES))])
        discards = self.discards[game, heat]  # (K, n): every seat's discard of that heat
        others = seat[:, None] != np.arange(self.num_players)[None, :]
        rows = np.broadcast_to(np.arange(k)[:, None], discards.shape)
        added -= self._counted(rows[others], discards[others], k)
        made = own_discard != NO_SEAT  # already face down: in neither the display nor the hand
        added -= self._counted(np.flatnonzero(made), own_discard[made], k)
        targets = (added[:, :NUM_CATEGORIES] - added[:, NUM_CATEGORIES:] + 2).astype(np.int8)
        order = np.argsort(game, kind="stable")
        observations = np.concatenate(self.observations) if self.observations else np.zeros((0, OBS_SIZE), np.float16)
        self.observations = []  # the largest part: let it go as soon as it is sorted
        return observations[order], targets[order], game[order].astype(np.int32)

    @staticmethod
    def _counted(rows: np.ndarray, cards: np.ndarray, k: int) -> np.ndarray:
        """(k, 10) how many of ``cards`` each row holds (``rows[i]`` holds ``cards[i]``)."""
        return np.bincount(rows * NUM_CARD_TYPES + cards, minlength=k * NUM_CARD_TYPES).reshape(k, NUM_CARD_TYPES)


def table_examples(learner: BeliefAgent, config: Config, lineups: Sequence[Sequence[str | None]],
                   agent_seeds: Sequence[Sequence[int | None]], seed: Any, decks: np.ndarray | None = None,
                   phase: Any = None) -> TableExamples:
    """The examples of ``len(lineups)`` games at ``config``'s table size, played together:
    ``lineups[g][seat]`` is ``None`` for ``learner``'s seats, else a built-in bot's name (started
    with ``agent_seeds[g][seat]``); ``seed`` deals the games and seeds the ``random`` bots, or
    ``decks`` (games, heats, 65) deal them. ``phase`` (a progress phase) shows the moves so far."""
    count = len(lineups)
    game = MembersOnlyVectorGame(count, num_players=config.num_players, rewards=config.rewards,
                                 max_heats=config.max_heats, random_start_player=config.random_start_player,
                                 autoreset=False)
    deals, moves = np.random.SeedSequence(seed).spawn(2)
    step = game.reset(seed=deals, options={} if decks is None else {"decks": decks})
    policy = VectorBeliefPolicy(learner)
    seats = TableSeats(game.games, lineups, agent_seeds, moves)
    labels = Labels(count, config.num_players, config.max_heats)
    played, started = 0, time.perf_counter()
    while True:
        rows = np.flatnonzero(step.current_player >= 0)
        if not len(rows):
            break
        movers = step.current_player[rows]
        observations, masks = step.observation[rows], step.action_mask[rows]
        labels.before_moves(game.games.tables, rows, movers, observations, masks)
        actions = np.zeros(count, np.int64)
        mine = seats.learner(rows, movers)
        if mine.any():
            at = GameRows(game.games, rows[mine], movers[mine])
            actions[rows[mine]] = policy(observations[mine], masks[mine], at)
        if not mine.all():
            actions[rows[~mine]] = seats.bot_actions(rows[~mine], movers[~mine], observations[~mine], masks[~mine])
        labels.moves(game.games.tables, rows, movers, actions[rows])
        step = game.step(actions)
        before, played = played, played + len(rows)
        if phase is not None and played // MOVES_PER_SIGN_OF_LIFE > before // MOVES_PER_SIGN_OF_LIFE:
            rate = played / max(1e-9, time.perf_counter() - started)
            phase.set_postfix({"moves in this batch": f"{played:,}", "moves/s": f"{rate:,.0f}"})
            phase.update(0)  # a redraw (at most every half second) or a plain line when one is due
    observations, targets, games = labels.examples()
    return TableExamples(observations, targets, games, policy.unclear, seats.unclear)


__all__ = ["Labels", "TableExamples", "table_examples"]
