"""Held-out Arkham Decoders Club opponents: bot families that share no decision rule with ``heuristic``.

For evaluation only (:mod:`club_envs.evaluation_pools`): no training config may seat them. None
of them uses the heuristic's vote model or its belief; each plays every role.

The team's roles play one **tally** rule in every family: each book gets a suspicion, the number
of times an advisor (the Black Man, for a seat that knows him) agreed to a proposal holding it
minus the times he opposed one; face-up grimoires and the Investigator's own grimoire are known
fakes. The leader and members reveal their card of the least suspected book (the smallest loss
first); a member passes when every card it holds is of the most suspected book; the Investigator
agrees only to proposals holding no card of the two most suspected books; after a 1-1 vote the
leader decodes the card of the least suspected book. The Black Man differs by family:

``holdout_greedy``
    agrees to every proposal holding a card of the true grimoire, opposes the rest;
``holdout_impostor``
    picks a decoy (a fake book) each game and votes as an honest Investigator who took the decoy
    for the true book would: he opposes proposals holding decoy cards and agrees to the others
    -- true cards included;
``holdout_counter``
    agrees with a chance that grows with the true cards on the table (0 of them: 0.3, one: 0.6,
    more: 0.9), whatever the table believes.
"""

from __future__ import annotations

import numpy as np

from club_envs.agents.base import Decision
from club_envs.arkham_decoders import actions as A
from club_envs.arkham_decoders.engine import CHOOSE, PROPOSAL, VOTE, View
from club_envs.arkham_decoders.rules import BLACK_MAN, INVESTIGATOR, NUM_BOOKS, NUM_VALUES, VALUES

NAMES = ("holdout_greedy", "holdout_impostor", "holdout_counter")
COUNTER_AGREE = (0.3, 0.6, 0.9)  # holdout_counter's chance to agree with 0, 1, 2+ true cards


def suspicion(view: View) -> np.ndarray:
    """Per book: agreements minus oppositions to proposals holding it, by the Black Man if this
    seat knows him, else by both advisors; known fakes get -inf."""
    score = np.zeros(NUM_BOOKS)
    watched = [view.advisors.index(view.black_man)] if view.black_man is not None else [0, 1]
    for public in view.votes:
        books = {card // NUM_VALUES for _, card in public.table}
        for b in watched:
            for book in books:
                score[book] += 1.0 if public.votes[b] else -1.0
    for book in view.face_up_books:
        score[book] = -np.inf
    if view.identity == INVESTIGATOR and view.grimoire is not None:
        score[view.grimoire] = -np.inf
    return score


def _card_rank(card: int, score: np.ndarray) -> tuple[float, int]:
    """Lower is safer: the book's suspicion, then the card's loss if that book were true."""
    return score[card // NUM_VALUES], -VALUES[card % NUM_VALUES]


def team_action(view: View, legal) -> int:
    """The tally rule for the leader, members and the Investigator (module docstring)."""
    score = suspicion(view)
    if view.phase == PROPOSAL:
        top = int(np.argmax(score))
        safest = min(view.hand, key=lambda c: _card_rank(c, score))
        if view.seat != view.leader and all(c // NUM_VALUES == top for c in view.hand) and A.PASS in legal:
            return A.PASS
        return A.REVEAL + safest
    if view.phase == VOTE:
        feared = set(np.argsort(-score, kind="stable")[:2].tolist())
        return A.OPPOSE if any(card // NUM_VALUES in feared for _, card in view.table) else A.AGREE
    if view.phase == CHOOSE:
        slots = [a - A.DECODE for a in legal if a >= A.DECODE]
        slot = min(slots, key=lambda s: _card_rank(view.table[s][1], score))
        return A.DECODE + slot
    return int(legal[0])


class HoldoutAgent:
    """One held-out family: the tally team and the family's Black Man (module docstring)."""

    def __init__(self, name: str, seed: int | None = None) -> None:
        if name not in NAMES:
            raise ValueError(f"unknown held-out bot {name!r}; expected one of {', '.join(NAMES)}")
        self.name = name
        self._rng = np.random.default_rng(seed)
        self._decoy: int | None = None

    def reset(self, seat: int, seed: int | None = None) -> None:
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        self._decoy = None

    def act(self, decision: Decision) -> int:
        legal = decision.legal_actions
        if len(legal) == 1:
            return int(legal[0])
        view: View = decision.view
        if view.phase == VOTE and view.identity == BLACK_MAN:
            return self._vote_black_man(view)
        return team_action(view, legal)

    def _vote_black_man(self, view: View) -> int:
        books = [card // NUM_VALUES for _, card in view.table]
        if self.name == "holdout_greedy":
            return A.AGREE if view.true_book in books else A.OPPOSE
        if self.name == "holdout_impostor":
            if self._decoy is None or self._decoy in view.face_up_books:
                fakes = [b for b in range(NUM_BOOKS) if b != view.true_book and b not in view.face_up_books]
                self._decoy = int(fakes[self._rng.integers(len(fakes))]) if fakes else view.true_book
            return A.OPPOSE if self._decoy in books and self._decoy != view.true_book else A.AGREE
        true_cards = min(2, books.count(view.true_book))
        return A.AGREE if self._rng.random() < COUNTER_AGREE[true_cards] else A.OPPOSE


def make_holdout_agent(name: str, seed: int | None = None) -> HoldoutAgent:
    """The held-out bot ``name`` (one of :data:`NAMES`)."""
    return HoldoutAgent(name, seed)
