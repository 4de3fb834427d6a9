"""What a researcher may see of an Arkham Decoders Club table that no seat does: who the Black Man
is, the true grimoire, each advisor's grimoire, every hand, the votes not yet revealed, the deck;
and the truth behind what an agent believes. The replay viewer shows these only in its
omniscient view."""

from __future__ import annotations

from club_envs.arkham_decoders.engine import State
from club_envs.arkham_decoders.rules import BOOKS, card_name

_VOTE_WORDS = {True: "agree", False: "oppose"}


def true_book_words(book: int) -> str:
    """The words naming an agent's belief that ``book`` is the true grimoire; the agents'
    ``beliefs`` and :func:`belief_truths` use the same words."""
    return f"{BOOKS[book]} is the true grimoire"


def hidden_facts(state: State) -> list[tuple[str, str]]:
    """``(what, value)`` of every hidden fact at this moment of the game."""
    facts = [("the Black Man", f"seat {state.black_man_seat}"), ("the true grimoire", BOOKS[state.true_book])]
    for seat in range(state.config.num_players):
        view = state.player_view(seat)
        if view.identity is not None:
            facts.append((f"seat {seat} ({view.identity.replace('_', ' ')}) grimoire", BOOKS[view.grimoire]))
            if view.my_vote is not None:
                facts.append((f"seat {seat} vote, not yet revealed", _vote(view.my_vote)))
        else:
            facts.append((f"seat {seat} hand", ", ".join(card_name(c) for c in view.hand) or "none"))
    facts.append(("the deck, top first", ", ".join(card_name(c) for c in reversed(state.deck)) or "empty"))
    return facts


def _vote(vote: int) -> str:
    return _VOTE_WORDS[bool(vote)]  # the engine keeps a pending vote as 1 (agree) or 0 (oppose)


def belief_truths(state: State, seat: int) -> dict[str, float]:
    """The true values of what an agent in ``seat`` believes (:func:`true_book_words`)."""
    return {true_book_words(b): float(b == state.true_book) for b in range(len(BOOKS))}


def chapter(view) -> str:
    """The part of the game a moment belongs to, for the viewer's jumps: the proposal, counted
    by the advice given so far."""
    return f"proposal {len(view.votes) + 1}"
