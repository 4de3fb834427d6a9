"""The batched Arkham Decoders Club engine: N games in numpy arrays, every rule a compiled function.

:mod:`club_envs.arkham_decoders.engine` is the reference and the readable statement of the rules;
this module plays the same game on many tables at once, for training and evaluation at array
speed. The state of all games is one record array (a :data:`GAME` record per game); each rule of
docs/rules/arkham_decoders_club.md is one ``@compiled`` function below, named like its
counterpart in the reference engine and taking one game's record ``s``.
:class:`VectorGames` owns the arrays and steps all games per call.
``tests/arkham_decoders/test_vector_engine.py`` replays its games move by move on the reference
engine, compiled and with ``NUMBA_DISABLE_JIT=1`` (the same code as plain Python).

Differences from the reference, all outside the rules: the deals, reshuffles and flipped grimoires
come from one small generator per game (:mod:`club_envs.vector_rng`), not Python's ``random``, so a
seed gives other (equally random) games. Every game keeps what the reference needs to replay it:
:meth:`VectorGames.setup` is its ``setup`` event and :meth:`VectorGames.reshuffle_decks` its
reshuffles, the two inputs of ``State(config, setup=..., reshuffle_decks=...)``. There is no event
list and no forfeit: an illegal action raises before any game moves.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np

from club_envs.arkham_decoders import actions as A
from club_envs.arkham_decoders.rules import (
    ADVISOR,
    BLACK_MAN,
    BOOKS,
    CARDS_PER_PROPOSAL,
    FAKE_CARD_POINTS,
    INVESTIGATOR,
    LEADER,
    MEMBER,
    NUM_BOOKS,
    NUM_CARDS,
    NUM_VALUES,
    PEEK_AT_DECODED,
    RESHUFFLES_TO_END,
    ROLES,
    VALUES,
    Config,
    card_name,
    role_table,
)
from club_envs.compiled import compiled, compiled_view
from club_envs.errors import IllegalActionError
from club_envs.vector_rng import advance, seed_states

# Phases (the phase field), in the reference's PHASES order, then the end.
PROPOSAL, VOTE, CHOOSE, END = 0, 1, 2, 3
PHASE_NAMES = ("proposal", "vote", "choose", "end")
# Public roles (the roles field), in the observer's seat_roles order.
ADVISOR_ROLE, LEADER_ROLE, MEMBER_ROLE = 0, 1, 2
PUBLIC_ROLE_NAMES = (ADVISOR, LEADER, MEMBER)
# Why a game ended (the reason field); PLAYING while it goes on.
PLAYING, ENDED_BY_RESHUFFLE, ENDED_BY_NO_DECK = 0, 1, 2
REASONS = (None, "reshuffle", "no_deck")
NONE = -1  # no seat, card, book or vote
MAX_SEATS = 6
MAX_PROPOSERS = MAX_SEATS - 2
MAX_RESHUFFLES = RESHUFFLES_TO_END - 1  # the third is never carried out (ruling R6)
# The most advices a game can hold: the three reveals of an advice each draw a card, and a game
# draws at most the 24 cards of each of its RESHUFFLES_TO_END decks.
MAX_ADVICES = NUM_CARDS * RESHUFFLES_TO_END // CARDS_PER_PROPOSAL
# The most passes in one proposal phase: before each of the second and third reveals, every
# proposer but the leader (who never passes, so a full turn of the table reveals a card).
MAX_PASSES = (CARDS_PER_PROPOSAL - 1) * (MAX_PROPOSERS - 1)
# The learner roles of the Gymnasium views, ROLES order: a seat's role with advisors resolved.
ROLE_LEADER, ROLE_MEMBER, ROLE_INVESTIGATOR, ROLE_BLACK_MAN = (ROLES.index(r) for r in (LEADER, MEMBER, INVESTIGATOR, BLACK_MAN))

_VALUES = np.array(VALUES, dtype=np.int64)


S, C = MAX_SEATS, NUM_CARDS
SUMMARY_SIZE = 3 * NUM_BOOKS * 2 + 2  # per advisor: proposals, cards, weight (book x vote), totals
SMALL = np.int16  # wide enough for an observation offset plus a field in plain Python (NEP 50 keeps the type)
GAME = np.dtype(
    [
        # setup
        ("roles", SMALL, (S,)), ("leader", SMALL), ("advisors", SMALL, (2,)),
        ("proposers", SMALL, (MAX_PROPOSERS,)), ("black_man", SMALL), ("investigator", SMALL),
        ("books", SMALL, (NUM_BOOKS,)), ("grimoire", SMALL, (S,)), ("true_book", SMALL),
        ("dealt", SMALL, (C,)),
        # cards
        ("hands", SMALL, (S, C)), ("hand_count", SMALL, (S,)), ("deck", SMALL, (C,)), ("deck_size", SMALL),
        ("discard", SMALL, (C,)), ("discard_count", SMALL), ("table_cards", SMALL, (CARDS_PER_PROPOSAL,)),
        ("table_seats", SMALL, (CARDS_PER_PROPOSAL,)), ("table_size", SMALL), ("decoded", SMALL, (S, C)),
        ("decoded_count", SMALL, (S,)), ("decoded_order", SMALL, (S, C)), ("peeked", SMALL, (S,)),
        # turn
        ("phase", SMALL), ("current", SMALL), ("proposer_index", SMALL), ("passes", SMALL, (S,)),
        ("pass_order", SMALL, (MAX_PASSES,)), ("pass_count", SMALL),
        ("pending", SMALL, (2,)), ("reason", SMALL),
        # public votes
        ("vote_count", np.int32), ("last_votes", SMALL, (2,)), ("vote_summary", np.float64, (2, SUMMARY_SIZE)),
        ("advice_cards", SMALL, (MAX_ADVICES, CARDS_PER_PROPOSAL)),
        ("advice_seats", SMALL, (MAX_ADVICES, CARDS_PER_PROPOSAL)), ("advice_votes", SMALL, (MAX_ADVICES, 2)),
        # reshuffles
        ("reshuffles", SMALL), ("face_up", SMALL, (MAX_RESHUFFLES,)), ("face_up_count", SMALL),
        ("reshuffled_decks", SMALL, (MAX_RESHUFFLES, C)), ("reshuffled_sizes", SMALL, (MAX_RESHUFFLES,)),
        ("reshuffled_flips", SMALL, (MAX_RESHUFFLES,)),
        ("rng", np.uint64),
    ],
    align=True,
)
"""One game's state, one record per game (seats padded to 6, cards by id 0..23, flags as 0/1).

