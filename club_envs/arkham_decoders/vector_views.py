"""A seat's :class:`~club_envs.arkham_decoders.engine.View` of one game of the batched engine.

The batched engine keeps no view objects; code written against the reference engine's views (the
``heuristic`` bot's reference arithmetic, the ``arkham_heuristic`` policy inputs, the tests that
compare the two engines position by position) gets one from the arrays here, equal field for field
to what :meth:`~club_envs.arkham_decoders.engine.State.player_view` gives in the same position.
"""

from __future__ import annotations

import numpy as np

from club_envs.arkham_decoders.engine import PublicVote, View
from club_envs.arkham_decoders.rules import BLACK_MAN, INVESTIGATOR
from club_envs.arkham_decoders.vector_engine import (
    ADVISOR_ROLE,
    NONE,
    PHASE_NAMES,
    PUBLIC_ROLE_NAMES,
    VectorGames,
)


def _public_votes(s) -> tuple[PublicVote, ...]:
    """The game's revealed advices, oldest first: each table as (seat, card) in reveal order and
    the votes per advisor in vote order."""
    count = int(s["vote_count"])  # only the rows in use are converted (the arrays hold the game's longest)
    seats, cards, votes = s["advice_seats"][:count].tolist(), s["advice_cards"][:count].tolist(), \
        s["advice_votes"][:count].tolist()
    return tuple(PublicVote(tuple(zip(seat, card)), tuple(vote)) for seat, card, vote in zip(seats, cards, votes))


def view_of(games: VectorGames, g: int, seat: int) -> View:
    """What ``seat`` may know in game ``g``: its own hand, identity, grimoire and pending vote (an
    advisor's), the true grimoire (the Black Man's), the Black Man's seat (advisors, and seats that
    peeked), and the public part of the table."""
    tables = games.tables.view(np.ndarray)
    # one game's fields as a plain structured scalar: a record's field lookups run in Python, a void's in C
    s = tables.view(np.dtype((np.void, tables.dtype)))[g]
    config = games.config
    n = config.num_players
    advisor = int(s["roles"][seat]) == ADVISOR_ROLE
    black_man = int(s["black_man"])
    identity = (BLACK_MAN if seat == black_man else INVESTIGATOR) if advisor else None
    peeked = bool(s["peeked"][seat])
    advisors = tuple(s["advisors"].tolist())
    pending = [int(s["pending"][k]) for k in range(2) if advisors[k] == seat and s["pending"][k] != NONE]
    current = int(s["current"])
    size = int(s["table_size"])
    counts = s["decoded_count"].tolist()
    order = s["decoded_order"].tolist()
    return View(
        seat=seat,
        num_players=n,
        hand_size=config.hand_size,
        insanity_penalty=config.insanity_penalty,
        roles=tuple(PUBLIC_ROLE_NAMES[r] for r in s["roles"][:n].tolist()),
        leader=int(s["leader"]),
        advisors=advisors,
        identity=identity,
        grimoire=int(s["grimoire"][seat]) if advisor else None,
        black_man=black_man if advisor or peeked else None,
        true_book=int(s["true_book"]) if identity == BLACK_MAN else None,
        hand=tuple(s["hands"][seat].nonzero()[0].tolist()),
        table=tuple(zip(s["table_seats"][:size].tolist(), s["table_cards"][:size].tolist())),
        decoded=tuple(tuple(order[k][: counts[k]]) for k in range(n)),
        discard=tuple(s["discard"].nonzero()[0].tolist()),
        face_up_books=tuple(s["face_up"][: s["face_up_count"]].tolist()),
        deck_size=int(s["deck_size"]),
        reshuffles=int(s["reshuffles"]),
        votes=_public_votes(s),
        my_vote=pending[0] if pending else None,
        peeked=peeked,
        phase=PHASE_NAMES[s["phase"]],
        current_player=None if current == NONE else current,
        passes=tuple(s["pass_order"][: s["pass_count"]].tolist()),
    )


__all__ = ["view_of"]
