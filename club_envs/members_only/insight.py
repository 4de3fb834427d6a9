"""What a researcher may see of a Members Only table that no seat does: every hand, the first card
of a two-card reveal, the face-down discards, the cards out of play; and the truth behind what an
agent believes of the other hands. The replay viewer shows these only in its omniscient view."""

from __future__ import annotations

from club_envs.members_only.engine import State
from club_envs.members_only.rules import NUM_CARD_TYPES, card_name


def held_by_others(card: int) -> str:
    """The words naming an agent's belief about how many ``card`` the other seats hold; the
    agents' ``beliefs`` and :func:`belief_truths` use the same words."""
    return f"{card_name(card)} in the other hands"


def _cards(counts) -> str:
    parts = [f"{card_name(c)} x{k}" if k > 1 else card_name(c) for c, k in enumerate(counts) if k]
    return ", ".join(parts) if parts else "none"


def hidden_facts(state: State) -> list[tuple[str, str]]:
    """``(what, value)`` of every hidden fact at this moment of the game, seat by seat."""
    facts = []
    for seat in range(state.config.num_players):
        view = state.player_view(seat)
        facts.append((f"seat {seat} hand", _cards(view.hand)))
        if view.pending_reveal is not None:
            facts.append((f"seat {seat} first card of its reveal", card_name(view.pending_reveal)))
        if view.own_discard is not None:
            facts.append((f"seat {seat} face-down discard", card_name(view.own_discard)))
    out = getattr(state, "out_of_play", None)
    if out is not None:
        facts.append(("out of play this heat", ", ".join(card_name(c) for c in out) or "none"))
    return facts


def belief_truths(state: State, seat: int) -> dict[str, float]:
    """The true values of what an agent in ``seat`` believes (:func:`held_by_others`)."""
    held = [0] * NUM_CARD_TYPES
    for other in range(state.config.num_players):
        if other != seat:
            view = state.player_view(other)
            for card in range(NUM_CARD_TYPES):
                held[card] += view.hand[card] + (view.pending_reveal == card)
    return {held_by_others(card): float(held[card]) for card in range(NUM_CARD_TYPES)}


def chapter(view) -> str:
    """The part of the game a moment belongs to, for the viewer's jumps: the heat."""
    return f"heat {view.heat}"
