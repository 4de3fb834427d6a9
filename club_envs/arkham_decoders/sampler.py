"""Worlds consistent with one seat's view: identities, grimoires, hands and deck drawn anew.

What a seat may not know in Arkham Decoders Club: which advisor is the Black Man (unless it is an
advisor or has peeked), the advisors' grimoires and so the true book (the Black Man knows his own,
the Investigator his own fake), the other leaders'/members' hands, the deck order, and in the
advice phase the first advisor's vote until both are cast.

The setup dealt identities and books uniformly, and the only public evidence about them is that
every face-up grimoire is an unowned one (each reshuffle flips an unowned book, with the same
chance whichever books those are). So the consistent (Black Man, grimoire) assignments are equally
likely and are enumerated exactly; the unseen chapter cards are dealt uniformly into the other
hands and the deck. The advisors' votes and the players' choices are not modelled (a hidden vote is
agree or oppose with probability one half) unless a ``weight`` says otherwise --
:func:`belief_weight` reweights by the heuristic bots' vote model. Only the view is read.
"""

from __future__ import annotations

import itertools

import numpy as np

from club_envs.arkham_decoders.engine import END, VOTE, State, View, state_from_view
from club_envs.arkham_decoders.rules import ADVISOR, NUM_BOOKS, NUM_CARDS
from club_envs.search.worlds import DEFAULT_CANDIDATES, Weight, child_seed, resample


def hidden_setups(view: View) -> list[tuple[int, dict[int, int], tuple[int, int]]]:
    """Every (Black Man seat, grimoire per advisor, unowned books) the view allows, each once."""
    advisors = sorted(view.advisors)
    black_men = [view.black_man] if view.black_man is not None else advisors
    setups = []
    for books in itertools.permutations(range(NUM_BOOKS), 2):
        grimoires = dict(zip(advisors, books))
        unowned = tuple(b for b in range(NUM_BOOKS) if b not in books)
        if any(b not in unowned for b in view.face_up_books):
            continue
        if view.grimoire is not None and grimoires[view.seat] != view.grimoire:
            continue
        for bm in black_men:
            if view.true_book is not None and grimoires[bm] != view.true_book:
                continue
            setups.append((bm, grimoires, unowned))
    return setups


def unseen_cards(view: View) -> list[int]:
    """Chapter cards the seat has not seen where they are: other hands and the deck."""
    seen = set(view.hand) | set(view.discard) | {c for _, c in view.table}
    for cards in view.decoded:
        seen |= set(cards)
    return [c for c in range(NUM_CARDS) if c not in seen]


def sample_world(view: View, rng: np.random.Generator, weight: Weight | None = None,
                 candidates: int = DEFAULT_CANDIDATES) -> State:
    """A full :class:`State` whose ``player_view(view.seat)`` is ``view``, drawn uniformly from
    the worlds consistent with it (or reweighted by ``weight``, see :mod:`club_envs.search.worlds`)."""
    if not isinstance(view, View):
        raise TypeError(f"expected an Arkham Decoders Club View, got {type(view).__name__}")
    if view.phase == END:
        raise ValueError("the game is over; there is no hidden information left to sample")
    setups = hidden_setups(view)
    pool = np.array(unseen_cards(view))
    holders = [s for s in range(view.num_players) if view.roles[s] != ADVISOR and s != view.seat]
    if len(pool) != len(holders) * view.hand_size + view.deck_size:
        raise ValueError("the view's unseen cards do not fill the other hands and the deck")
    first = view.advisors[0]
    vote_hidden = view.phase == VOTE and view.current_player == view.advisors[1] and view.seat != first

    def draw() -> State:
        bm, grimoires, unowned = setups[int(rng.integers(len(setups)))]
        cards = rng.permutation(pool).tolist()
        hands = {view.seat: list(view.hand)}
        for s in holders:
            hands[s] = [cards.pop() for _ in range(view.hand_size)]
        pending = {first: int(rng.integers(2))} if vote_hidden else None
        return state_from_view(view, bm, grimoires, list(unowned), hands, cards, pending, seed=child_seed(rng))

    return resample(draw, rng, weight, candidates)


def belief_weight(view: View) -> Weight:
    """A world weight from the heuristic bots' belief (vote model, :func:`club_envs.arkham_decoders.
    bots.belief`) over which advisor is the Black Man and which book is true."""
    from club_envs.arkham_decoders.bots import belief

    post = belief(view)
    advisors = view.advisors

    def weight(state: State) -> float:
        return float(post[advisors.index(state.black_man_seat), state.true_book])

    return weight
