"""A readable text picture of the table as one seat sees it (``render_mode="ansi"``, terminal play),
or as a spectator does (``"public"``: public roles, face-up cards, votes; no hand, no identity).
"""

from __future__ import annotations

from club_envs.rendering import PUBLIC_VIEW, table_view
from club_envs.arkham_decoders.engine import CHOOSE, END, PROPOSAL, VOTE, State, View
from club_envs.arkham_decoders.rules import ADVISOR, BOOKS, card_name

PUBLIC = PUBLIC_VIEW  # render_text(state, seat=PUBLIC) draws the spectator's view
SPECTATOR_SEAT = -1  # the ``seat`` of a public view: no seat is "you"


def public_view(state: State) -> View:
    """What a spectator may know: any seat's view with that seat's own knowledge removed (its
    hand, identity, grimoire, what it knows of the Black Man and the true book, its pending vote)."""
    view = state.player_view(0)
    return view._replace(seat=SPECTATOR_SEAT, identity=None, grimoire=None, black_man=None, true_book=None,
                         hand=(), my_vote=None, peeked=False)


_PHASE_TEXT = {
    PROPOSAL: "proposal (show chapter cards)",
    VOTE: "advice (advisors vote)",
    CHOOSE: "decoding (leader picks one card)",
    END: "game over",
}


def render_text(view_or_state: View | State, seat: int | str | None = None) -> str:
    """Text table from one seat's view; a State is shown from ``seat`` (default: the seat to move,
    or seat 0 once the game is over, when the result is appended); ``seat="public"`` draws the
    spectator's view."""
    state = None
    if isinstance(view_or_state, State):
        state = view_or_state
        view = table_view(state, seat, public_view)
    else:
        view = view_or_state
    n = view.num_players
    seen_by = "a spectator (public information only)" if view.seat == SPECTATOR_SEAT else f"seat {view.seat}"
    lines = [
        f"Arkham Decoders Club - {n} players - seen by {seen_by}",
        f"phase: {_PHASE_TEXT[view.phase]}   to move: "
        f"{'-' if view.current_player is None else f'seat {view.current_player}'}",
        f"deck: {view.deck_size} cards   reshuffles: {view.reshuffles}   face-up grimoires (fakes): "
        f"{', '.join(BOOKS[b] for b in view.face_up_books) or 'none'}",
        "",
    ]
    for s in range(n):
        role = view.roles[s]
        tags = []
        if s == view.seat and view.identity is not None:
            tags.append(f"you are the {view.identity.replace('_', ' ')}, grimoire {BOOKS[view.grimoire]}")
        elif s == view.seat:
            tags.append("you")
        if view.black_man is not None and role == ADVISOR and s != view.seat:
            tags.append("the Black Man" if s == view.black_man else "the Investigator")
        if role == ADVISOR:
            hand = ""
        elif s == view.seat:
            hand = "hand: " + " ".join(card_name(c) for c in view.hand)
        else:
            hand = f"hand: {view.hand_size} cards"
        decoded = " ".join(card_name(c) for c in view.decoded[s]) or "-"
        detail = "" if role == ADVISOR else f"  decoded: {decoded}"
        parts = [f"seat {s} {role:<7}"]
        if tags:
            parts.append("(" + "; ".join(tags) + ")")
        if hand:
            parts.append(hand + detail)
        lines.append("  ".join(parts))
    lines.append("")
    if view.table:
        shown = ", ".join(f"[{i}] {card_name(c)} by seat {s}" for i, (s, c) in enumerate(view.table))
        lines.append(f"face up: {shown}")
    if view.passes:
        lines.append(f"passed: {', '.join(f'seat {s}' for s in view.passes)}")
    if view.my_vote is not None:
        lines.append(f"your pending vote: {'agree' if view.my_vote else 'oppose'}")
    if view.votes:
        last = view.votes[-1]
        a0, a1 = view.advisors
        lines.append(
            f"last advice: seat {a0} {'agree' if last.votes[0] else 'oppose'}, seat {a1} "
            f"{'agree' if last.votes[1] else 'oppose'} on {', '.join(card_name(c) for _, c in last.table)}"
        )
    lines.append(f"discard pile: {' '.join(card_name(c) for c in view.discard) or 'empty'}")
    if state is not None and state.result is not None:
        r = state.result
        lines.append(
            f"result: {r['reason']}; true grimoire {r['true_grimoire']}; SAN {r['san']}; total {r['total']}; "
            f"{'the team wins' if r['winner'] == 'team' else 'the Black Man wins'}"
        )
    return "\n".join(lines)
