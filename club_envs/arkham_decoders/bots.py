"""Baseline bots for Arkham Decoders Club: ``random`` and a rule-based ``heuristic`` for every role.

All of them read only the seat's :class:`~club_envs.arkham_decoders.engine.View`.

The heuristic shares one simple **vote model** between the roles: an advisor who is the Black Man
agrees with probability 0.8 to a proposal holding a card of the true grimoire and 0.3 to one that
holds none; the Investigator the reverse (0.25 and 0.75). Applied to the public vote history, it
gives a belief over the 8 hypotheses (which advisor is the Black Man) x (which book is true), with
face-up grimoires ruled out (they are fakes) and the Black Man fixed for a seat that knows him.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

import numpy as np

from club_envs.agents.base import Agent, Decision, RandomAgent, Thought
from club_envs.arkham_decoders import actions as A
from club_envs.arkham_decoders.engine import CHOOSE, PROPOSAL, VOTE, View
from club_envs.arkham_decoders.insight import true_book_words
from club_envs.arkham_decoders.rules import (
    ADVISOR,
    BLACK_MAN,
    FAKE_CARD_POINTS,
    INVESTIGATOR,
    NUM_BOOKS,
    NUM_VALUES,
    PEEK_AT_DECODED,
    VALUES,
    Config,
)

BM_AGREE_WITH_TRUE, BM_AGREE_WITHOUT_TRUE = 0.8, 0.3
INV_AGREE_WITH_TRUE, INV_AGREE_WITHOUT_TRUE = 0.25, 0.75
PASS_BELOW_EXPECTED_POINTS = -1.0  # a member passes when even its best card is expected this bad
INV_AGREE_ABOVE_EXPECTED = 2.5  # the Investigator agrees only to three cards it is nearly sure are fake


def belief(view: View, black_man: int | None = -1) -> np.ndarray:
    """Posterior ``P[b, t]``: advisor ``view.advisors[b]`` is the Black Man and book ``t`` is true.

    Built from the public vote history with the shared vote model; face-up grimoires have
    probability 0; a seat that knows the Black Man (advisor, or after a peek) conditions on him.
    ``black_man`` overrides what the seat knows (``None``: the belief of a seat that does not know
    him, e.g. the leader as the Black Man imagines it).
    """
    if black_man == -1:
        black_man = view.black_man
    return _belief(view.votes, view.face_up_books, view.advisors, black_man)


@functools.lru_cache(maxsize=65536)
def _belief(votes: tuple, face_up_books: tuple[int, ...], advisors: tuple[int, int],
            black_man: int | None) -> np.ndarray:
    """:func:`belief` from the only view fields it reads, cached: a game's seats and decisions ask
    the same question many times (the heuristic, its policy inputs, the search). Read-only."""
    out = np.array(_posterior(_vote_likelihood(votes), face_up_books, advisors, black_man))
    out.flags.writeable = False
    return out


def book_belief_after(votes: tuple, face_up_books: tuple[int, ...], advisors: tuple[int, int],
                      black_man: int | None, table: tuple[tuple[int, int], ...], pair: tuple[int, int]) -> list[float]:
    """``P[t]`` once ``table`` has been voted ``pair``: the numbers of
    ``_belief(votes + (PublicVote(table, pair),), face_up_books, advisors, black_man).sum(axis=0)``.

    A vote look-ahead asks this of hypothetical advice, which seldom repeats: extending the cached
    likelihood of ``votes`` skips building, hashing and caching the longer history."""
    likelihood = _extend(_vote_likelihood(votes), table, pair)
    first, second = _posterior(likelihood, face_up_books, advisors, black_man)
    return [x + y for x, y in zip(first, second)]


def _posterior(likelihood: tuple[tuple[float, ...], ...], face_up_books: tuple[int, ...],
               advisors: tuple[int, int], black_man: int | None) -> list[list[float]]:
    """The normalised ``likelihood`` with face-up grimoires and, if known, the rival of the Black Man
    ruled out. On Python floats (a 2 x 4 array costs more in numpy calls than in arithmetic), giving
    the numbers numpy would: a ruled-out entry is 0 (likelihoods are finite), and the total is
    numpy's pairwise sum of the eight entries."""
    post = [list(row) for row in likelihood]
    for book in face_up_books:
        post[0][book] = post[1][book] = 0.0
    if black_man is not None:
        post[1 - advisors.index(black_man)] = [0.0] * NUM_BOOKS
    (a, b, c, d), (e, f, g, h) = post
    total = ((a + b) + (c + d)) + ((e + f) + (g + h))
    if total > 0:
        return [[x / total for x in row] for row in post]
    return [[1.0 / (2 * NUM_BOOKS)] * NUM_BOOKS for _ in range(2)]


