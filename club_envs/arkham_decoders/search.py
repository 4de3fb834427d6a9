"""Arkham Decoders Club's hooks for the search (:mod:`club_envs.search`).

A game is short (a few dozen decisions) and is decided only by the final SAN total, so simulations
play it to the end and a seat's value is 1 if its side won, 0 if not. The tree considers every
legal action. The default rollout policy, ``light``, is the heuristic with its belief cached
(:class:`LightRollout`). By default worlds are reweighted by the heuristic bots' vote model
(:func:`club_envs.arkham_decoders.sampler.belief_weight`; measured: a team that samples uniformly
ignores what the Black Man's votes reveal); ``beliefs=uniform`` samples them uniformly.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from types import SimpleNamespace

import numpy as np

from club_envs.agents.base import Decision
from club_envs.arkham_decoders import actions as A
from club_envs.arkham_decoders.bots import (
    INV_AGREE_ABOVE_EXPECTED,
    PASS_BELOW_EXPECTED_POINTS,
    belief,
    expected_points,
    leader_pick,
)
from club_envs.arkham_decoders.engine import CHOOSE, PROPOSAL, VOTE, State, View
from club_envs.arkham_decoders.observer import Observer
from club_envs.arkham_decoders.rules import BLACK_MAN, INVESTIGATOR, NUM_BOOKS, NUM_VALUES, PEEK_AT_DECODED, Config
from club_envs.arkham_decoders.sampler import belief_weight, sample_world
from club_envs.search.game import SearchGame

DEFAULT_ROLLOUT = "light"


@functools.lru_cache(maxsize=65536)
def _cached_belief(votes, face_up_books, advisors, black_man) -> np.ndarray:
    out = belief(SimpleNamespace(votes=votes, face_up_books=face_up_books, advisors=advisors, black_man=black_man),
                 black_man=black_man)
    out.flags.writeable = False
    return out


def _true_book_probabilities(view: View) -> np.ndarray:
    """:func:`club_envs.arkham_decoders.bots.true_book_probabilities`, from a cached belief."""
    if view.true_book is not None:
        p = np.zeros(NUM_BOOKS)
        p[view.true_book] = 1.0
        return p
    post = _cached_belief(view.votes, view.face_up_books, view.advisors, view.black_man)
    if view.identity == INVESTIGATOR:
        p = post[view.advisors.index(view.black_man)].copy()
        p[view.grimoire] = 0.0
        return p / p.sum() if p.sum() > 0 else p
    return post.sum(axis=0)


class LightRollout:
    """The default rollout policy: the heuristic bots' decisions, with their belief (a product
    over the public vote history) cached, since a simulation asks it again and again for the same
    history. It decides exactly as :class:`~club_envs.arkham_decoders.bots.HeuristicAgent`."""

    name = "light"

    def __init__(self, seed: int | None = None) -> None:
        pass

    def reset(self, seat: int, seed: int | None = None) -> None:
        pass

    def act(self, decision: Decision) -> int:
        view: View = decision.view
        legal = decision.legal_actions
        if view.phase == PROPOSAL:
            p_true = _true_book_probabilities(view)
            best = max(view.hand, key=lambda c: (expected_points(c, p_true), -c))
            if view.seat != view.leader and expected_points(best, p_true) < PASS_BELOW_EXPECTED_POINTS:
                return A.PASS
            return A.REVEAL + best
        if view.phase == VOTE:
            if view.identity == BLACK_MAN:
                return self._vote_black_man(view)
            expected = sum(expected_points(card, _true_book_probabilities(view)) for _, card in view.table)
            return A.AGREE if expected > INV_AGREE_ABOVE_EXPECTED else A.OPPOSE
        if view.phase == CHOOSE:
            slot = leader_pick(view, _true_book_probabilities(view))
            return A.DECODE + slot if A.DECODE + slot in legal else int(legal[0])
        return int(legal[0])

    @staticmethod
    def _vote_black_man(view: View) -> int:
        true_book = view.true_book
        if not any(card // NUM_VALUES == true_book for _, card in view.table):
            return A.OPPOSE
        leader_knows_me = len(view.decoded[view.leader]) >= PEEK_AT_DECODED
        post = _cached_belief(view.votes, view.face_up_books, view.advisors, view.seat if leader_knows_me else None)
        slot = leader_pick(view, post.sum(axis=0))
        if slot >= 0 and view.table[slot][1] // NUM_VALUES == true_book:
            return A.AGREE
        return A.OPPOSE


ROLLOUTS = {"light": LightRollout}


def outcome_values(state: State) -> np.ndarray:
    """Per seat: 1 if its side won the finished game, else 0."""
    out = np.zeros(state.num_players)
    if state.result is not None:
        out[state.result["winners"]] = 1.0
    return out


def default_weight(view: View):
    """Worlds weighted by the heuristic's vote model, except for the Black Man: he knows who he is
    and which book is true, so every world he can sample weighs the same."""
    return None if view.true_book is not None else belief_weight(view)


def search_game(config: Config, width: int | None = None, cards: int | None = None,
                paired: int | None = None) -> SearchGame:
    """The search hooks for games played with ``config`` (``paired``: worlds for paired play-outs
    at the root instead of the tree; default 0, the tree)."""
    if width is not None or cards is not None:
        raise ValueError("the ismcts option width applies to members_only only (and so does cards)")
    observer = Observer(config)

    def candidates(state: State) -> tuple[Sequence[int], bool]:
        return state.legal_actions(), False

    def decision(state: State) -> Decision:
        seat = state.current_player
        view = state.player_view(seat)
        return Decision(seat, view, state.legal_actions(), lambda: observer.observe(view), state.legal_mask)

    def stop(state: State, root: View) -> bool:
        return False

    return SearchGame(
        name="arkham_decoders_club",
        sample_world=sample_world,
        stop=stop,
        values=outcome_values,
        candidates=candidates,
        decision=decision,
        default_weight=default_weight,
        paired_worlds=paired or 0,
    )


__all__ = ["search_game", "outcome_values", "belief_weight"]
