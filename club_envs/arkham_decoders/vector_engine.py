"""The batched Arkham Decoders Club engine: N games in numpy arrays, every rule a compiled function.

:mod:`club_envs.arkham_decoders.engine` is the reference and the readable statement of the rules;
this module plays the same game on many tables at once, for training and evaluation at array
speed. The state of all games is one :class:`Tables` (a struct of arrays, indexed by game first);
each rule of docs/rules/arkham_decoders_club.md is one ``@compiled`` function below, named like
its counterpart in the reference engine and taking the tables and a game index ``g``.
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
from club_envs.compiled import compiled
from club_envs.errors import IllegalActionError
from club_envs.vector_rng import draw, seed_states

# Phases (Tables.phase), in the reference's PHASES order, then the end.
PROPOSAL, VOTE, CHOOSE, END = 0, 1, 2, 3
PHASE_NAMES = ("proposal", "vote", "choose", "end")
# Public roles (Tables.roles), in the observer's seat_roles order.
ADVISOR_ROLE, LEADER_ROLE, MEMBER_ROLE = 0, 1, 2
PUBLIC_ROLE_NAMES = (ADVISOR, LEADER, MEMBER)
# Why a game ended (Tables.reason); PLAYING while it goes on.
PLAYING, ENDED_BY_RESHUFFLE, ENDED_BY_NO_DECK = 0, 1, 2
REASONS = (None, "reshuffle", "no_deck")
NONE = -1  # no seat, card, book or vote
MAX_SEATS = 6
MAX_PROPOSERS = MAX_SEATS - 2
MAX_RESHUFFLES = RESHUFFLES_TO_END - 1  # the third is never carried out (ruling R6)
# The learner roles of the Gymnasium views, ROLES order: a seat's role with advisors resolved.
ROLE_LEADER, ROLE_MEMBER, ROLE_INVESTIGATOR, ROLE_BLACK_MAN = (ROLES.index(r) for r in (LEADER, MEMBER, INVESTIGATOR, BLACK_MAN))

_VALUES = np.array(VALUES, dtype=np.int64)


class Tables(NamedTuple):
    """The state of N games, one row per game (seats padded to 6, cards by id 0..23).

    Setup: ``roles`` (per seat: ADVISOR_ROLE, LEADER_ROLE, MEMBER_ROLE), ``leader``, ``advisors``
    (2, vote order: clockwise from the leader), ``proposers`` (4: the leader and members clockwise
    from the leader, -1 padded), ``black_man``, ``investigator``, ``grimoire`` (per seat: an
    advisor's book, else -1), ``unowned`` (2 books), ``true_book``.
    Cards: ``hands`` (seat x card flags) and ``hand_count``; ``deck`` (drawn from the top,
    ``deck[deck_size - 1]``) and ``deck_size``; ``discard`` (card flags) and ``discard_count``;
    ``table_cards`` / ``table_seats`` (3 slots in reveal order) and ``table_size``; ``decoded``
    (seat x card flags) and ``decoded_count``; ``peeked`` (per seat).
    Turn: ``phase``, ``current`` (-1 once over), ``proposer_index``, ``passes`` (per seat, this
    proposal phase), ``pending`` (2, per advisor in vote order: the vote cast in this advice
    phase, or -1), ``reason``.
    Public votes: ``vote_count`` (revealed advices), ``last_votes`` (2), ``vote_summary`` (2 x 26
    float64 per advisor in vote order, accumulated in the reference observer's order: per book x
    (agree, oppose) the proposals, cards and card weight, then the agree/oppose totals).
    Reshuffles: ``reshuffles``, ``face_up`` (books in flipping order) and ``face_up_count``;
    ``reshuffled_decks`` / ``reshuffled_sizes`` / ``reshuffled_flips`` (what each reshuffle
    made, for replays).
    ``rng``: the game's generator.
    """

    roles: np.ndarray
    leader: np.ndarray
    advisors: np.ndarray
    proposers: np.ndarray
    black_man: np.ndarray
    investigator: np.ndarray
    grimoire: np.ndarray
    unowned: np.ndarray
    true_book: np.ndarray
    hands: np.ndarray
    hand_count: np.ndarray
    deck: np.ndarray
    deck_size: np.ndarray
    discard: np.ndarray
    discard_count: np.ndarray
    table_cards: np.ndarray
    table_seats: np.ndarray
    table_size: np.ndarray
    decoded: np.ndarray
    decoded_count: np.ndarray
    peeked: np.ndarray
    phase: np.ndarray
    current: np.ndarray
    proposer_index: np.ndarray
    passes: np.ndarray
    pending: np.ndarray
    reason: np.ndarray
    vote_count: np.ndarray
    last_votes: np.ndarray
    vote_summary: np.ndarray
    reshuffles: np.ndarray
    face_up: np.ndarray
    face_up_count: np.ndarray
    reshuffled_decks: np.ndarray
    reshuffled_flips: np.ndarray
    reshuffled_sizes: np.ndarray
    rng: np.ndarray


SUMMARY_SIZE = 3 * NUM_BOOKS * 2 + 2  # per advisor: proposals, cards, weight (book x vote), totals
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


def allocate_tables(num_games: int) -> Tables:
    """Arrays for ``num_games`` games (contents set by :func:`reset_game`)."""
    g, s, c = num_games, MAX_SEATS, NUM_CARDS
    small = np.int8
    return Tables(
        roles=np.zeros((g, s), small),
        leader=np.zeros(g, small),
        advisors=np.zeros((g, 2), small),
        proposers=np.full((g, MAX_PROPOSERS), NONE, small),
        black_man=np.zeros(g, small),
        investigator=np.zeros(g, small),
        grimoire=np.full((g, s), NONE, small),
        unowned=np.zeros((g, 2), small),
        true_book=np.zeros(g, small),
        hands=np.zeros((g, s, c), np.bool_),
        hand_count=np.zeros((g, s), small),
        deck=np.zeros((g, c), small),
        deck_size=np.zeros(g, small),
        discard=np.zeros((g, c), np.bool_),
        discard_count=np.zeros(g, small),
        table_cards=np.full((g, CARDS_PER_PROPOSAL), NONE, small),
        table_seats=np.full((g, CARDS_PER_PROPOSAL), NONE, small),
        table_size=np.zeros(g, small),
        decoded=np.zeros((g, s, c), np.bool_),
        decoded_count=np.zeros((g, s), small),
        peeked=np.zeros((g, s), np.bool_),
        phase=np.full(g, END, small),
        current=np.full(g, NONE, small),
        proposer_index=np.zeros(g, small),
        passes=np.zeros((g, s), np.bool_),
        pending=np.full((g, 2), NONE, small),
        reason=np.zeros(g, small),
        vote_count=np.zeros(g, np.int32),
        last_votes=np.zeros((g, 2), small),
        vote_summary=np.zeros((g, 2, SUMMARY_SIZE), np.float64),
        reshuffles=np.zeros(g, small),
        face_up=np.full((g, MAX_RESHUFFLES), NONE, small),
        face_up_count=np.zeros(g, small),
        reshuffled_decks=np.zeros((g, MAX_RESHUFFLES, c), small),
        reshuffled_flips=np.full((g, MAX_RESHUFFLES), NONE, small),
        reshuffled_sizes=np.zeros((g, MAX_RESHUFFLES), small),
        rng=np.ones(g, np.uint64),
    )


# --------------------------------------------------------------------------- setup


@compiled
def shuffle(t: Tables, g: int, items: np.ndarray, count: int) -> None:
    """The first ``count`` entries of ``items`` in a uniformly random order (Fisher-Yates on the
    game's generator)."""
    for i in range(count - 1, 0, -1):
        j = draw(t.rng, g, i + 1)
        items[i], items[j] = items[j], items[i]


@compiled
def deal_setup(t: Tables, r: Rules, g: int, scratch: np.ndarray) -> None:
    """Setup 1-4: public roles (dealt at random unless the ``roles`` option fixes them), the two
    identity cards to the advisors, a grimoire to each advisor (the other two unowned), hands of
    H to the leader and members, the rest of the 24 cards as the deck (``scratch``: room for 24)."""
    n = r.num_players
    roles = t.roles[g]
    roles[:] = NONE
    for s in range(n):
        roles[s] = r.role_deck[s] if r.fixed_roles[0] == NONE else r.fixed_roles[s]
    if r.fixed_roles[0] == NONE:
        shuffle(t, g, roles, n)
    first = second = NONE  # the advisors in seat order get the identities in a random order
    for s in range(n):
        if roles[s] == ADVISOR_ROLE:
            if first == NONE:
                first = s
            else:
                second = s
    black_first = draw(t.rng, g, 2) == 0
    t.black_man[g] = first if black_first else second
    t.investigator[g] = second if black_first else first
    books = scratch[:NUM_BOOKS]
    for b in range(NUM_BOOKS):
        books[b] = b
    shuffle(t, g, books, NUM_BOOKS)
    t.grimoire[g] = NONE
    t.grimoire[g, first] = books[0]
    t.grimoire[g, second] = books[1]
    t.unowned[g, 0] = books[2]
    t.unowned[g, 1] = books[3]
    t.true_book[g] = t.grimoire[g, t.black_man[g]]
    cards = scratch
    for c in range(NUM_CARDS):
        cards[c] = c
    shuffle(t, g, cards, NUM_CARDS)
    left = NUM_CARDS  # hands are drawn from the end, seat by seat; the rest is the deck, top last
    t.hands[g] = False
    t.hand_count[g] = 0
    for s in range(n):
        if roles[s] != ADVISOR_ROLE:
            for _ in range(r.hand_size):
                left -= 1
                t.hands[g, s, cards[left]] = True
            t.hand_count[g, s] = r.hand_size
    for i in range(left):
        t.deck[g, i] = cards[i]
    t.deck_size[g] = left


@compiled
def seat_order(t: Tables, r: Rules, g: int) -> None:
    """The leader, then clockwise: the advisors in vote order and the proposers in turn order."""
    n = r.num_players
    for s in range(n):
        if t.roles[g, s] == LEADER_ROLE:
            t.leader[g] = s
    advisors = proposers = 0
    t.proposers[g] = NONE
    for k in range(n):
        s = (t.leader[g] + k) % n
        if t.roles[g, s] == ADVISOR_ROLE:
            t.advisors[g, advisors] = s
            advisors += 1
        else:
            t.proposers[g, proposers] = s
            proposers += 1


@compiled
def reset_game(t: Tables, r: Rules, g: int, scratch: np.ndarray) -> None:
    """A new game at table ``g``: dealt, nothing shown, the leader to propose."""
    deal_setup(t, r, g, scratch)
    seat_order(t, r, g)
    t.discard[g] = False
    t.discard_count[g] = 0
    t.table_size[g] = 0
    t.table_cards[g] = NONE
    t.table_seats[g] = NONE
    t.decoded[g] = False
    t.decoded_count[g] = 0
    t.peeked[g] = False
    t.pending[g] = NONE
    t.reason[g] = PLAYING
    t.vote_count[g] = 0
    t.last_votes[g] = 0
    t.vote_summary[g] = 0.0
    t.reshuffles[g] = 0
    t.face_up[g] = NONE
    t.face_up_count[g] = 0
    t.reshuffled_flips[g] = NONE
    start_proposal(t, g)


# --------------------------------------------------------------------------- turn flow


@compiled
def start_proposal(t: Tables, g: int) -> None:
    t.phase[g] = PROPOSAL
    t.passes[g] = False
    t.proposer_index[g] = 0
    t.current[g] = t.leader[g]


@compiled
def next_proposer(t: Tables, r: Rules, g: int) -> None:
    t.proposer_index[g] = (t.proposer_index[g] + 1) % (r.num_players - 2)
    t.current[g] = t.proposers[g, t.proposer_index[g]]


@compiled
def start_vote(t: Tables, g: int) -> None:
    t.phase[g] = VOTE
    t.current[g] = t.advisors[g, 0]


# --------------------------------------------------------------------------- rules, one each


@compiled
def is_face_up(t: Tables, g: int, book: int) -> bool:
    for i in range(t.face_up_count[g]):
        if t.face_up[g, i] == book:
            return True
    return False


@compiled
def reshuffle(t: Tables, g: int) -> bool:
    """A draw from an empty deck: shuffle the discard pile into a new deck and flip one unowned
    grimoire not yet face up (at random). The game ends instead (False) when this would be the
    **third** reshuffle (ruling R6: not carried out; ruling R7: this reason first), or else when
    the discard pile is empty."""
    if t.reshuffles[g] + 1 >= RESHUFFLES_TO_END:
        end_game(t, g, ENDED_BY_RESHUFFLE)
        return False
    if t.discard_count[g] == 0:
        end_game(t, g, ENDED_BY_NO_DECK)
        return False
    number = t.reshuffles[g]
    t.reshuffles[g] += 1
    candidates = 0
    for i in range(2):
        if not is_face_up(t, g, t.unowned[g, i]):
            candidates += 1
    flipped = NONE
    if candidates:
        pick = draw(t.rng, g, candidates)
        for i in range(2):
            if not is_face_up(t, g, t.unowned[g, i]):
                if pick == 0 and flipped == NONE:
                    flipped = t.unowned[g, i]
                pick -= 1
        t.face_up[g, t.face_up_count[g]] = flipped
        t.face_up_count[g] += 1
    size = 0
    for card in range(NUM_CARDS):
        if t.discard[g, card]:
            t.deck[g, size] = card
            size += 1
            t.discard[g, card] = False
    shuffle(t, g, t.deck[g], size)
    t.deck_size[g] = size
    t.discard_count[g] = 0
    t.reshuffled_flips[g, number] = flipped
    for i in range(size):
        t.reshuffled_decks[g, number, i] = t.deck[g, i]
    t.reshuffled_sizes[g, number] = size
    return True


@compiled
def refill_hand(t: Tables, r: Rules, g: int, seat: int) -> bool:
    """Draw back up to the hand size H at once after revealing (ruling R2: H, also with 4
    players); an empty deck is rebuilt by :func:`reshuffle`. False when that ended the game."""
    while t.hand_count[g, seat] < r.hand_size:
        if t.deck_size[g] == 0 and not reshuffle(t, g):
            return False
        t.deck_size[g] -= 1
        t.hands[g, seat, t.deck[g, t.deck_size[g]]] = True
        t.hand_count[g, seat] += 1
    return True


@compiled
def reveal_chapter_card(t: Tables, r: Rules, g: int, card: int) -> None:
    """Proposal: show one chapter card face up, then at once refill the hand to H; the third card
    starts the advice."""
    seat = t.current[g]
    t.hands[g, seat, card] = False
    t.hand_count[g, seat] -= 1
    slot = t.table_size[g]
    t.table_cards[g, slot] = card
    t.table_seats[g, slot] = seat
    t.table_size[g] = slot + 1
    if not refill_hand(t, r, g, seat):
        return
    if t.table_size[g] == CARDS_PER_PROPOSAL:
        start_vote(t, g)
    else:
        next_proposer(t, r, g)


@compiled
def pass_turn(t: Tables, r: Rules, g: int) -> None:
    """Proposal: a member may pass instead of revealing (the leader never may)."""
    t.passes[g, t.current[g]] = True
    next_proposer(t, r, g)


@compiled
def cast_vote(t: Tables, r: Rules, g: int, vote: int) -> None:
    """Advice: each advisor secretly agrees (1) or opposes (0); both are revealed together."""
    if t.pending[g, 0] == NONE:
        t.pending[g, 0] = vote
        t.current[g] = t.advisors[g, 1]
        return
    t.pending[g, 1] = vote
    resolve_votes(t, r, g)


@compiled
def add_public_vote(t: Tables, g: int) -> None:
    """The revealed advice enters the public history: the per-advisor summary the observation
    shows, summed in the reference observer's order (so the float64 sums agree bit for bit)."""
    books_in = 0  # bit per book
    for slot in range(CARDS_PER_PROPOSAL):
        books_in |= 1 << (t.table_cards[g, slot] // NUM_VALUES)
    for k in range(2):
        summary = t.vote_summary[g, k]
        at = 0 if t.pending[g, k] else 1
        for slot in range(CARDS_PER_PROPOSAL):
            card = t.table_cards[g, slot]
            book = card // NUM_VALUES
            summary[at + book * 2 + _CARDS_AT] += _COUNT_STEP
            summary[at + book * 2 + _WEIGHT_AT] += _WEIGHT_STEP[card]
        for book in range(NUM_BOOKS):
            if books_in >> book & 1:
                summary[at + book * 2] += _COUNT_STEP
        summary[at + _TOTALS_AT] += _COUNT_STEP
        t.last_votes[g, k] = t.pending[g, k]
    t.vote_count[g] += 1


@compiled
def resolve_votes(t: Tables, r: Rules, g: int) -> None:
    """Decoding: 2 agree decode all 3; 2 oppose discard all 3; 1-1 the leader picks one (rulings
    R4, R5) -- unless every card is of a face-up grimoire, then none is decoded."""
    add_public_vote(t, g)
    agrees = t.pending[g, 0] + t.pending[g, 1]
    t.pending[g] = NONE
    if agrees == 2:
        decode_cards(t, r, g, 0b111)
    elif agrees == 0:
        decode_cards(t, r, g, 0)
    elif eligible_slots(t, g):
        t.phase[g] = CHOOSE
        t.current[g] = t.leader[g]
    else:
        decode_cards(t, r, g, 0)


@compiled
def eligible_slots(t: Tables, g: int) -> int:
    """Bits of the face-up slots the leader may decode after a 1-1 vote: not of a face-up grimoire."""
    bits = 0
    for slot in range(t.table_size[g]):
        if not is_face_up(t, g, t.table_cards[g, slot] // NUM_VALUES):
            bits |= 1 << slot
    return bits


@compiled
def decode_cards(t: Tables, r: Rules, g: int, slots: int) -> None:
    """Decoded cards (``slots``: bits) stay face up before whoever revealed them; the rest go to
    the discard pile. Then the fourth-card peek and the next proposal."""
    for slot in range(t.table_size[g]):
        seat, card = t.table_seats[g, slot], t.table_cards[g, slot]
        if slots >> slot & 1:
            t.decoded[g, seat, card] = True
            t.decoded_count[g, seat] += 1
        else:
            t.discard[g, card] = True
            t.discard_count[g] += 1
    t.table_size[g] = 0
    t.table_cards[g] = NONE
    t.table_seats[g] = NONE
    fourth_card_peek(t, r, g)
    start_proposal(t, g)


@compiled
def fourth_card_peek(t: Tables, r: Rules, g: int) -> None:
    """A player whose decoded cards reach 4 secretly sees the identity cards, once."""
    for seat in range(r.num_players):
        if t.decoded_count[g, seat] >= PEEK_AT_DECODED:
            t.peeked[g, seat] = True


@compiled
def end_game(t: Tables, g: int, reason: int) -> None:
    """The end: no one moves; a vote cast in an unfinished advice stays unrevealed."""
    t.phase[g] = END
    t.current[g] = NONE
    t.pending[g] = NONE
    t.reason[g] = reason


@compiled
def san_of(t: Tables, r: Rules, g: int, seat: int) -> int:
    """SAN of a leader/member: a true-grimoire card counts its value, a fake one +1; then the
    insanity penalty for a total of 0 or less."""
    total = 0
    true_book = t.true_book[g]
    for card in range(NUM_CARDS):
        if t.decoded[g, seat, card]:
            total += _VALUES[card % NUM_VALUES] if card // NUM_VALUES == true_book else FAKE_CARD_POINTS
    if total <= 0:
        total -= r.insanity_penalty
    return total


@compiled
def san_total(t: Tables, r: Rules, g: int) -> int:
    """The team's SAN: the sum over the leader and members (the team wins at 1 or more)."""
    total = 0
    for i in range(r.num_players - 2):
        total += san_of(t, r, g, t.proposers[g, i])
    return total


@compiled
def role_of(t: Tables, g: int, seat: int) -> int:
    """The seat's role with advisors resolved (ROLES order: leader, member, investigator, black_man)."""
    role = t.roles[g, seat]
    if role == LEADER_ROLE:
        return ROLE_LEADER
    if role == MEMBER_ROLE:
        return ROLE_MEMBER
    return ROLE_BLACK_MAN if seat == t.black_man[g] else ROLE_INVESTIGATOR


@compiled
def score_of(t: Tables, r: Rules, g: int, seat: int, total: int) -> int:
    """A leader/member's own SAN; the Investigator the team's total; the Black Man its negative."""
    if t.roles[g, seat] != ADVISOR_ROLE:
        return san_of(t, r, g, seat)
    return -total if seat == t.black_man[g] else total


# --------------------------------------------------------------------------- actions


@compiled
def apply_action(t: Tables, r: Rules, g: int, action: int) -> None:
    """Play a legal ``action`` for game ``g``'s player to move."""
    phase = t.phase[g]
    if phase == PROPOSAL:
        if action == A.PASS:
            pass_turn(t, r, g)
        else:
            reveal_chapter_card(t, r, g, action - A.REVEAL)
    elif phase == VOTE:
        cast_vote(t, r, g, 1 if action == A.AGREE else 0)
    elif phase == CHOOSE:
        decode_cards(t, r, g, 1 << (action - A.DECODE))


@compiled
def is_legal(t: Tables, g: int, action: int) -> bool:
    """A reveal needs the card in hand; only a member may pass; an advisor agrees or opposes; the
    leader decodes an eligible slot. Nothing is legal once the game is over."""
    phase = t.phase[g]
    if phase == PROPOSAL:
        if action == A.PASS:
            return t.current[g] != t.leader[g]
        if action < A.REVEAL or action >= A.REVEAL + NUM_CARDS:
            return False
        return t.hands[g, t.current[g], action - A.REVEAL]
    if phase == VOTE:
        return action == A.AGREE or action == A.OPPOSE
    if phase == CHOOSE:
        slot = action - A.DECODE
        if slot < 0 or slot >= A.NUM_SLOTS:
            return False
        return (eligible_slots(t, g) >> slot & 1) == 1
    return False


@compiled
def legal_mask(t: Tables, g: int, out: np.ndarray) -> None:
    """Game ``g``'s legal actions as flags in ``out`` (length NUM_ACTIONS; all False once over)."""
    out[:] = False
    phase = t.phase[g]
    if phase == PROPOSAL:
        seat = t.current[g]
        for card in range(NUM_CARDS):
            out[A.REVEAL + card] = t.hands[g, seat, card]
        out[A.PASS] = seat != t.leader[g]
    elif phase == VOTE:
        out[A.AGREE] = True
        out[A.OPPOSE] = True
    elif phase == CHOOSE:
        bits = eligible_slots(t, g)
        for slot in range(A.NUM_SLOTS):
            out[A.DECODE + slot] = (bits >> slot & 1) == 1


# --------------------------------------------------------------------------- all games at once


@compiled
def reset_games(t: Tables, r: Rules, which: np.ndarray, scratch: np.ndarray) -> None:
    for g in range(which.shape[0]):
        if which[g]:
            reset_game(t, r, g, scratch)


@compiled
def first_illegal(t: Tables, actions: np.ndarray) -> int:
    """The first game still playing whose action is illegal, or -1."""
    for g in range(actions.shape[0]):
        if t.phase[g] != END and not is_legal(t, g, actions[g]):
            return g
    return -1


@compiled
def step_games(t: Tables, r: Rules, actions: np.ndarray) -> None:
    """Every game still playing takes its (legal) action; finished games are left as they are."""
    for g in range(actions.shape[0]):
        if t.phase[g] != END:
            apply_action(t, r, g, actions[g])


@compiled
def legal_masks(t: Tables, out: np.ndarray) -> None:
    for g in range(out.shape[0]):
        legal_mask(t, g, out[g])


@compiled
def score_all(t: Tables, r: Rules, totals: np.ndarray, scores: np.ndarray, roles: np.ndarray) -> None:
    """Every game's SAN total (N,), scores per seat (N, n) and roles resolved (N, n)."""
    for g in range(totals.shape[0]):
        total = san_total(t, r, g)
        totals[g] = total
        for seat in range(r.num_players):
            scores[g, seat] = score_of(t, r, g, seat, total)
            roles[g, seat] = role_of(t, g, seat)


# --------------------------------------------------------------------------- the owner of the arrays


def describe_illegal(tables: Tables, mask: np.ndarray, g: int, action: Any, who: str) -> str:
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
        self._scratch = np.zeros(NUM_CARDS, np.int8)
        self.reset(seed=seed)

    def reset(self, seed: int | np.random.SeedSequence | None = None) -> None:
        """New games everywhere, each dealt from its own generator seeded from ``seed``."""
        self.tables.rng[:] = seed_states(seed, self.num_games)
        reset_games(self.tables, self.rules, np.ones(self.num_games, np.bool_), self._scratch)

    def reset_games(self, mask: np.ndarray) -> None:
        """New games (dealt from each game's generator) where ``mask`` is set."""
        reset_games(self.tables, self.rules, np.asarray(mask, dtype=np.bool_), self._scratch)

    def step(self, actions: Any) -> None:
        """One action per game; :class:`IllegalActionError` (naming the game and its legal actions)
        leaves every game as it was."""
        actions = check_action_array(actions, self.num_games)
        bad = first_illegal(self.tables, actions)
        if bad >= 0:
            who = f"seat {self.tables.current[bad]}"
            raise IllegalActionError(describe_illegal(self.tables, self.legal_masks()[bad], bad, actions[bad], who))
        step_games(self.tables, self.rules, actions)

    def legal_masks(self, out: np.ndarray | None = None) -> np.ndarray:
        """(N, NUM_ACTIONS) bool: the legal actions of every game's player to move."""
        if out is None:
            out = self._mask
        legal_masks(self.tables, out)
        return out

    @property
    def current_player(self) -> np.ndarray:
        return self.tables.current

    @property
    def is_over(self) -> np.ndarray:
        """Every game ends by the rules (``is_terminal``); none is ever truncated."""
        return self.tables.phase == END

    def scores(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(totals, scores, winners)``: (N,) SAN totals, (N, n) scores as the reference's
        ``scores()`` and (N, n) flags of the seats whose side wins (or would win, while a game
        goes on): the team at a total of 1 or more, else the Black Man."""
        n = self.num_players
        totals = np.zeros(self.num_games, np.int64)
        scores = np.zeros((self.num_games, n), np.int64)
        roles = np.zeros((self.num_games, n), np.int8)
        score_all(self.tables, self.rules, totals, scores, roles)
        black_man = roles == ROLE_BLACK_MAN
        winners = np.where((totals >= 1)[:, None], ~black_man, black_man)
        return totals, scores, winners

    def roles(self) -> np.ndarray:
        """(N, n) each seat's role with advisors resolved, as indices into ``rules.ROLES``."""
        n = self.num_players
        roles = np.zeros((self.num_games, n), np.int8)
        totals, scores = np.zeros(self.num_games, np.int64), np.zeros((self.num_games, n), np.int64)
        score_all(self.tables, self.rules, totals, scores, roles)
        return roles

    # ----------------------------------------------------------------- replays on the reference

    def setup(self, g: int) -> dict[str, Any]:
        """Game ``g``'s ``setup`` event as the reference engine records it (read before its first
        move: the hands and deck are the dealt ones)."""
        t, n = self.tables, self.num_players
        advisors = [s for s in range(n) if t.roles[g, s] == ADVISOR_ROLE]
        proposers = [s for s in range(n) if t.roles[g, s] != ADVISOR_ROLE]
        return {
            "type": "setup",
            "roles": [PUBLIC_ROLE_NAMES[t.roles[g, s]] for s in range(n)],
            "identities": {str(a): BLACK_MAN if a == t.black_man[g] else INVESTIGATOR for a in advisors},
            "grimoires": {str(a): BOOKS[t.grimoire[g, a]] for a in advisors},
            "unowned": [BOOKS[b] for b in t.unowned[g]],
            "hands": {str(s): [card_name(int(c)) for c in np.flatnonzero(t.hands[g, s])] for s in proposers},
            "deck": [card_name(int(c)) for c in t.deck[g, : t.deck_size[g]][::-1]],  # top first
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