@functools.lru_cache(maxsize=16384)
def _vote_likelihood(votes: tuple) -> tuple[tuple[float, ...], ...]:
    """``L[b][t]``: the probability of the public vote history if advisor ``b`` is the Black Man and
    book ``t`` is true. Every seat and every decision of a game shares the same history, and a
    history grows one advice at a time, so it is the cached likelihood of the history without its
    last advice times that advice's factor."""
    if not votes:
        return ((1.0,) * NUM_BOOKS,) * 2
    public = votes[-1]
    return _extend(_vote_likelihood(votes[:-1]), public.table, public.votes)


def _extend(likelihood: tuple[tuple[float, ...], ...], table: Sequence[tuple[int, int]],
            pair: Sequence[int]) -> tuple[tuple[float, ...], ...]:
    """``likelihood`` times the vote model's probability of one more advice: ``table`` voted
    ``pair`` (per advisor in vote order, 1 agree)."""
    books = 0  # bit t: the table holds a card of book t
    for _, card in table:
        books |= 1 << card // NUM_VALUES
    factors = _advice_factors(books, bool(pair[0]), bool(pair[1]))
    return tuple([tuple([x * f for x, f in zip(row, factor)]) for row, factor in zip(likelihood, factors)])


@functools.lru_cache(maxsize=256)
def _advice_factors(books: int, first: bool, second: bool) -> tuple[tuple[float, ...], ...]:
    """``F[b][t]``: the vote model's probability that the advisors vote (``first``, ``second``) on
    a table holding cards of the books set in the bits of ``books`` if advisor ``b`` is the Black
    Man and book ``t`` is true (only 64 distinct answers, hence cached)."""
    votes = (first, second)
    factors = []
    for b in range(2):
        bm_vote, inv_vote = votes[b], votes[1 - b]
        row = []
        for book in range(NUM_BOOKS):
            has_true = books >> book & 1
            p_bm = BM_AGREE_WITH_TRUE if has_true else BM_AGREE_WITHOUT_TRUE
            p_inv = INV_AGREE_WITH_TRUE if has_true else INV_AGREE_WITHOUT_TRUE
            row.append((p_bm if bm_vote else 1 - p_bm) * (p_inv if inv_vote else 1 - p_inv))
        factors.append(tuple(row))
    return tuple(factors)


def true_book_probabilities(view: View, post: np.ndarray | None = None) -> np.ndarray:
    """``P[t]`` that book ``t`` is the true grimoire, as this seat can best tell.

    ``post`` is ``belief(view)`` when the caller holds it already (it is only read).
    """
    if view.true_book is not None:
        p = np.zeros(NUM_BOOKS)
        p[view.true_book] = 1.0
        return p
    if post is None:
        post = belief(view)
    if view.identity == INVESTIGATOR:
        # The Investigator knows the Black Man, and that its own grimoire is a fake.
        row = post[view.advisors.index(view.black_man)].tolist()
        return np.array(investigator_true_book(row, view.grimoire))
    return post.sum(axis=0)


def investigator_true_book(row: list[float], grimoire: int) -> list[float]:
    """The Investigator's ``P[t]`` from its ``belief`` row (the Black Man's advisor) and its own
    grimoire, a known fake. Apart, and on plain floats (a left-to-right sum, as numpy's over four
    numbers), so that a look-ahead can play an Investigator of each grimoire cheaply."""
    p = list(row)
    p[grimoire] = 0.0
    total = sum(p)
    return [x / total for x in p] if total > 0 else p


def leader_has_peeked(view: View) -> bool:
    """Whether the leader knows the Black Man: it has decoded the cards that let it peek, which
    every seat sees."""
    return len(view.decoded[view.leader]) >= PEEK_AT_DECODED


def leader_true_book(view: View, black_man: int) -> np.ndarray:
    """``P[t]`` as the leader holds it when ``black_man`` is the Black Man: the public votes, and
    him once the leader has peeked."""
    return belief(view, black_man=black_man if leader_has_peeked(view) else None).sum(axis=0)


