"""The standard records (docs/records.md) of games played on the batched engine.

The batched engine keeps no event list (it would cost every game a Python object per move); what a
record needs is kept instead in arrays: every decision of every game, one byte each, written by the
compiled code that plays them (:func:`log_action`), and the deal and reshuffled decks the engine
keeps anyway (:meth:`~club_envs.arkham_decoders.vector_engine.VectorGames.setup` and
:meth:`~club_envs.arkham_decoders.vector_engine.VectorGames.reshuffle_decks`). When a game ends,
:func:`game_record` replays those decisions on the reference engine from the same setup and
reshuffles, which writes the events exactly as a game of the one-game environments does -- so the
record validates against the shipped schema and :func:`club_envs.arkham_decoders.replay.replay`
reproduces it, by construction -- and checks that the reference ends the game with the batched
engine's result.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from club_envs.arkham_decoders.engine import State
from club_envs.arkham_decoders.rules import NUM_CARDS, RESHUFFLES_TO_END
from club_envs.arkham_decoders.vector_engine import MAX_PROPOSERS, VectorGames
from club_envs.compiled import compiled

# The most decisions a game can take. A round has at most 3 reveals, at most MAX_PROPOSERS - 1
# passes before each (the leader never passes, so a full turn of the table reveals a card), 2
# votes and 1 decode; every reveal draws a card, and a game draws at most the 24 cards of each of
# its RESHUFFLES_TO_END decks, so it has at most 24 * 3 / 3 + 1 rounds.
_ROUNDS = NUM_CARDS * RESHUFFLES_TO_END // 3 + 1
MAX_DECISIONS = _ROUNDS * (3 * MAX_PROPOSERS + 2 + 1)


@compiled
def log_action(log: np.ndarray, counts: np.ndarray, g: int, action: int) -> None:
    """Keep ``action`` as game ``g``'s next decision (a log of no columns keeps nothing)."""
    if counts[g] < log.shape[1]:
        log[g, counts[g]] = action
    counts[g] += 1


class ActionLog:
    """Every game's decisions since its deal: ``actions`` (N, MAX_DECISIONS) int8 and ``counts``
    (N,); with ``keep=False`` a log of no columns, which the compiled code fills at no cost."""

    def __init__(self, num_games: int, keep: bool) -> None:
        self.actions = np.zeros((num_games, MAX_DECISIONS if keep else 0), np.int8)
        self.counts = np.zeros(num_games, np.int64)

    def decisions(self, g: int) -> np.ndarray:
        count = int(self.counts[g])
        if count > self.actions.shape[1]:
            raise RuntimeError(f"game {g} took {count} decisions, more than the {self.actions.shape[1]} a game "
                               "can take")
        return self.actions[g, :count]


def game_record(
    games: VectorGames, g: int, decisions: Sequence[int], controllers: Sequence[str], total: int
) -> dict[str, Any]:
    """The record of the finished game ``g`` (its ``decisions`` since the deal, ``total`` its SAN
    total on the batched engine), as the reference engine writes it; ``controllers`` name who
    played each seat. ``seed`` is null: the game came from the batched engine's generators, and the
    record holds its deal and reshuffles instead."""
    state = State(games.config, setup=games.setup(g), reshuffle_decks=games.reshuffle_decks(g))
    for action in decisions:
        state.apply_action(int(action))
    if not state.is_over or state.result["total"] != total:
        raise RuntimeError(f"game {g}: the reference engine does not end its {len(decisions)} decisions with the "
                           f"batched engine's SAN total {total}")
    return state.record(controllers)


__all__ = ["MAX_DECISIONS", "ActionLog", "game_record", "log_action"]
