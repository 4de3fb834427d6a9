"""Worlds consistent with one seat's view: the hidden cards dealt anew, uniformly.

What a seat cannot see in Members Only is where its unseen cards are: the other players' hands,
their face-down discards, a card another player has picked for a two-card reveal, and the cards out
of play this heat. Every one of those places holds a known number of cards (the public hand sizes,
the discards already made in seat order, the heat's deal sizes), so a consistent world is a deal of
the unseen cards into those places, and a uniform shuffle of them gives every such deal the
probability the shuffle at the heat start gave it. Only the view is read.

The player's choices are not modelled: a world where an opponent holds the cards it would not have
revealed is as likely as any other, unless a ``weight`` (see :mod:`club_envs.search.worlds`) says
otherwise.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from club_envs.members_only.engine import DISCARD, OVER, REVEAL, State, View, state_from_view
from club_envs.members_only.rules import COPIES_PER_TYPE, NO_PER_CATEGORY, NUM_CARD_TYPES, NUM_CATEGORIES
from club_envs.search.worlds import DEFAULT_CANDIDATES, Weight, child_seed, resample


def unseen_cards(view: View) -> np.ndarray:
    """Cards of each type the seat has not seen this heat: the deck minus its hand, its pending
    or discarded card and the display."""
    unseen = np.array(COPIES_PER_TYPE) - np.array(view.hand) - np.array(view.display)
    if view.pending_reveal is not None:
        unseen[view.pending_reveal] -= 1
    if view.own_discard is not None:
        unseen[view.own_discard] -= 1
    return unseen


def hidden_places(view: View) -> tuple[list[int], list[int], bool]:
    """The hidden places of the unseen cards: the other seats (each hides as many cards as its
    public hand size), those of them that have made their end-of-heat discard (seats before the
    one to move, in seat order), and whether the player to move may hold a picked reveal card."""
    others = [s for s in range(view.num_players) if s != view.seat]
    discarded = [s for s in others if view.phase == DISCARD and s < view.current_player]
    pending_possible = view.phase == REVEAL and view.current_player != view.seat
    return others, discarded, pending_possible


def sample_world(view: View, rng: np.random.Generator, weight: Weight | None = None,
                 candidates: int = DEFAULT_CANDIDATES) -> State:
    """A full :class:`State` whose ``player_view(view.seat)`` is ``view``, drawn uniformly from
    the worlds consistent with it (or reweighted by ``weight``, see :mod:`club_envs.search.worlds`).

    Whether another player to move has already picked the first card of its reveal cannot be told
    from a view (hand sizes change only once both cards are shown); either case is drawn with
    probability one half.
    """
    if not isinstance(view, View):
        raise TypeError(f"expected a Members Only View, got {type(view).__name__}")
    if view.phase == OVER:
        raise ValueError("the game is over; there is no hidden information left to sample")
    unseen = unseen_cards(view)
    if np.any(unseen < 0):
        raise ValueError("the view shows more cards of a type than the deck holds")
    pool = np.repeat(np.arange(NUM_CARD_TYPES), unseen)
    others, discarded, pending_possible = hidden_places(view)

    def draw() -> Hidden:
        cards = rng.permutation(pool).tolist()
        hands: list[list[int]] = [[0] * NUM_CARD_TYPES for _ in range(view.num_players)]
        hands[view.seat] = list(view.hand)
        discards: list[int | None] = [None] * view.num_players
        discards[view.seat] = view.own_discard
        pending = view.pending_reveal
        other_pending = pending_possible and rng.random() < 0.5
        if other_pending:
            pending = cards.pop()
        for s in others:
            held = view.hand_sizes[s] - (1 if other_pending and s == view.current_player else 0)
            if s in discarded:
                discards[s] = cards.pop()
                held -= 1
            for _ in range(held):
                hands[s][cards.pop()] += 1
        return Hidden(view.num_players, view.phase, view.current_player, hands, discards, pending, cards,
                      child_seed(rng))

    def finish(hidden: Hidden) -> State:
        return state_from_view(view, hidden.hands, hidden.discards, hidden.out_of_play,
                               pending_reveal=hidden.pending_reveal, seed=hidden.seed)

    return resample(draw, rng, weight, candidates, finish=finish)


class Hidden(NamedTuple):
    """One drawn world before it is built into a :class:`State`: its hidden cards, plus the public
    fields a world weight reads (:func:`offsets_to_come` takes either)."""

    num_players: int
    phase: int
    current_player: int | None
    hands: list[list[int]]
    discards: list[int | None]
    pending_reveal: int | None
    out_of_play: list[int]
    seed: int


# --------------------------------------------------------------------------- a learned belief as weight

def offsets_to_come(state: State | Hidden, seat: int) -> tuple[np.ndarray, list[np.ndarray]]:
    """What the other players will still add to the display in world ``state``, as ``seat`` counts
    it: "normal minus NO!" per category ``(5,)`` among their hidden cards (hands and a picked reveal
    card), before the discards still to come, and for each other player yet to discard, its hand
    ``(10,)`` -- one of those cards will not reach the display."""
    hidden = np.zeros(NUM_CARD_TYPES, dtype=np.int64)
    undiscarded = []
    for s in range(state.num_players):
        if s == seat:
            continue
        hand = np.array(state.hands[s], dtype=np.int64)
        hidden += hand
        if state.phase != OVER and state.discards[s] is None:
            undiscarded.append(hand)
    if state.pending_reveal is not None and state.current_player != seat:
        hidden[state.pending_reveal] += 1
    return hidden[:NUM_CATEGORIES] - hidden[NUM_CATEGORIES:], undiscarded


def discard_spread(hands: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """Each hand discards one of its cards uniformly at random: every combination of discards with
    its probability ``(M,)`` and what it takes off "normal minus NO!" per category ``(M, 5)``."""
    probs = np.ones(1)
    change = np.zeros((1, NUM_CATEGORIES), dtype=np.int64)
    for hand in hands:
        held = np.flatnonzero(hand)
        if len(held) == 0:
            continue
        p = hand[held] / hand[held].sum()
        d = np.zeros((len(held), NUM_CATEGORIES), dtype=np.int64)
        normal = held < NUM_CATEGORIES
        d[normal, held[normal]] = -1  # a normal card held back: one fewer
        d[~normal, held[~normal] - NUM_CATEGORIES] = 1  # a NO! card held back: one fewer cancelled
        probs = (probs[:, None] * p[None, :]).ravel()
        change = (change[:, None, :] + d[None, :, :]).reshape(-1, NUM_CATEGORIES)
    return probs, change


def learned_weight(seat: int, logits: np.ndarray) -> Weight:
    """The weight of a world under a learned belief of what the other players will still add
    (:class:`~club_envs.members_only.belief_model.BeliefModel`; ``logits`` ``(5, 14)``, read once
    from the seat's observation).

    The model's distribution is the uniform prior times ``exp(logit)`` (normalised), so
    ``exp(logit)`` is the ratio q/p of the two at each value of the quantity. Uniform worlds with a
    uniformly chosen discard per player give that quantity exactly the prior, so weighting a world
    by the expected ratio over its discards -- the product over categories of ``exp(logit)`` at the
    world's value -- gives the quantity the model's distribution (categories taken as independent,
    as the model predicts them). A world's hidden cards are read only to find its own value of the
    quantity; everything else comes from the seat's view.
    """
    ratio = np.exp(logits - logits.max(axis=1, keepdims=True))  # constants per category cancel
    cats = np.arange(NUM_CATEGORIES)
    top = ratio.shape[1] - 1

    def weight(state: State | Hidden) -> float:
        base, undiscarded = offsets_to_come(state, seat)
        probs, change = discard_spread(undiscarded)
        index = np.clip(base[None, :] + change + NO_PER_CATEGORY, 0, top)
        return float(probs @ ratio[cats, index].prod(axis=1))

    return weight
