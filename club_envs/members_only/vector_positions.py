"""Positions of the reference engine played on from the batched engine's tables.

The batched engine deals its own games; the search (:mod:`club_envs.members_only.vector_search`)
instead has positions built by the reference engine -- worlds sampled from one seat's view -- and
plays many of them out at once. :func:`load_states` writes reference
:class:`~club_envs.members_only.engine.State` objects into rows of a
:class:`~club_envs.members_only.vector_engine.VectorGames`: the same player to move, legal actions,
observations and, from there on, the same transitions (tested move by move against the reference).
What the tables cannot take over is the reference's random generator: heats after the loaded one
are shuffled from the row's own generator (``seeds``), so two engines agree up to the end of the
loaded heat and deal different (equally random) heats after it.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from club_envs.members_only.engine import State
from club_envs.members_only.rules import NUM_CARD_TYPES
from club_envs.members_only.vector_engine import (
    ENDED_BY_MAX_HEATS,
    ENDED_BY_TRACKS,
    NO_SEAT,
    PLAYING,
    VectorGames,
)
from club_envs.vector_rng import seed_states

_REASONS = {"tracks": ENDED_BY_TRACKS, "max_heats": ENDED_BY_MAX_HEATS}


def load_states(games: VectorGames, states: Sequence[State], rows: Sequence[int] | None = None,
                seeds: Sequence[int] | None = None) -> None:
    """Write ``states[i]`` into row ``rows[i]`` (default: rows 0, 1, ...) of ``games``, its
    generator seeded with ``seeds[i]`` (default: the state's own seed, or 0). The states must be of
    the games' table size and rules, and still playing or ended by the rules (a forfeited game has
    no batched counterpart)."""
    rows = list(range(len(states))) if rows is None else [int(r) for r in rows]
    if len(rows) != len(states) or (seeds is not None and len(seeds) != len(states)):
        raise ValueError(f"{len(states)} states need as many rows and seeds, got {len(rows)} rows"
                         + ("" if seeds is None else f" and {len(seeds)} seeds"))
    if rows and (min(rows) < 0 or max(rows) >= games.num_games):
        raise ValueError(f"rows must lie in 0..{games.num_games - 1}, got {min(rows)}..{max(rows)}")
    t = games.tables
    for i, (g, state) in enumerate(zip(rows, states)):
        if _play(state.config) != _play(games.config):
            raise ValueError(f"state {i} is a game of {state.config}, the tables play {games.config}")
        seed = seeds[i] if seeds is not None else (state.seed or 0)
        t.rng[g] = seed_states(int(seed), 1)[0]
        _load(t, g, state)


def _play(config) -> tuple:
    """What decides play from a position on (the start player of heat 1 is no longer open)."""
    return config.num_players, config.rewards, config.max_heats


def _load(t, g: int, state: State) -> None:
    reason = PLAYING
    if state.result is not None:
        if state.result["reason"] not in _REASONS:
            raise ValueError(f"a game ended by {state.result['reason']!r} cannot be loaded; "
                             f"loadable: playing or ended by {', '.join(_REASONS)}")
        reason = _REASONS[state.result["reason"]]
    t.heat[g], t.round[g], t.phase[g], t.turn[g] = state.heat, state.round, state.phase, state.turn
    t.current[g] = NO_SEAT if state.current_player is None else state.current_player
    t.start[g] = state.start_player
    t.reason[g] = reason
    t.pending[g] = NO_SEAT if state.pending_reveal is None else state.pending_reveal
    t.chips[g] = state.chips
    t.tracks[g] = state.tracks
    t.hands[g] = state.hands
    t.hand_sizes[g] = state.hand_sizes()
    t.revealed_by[g] = state.revealed_by
    t.discards[g] = [NO_SEAT if card is None else card for card in state.discards]
    t.heat_points[g] = 0
    settle = state.last_settle()
    if settle is not None:
        for chip in settle["chips"]:
            t.heat_points[g, chip["seat"]] += chip["points"]
    t.board_owner[g] = NO_SEAT
    t.board_chip[g] = 0
    t.board_risk[g] = 0
    for i, (spot, owner, kind, risk) in enumerate(state.bets):
        t.board_owner[g, spot], t.board_chip[g, spot], t.board_risk[g, spot] = owner, kind, risk
        t.bet_spots[g, i] = spot
    t.bet_count[g] = len(state.bets)
    t.display[g] = state.display
    t.face_up[g] = np.bincount(np.asarray(state.face_up, dtype=np.int64), minlength=NUM_CARD_TYPES)
    # The deck is read once dealt only for the face-up cards' order (vector_views); the hands and
    # the cards out of play are in the arrays above.
    dealt = state.num_players * state.config.hand_size
    t.deck[g, dealt:dealt + len(state.face_up)] = state.face_up
    t.given_heats[g] = 0