Setup: ``roles`` (per seat: ADVISOR_ROLE, LEADER_ROLE, MEMBER_ROLE), ``leader``, ``advisors`` (vote
order: clockwise from the leader), ``proposers`` (the leader and members clockwise from the leader,
-1 padded), ``black_man``, ``investigator``, ``books`` (the shuffled grimoires: the advisors' in
seat order, then the two unowned), ``grimoire`` (per seat: an advisor's book, else -1),
``true_book``, ``dealt`` (the shuffled cards the hands and the deck were dealt from). Cards: ``hands`` (seat x card flags) and ``hand_count``; ``deck`` (drawn from the
top, ``deck[deck_size - 1]``) and ``deck_size``; ``discard`` (card flags) and ``discard_count``;
``table_cards`` / ``table_seats`` (3 slots in reveal order) and ``table_size``; ``decoded`` (seat x
card flags), ``decoded_count`` and ``decoded_order`` (per seat, its decoded cards in decoding
order); ``peeked``. Turn: ``phase``, ``current`` (-1 once over), ``proposer_index``, ``passes``
(this proposal phase, flags) and ``pass_order`` / ``pass_count`` (the same passes in order),
``pending`` (per advisor in vote order: the vote cast in this advice phase, or -1), ``reason``.
Public votes: ``vote_count`` (revealed advices), ``last_votes``, ``vote_summary`` (per advisor in
vote order, float64, summed in the reference observer's order: per book x (agree, oppose) the
proposals, cards and card weight, then the agree/oppose totals), and the history itself:
``advice_cards`` / ``advice_seats`` (each advice's table in reveal order) and ``advice_votes`` (its
votes per advisor in vote order, 1 agree). The orders and the history are what the reference's
``View`` holds and the heuristic bot reads (:mod:`club_envs.arkham_decoders.vector_views`); the
observation needs only the flags and the summary. Reshuffles: ``reshuffles``, ``face_up`` (books
in flipping order) and ``face_up_count``; ``reshuffled_decks`` / ``reshuffled_sizes`` /
``reshuffled_flips`` (what each reshuffle made, for replays). ``rng``: the game's generator.

A record per game, not one array per field: every compiled rule takes one game's record, so numba
compiles each rule for one small argument (with 37 separate arrays, compilation took twice as long).
"""
_CARDS_AT = NUM_BOOKS * 2
_WEIGHT_AT = 2 * NUM_BOOKS * 2
_TOTALS_AT = 3 * NUM_BOOKS * 2
_COUNT_STEP = 0.1  # the reference observer's 1 / VOTE_COUNT_SCALE
_WEIGHT_STEP = np.array([abs(VALUES[c % NUM_VALUES]) / 40.0 for c in range(NUM_CARDS)], dtype=np.float64)


class Rules(NamedTuple):
    """The options of a :class:`~club_envs.arkham_decoders.rules.Config`, as the compiled code reads them."""

    num_players: int
    hand_size: int
    insanity_penalty: int
    fixed_roles: np.ndarray  # int8 per seat (public role codes), or all -1: roles dealt at random
    role_deck: np.ndarray  # int8: the role cards for the player count (public role codes)


def rules_of(config: Config) -> Rules:
    n = config.num_players
    code = {name: i for i, name in enumerate(PUBLIC_ROLE_NAMES)}
    fixed = [code[r] for r in config.roles] if config.roles is not None else [NONE] * n
    return Rules(
        n,
        config.hand_size,
        int(config.insanity_penalty),
        np.array(fixed, dtype=np.int8),
        np.array([code[r] for r in role_table(n)], dtype=np.int8),
    )


def allocate_tables(num_games: int) -> np.recarray:
    """One :data:`GAME` record per game, over (contents set by :func:`reset_game`)."""
    tables = np.zeros(num_games, GAME).view(np.recarray)
    tables.phase = END
    tables.current = NONE
    tables.rng = 1
    return tables


# --------------------------------------------------------------------------- setup


@compiled
def draw_for(s, bound: int) -> int:
    """A whole number in ``0 .. bound - 1`` from the game's own generator (advanced in place)."""
    s.rng = advance(s.rng)
    return int(s.rng % np.uint64(bound))


@compiled
def shuffle(s, items: np.ndarray, count: int) -> None:
    """The first ``count`` entries of ``items`` in a uniformly random order (Fisher-Yates)."""
    for i in range(count - 1, 0, -1):
        j = draw_for(s, i + 1)
        items[i], items[j] = items[j], items[i]


@compiled
def deal_roles(s, r: Rules) -> None:
    """Setup 1-2: the public roles (at random unless the ``roles`` option fixes them), and the two
    identity cards to the advisors."""
    n = r.num_players
    fixed = r.fixed_roles[0] != NONE
    for seat in range(S):
        s.roles[seat] = NONE
    for seat in range(n):
        s.roles[seat] = r.fixed_roles[seat] if fixed else r.role_deck[seat]
    if not fixed:
        shuffle(s, s.roles, n)
    first = second = NONE  # the advisors in seat order
    for seat in range(n):
        if s.roles[seat] == ADVISOR_ROLE:
            if first == NONE:
                first = seat
            else:
                second = seat
    black_first = draw_for(s, 2) == 0
    s.black_man = first if black_first else second
    s.investigator = second if black_first else first


@compiled
def deal_setup(s, r: Rules) -> None:
    """Setup 1-4: roles and identities (:func:`deal_roles`), a grimoire to each advisor (the other
    two unowned), hands of H to the leader and members, the rest of the 24 cards as the deck."""
    deal_roles(s, r)
    for book in range(NUM_BOOKS):
        s.books[book] = book
    shuffle(s, s.books, NUM_BOOKS)
    for seat in range(S):
        s.grimoire[seat] = NONE
    first, second = min(s.black_man, s.investigator), max(s.black_man, s.investigator)
    s.grimoire[first] = s.books[0]
    s.grimoire[second] = s.books[1]
    s.true_book = s.grimoire[s.black_man]
    for card in range(C):
        s.dealt[card] = card
    shuffle(s, s.dealt, C)
    for card in range(C):
        s.deck[card] = s.dealt[card]
    left = C  # hands are drawn from the end, seat by seat; the rest is the deck, top last
    for seat in range(S):
        s.hand_count[seat] = 0
        for card in range(C):
            s.hands[seat, card] = 0
    for seat in range(r.num_players):
        if s.roles[seat] != ADVISOR_ROLE:
            for _ in range(r.hand_size):
                left -= 1
                s.hands[seat, s.deck[left]] = 1
            s.hand_count[seat] = r.hand_size
    s.deck_size = left


@compiled
def seat_order(s, r: Rules) -> None:
    """The leader, then clockwise: the advisors in vote order and the proposers in turn order."""
    n = r.num_players
    for seat in range(n):
        if s.roles[seat] == LEADER_ROLE:
            s.leader = seat
    advisors = proposers = 0
    for i in range(MAX_PROPOSERS):
        s.proposers[i] = NONE
    for k in range(n):
        seat = (s.leader + k) % n
        if s.roles[seat] == ADVISOR_ROLE:
            s.advisors[advisors] = seat
            advisors += 1
        else:
            s.proposers[proposers] = seat
            proposers += 1


@compiled
def reset_game(s, r: Rules) -> None:
    """A new game at this table: dealt, nothing shown, the leader to propose."""
    deal_setup(s, r)
    seat_order(s, r)
    for card in range(C):
        s.discard[card] = 0
    for seat in range(S):
        s.decoded_count[seat] = 0
        s.peeked[seat] = 0
        for card in range(C):
            s.decoded[seat, card] = 0
    s.discard_count = 0
    clear_table(s)
    s.pending[0] = s.pending[1] = NONE
    s.reason = PLAYING
    s.vote_count = 0
    s.last_votes[0] = s.last_votes[1] = 0
    for k in range(2):
        for i in range(SUMMARY_SIZE):
            s.vote_summary[k, i] = 0.0
    s.reshuffles = 0
    s.face_up_count = 0
    for i in range(MAX_RESHUFFLES):
        s.face_up[i] = NONE
        s.reshuffled_flips[i] = NONE
        s.reshuffled_sizes[i] = 0
    start_proposal(s)


# --------------------------------------------------------------------------- turn flow


@compiled
def clear_table(s) -> None:
    s.table_size = 0
    for slot in range(CARDS_PER_PROPOSAL):
        s.table_cards[slot] = NONE
        s.table_seats[slot] = NONE


@compiled
def start_proposal(s) -> None:
    s.phase = PROPOSAL
    for seat in range(S):
        s.passes[seat] = 0
    s.pass_count = 0
    s.proposer_index = 0
    s.current = s.leader


@compiled
def next_proposer(s, r: Rules) -> None:
    s.proposer_index = (s.proposer_index + 1) % (r.num_players - 2)
    s.current = s.proposers[s.proposer_index]


# --------------------------------------------------------------------------- rules, one each


@compiled
def is_face_up(s, book: int) -> bool:
    for i in range(s.face_up_count):
        if s.face_up[i] == book:
            return True
    return False


@compiled
def flip_grimoire(s) -> int:
    """A reshuffle turns one of the unowned grimoires not yet face up (at random) face up: a known
    fake. Returns it (-1 when both are face up already)."""
    candidates = 0
    for i in range(2):
        if not is_face_up(s, s.books[2 + i]):
            candidates += 1
    if candidates == 0:
        return NONE
    pick = draw_for(s, candidates)
    for i in range(2):
        book = s.books[2 + i]
        if not is_face_up(s, book):
            if pick == 0:
                s.face_up[s.face_up_count] = book
                s.face_up_count += 1
                return book
            pick -= 1
    return NONE


@compiled
def reshuffle(s) -> bool:
    """A draw from an empty deck: shuffle the discard pile into a new deck and flip a grimoire
    (:func:`flip_grimoire`). The game ends instead (False) when this would be the **third**
    reshuffle (ruling R6: not carried out; ruling R7: this reason first), or else when the discard
    pile is empty."""
    if s.reshuffles + 1 >= RESHUFFLES_TO_END:
        end_game(s, ENDED_BY_RESHUFFLE)
        return False
    if s.discard_count == 0:
        end_game(s, ENDED_BY_NO_DECK)
        return False
    number = s.reshuffles
    s.reshuffles += 1
    s.reshuffled_flips[number] = flip_grimoire(s)
    size = 0
    for card in range(C):
        if s.discard[card]:
            s.deck[size] = card
            size += 1
            s.discard[card] = 0
    shuffle(s, s.deck, size)
    s.deck_size = size
    s.discard_count = 0
    s.reshuffled_sizes[number] = size
    for i in range(size):
        s.reshuffled_decks[number, i] = s.deck[i]
    return True


@compiled
def refill_hand(s, r: Rules, seat: int) -> bool:
    """Draw back up to the hand size H at once after revealing (ruling R2: H, also with 4
    players); an empty deck is rebuilt by :func:`reshuffle`. False when that ended the game."""
    while s.hand_count[seat] < r.hand_size:
        if s.deck_size == 0 and not reshuffle(s):
            return False
        s.deck_size -= 1
        s.hands[seat, s.deck[s.deck_size]] = 1
        s.hand_count[seat] += 1
    return True


@compiled
def reveal_chapter_card(s, r: Rules, card: int) -> None:
    """Proposal: show one chapter card face up, then at once refill the hand to H; the third card
    starts the advice (the advisors vote in order, clockwise from the leader)."""
    seat = s.current
    s.hands[seat, card] = 0
    s.hand_count[seat] -= 1
    slot = s.table_size
    s.table_cards[slot] = card
    s.table_seats[slot] = seat
    s.table_size = slot + 1
    if not refill_hand(s, r, seat):
        return
    if s.table_size == CARDS_PER_PROPOSAL:
        s.phase = VOTE
        s.current = s.advisors[0]
    else:
        next_proposer(s, r)


@compiled
def pass_turn(s, r: Rules) -> None:
    """Proposal: a member may pass instead of revealing (the leader never may)."""
    s.passes[s.current] = 1
    s.pass_order[s.pass_count] = s.current
    s.pass_count += 1
    next_proposer(s, r)


@compiled
def cast_vote(s, r: Rules, vote: int) -> None:
    """Advice: each advisor secretly agrees (1) or opposes (0); both are revealed together."""
    if s.pending[0] == NONE:
        s.pending[0] = vote
        s.current = s.advisors[1]
        return
    s.pending[1] = vote
    resolve_votes(s, r)


@compiled
def add_public_vote(s) -> None:
    """The revealed advice enters the public history: the table and both votes, and the
    per-advisor summary the observation shows, summed in the reference observer's order (so the
    float64 sums agree bit for bit)."""
    books_in = 0  # bit per book
    for slot in range(CARDS_PER_PROPOSAL):
        books_in |= 1 << (s.table_cards[slot] // NUM_VALUES)
    for k in range(2):
        at = 0 if s.pending[k] else 1
        for slot in range(CARDS_PER_PROPOSAL):
            card = s.table_cards[slot]
            book = card // NUM_VALUES
            s.vote_summary[k, at + book * 2 + _CARDS_AT] += _COUNT_STEP
            s.vote_summary[k, at + book * 2 + _WEIGHT_AT] += _WEIGHT_STEP[card]
        for book in range(NUM_BOOKS):
            if books_in >> book & 1:
                s.vote_summary[k, at + book * 2] += _COUNT_STEP
        s.vote_summary[k, at + _TOTALS_AT] += _COUNT_STEP
        s.last_votes[k] = s.pending[k]
        s.advice_votes[s.vote_count, k] = s.pending[k]
    for slot in range(CARDS_PER_PROPOSAL):
        s.advice_cards[s.vote_count, slot] = s.table_cards[slot]
        s.advice_seats[s.vote_count, slot] = s.table_seats[slot]
    s.vote_count += 1


@compiled
def resolve_votes(s, r: Rules) -> None:
    """Decoding: 2 agree decode all 3; 2 oppose discard all 3; 1-1 the leader picks one (rulings
    R4, R5) -- unless every card is of a face-up grimoire, then none is decoded."""
    add_public_vote(s)
    agrees = s.pending[0] + s.pending[1]
    s.pending[0] = s.pending[1] = NONE
    if agrees == 2:
        decode_cards(s, r, 0b111)
    elif agrees == 0:
        decode_cards(s, r, 0)
    elif eligible_slots(s):
        s.phase = CHOOSE
        s.current = s.leader
    else:
        decode_cards(s, r, 0)


@compiled
def eligible_slots(s) -> int:
    """Bits of the face-up slots the leader may decode after a 1-1 vote: not of a face-up grimoire."""
    bits = 0
    for slot in range(s.table_size):
        if not is_face_up(s, s.table_cards[slot] // NUM_VALUES):
            bits |= 1 << slot
    return bits


@compiled
def decode_cards(s, r: Rules, slots: int) -> None:
    """Decoded cards (``slots``: bits) stay face up before whoever revealed them; the rest go to
    the discard pile. Then the fourth-card peek: a player whose decoded cards reach 4 secretly
    sees the identity cards, once. The next proposal begins."""
    for slot in range(s.table_size):
        seat, card = s.table_seats[slot], s.table_cards[slot]
        if slots >> slot & 1:
            s.decoded[seat, card] = 1
            s.decoded_order[seat, s.decoded_count[seat]] = card
            s.decoded_count[seat] += 1
        else:
            s.discard[card] = 1
            s.discard_count += 1
    clear_table(s)
    for seat in range(r.num_players):
        if s.decoded_count[seat] >= PEEK_AT_DECODED:
            s.peeked[seat] = 1
    start_proposal(s)


@compiled
def end_game(s, reason: int) -> None:
    """The end: no one moves; a vote cast in an unfinished advice stays unrevealed."""
    s.phase = END
    s.current = NONE
    s.pending[0] = s.pending[1] = NONE
    s.reason = reason


@compiled
def san_of(s, r: Rules, seat: int) -> int:
    """SAN of a leader/member: a true-grimoire card counts its value, a fake one +1; then the
    insanity penalty for a total of 0 or less."""
    total = 0
    for card in range(C):
        if s.decoded[seat, card]:
            total += _VALUES[card % NUM_VALUES] if card // NUM_VALUES == s.true_book else FAKE_CARD_POINTS
    if total <= 0:
        total -= r.insanity_penalty
    return total


@compiled
def san_total(s, r: Rules) -> int:
    """The team's SAN: the sum over the leader and members (the team wins at 1 or more)."""
    total = 0
    for i in range(r.num_players - 2):
        total += san_of(s, r, s.proposers[i])
    return total


@compiled
def role_of(s, seat: int) -> int:
    """The seat's role with advisors resolved (ROLES order: leader, member, investigator, black_man)."""
    role = s.roles[seat]
    if role == LEADER_ROLE:
        return ROLE_LEADER
    if role == MEMBER_ROLE:
        return ROLE_MEMBER
    return ROLE_BLACK_MAN if seat == s.black_man else ROLE_INVESTIGATOR


@compiled
def score_of(s, r: Rules, seat: int, total: int) -> int:
    """A leader/member's own SAN; the Investigator the team's total; the Black Man its negative."""
    if s.roles[seat] != ADVISOR_ROLE:
        return san_of(s, r, seat)
    return -total if seat == s.black_man else total


# --------------------------------------------------------------------------- actions


@compiled
def apply_action(s, r: Rules, action: int) -> None:
    """Play a legal ``action`` for the player to move."""
    phase = s.phase
    if phase == PROPOSAL:
        if action == A.PASS:
            pass_turn(s, r)
        else:
            reveal_chapter_card(s, r, action - A.REVEAL)
    elif phase == VOTE:
        cast_vote(s, r, 1 if action == A.AGREE else 0)
    elif phase == CHOOSE:
        decode_cards(s, r, 1 << (action - A.DECODE))


@compiled
def is_legal(s, action: int) -> bool:
    """A reveal needs the card in hand; only a member may pass; an advisor agrees or opposes; the
    leader decodes an eligible slot. Nothing is legal once the game is over."""
    phase = s.phase
    if phase == PROPOSAL:
        if action == A.PASS:
            return s.current != s.leader
        if action < A.REVEAL or action >= A.REVEAL + C:
            return False
        return s.hands[s.current, action - A.REVEAL] != 0
    if phase == VOTE:
        return action == A.AGREE or action == A.OPPOSE
    if phase == CHOOSE:
        slot = action - A.DECODE
        if slot < 0 or slot >= A.NUM_SLOTS:
            return False
        return (eligible_slots(s) >> slot & 1) == 1
    return False


@compiled
def legal_mask(s, out: np.ndarray) -> None:
    """The legal actions as flags in ``out`` (length NUM_ACTIONS; all False once over)."""
    out[:] = False
    phase = s.phase
    if phase == PROPOSAL:
        seat = s.current
        for card in range(C):
            out[A.REVEAL + card] = s.hands[seat, card] != 0
        out[A.PASS] = seat != s.leader
    elif phase == VOTE:
        out[A.AGREE] = True
        out[A.OPPOSE] = True
    elif phase == CHOOSE:
        bits = eligible_slots(s)
        for slot in range(A.NUM_SLOTS):
            out[A.DECODE + slot] = (bits >> slot & 1) == 1


# --------------------------------------------------------------------------- all games at once


@compiled
def reset_games(t: np.ndarray, r: Rules, which: np.ndarray) -> None:
    for g in range(which.shape[0]):
        if which[g]:
            reset_game(t[g], r)


@compiled
def first_illegal(t: np.ndarray, actions: np.ndarray) -> int:
    """The first game still playing whose action is illegal, or -1."""
    for g in range(actions.shape[0]):
        if t[g].phase != END and not is_legal(t[g], actions[g]):
            return g
    return -1


@compiled
def step_games(t: np.ndarray, r: Rules, actions: np.ndarray) -> None:
    """Every game still playing takes its (legal) action; finished games are left as they are."""
    for g in range(actions.shape[0]):
        if t[g].phase != END:
            apply_action(t[g], r, actions[g])


@compiled
def legal_masks(t: np.ndarray, out: np.ndarray) -> None:
    for g in range(out.shape[0]):
        legal_mask(t[g], out[g])


@compiled
def score_all(t: np.ndarray, r: Rules, totals: np.ndarray, scores: np.ndarray, roles: np.ndarray) -> None:
    """Every game's SAN total (N,), scores per seat (N, n) and roles resolved (N, n)."""
    for g in range(totals.shape[0]):
        s = t[g]
        total = san_total(s, r)
        totals[g] = total
        for seat in range(r.num_players):
            scores[g, seat] = score_of(s, r, seat, total)
            roles[g, seat] = role_of(s, seat)


# --------------------------------------------------------------------------- the owner of the arrays


def describe_illegal(tables: np.recarray, mask: np.ndarray, g: int, action: Any, who: str) -> str:
    """The one-line message for an illegal ``action`` in game ``g`` (``mask``: its legal actions)."""
    phase = PHASE_NAMES[tables.phase[g]]
    legal = ", ".join(f"{a} ({A.action_to_string(int(a))})" for a in np.flatnonzero(mask))
    return f"game {g}: action {action} is not legal for {who} in the {phase} phase; legal actions: {legal}"


def check_action_array(actions: Any, num_games: int) -> np.ndarray:
    """``actions`` as an (N,) int64 array, or :class:`IllegalActionError` naming the problem."""
    actions = np.asarray(actions)
    if actions.shape != (num_games,) or not np.issubdtype(actions.dtype, np.integer):
        raise IllegalActionError(
            f"actions must be {num_games} whole numbers, one per game; got shape {actions.shape}, "
            f"dtype {actions.dtype}"
        )
    return actions.astype(np.int64, copy=False)


class VectorGames:
    """N games of Arkham Decoders Club at one table size, stepped together.

    ``reset(seed)`` deals every game; ``step(actions)`` plays one action in every game still going
    (an ``(N,)`` integer array; entries of finished games are ignored); ``reset_games(mask)``
    deals new games where ``mask`` is set. ``current_player`` is -1 for a finished game.
    Observations come from :class:`~club_envs.arkham_decoders.vector_observer.VectorObserver`.
    """

    def __init__(self, config: Config, num_games: int, seed: int | None = None) -> None:
        if isinstance(num_games, bool) or not isinstance(num_games, (int, np.integer)) or num_games < 1:
            raise ValueError(f"num_games={num_games!r}: expected a whole number >= 1")
        self.config = config
        self.num_games = int(num_games)
        self.num_players = config.num_players
        self.rules = rules_of(config)
        self.tables = allocate_tables(self.num_games)
        self._mask = np.zeros((self.num_games, A.NUM_ACTIONS), dtype=np.bool_)
        self.reset(seed=seed)

    @property
    def arrays(self) -> np.ndarray:
        """The tables as compiled calls take them (:func:`~club_envs.compiled.compiled_view`): the
        same memory as :attr:`tables`, which stays the record view Python code reads; made on
        each use (a fraction of a microsecond), so a copy of the games can never hold stale ones."""
        return compiled_view(self.tables)

    def reset(self, seed: int | np.random.SeedSequence | Sequence[int] | None = None) -> None:
        """New games everywhere, each dealt from its own generator seeded from ``seed`` -- or, given
        one seed per game (a sequence of whole numbers), game ``g`` from ``seed[g]`` alone, so that a
        game's deal depends on its own seed whatever the other games are."""
        if isinstance(seed, (Sequence, np.ndarray)):
            if len(seed) != self.num_games:
                raise ValueError(f"{len(seed)} seeds for {self.num_games} games: expected one seed per game")
            self.tables.rng[:] = [seed_states(int(s), 1)[0] for s in seed]
        else:
            self.tables.rng[:] = seed_states(seed, self.num_games)
        reset_games(self.arrays, self.rules, np.ones(self.num_games, np.bool_))

    def reset_games(self, mask: np.ndarray) -> None:
        """New games (dealt from each game's generator) where ``mask`` is set."""
        reset_games(self.arrays, self.rules, np.asarray(mask, dtype=np.bool_))

    def check_actions(self, actions: Any) -> np.ndarray:
        """``actions`` as int64 if each game still playing can take its own; otherwise
        :class:`IllegalActionError` naming the (first) game at fault, its seat to move, its phase and
        its legal actions. Nothing moves either way: a caller checks all games before playing any."""
        actions = check_action_array(actions, self.num_games)
        bad = first_illegal(self.arrays, actions)
        if bad >= 0:
            who = f"seat {self.tables.current[bad]}"
            raise IllegalActionError(describe_illegal(self.tables, self.legal_masks()[bad], bad, actions[bad], who))
        return actions

    def step(self, actions: Any) -> None:
        """One action per game; :class:`IllegalActionError` (naming the game and its legal actions)
        leaves every game as it was."""
        step_games(self.arrays, self.rules, self.check_actions(actions))

    def legal_masks(self, out: np.ndarray | None = None) -> np.ndarray:
        """(N, NUM_ACTIONS) bool: the legal actions of every game's player to move."""
        if out is None:
            out = self._mask
        legal_masks(self.arrays, out)
        return out

    @property
    def current_player(self) -> np.ndarray:
        return self.tables.current

    @property
    def is_over(self) -> np.ndarray:
        """Every game ends by the rules (``is_terminal``); none is ever truncated."""
        return self.tables.phase == END

    @property
    def is_terminal(self) -> np.ndarray:
        return self.tables.phase == END

    @property
    def is_truncated(self) -> np.ndarray:
        """Never: the deck runs out within three reshuffles, as in the reference engine."""
        return np.zeros(self.num_games, np.bool_)

    def scores(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(totals, scores, winners)``: (N,) SAN totals, (N, n) scores as the reference's
        ``scores()`` and (N, n) flags of the seats whose side wins (or would win, while a game
        goes on): the team at a total of 1 or more, else the Black Man."""
        n = self.num_players
        totals = np.zeros(self.num_games, np.int64)
        scores = np.zeros((self.num_games, n), np.int64)
        roles = np.zeros((self.num_games, n), np.int8)
        score_all(self.arrays, self.rules, totals, scores, roles)
        black_man = roles == ROLE_BLACK_MAN
        winners = np.where((totals >= 1)[:, None], ~black_man, black_man)
        return totals, scores, winners

    def roles(self) -> np.ndarray:
        """(N, n) each seat's role with advisors resolved, as indices into ``rules.ROLES``."""
        n = self.num_players
        roles = np.zeros((self.num_games, n), np.int8)
        totals, scores = np.zeros(self.num_games, np.int64), np.zeros((self.num_games, n), np.int64)
        score_all(self.arrays, self.rules, totals, scores, roles)
        return roles

    # ----------------------------------------------------------------- replays on the reference

    def setup(self, g: int) -> dict[str, Any]:
        """Game ``g``'s ``setup`` event as the reference engine records it (the deal, whatever was
        played since)."""
        t, n = self.tables, self.num_players
        advisors = [s for s in range(n) if t.roles[g, s] == ADVISOR_ROLE]
        proposers = [s for s in range(n) if t.roles[g, s] != ADVISOR_ROLE]
        dealt = [int(c) for c in t.dealt[g]]
        hands = {}
        for s in proposers:  # drawn from the end of the shuffled cards, seat by seat
            hands[str(s)] = [card_name(c) for c in dealt[len(dealt) - self.config.hand_size :][::-1]]
            del dealt[len(dealt) - self.config.hand_size :]
        return {
            "type": "setup",
            "roles": [PUBLIC_ROLE_NAMES[t.roles[g, s]] for s in range(n)],
            "identities": {str(a): BLACK_MAN if a == t.black_man[g] else INVESTIGATOR for a in advisors},
            "grimoires": {str(a): BOOKS[t.grimoire[g, a]] for a in advisors},
            "unowned": [BOOKS[b] for b in t.books[g, 2:]],
            "hands": hands,
            "deck": [card_name(c) for c in dealt[::-1]],  # top first
        }

    def reshuffle_decks(self, g: int) -> list[tuple[str | None, list[str]]]:
        """Game ``g``'s reshuffles so far as the reference's ``reshuffle_decks``: per reshuffle the
        grimoire flipped (or None) and the new deck, top first."""
        t = self.tables
        out = []
        for i in range(int(t.reshuffles[g])):
            flipped = int(t.reshuffled_flips[g, i])
            deck = t.reshuffled_decks[g, i, : t.reshuffled_sizes[g, i]]
            out.append((BOOKS[flipped] if flipped != NONE else None, [card_name(int(c)) for c in deck[::-1]]))
        return out
