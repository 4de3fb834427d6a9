"""A seat's :class:`~club_envs.members_only.engine.View` of one game of the batched engine.

The batched engine keeps no view objects; code written against the reference engine's views (the
``heuristic`` bot's reference arithmetic, the tests that compare the two engines position by
position) gets one from the arrays here, equal field for field to what
:meth:`~club_envs.members_only.engine.State.player_view` gives in the same position.
"""

from __future__ import annotations

from club_envs.members_only.engine import OVER, View
from club_envs.members_only.rules import FACE_UP_CARDS
from club_envs.members_only.vector_engine import ENDED_BY_MAX_HEATS, ENDED_BY_TRACKS, NO_SEAT, VectorGames


def _ints(row) -> tuple[int, ...]:
    return tuple(row.tolist())


def view_of(games: VectorGames, g: int, seat: int) -> View:
    """What ``seat`` may know in game ``g``: its own hand, pending reveal (on its turn) and
    discard, and the public part of the table."""
    t, config = games.tables, games.config
    n = config.num_players
    current = int(t.current[g])
    owners, kinds, risks = t.board_owner[g].tolist(), t.board_chip[g].tolist(), t.board_risk[g].tolist()
    board = [None if owner == NO_SEAT else (owner, kind, bool(risk)) for owner, kind, risk in zip(owners, kinds, risks)]
    bets = tuple((spot, *board[spot]) for spot in t.bet_spots[g, : t.bet_count[g]].tolist())
    pending = int(t.pending[g])
    discard = int(t.discards[g, seat])
    return View(
        seat=seat,
        num_players=n,
        rewards=tuple(config.rewards),
        max_heats=config.max_heats,
        heat=int(t.heat[g]),
        round=int(t.round[g]),
        rounds_per_heat=config.rounds_per_heat,
        phase=int(t.phase[g]),
        current_player=None if current == NO_SEAT else current,
        start_player=int(t.start[g]),
        hand=_ints(t.hands[g, seat]),
        pending_reveal=pending if seat == current and pending != NO_SEAT else None,
        own_discard=None if discard == NO_SEAT else discard,
        display=_ints(t.display[g]),
        face_up=_ints(t.deck[g, n * config.hand_size : n * config.hand_size + FACE_UP_CARDS]),
        revealed_by=tuple(map(tuple, t.revealed_by[g].tolist())),
        board=tuple(board),
        bets=bets,
        chips=tuple(map(tuple, t.chips[g].tolist())),
        tracks=tuple(map(tuple, t.tracks[g].tolist())),
        hand_sizes=_ints(t.hand_sizes[g]),
        terminal=bool(t.phase[g] == OVER and t.reason[g] == ENDED_BY_TRACKS),
        truncated=bool(t.phase[g] == OVER and t.reason[g] == ENDED_BY_MAX_HEATS),
    )
