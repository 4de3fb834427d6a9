"""A readable text picture of the Members Only table, from one seat's view or a spectator's.

A seat's picture shows its own hand and nothing of anyone else's; the spectator's (``"public"``)
shows only what every seat knows: the display, the chips, the tracks, the hand sizes, and no hand.
"""

from __future__ import annotations

from club_envs.rendering import PUBLIC_VIEW, table_view
from club_envs.members_only.engine import PHASES, State, View, category_count, waiting_no_cards
from club_envs.members_only.rules import (
    CATEGORIES,
    NUM_CATEGORIES,
    NUM_SPACES,
    SPACES,
    TRACK_SCORING_MIN,
    card_name,
)


PUBLIC = PUBLIC_VIEW  # render_text(state, seat=PUBLIC) draws the spectator's view
SPECTATOR_SEAT = -1  # the ``seat`` of a public view: no seat is "you"


def public_view(state: State) -> View:
    """What a spectator may know: any seat's view with that seat's own knowledge removed.

    Every field of :class:`View` is common to all seats except the seat's hand, its first card of
    a two-card reveal and its face-down discard, so blanking those leaves the public information.
    """
    view = state.player_view(0)
    return view._replace(seat=SPECTATOR_SEAT, hand=tuple(0 for _ in view.hand), pending_reveal=None, own_discard=None)


def _cards(counts: tuple[int, ...] | list[int]) -> str:
    parts = [f"{card_name(c)}x{k}" if k > 1 else card_name(c) for c, k in enumerate(counts) if k]
    return " ".join(parts) if parts else "-"


def render_text(view_or_state: View | State, seat: int | str | None = None) -> str:
    """The table as text. A :class:`State` is drawn from the view of ``seat`` (default: the player
    to move, or seat 0 when the game is over); ``seat="public"`` draws the spectator's view."""
    view = table_view(view_or_state, seat, public_view) if isinstance(view_or_state, State) else view_or_state
    n = view.num_players
    lines = []
    if view.phase == 3:
        status = "game truncated (max_heats)" if view.truncated else "game over"
    else:
        status = f"{PHASES[view.phase]} phase, seat {view.current_player} to move"
    lines.append(
        f"Members Only - heat {view.heat}, round {view.round}/{view.rounds_per_heat} "
        f"(start player: seat {view.start_player}) - {status}"
    )
    lines.append("")
    header = f"{'category':<9} {'count':>5} {'NO!':>4}  " + " ".join(f"{s:>4}" for s in SPACES)
    lines.append(header)
    for c in range(NUM_CATEGORIES):
        cells = []
        for space in range(NUM_SPACES):
            chip = view.board[c * NUM_SPACES + space]
            if chip is None:
                cells.append(f"{'.':>4}")
            else:
                owner, kind, risk = chip
                cells.append(f"{('D' if kind else 'S') + str(owner) + ('!' if risk else ''):>4}")
        lines.append(
            f"{CATEGORIES[c]:<9} {category_count(view.display, c):>5} {waiting_no_cards(view.display, c):>4}  "
            + " ".join(cells)
        )
    lines.append("  (chips: S=single, D=double, then the owner's seat; ! = on the risk marker)")
    lines.append("")
    lines.append(f"face-up: {' '.join(card_name(c) for c in view.face_up)}")
    lines.append(f"{'seat':<6} {'chips':<8} {'hand':>4}  " + " ".join(f"{c[:7]:>7}" for c in CATEGORIES) + "  score  revealed")
    for s in range(n):
        single, double = view.chips[s]
        track = view.tracks[s]
        score = sum(v for v in track if v >= TRACK_SCORING_MIN)
        marker = "*" if s == view.seat else " "
        lines.append(
            f"{marker}{s:<5} {f'{single}S+{double}D':<8} {view.hand_sizes[s]:>4}  "
            + " ".join(f"{v:>7}" for v in track)
            + f"  {score:>5}  {_cards(view.revealed_by[s])}"
        )
    lines.append("")
    if view.seat == SPECTATOR_SEAT:
        lines.append("spectator view: public information only (no hand is shown)")
        return "\n".join(lines)
    hand = _cards(view.hand)
    extra = ""
    if view.pending_reveal is not None:
        extra = f" (picked to reveal: {card_name(view.pending_reveal)})"
    if view.own_discard is not None:
        extra += f" (discarded: {card_name(view.own_discard)})"
    lines.append(f"seat {view.seat} hand: {hand}{extra}")
    return "\n".join(lines)

