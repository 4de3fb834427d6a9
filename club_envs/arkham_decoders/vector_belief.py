"""The learned agents of Arkham belief iteration on the batched engine's arrays: the team's
:class:`~club_envs.arkham_decoders.belief_agent.BeliefAgent` and the learned Black Man's
:class:`~club_envs.arkham_decoders.vote_value.BlackManAgent`, each deciding for many games at once.

Both are :class:`~club_envs.agents.batched.BatchedPolicy` objects with ``reads_state = True``:
handed the observations, the legal actions and the :class:`~club_envs.agents.batched.GameRows` of
their rows, they answer one action per row -- as opponents of the vector environment, as learners
of :func:`club_envs.vector_evaluation.policy_win_share`, and in the belief-iteration trainer's games
on :class:`~club_envs.arkham_decoders.vector_game.ArkhamDecodersVectorGame`.

**The team** (:class:`BatchedBeliefAgent`) builds the belief model's inputs from the arrays
(:func:`belief_inputs`: the observation, the hand-set prior and the vote-pick counts, equal byte
for byte to :func:`~club_envs.arkham_decoders.belief_model.network_inputs` on the seat's view),
runs the model once for all rows, turns its logits into ``P(true)`` with the reference's own numpy
functions, and applies the heuristic's rules in compiled code (:func:`team_action`). The prior and
the counts are compiled the way :mod:`club_envs.arkham_decoders.vector_heuristic` compiles the
heuristic's belief: the reference's float64 operations in the reference's order, so the same bits.
The Black Man's seat, if asked, plays the heuristic, as the reference agent does.

**Why a tolerance.** One thing is not the reference's to the bit: the forward pass. The reference
agent runs the model on the rows it is asked together -- one row when a game asks it move by move
-- and a float32 matrix product sums in an order that depends on the batch (measured on the shipped
model: logits up to 1.3e-5 apart between one row and a batch of thousands, ``P(true)`` up to
1.1e-6). :func:`forward` bounds that difference per row: :data:`FORWARD_ULPS` float32 epsilons of
the largest sum of absolute terms in the last layer (the measured differences stay below 4 of
them, for the shipped Black Man's model too). A logit moved by ``d`` moves each ``P(true)`` by at
most a share ``exp(2 d) - 1`` of itself, so a card's expected points (``1 + P(true) x (value - 1)``)
by at most ``|value - 1| x P(true) x`` that share, plus their own float64 rounding
(:data:`CARD_ROUNDING`) -- and not at all for a card of a book ruled out (``P(true)`` exactly 0 on
any batch) or so unlikely (:data:`P_NEGLIGIBLE`) that its expected points round to exactly +1.

A choice is made here only when every comparison the rules make (a card's expected points against
the best card's, the pass level, the Investigator's level, the leader's tie-break by SAN) clears
the most both its sides could move; closer ones, exact ties between numbers that could move
included, are handed to the reference agent on the seat's view
(:func:`~club_envs.arkham_decoders.vector_views.view_of`), which decides them on one row, as in a
game played move by move: a few in a thousand decisions with the shipped model. A model whose last
layer is zero (the untrained model of a first generation) gives its bias as logits on any batch:
its numbers are the reference's to the bit, and only
:data:`~club_envs.arkham_decoders.vector_heuristic.TIE_MARGIN`'s near-ties are handed back, as for
the heuristic.

**The learned Black Man** (:class:`BatchedBlackManAgent`) builds the vote-value inputs from the
arrays (:func:`vote_inputs`, equal to :func:`~club_envs.arkham_decoders.vote_value.network_inputs`),
rates both votes in one forward pass and takes the higher, handing the votes whose two values are
closer than the forward pass may move them (:func:`forward`) to the reference agent. His
exploration (a random vote in an ``exploration`` share of his votes) draws from one numpy generator
per game (:meth:`BatchedBlackManAgent.seed_games`), seeded as the table seeds a reference
:class:`~club_envs.arkham_decoders.vote_value.BlackManAgent` at ``reset``, and draws in the same
order: the same random numbers give the same votes.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np

from club_envs.agents.base import Decision
from club_envs.agents.batched import GameRows
from club_envs.arkham_decoders import actions as A
from club_envs.arkham_decoders.belief_agent import BeliefAgent
from club_envs.arkham_decoders.belief_model import (
    _COUNT_SCALE,
    _PRIOR_SCALE,
    INPUT_SIZE,
    LOG_FLOOR,
    OBS_SIZE,
    BeliefModel,
    combine,
)
from club_envs.arkham_decoders.bots import INV_AGREE_ABOVE_EXPECTED, PASS_BELOW_EXPECTED_POINTS
from club_envs.arkham_decoders.rules import CARDS_PER_PROPOSAL, FAKE_CARD_POINTS, NUM_BOOKS, NUM_CARDS, NUM_VALUES, VALUES
from club_envs.arkham_decoders.vector_engine import (
    ADVISOR_ROLE,
    CHOOSE,
    MAX_SEATS,
    NONE,
    PHASE_NAMES,
    PROPOSAL,
    VOTE,
    Rules,
    eligible_slots,
    is_face_up,
)
from club_envs.arkham_decoders.vector_heuristic import (
    TIE_MARGIN,
    UNCLEAR,
    Scratch,
    book_sums,
    choose_rows,
    expected_points,
    extend,
    first_legal,
    investigator_true_book,
    known_black_man,
    known_san,
    leader_has_peeked,
    posterior,
    table_books,
    vote_likelihood,
)
from club_envs.arkham_decoders.vector_views import view_of
from club_envs.arkham_decoders.vote_value import _VALUE_SCALE, FACT_SIZE, TABLE_SLOTS, VOTES, BlackManAgent, VoteValueModel
from club_envs.compiled import compiled

# How far a logit may move between two batches' forward passes, in float32 epsilons of the largest
# sum of absolute terms of the last layer (measured: below 4 on the shipped team and Black Man
# models, one row against batches of thousands).
FORWARD_ULPS = 128
_PICK_TIE = 1e-12  # belief_model._pick_counts: books within this of the best card's points share its count
_EPSILON = float(np.finfo(np.float32).eps)
# Below this P(true), a card's expected points round to exactly 1.0 in float64 whatever its value
# (1 - p and p x value both stay within half a unit in the last place of 1).
P_NEGLIGIBLE = 2.0**-58
# How far float64 rounding may move one card's share of a sum of expected points computed from a
# slightly different P(true): its own three roundings (|points| <= 10) and one addition to a sum of
# at most 24 cards (|sum| <= 240), each half a unit in the last place: 2.7e-14, with room.
CARD_ROUNDING = 2.0**-44
_VALUES = np.array(VALUES, dtype=np.float64)
_SLACK = np.abs(_VALUES - FAKE_CARD_POINTS)  # how far a card's expected points move per unit of P(true)


class Work:
    """Work arrays of the compiled inputs and decisions (compiled code allocates nothing): the vote
    likelihood, a belief, a row of ``P[t]``, the pick counts (advisor x book x vote) and the SAN
    per seat."""

    def __init__(self) -> None:
        self.likelihood = np.zeros((2, NUM_BOOKS))
        self.post = np.zeros((2, NUM_BOOKS))
        self.p = np.zeros(NUM_BOOKS)
        self.counts = np.zeros((2, NUM_BOOKS, 2))
        self.san = np.zeros(MAX_SEATS)


# --------------------------------------------------------------------------- the team's inputs


@compiled
def first_advisor(s, r: Rules, seat: int) -> int:
    """``belief_model.advisor_slots(view)[0]``: which of ``s.advisors`` (vote order) the seat meets
    first going clockwise (itself, if it is an advisor)."""
    n = r.num_players
    return 0 if (s.advisors[0] - seat) % n <= (s.advisors[1] - seat) % n else 1


@compiled
def belief_prior(s, r: Rules, seat: int, likelihood: np.ndarray, post: np.ndarray, row: np.ndarray,
                 out: np.ndarray) -> None:
    """``belief_model.prior``: the hand-set belief as the seat holds it, (advisor slot x book) in
    egocentric order into ``out`` (8) -- the Investigator's single row with its own grimoire ruled
    out, normalised as the heuristic normalises it."""
    vote_likelihood(s, likelihood)
    posterior(s, likelihood, known_black_man(s, seat), post)
    if s.roles[seat] == ADVISOR_ROLE and seat != s.black_man:
        b = 0 if s.advisors[0] == s.black_man else 1
        investigator_true_book(post, b, s.grimoire[seat], row)
        post[:, :] = 0.0
        for t in range(NUM_BOOKS):
            post[b, t] = row[t]
    first = first_advisor(s, r, seat)
    for t in range(NUM_BOOKS):
        out[t] = post[first, t]
        out[NUM_BOOKS + t] = post[1 - first, t]


@compiled
def pick_points(s, i: int, p: np.ndarray) -> float:
    """The best expected points under ``p`` among the cards of advice ``i`` not of a grimoire face
    up now, or +inf when there is none."""
    best, any_card = 0.0, False
    for slot in range(CARDS_PER_PROPOSAL):
        card = s.advice_cards[i, slot]
        if not is_face_up(s, card // NUM_VALUES):
            x = expected_points(card, p)
            if not any_card or x > best:
                best, any_card = x, True
    return best if any_card else np.inf


@compiled
def vote_pick_counts(s, r: Rules, seat: int, likelihood: np.ndarray, post: np.ndarray, p: np.ndarray,
                     counts: np.ndarray, out: np.ndarray) -> None:
    """``belief_model.vote_pick_counts``: per egocentric advisor x book x (agree, oppose), / 10, the
    advices in which the card of best expected points under the public belief of that moment (the
    face-up grimoires of now left out) was of that book, shared equally on ties, into ``out`` (16)."""
    counts[:, :, :] = 0.0
    likelihood[:, :] = 1.0
    for i in range(s.vote_count):
        posterior(s, likelihood, NONE, post)
        book_sums(post, p)
        best = pick_points(s, i, p)
        picked = 0
        for slot in range(CARDS_PER_PROPOSAL):
            card = s.advice_cards[i, slot]
            if not is_face_up(s, card // NUM_VALUES) and expected_points(card, p) >= best - _PICK_TIE:
                picked += 1
        if picked:
            share = 1.0 / (picked * _COUNT_SCALE)
            for k in range(2):
                column = 0 if s.advice_votes[i, k] else 1
                for slot in range(CARDS_PER_PROPOSAL):
                    card = s.advice_cards[i, slot]
                    if not is_face_up(s, card // NUM_VALUES) and expected_points(card, p) >= best - _PICK_TIE:
                        counts[k, card // NUM_VALUES, column] += share
        extend(likelihood, table_books(s.advice_cards[i], CARDS_PER_PROPOSAL), s.advice_votes[i, 0],
               s.advice_votes[i, 1])
    first = first_advisor(s, r, seat)
    for j in range(2):
        k = first if j == 0 else 1 - first
        for t in range(NUM_BOOKS):
            for column in range(2):
                out[j * 2 * NUM_BOOKS + t * 2 + column] = counts[k, t, column]


@compiled
def belief_parts(t: np.ndarray, r: Rules, rows: np.ndarray, seats: np.ndarray, priors: np.ndarray,
                 picks: np.ndarray, likelihood: np.ndarray, post: np.ndarray, p: np.ndarray,
                 counts: np.ndarray) -> None:
    """Row ``k``: the prior (8) and the pick counts (16) of seat ``seats[k]`` in game ``rows[k]``."""
    for k in range(rows.shape[0]):
        s = t[rows[k]]
        belief_prior(s, r, seats[k], likelihood, post, p, priors[k])
        vote_pick_counts(s, r, seats[k], likelihood, post, p, counts, picks[k])


def belief_inputs(games: Any, rows: np.ndarray, seats: np.ndarray, observations: np.ndarray,
                  work: Work | None = None) -> tuple[np.ndarray, np.ndarray]:
    """``(x, prior)``: what the belief model reads, ``(K, INPUT_SIZE)`` float32, and the prior
    ``(K, 8)`` it refines, for seat ``seats[k]`` of game ``rows[k]`` whose observation is
    ``observations[k]`` -- ``belief_model.network_inputs`` of those seats' views, byte for byte
    (the logarithm is numpy's, as there)."""
    rows, seats = np.asarray(rows, np.int64), np.asarray(seats, np.int64)
    work = work or Work()
    priors = np.zeros((len(rows), 2 * NUM_BOOKS))
    picks = np.zeros((len(rows), 2 * NUM_BOOKS * 2))
    belief_parts(games.arrays, games.rules, rows, seats, priors, picks, work.likelihood, work.post, work.p,
                 work.counts)
    log_prior = np.maximum(np.log(np.maximum(priors, 1e-30)), LOG_FLOOR)
    x = np.empty((len(rows), INPUT_SIZE), np.float32)  # each piece rounded to float32 as there
    x[:, :OBS_SIZE] = np.asarray(observations, dtype=np.float32).reshape(len(rows), OBS_SIZE)
    x[:, OBS_SIZE:OBS_SIZE + 2 * NUM_BOOKS] = log_prior / _PRIOR_SCALE
    x[:, OBS_SIZE + 2 * NUM_BOOKS:] = picks
    return x, priors


# --------------------------------------------------------------------------- the team's rules


@compiled
def card_slack(card: int, p: np.ndarray, spread: float) -> float:
    """How far ``card``'s expected points (and its share of a sum of them) may move when each
    ``P(true)`` moves by a share ``spread`` of itself: nothing for a card of a book so unlikely
    (ruled out: 0) that they are exactly +1 on any batch, or when nothing moves (``spread`` 0)."""
    chance = p[card // NUM_VALUES]
    if spread == 0.0 or chance * (1.0 + spread) <= P_NEGLIGIBLE:
        return 0.0
    return _SLACK[card % NUM_VALUES] * chance * spread + CARD_ROUNDING


@compiled
def unclear(x: float, y: float, slack: float) -> bool:
    """Whether comparing ``x`` with ``y`` is left to the reference: closer than ``slack`` (how far
    another batch's forward pass may move them apart), an exact tie included -- or, for numbers the
    reference computes to the same bits (``slack`` 0), a near-tie as the compiled heuristic has it."""
    if slack > 0.0:
        return abs(x - y) <= slack
    return x != y and abs(x - y) <= TIE_MARGIN


@compiled
def belief_propose(s, seat: int, p: np.ndarray, spread: float) -> int:
    """``belief_agent.team_choice`` in the proposal: reveal the hand card of highest expected
    points (the lowest card id among equals); a member passes below ``PASS_BELOW_EXPECTED_POINTS``."""
    best, best_points = -1, 0.0
    for card in range(NUM_CARDS):
        if s.hands[seat, card]:
            x = expected_points(card, p)
            if best < 0 or x > best_points:
                best, best_points = card, x
    best_slack = card_slack(best, p, spread)
    for card in range(NUM_CARDS):
        if s.hands[seat, card] and card != best:
            if unclear(expected_points(card, p), best_points, best_slack + card_slack(card, p, spread)):
                return UNCLEAR
    if seat != s.leader:
        if unclear(best_points, PASS_BELOW_EXPECTED_POINTS, best_slack):
            return UNCLEAR
        if best_points < PASS_BELOW_EXPECTED_POINTS:
            return A.PASS
    return A.REVEAL + best


@compiled
def belief_investigator_vote(s, p: np.ndarray, spread: float) -> int:
    """The Investigator agrees only when the face-up cards together are expected to score above
    ``INV_AGREE_ABOVE_EXPECTED``."""
    expected, slack = 0.0, 0.0
    for slot in range(s.table_size):
        expected += expected_points(s.table_cards[slot], p)
        slack += card_slack(s.table_cards[slot], p, spread)
    if unclear(expected, INV_AGREE_ABOVE_EXPECTED, slack):
        return UNCLEAR
    return A.AGREE if expected > INV_AGREE_ABOVE_EXPECTED else A.OPPOSE


@compiled
def san_slack(s, seat: int, p: np.ndarray, spread: float) -> float:
    """How far the seat's expected SAN (``known_san``) may move: its decoded cards' slack."""
    if s.roles[seat] == ADVISOR_ROLE:
        return 0.0
    total = 0.0
    for i in range(s.decoded_count[seat]):
        total += card_slack(s.decoded_order[seat, i], p, spread)
    return total


@compiled
def belief_leader_pick(s, r: Rules, p: np.ndarray, spread: float, san: np.ndarray) -> int:
    """``bots.leader_pick``: the eligible slot with the highest expected points, ties to the owner
    with the lowest expected SAN; -1 if none is eligible, or :data:`UNCLEAR`."""
    eligible = eligible_slots(s)
    best, best_points, count = -1, 0.0, 0
    for slot in range(s.table_size):
        if eligible >> slot & 1:
            count += 1
            x = expected_points(s.table_cards[slot], p)
            if best < 0 or x > best_points:
                best, best_points = slot, x
    if count <= 1:
        return best
    tied = 0
    best_slack = card_slack(s.table_cards[best], p, spread)
    for slot in range(s.table_size):
        if eligible >> slot & 1:
            x = expected_points(s.table_cards[slot], p)
            if slot != best and unclear(x, best_points, best_slack + card_slack(s.table_cards[slot], p, spread)):
                return UNCLEAR
            if x == best_points:
                tied |= 1 << slot
    if tied == 1 << best:
        return best
    known_san(s, r, p, san)
    pick, pick_key = -1, 0.0
    for slot in range(s.table_size):
        if tied >> slot & 1:
            key = -san[s.table_seats[slot]]
            if pick < 0 or key > pick_key:
                pick, pick_key = slot, key
    owner = s.table_seats[pick]
    for slot in range(s.table_size):
        seat = s.table_seats[slot]
        if tied >> slot & 1 and seat != owner:
            if unclear(-san[seat], pick_key, san_slack(s, seat, p, spread) + san_slack(s, owner, p, spread)):
                return UNCLEAR
    return pick


@compiled
def team_action(s, r: Rules, seat: int, mask: np.ndarray, p: np.ndarray, spread: float, san: np.ndarray) -> int:
    """``belief_agent.team_choice`` for ``seat`` (a leader, member or Investigator to move) given
    its ``P(true)``, or :data:`UNCLEAR` when another batch's forward pass could change it."""
    if s.phase == PROPOSAL:
        return belief_propose(s, seat, p, spread)
    if s.phase == VOTE:
        return belief_investigator_vote(s, p, spread)
    if s.phase == CHOOSE:
        slot = belief_leader_pick(s, r, p, spread, san)
        if slot == UNCLEAR:
            return UNCLEAR
        if slot >= 0 and mask[A.DECODE + slot]:
            return A.DECODE + slot
    return first_legal(mask)


@compiled
def team_actions(t: np.ndarray, r: Rules, rows: np.ndarray, seats: np.ndarray, masks: np.ndarray,
                 p_true: np.ndarray, spread: np.ndarray, out: np.ndarray, san: np.ndarray) -> None:
    """``out[k]``: :func:`team_action` of seat ``seats[k]`` in game ``rows[k]`` (``spread[k]``: the
    share by which its ``P(true)`` may move)."""
    for k in range(rows.shape[0]):
        out[k] = team_action(t[rows[k]], r, seats[k], masks[k], p_true[k], spread[k], san)


def forward(layers: Sequence[tuple[np.ndarray, np.ndarray]], x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The MLP's logits, by the numpy operations of :func:`club_envs.agents.belief_file.logits`
    (the same numbers as the model's ``logits`` on this batch), and per row how far another batch's
    forward pass may move any of them: :data:`FORWARD_ULPS` float32 epsilons of the largest sum of
    absolute terms in the last layer -- 0 when its weights are all zero (the logits are its bias on
    any batch)."""
    h = x
    for w, b in layers[:-1]:
        h = np.maximum(h @ w.T + b, 0.0)
    w, b = layers[-1]
    logits = h @ w.T + b
    if not np.any(w):
        return logits, np.zeros(len(logits))
    terms = np.abs(h) @ np.abs(w).T + np.abs(b)
    return logits, FORWARD_ULPS * _EPSILON * terms.max(axis=1).astype(np.float64)


class TeamDecisions(NamedTuple):
    """What :meth:`BatchedBeliefAgent.decide` gives: an action per row; which rows were a team
    decision with a choice (decided on the learned belief); and those rows' model inputs and prior
    (:func:`belief_inputs`) -- what belief iteration labels with the truth."""

    actions: np.ndarray
    asked: np.ndarray
    inputs: np.ndarray
    prior: np.ndarray


class BatchedBeliefAgent:
    """:class:`~club_envs.arkham_decoders.belief_agent.BeliefAgent` (the heuristic's rules on a
    learned belief) for many games at once: a batched policy reading the engine's arrays. The
    Black Man's votes, if it is asked them, are the heuristic's (compiled). ``tally`` counts the
    choices made here (``decided``) and those handed to the reference agent (``handed_back``)."""

    reads_state = True

    def __init__(self, model: BeliefModel, name: str = "belief") -> None:
        self.model, self.name = model, name
        self.reference = BeliefAgent(model, name=name)
        self.tally = {"decided": 0, "handed_back": 0}
        self._work, self._scratch = Work(), Scratch()

    def __call__(self, observations: np.ndarray, action_masks: np.ndarray, state: GameRows) -> np.ndarray:
        return self.decide(observations, action_masks, state).actions

    def decide(self, observations: np.ndarray, action_masks: np.ndarray, state: GameRows) -> TeamDecisions:
        """The move of every row (see :class:`TeamDecisions`)."""
        games, rows, seats = state.games, np.asarray(state.rows, np.int64), np.asarray(state.seats, np.int64)
        masks = np.ascontiguousarray(action_masks, dtype=np.bool_)
        observations = np.asarray(observations, np.float32)
        choices = masks.sum(axis=1)
        actions = masks.argmax(axis=1).astype(np.int64)  # the only legal action, where there is one
        black_man = games.tables.black_man[rows] == seats
        votes = np.flatnonzero(black_man & (choices > 1))
        if len(votes):
            actions[votes], _ = choose_rows(games, rows[votes], self._scratch)
        asked = ~black_man & (choices > 1)
        team = np.flatnonzero(asked)
        x, prior = belief_inputs(games, rows[team], seats[team], observations[team], self._work)
        if len(team):
            logits, moved = forward(self.model.layers, x)
            p_true = combine(prior, logits).reshape(-1, 2, NUM_BOOKS).sum(axis=1)
            moves = np.empty(len(team), np.int64)
            team_actions(games.arrays, games.rules, rows[team], seats[team], masks[team], p_true, np.expm1(2 * moved),
                         moves, self._work.san)
            close = np.flatnonzero(moves == UNCLEAR)
            for k in close:
                i = team[k]
                moves[k] = self._reference_move(games, int(rows[i]), int(seats[i]), observations[i], masks[i])
            actions[team] = moves
            self.tally["decided"] += len(team) - len(close)
        return TeamDecisions(actions, asked, x, prior)

    def _reference_move(self, games: Any, g: int, seat: int, observation: np.ndarray, mask: np.ndarray) -> int:
        """The reference agent's choice on the seat's view, for a choice too close to make here."""
        self.tally["handed_back"] += 1
        decision = Decision(seat, view_of(games, g, seat), np.flatnonzero(mask).tolist(), lambda: observation,
                            lambda: mask)
        return int(self.reference.act(decision))


# --------------------------------------------------------------------------- the learned Black Man


@compiled
def vote_facts(s, out: np.ndarray) -> None:
    """``vote_value.vote_facts`` of the Black Man of ``s`` into ``out`` (float32, FACT_SIZE): per
    face-up slot (is of the true book, value / 10, occupied), the true cards on the table, whether
    the leader has peeked."""
    out[:] = 0.0
    true_cards = 0
    for i in range(min(s.table_size, TABLE_SLOTS)):
        card = s.table_cards[i]
        is_true = card // NUM_VALUES == s.true_book
        true_cards += is_true
        out[3 * i] = 1.0 if is_true else 0.0
        out[3 * i + 1] = _VALUES[card % NUM_VALUES] / _VALUE_SCALE
        out[3 * i + 2] = 1.0
    out[3 * TABLE_SLOTS] = true_cards
    out[3 * TABLE_SLOTS + 1] = 1.0 if leader_has_peeked(s) else 0.0


@compiled
def vote_facts_rows(t: np.ndarray, rows: np.ndarray, out: np.ndarray) -> None:
    for k in range(rows.shape[0]):
        vote_facts(t[rows[k]], out[k])


def vote_inputs(games: Any, rows: np.ndarray, observations: np.ndarray) -> np.ndarray:
    """``(K, vote_value.INPUT_SIZE)`` float32: the vote-value inputs of the Black Man of game
    ``rows[k]`` whose observation is ``observations[k]`` -- ``vote_value.network_inputs`` of his
    view, byte for byte."""
    rows = np.asarray(rows, np.int64)
    facts = np.zeros((len(rows), FACT_SIZE), np.float32)
    vote_facts_rows(games.arrays, rows, facts)
    obs = np.asarray(observations, dtype=np.float32).reshape(len(rows), OBS_SIZE)
    return np.concatenate([obs, facts], axis=1)


class BlackManDecisions(NamedTuple):
    """What :meth:`BatchedBlackManAgent.decide` gives: an action per row; which rows were votes
    with a choice; and those rows' vote-value inputs (:func:`vote_inputs`)."""

    actions: np.ndarray
    asked: np.ndarray
    inputs: np.ndarray


class BatchedBlackManAgent:
    """:class:`~club_envs.arkham_decoders.vote_value.BlackManAgent` for many games at once: the
    vote of higher learned value (oppose on a tie), and with ``exploration`` > 0 a uniformly random
    vote that often, drawn from each game's own generator (:meth:`seed_games`). Other roles are not
    its to play. ``tally`` as :class:`BatchedBeliefAgent`'s."""

    reads_state = True

    def __init__(self, model: VoteValueModel, name: str = "black_man_vote_value", exploration: float = 0.0) -> None:
        self.reference = BlackManAgent(model, name=name)  # its votes without exploration
        self.model, self.name, self.exploration = model, name, float(exploration)
        if not 0.0 <= self.exploration <= 1.0:
            raise ValueError(f"exploration={exploration!r}: expected a share between 0 and 1")
        self.tally = {"decided": 0, "handed_back": 0}
        self._generators: dict[int, np.random.Generator] = {}

    def seed_games(self, games: Sequence[int], seeds: Sequence[int | None]) -> None:
        """Game ``games[k]``'s exploration draws from now on come from a generator seeded with
        ``seeds[k]`` -- what a :class:`BlackManAgent` draws after ``reset(seat, seeds[k])``."""
        for g, seed in zip(games, seeds):
            self._generators[int(g)] = np.random.default_rng(seed)

    def __call__(self, observations: np.ndarray, action_masks: np.ndarray, state: GameRows) -> np.ndarray:
        return self.decide(observations, action_masks, state).actions

    def decide(self, observations: np.ndarray, action_masks: np.ndarray, state: GameRows) -> BlackManDecisions:
        """The vote of every row (see :class:`BlackManDecisions`)."""
        games, rows, seats = state.games, np.asarray(state.rows, np.int64), np.asarray(state.seats, np.int64)
        masks = np.asarray(action_masks, dtype=np.bool_)
        observations = np.asarray(observations, np.float32)
        actions = masks.argmax(axis=1).astype(np.int64)
        asked = masks.sum(axis=1) > 1
        tables = games.tables
        wrong = asked & ((tables.black_man[rows] != seats) | (tables.phase[rows] != VOTE))
        if wrong.any():
            k = int(np.flatnonzero(wrong)[0])
            raise ValueError(f"{self.name} plays the Black Man's votes only; asked to play seat {seats[k]} of game "
                             f"{rows[k]} (Black Man: seat {tables.black_man[rows[k]]}) in the "
                             f"{PHASE_NAMES[tables.phase[rows[k]]]} phase")
        voting = np.flatnonzero(asked)
        inputs = vote_inputs(games, rows[voting], observations[voting])
        valued = np.ones(len(voting), np.bool_)
        if self.exploration:
            for k, i in enumerate(voting):
                rng = self._generator(int(rows[i]))
                if rng.random() < self.exploration:
                    actions[i] = VOTES[int(rng.integers(2))]
                    valued[k] = False
        if valued.any():
            chosen = voting[valued]
            value, moved = forward(self.model.layers, inputs[valued])
            actions[chosen] = np.where(value[:, 0] > value[:, 1], VOTES[0], VOTES[1])
            close = np.flatnonzero((moved > 0) & (np.abs(value[:, 0] - value[:, 1]) <= 2 * moved))
            for k in close:
                i = chosen[k]
                actions[i] = self._reference_vote(games, int(rows[i]), int(seats[i]), observations[i], masks[i])
            self.tally["decided"] += len(chosen) - len(close)
        return BlackManDecisions(actions, asked, inputs)

    def _generator(self, g: int) -> np.random.Generator:
        rng = self._generators.get(g)
        if rng is None:
            raise ValueError(f"{self.name} explores: game {g} has no generator; seed it with seed_games first")
        return rng

    def _reference_vote(self, games: Any, g: int, seat: int, observation: np.ndarray, mask: np.ndarray) -> int:
        """The reference agent's vote on his view, for two values too close to compare here."""
        self.tally["handed_back"] += 1
        decision = Decision(seat, view_of(games, g, seat), np.flatnonzero(mask).tolist(), lambda: observation,
                            lambda: mask)
        return int(self.reference.act(decision))


def learned_inputs_rows(observations: np.ndarray, masks: np.ndarray, state: GameRows) -> np.ndarray:
    """``(K, obs + 94 + 12)`` ``float32``: the ``arkham_belief_inputs`` of each row on the batched
    engine -- the observation and ``arkham_heuristic`` inputs (compiled), then the frozen belief's
    posterior from :func:`belief_inputs` and the same forward pass as the one-game model's."""
    from club_envs.arkham_decoders.features import belief_model, learned_belief
    from club_envs.arkham_decoders.vector_features import heuristic_inputs_rows

    observations = np.asarray(observations, np.float32)
    x, prior = belief_inputs(state.games, state.rows, state.seats, observations)
    logits, _ = forward(belief_model().layers, x)
    return np.concatenate([heuristic_inputs_rows(observations, masks, state), learned_belief(combine(prior, logits))],
                          axis=1)


__all__ = [
    "FORWARD_ULPS", "BatchedBeliefAgent", "BatchedBlackManAgent", "BlackManDecisions", "TeamDecisions",
    "belief_inputs", "learned_inputs_rows", "vote_inputs",
]