def expected_points(card: int, p_true: np.ndarray | Sequence[float]) -> float:
    """Expected SAN of decoding ``card``: its value if its book is true, +1 if fake.

    A list of Python floats is the fast form of a float64 ``p_true`` (same numbers, no numpy
    scalars)."""
    p = p_true[card // NUM_VALUES]
    return p * VALUES[card % NUM_VALUES] + (1.0 - p) * FAKE_CARD_POINTS


def leader_pick(view: View, p_true: np.ndarray | Sequence[float], san: list[float] | None = None) -> int:
    """The slot the heuristic leader decodes after a 1-1 vote, given its ``P(true)`` per book:
    the eligible card with the highest expected points, ties to the owner with the lowest SAN.
    ``san`` is ``known_san(view, p_true)`` when the caller holds it already."""
    eligible = eligible_slots(view)
    if len(eligible) <= 1:  # nothing to rank
        return eligible[0] if eligible else -1
    points = [expected_points(view.table[slot][1], p_true) for slot in eligible]
    best = max(points)
    tied = [slot for slot, x in zip(eligible, points) if x == best]
    if len(tied) == 1:  # no tie to break: the SANs, the costly part, are not needed
        return tied[0]
    if san is None:
        san = known_san(view, p_true)
    return max(tied, key=lambda slot: -san[view.table[slot][0]])


def eligible_slots(view: View) -> list[int]:
    """Face-up slots the leader may decode after a 1-1 vote: not of a face-up grimoire."""
    face_up = view.face_up_books
    return [i for i, (_, card) in enumerate(view.table) if card // NUM_VALUES not in face_up]


class HeuristicAgent:
    """A sensible player for every role; it decides from its View as follows.

    * **Leader / member, proposal**: from the belief over (Black Man, true book) it rates each hand
      card by its expected points if decoded (``P(true) x value + P(fake) x 1``) and reveals the
      best one; a member passes instead when even the best is expected below -1 (the leader may
      never pass).
    * **Leader, choosing after a 1-1 vote**: the eligible card with the highest expected points;
      ties go to the owner with the lowest SAN so far (to keep everyone out of the insanity
      penalty).
    * **Investigator, vote**: knows the Black Man and its own (fake) book, and reads the true book
      from the Black Man's past votes with the vote model; it agrees only when the three cards
      together are expected to score above 2.5, i.e. when it is nearly sure all three are of fake
      books, and opposes otherwise -- after a 1-1 vote the leader then decodes the safest card.
    * **Black Man, vote**: knows the true book, and computes the leader's belief from the public
      votes exactly as the leader does (conditioned on him once the leader has 4 decoded cards,
      which is public). He agrees only when the card the leader would decode after a 1-1 vote is
      of the true book -- a true card the table believes safe -- and opposes everything else,
      including proposals of fakes (the Investigator's lone agreement then decodes one card
      instead of three). Opposing is also what a cautious Investigator does most of the time, so
      his vote profile looks like his rival's and the table's belief learns little from it; in our
      measurements random "cover" agreements cost him more games than they saved.
    """

    name = "heuristic"

    def __init__(self, seed: int | None = None) -> None:
        self._rng = np.random.default_rng(seed)

    def reset(self, seat: int, seed: int | None = None) -> None:
        if seed is not None:
            self._rng = np.random.default_rng(seed)

    def act(self, decision: Decision) -> int:
        view: View = decision.view
        if view.phase == VOTE and view.identity == BLACK_MAN:
            return self._vote_black_man(view)
        if view.phase in (PROPOSAL, VOTE, CHOOSE):
            return self.act_on(view, decision.legal_actions, true_book_probabilities(view).tolist())
        return int(decision.legal_actions[0])

    def explain(self, decision: Decision) -> list[Thought]:
        """What :meth:`act` weighs, its choice first (see :func:`team_thoughts`); the Black Man's
        vote is a rule, shown as his choice."""
        view: View = decision.view
        chosen = self.act(decision)
        if view.phase == VOTE and view.identity == BLACK_MAN:
            return [Thought(int(a), float(a == chosen), "chosen") for a in sorted(decision.legal_actions,
                                                                                  key=lambda a: a != chosen)]
        return team_thoughts(view, decision.legal_actions, true_book_probabilities(view).tolist(), chosen)

    def beliefs(self, decision: Decision) -> list[tuple[str, float]]:
        """The probability of each book being the true grimoire, as this seat can best tell."""
        return [(true_book_words(b), float(p)) for b, p in enumerate(true_book_probabilities(decision.view))]

    def act_on(self, view: View, legal: Sequence[int], p_true: Sequence[float]) -> int:
        """:meth:`act` for a caller that holds the seat's ``true_book_probabilities`` already (as a
        list); the Black Man's vote is :meth:`_vote_black_man`, which reads the leader's belief."""
        if view.phase == PROPOSAL:
            return self._propose(view, p_true)
        if view.phase == VOTE:
            return investigator_vote(view.table, p_true)
        if view.phase == CHOOSE:
            slot = leader_pick(view, p_true)
            return A.DECODE + slot if A.DECODE + slot in legal else int(legal[0])
        return int(legal[0])

    def _propose(self, view: View, p_true: Sequence[float]) -> int:
        best_card = max(view.hand, key=lambda c: (expected_points(c, p_true), -c))
        if view.seat != view.leader and expected_points(best_card, p_true) < PASS_BELOW_EXPECTED_POINTS:
            return A.PASS
        return A.REVEAL + best_card

    def _vote_black_man(self, view: View, leader_slot: int | None = None) -> int:
        """``leader_slot``: ``leader_pick`` under ``leader_true_book(view, view.seat)``, if known."""
        if not any(card // NUM_VALUES == view.true_book for _, card in view.table):
            return A.OPPOSE
        if leader_slot is None:
            leader_slot = leader_pick(view, leader_true_book(view, view.seat).tolist())
        return black_man_vote(view.table, view.true_book, leader_slot)


def team_thoughts(view: View, legal: Sequence[int], p_true: Sequence[float], chosen: int) -> list[Thought]:
    """The team's rules in numbers, ``chosen`` first: a card's expected points if decoded (a pass
    scores the level below which a member passes), or for a vote the three cards' expected points
    together (opposing scores the level above which the Investigator agrees)."""
    scores: dict[int, float] = {}
    for a in (int(x) for x in legal):
        kind, arg = A.decode(a)
        if kind == "reveal":
            scores[a] = expected_points(arg, p_true)
        elif kind == "pass":
            scores[a] = PASS_BELOW_EXPECTED_POINTS
        elif kind == "agree":
            scores[a] = sum(expected_points(card, p_true) for _, card in view.table)
        elif kind == "oppose":
            scores[a] = INV_AGREE_ABOVE_EXPECTED
        elif kind == "decode":
            scores[a] = expected_points(view.table[arg][1], p_true)
        else:
            scores[a] = 0.0
    ordered = sorted(scores, key=lambda a: (a != chosen, -scores[a], a))
    return [Thought(a, scores[a], "expected points") for a in ordered]


def investigator_vote(table: Sequence[tuple[int, int]], p_true: Sequence[float]) -> int:
    """The heuristic Investigator's vote on ``table`` given its ``P[t]``."""
    expected = sum(expected_points(card, p_true) for _, card in table)
    return A.AGREE if expected > INV_AGREE_ABOVE_EXPECTED else A.OPPOSE


def black_man_vote(table: Sequence[tuple[int, int]], true_book: int, leader_slot: int) -> int:
    """The heuristic Black Man's vote: agree only if the card the leader would decode after a 1-1
    vote (``leader_slot``, -1 for none) is of the true book."""
    if leader_slot >= 0 and table[leader_slot][1] // NUM_VALUES == true_book:
        return A.AGREE
    return A.OPPOSE


def known_san(view: View, p_true: np.ndarray | Sequence[float]) -> list[float]:
    """Expected SAN per seat from its decoded cards (advisors: 0)."""
    return [
        0.0 if view.roles[s] == ADVISOR else sum(expected_points(c, p_true) for c in view.decoded[s])
        for s in range(view.num_players)
    ]


AGENT_NAMES = ("random", "heuristic")


def make_agent(name: str, config: Config | None = None, seed: int | None = None) -> Agent:
    """A built-in bot by name: ``random`` or ``heuristic``."""
    if name == "random":
        return RandomAgent(seed)
    if name == "heuristic":
        return HeuristicAgent(seed)
    raise ValueError(f"unknown agent {name!r} for arkham_decoders_club; expected one of {', '.join(AGENT_NAMES)}")
