"""Standard game records (docs/records.md) of games played on the batched engine.

The vector environment logs, per game, the deck order of every heat and every action
(:mod:`club_envs.members_only.vector_turns`); when a game ends, :func:`record_of` deals those decks
on the reference engine (:class:`~club_envs.members_only.engine.State` with ``deals``, as
:mod:`club_envs.members_only.replay` does), plays the logged actions and returns the reference
engine's own record -- so the record has exactly the reference format and replays by
construction, and :func:`record_of` checks that the reference engine reached the batched engine's
final scores.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from club_envs.members_only.engine import State, deal_from_deck
from club_envs.members_only.rules import Config


def deals_of(config: Config, decks: np.ndarray, start_player: int) -> list[dict[str, Any]]:
    """The ``deals`` of :class:`State` for these deck orders (heat 1 first)."""
    deals = []
    for deck in decks:
        hands, face_up, out_of_play = deal_from_deck([int(c) for c in deck], config)
        deals.append({"hands": hands, "face_up": face_up, "out_of_play": out_of_play, "start_player": start_player})
    return deals


def record_of(config: Config, start_player: int, decks: np.ndarray, actions: np.ndarray, controllers: list[str],
              scores: np.ndarray) -> dict[str, Any]:
    """The record of a finished game: heat 1's ``start_player``, ``decks`` (heats, 65) the deck
    order of each heat played, ``actions`` every action in order, ``controllers`` per seat and
    ``scores`` the batched engine's final scores (checked against the reference's)."""
    state = State(config, deals=deals_of(config, decks, start_player))
    for action in actions:
        state.apply_action(int(action))
    if not state.is_over or list(state.scores()) != [int(s) for s in scores]:
        raise RuntimeError("a logged game did not replay to its end on the reference engine")
    return state.record(controllers=controllers)
