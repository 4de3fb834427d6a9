"""The table as one seat sees it, in the plain values the page templates draw.

Each function reads only the seat's view (and the seat names of the presenter), so the page can
show nothing the seat may not know. ``legal`` is the set of the person's legal actions when it
is their turn (the board's bet buttons come from it), else empty.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from club_envs.play.presenter_base import Presenter


def table_context(record_name: str, view: Any, presenter: Presenter, legal: Collection[int]) -> dict[str, Any]:
    """The page's table for the game called ``record_name`` (its spec's ``web_table`` hook)."""
    from club_envs.games import get_spec

    return get_spec(record_name).hook("web_table")(view, presenter, legal)


# ---------------------------------------------------------------------------------------------
# Members Only


def members_only_table(view: Any, presenter: Presenter, legal: Collection[int]) -> dict[str, Any]:
    from club_envs.members_only import actions as A
    from club_envs.members_only.engine import PHASES
    from club_envs.members_only.rules import (
        CATEGORIES,
        NUM_CARD_TYPES,
        NUM_CATEGORIES,
        SPACES,
        TRACK_MAX,
        TRACK_SCORING_MIN,
    )
    from club_envs.play.members_only import CATEGORY_NAMES, card_text, multiplier

    me = view.seat
    n = view.num_players
    risk_round = view.round == 1
    display = view.display
    seats = []
    for s in range(n):
        track = view.tracks[s]
        seats.append({
            "seat": s,
            "label": presenter.seat_name(s),
            "is_you": s == me,
            "to_move": s == view.current_player,
            "single": view.chips[s][0],
            "double": view.chips[s][1],
            "hand_size": view.hand_sizes[s],
            "score": sum(v for v in track if v >= TRACK_SCORING_MIN),
            "revealed": [card_text(c) for c in range(NUM_CARD_TYPES) for _ in range(view.revealed_by[s][c])],
        })
    board = []
    categories = []
    tracks = []
    for c, name in enumerate(CATEGORIES):
        normal, no = display[c], display[NUM_CATEGORIES + c]
        count = max(0, normal - no)
        cells = []
        for sp, space in enumerate(SPACES):
            chip = view.board[c * len(SPACES) + sp]
            single, double = A.encode_bet(c, sp, 0), A.encode_bet(c, sp, 1)
            cells.append({
                "space": space,
                "reward": view.rewards[sp],
                "chip": None if chip is None else {
                    "seat": chip[0], "double": bool(chip[1]), "risk": bool(chip[2]),
                    "owner": presenter.seat_name(chip[0]), "mine": chip[0] == me,
                },
                "single": single if single in legal else None,
                "double": double if double in legal else None,
                "single_pays": view.rewards[sp] * multiplier(0, risk_round),
                "double_pays": view.rewards[sp] * multiplier(1, risk_round),
            })
        board.append({"key": name, "name": CATEGORY_NAMES[name], "count": count, "cells": cells})
        categories.append({
            "key": name,
            "name": CATEGORY_NAMES[name],
            "normal": normal,
            "no": no,
            "cancelled": min(normal, no),
            "waiting_no": max(0, no - normal),
            "counted": count,
        })
        tracks.append({
            "key": name,
            "name": CATEGORY_NAMES[name],
            "cells": [
                {"value": v, "scoring": v >= TRACK_SCORING_MIN,
                 "seats": [s for s in range(n) if view.tracks[s][c] == v]}
                for v in range(1, TRACK_MAX + 1)
            ],
            "at_zero": [s for s in range(n) if view.tracks[s][c] == 0],
            "reached_five": any(view.tracks[s][c] >= TRACK_SCORING_MIN for s in range(n)),
        })
    hand = [
        {"text": card_text(card), "key": CATEGORIES[card % NUM_CATEGORIES], "no": card >= NUM_CATEGORIES,
         "count": view.hand[card]}
        for card in range(NUM_CARD_TYPES) if view.hand[card]
    ]
    phase = PHASES[view.phase]
    return {
        "heat": view.heat,
        "round": view.round,
        "rounds_per_heat": view.rounds_per_heat,
        "risk_round": risk_round,
        "phase": phase,
        "to_move": None if view.current_player is None else presenter.seat_name(view.current_player),
        "start_player": presenter.seat_name(view.start_player),
        "seats": seats,
        "spaces": list(zip(SPACES, view.rewards)),
        "board": board,
        "categories": categories,
        "face_up": [card_text(c) for c in view.face_up],
        "tracks": tracks,
        "hand": hand,
        "hand_total": sum(view.hand),
        "pending_reveal": None if view.pending_reveal is None else card_text(view.pending_reveal),
        "own_discard": None if view.own_discard is None else card_text(view.own_discard),
        "betting": any(A.is_bet(a) for a in legal),
    }


# ---------------------------------------------------------------------------------------------
# Arkham Decoders Club


def arkham_table(view: Any, presenter: Presenter, legal: Collection[int]) -> dict[str, Any]:
    from club_envs.arkham_decoders.rules import ADVISOR, BOOKS, card_name
    from club_envs.play.arkham_decoders import BOOK_NAMES, ROLE_NAMES

    me = view.seat
    face_up_books = set(view.face_up_books)

    def card(c: int) -> dict[str, Any]:
        text = card_name(c)
        book, value = text.split(":")
        return {"text": text, "book": book, "book_name": BOOK_NAMES[book], "value": int(value),
                "known_fake": BOOKS.index(book) in face_up_books}

    seats = []
    for s in range(view.num_players):
        role = view.roles[s]
        known = None
        if s == me and view.identity is not None:
            known = ROLE_NAMES[view.identity]
        elif view.black_man is not None and role == ADVISOR:
            known = "Black Man" if s == view.black_man else "Investigator"
        seats.append({
            "seat": s,
            "label": presenter.seat_name(s),
            "role": ROLE_NAMES[role],
            "is_advisor": role == ADVISOR,
            "is_you": s == me,
            "to_move": s == view.current_player,
            "identity": known,
            "hand_size": None if role == ADVISOR else (len(view.hand) if s == me else view.hand_size),
            "decoded": [card(c) for c in view.decoded[s]],
            "passed": s in view.passes,
        })
    a0, a1 = view.advisors
    votes = [
        {
            "number": i + 1,
            "cards": [dict(card(c), by=presenter.seat_name(s)) for s, c in v.table],
            "votes": [(presenter.seat_name(a0), "agree" if v.votes[0] else "oppose"),
                      (presenter.seat_name(a1), "agree" if v.votes[1] else "oppose")],
        }
        for i, v in enumerate(view.votes)
    ][::-1]
    return {
        "phase": view.phase,
        "to_move": None if view.current_player is None else presenter.seat_name(view.current_player),
        "seats": seats,
        "role": ROLE_NAMES[view.roles[me]],
        "identity": ROLE_NAMES[view.identity] if view.identity else None,
        "grimoire": BOOK_NAMES[BOOKS[view.grimoire]] if view.grimoire is not None else None,
        "grimoire_true": view.true_book is not None,
        "black_man": presenter.seat_name(view.black_man) if view.black_man is not None else None,
        "peeked": view.peeked,
        "hand": [card(c) for c in view.hand],
        "table": [dict(card(c), slot=i, by=presenter.seat_name(s)) for i, (s, c) in enumerate(view.table)],
        "my_vote": None if view.my_vote is None else ("agree" if view.my_vote else "oppose"),
        "votes": votes,
        "face_up_books": [BOOK_NAMES[BOOKS[b]] for b in view.face_up_books],
        "books": [{"key": b, "name": BOOK_NAMES[b], "face_up": i in face_up_books} for i, b in enumerate(BOOKS)],
        "deck_size": view.deck_size,
        "reshuffles": view.reshuffles,
        "discard": [card(c) for c in view.discard],
        "penalty": view.insanity_penalty,
    }
