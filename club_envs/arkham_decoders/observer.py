"""The flat observation: named slices of one float32 vector, built only from a seat's View.

Seats are **egocentric**: slot 0 is the observing seat, then clockwise; the seat slots are padded
to 6 (the largest table), so one policy can play 4, 5 and 6 players (slots beyond the table are
marked ``empty`` in ``seat_roles`` and are otherwise zero). The two advisors are listed in
egocentric order too (advisor slot 0 = the advisor met first going clockwise from the observer,
the observer itself if it is an advisor).

Because :meth:`Observer.observe` reads nothing but the :class:`~club_envs.arkham_decoders.engine.View`,
no hidden identity, grimoire, hand or pending vote can reach an observation of a seat that may not
know it. :meth:`Observer.describe` yields the documentation's table.
"""

from __future__ import annotations

import numpy as np

from club_envs.arkham_decoders.engine import CHOOSE, PROPOSAL, VOTE, View
from club_envs.arkham_decoders.rules import (
    ADVISOR,
    BLACK_MAN,
    LEADER,
    MEMBER,
    NUM_BOOKS,
    NUM_CARDS,
    NUM_VALUES,
    PLAYER_COUNTS,
    RESHUFFLES_TO_END,
    VALUES,
    Config,
)

MAX_SEATS = max(PLAYER_COUNTS)
VOTE_COUNT_SCALE = 10.0  # counts are divided by this (a game has about 5-12 advice phases)
VOTE_WEIGHT_SCALE = 40.0  # summed card magnitudes are divided by this

# (name, size, meaning) in layout order: the single source of the table in the documentation. The
# pieces are grouped by how often they change (seat facts; public table state per advice phase;
# vote summary; own hand; the turn), which lets the observer rewrite only the groups that changed.
_LAYOUT: list[tuple[str, int, str]] = [
    ("num_players", 3, "one-hot: 4, 5 or 6 players"),
    ("my_role", 4, "one-hot own role: leader, member, investigator, black_man (advisors know their identity)"),
    ("seat_roles", MAX_SEATS * 4, "per egocentric seat (self first, clockwise, padded to 6): one-hot advisor, leader, member, empty seat"),
    ("black_man_seat", MAX_SEATS, "egocentric one-hot of the Black Man's seat if this seat knows it (advisors; after a fourth-card peek), else zeros"),
    ("my_grimoire", NUM_BOOKS, "one-hot own grimoire (advisors only; the Investigator's is a known fake)"),
    ("true_grimoire", NUM_BOOKS, "one-hot true grimoire (the Black Man only)"),
    ("peeked", 1, "1 if this seat has looked at the identity cards (fourth decoded card)"),
    ("decoded", MAX_SEATS * NUM_CARDS, "per egocentric seat: its decoded cards, multi-hot by card id (book*6 + value index)"),
    ("discard", NUM_CARDS, "discard pile content, multi-hot by card id (public: every card in it was shown)"),
    ("face_up_grimoires", NUM_BOOKS, "grimoires turned face up by reshuffles (known fakes)"),
    ("reshuffles", RESHUFFLES_TO_END, "one-hot reshuffles so far: 0, 1, 2"),
    ("vote_book_proposals", 2 * NUM_BOOKS * 2, "per advisor (egocentric order) x book x (agree, oppose): revealed votes on proposals holding a card of that book / 10"),
    ("vote_book_cards", 2 * NUM_BOOKS * 2, "per advisor x book x (agree, oppose): cards of that book in those proposals / 10"),
    ("vote_book_weight", 2 * NUM_BOOKS * 2, "per advisor x book x (agree, oppose): summed absolute card values of those cards / 40"),
    ("vote_totals", 2 * 2, "per advisor: agree and oppose votes so far / 10"),
    ("last_votes", 2 * 2, "per advisor: one-hot agree/oppose of the latest revealed advice (zeros before the first)"),
    ("hand", NUM_CARDS, "own chapter cards, multi-hot by card id"),
    ("table_cards", 3 * NUM_CARDS, "face-up cards of this proposal, 3 slots in reveal order, one-hot card id each"),
    ("table_seats", 3 * MAX_SEATS, "who showed each face-up slot, egocentric one-hot"),
    ("passes", MAX_SEATS, "egocentric seats that passed in this proposal phase"),
    ("phase", 3, "one-hot phase: proposal, vote, choose (leader picks the card after a 1-1 vote)"),
    ("to_move", MAX_SEATS, "egocentric one-hot of the seat to act"),
    ("my_pending_vote", 2, "own vote cast in this advice phase, not yet revealed: agree, oppose"),
    ("deck_size", 1, "cards left in the deck / 24"),
]
# group name -> (first slice, last slice) of a contiguous run of the layout
_GROUPS = {
    "seat": ("num_players", "peeked"),
    "public": ("decoded", "reshuffles"),
    "votes": ("vote_book_proposals", "last_votes"),
    "hand": ("hand", "hand"),
    "turn": ("table_cards", "deck_size"),
}
_PHASE_INDEX = {PROPOSAL: 0, VOTE: 1, CHOOSE: 2}
_ROLE_INDEX = {ADVISOR: 0, LEADER: 1, MEMBER: 2}
_MY_ROLE_INDEX = {LEADER: 0, MEMBER: 1, "investigator": 2, BLACK_MAN: 3}
_ABS_VALUES = [abs(VALUES[c % NUM_VALUES]) for c in range(NUM_CARDS)]
_SUMMARY_SIZE = 3 * NUM_BOOKS * 2 + 2  # proposals, cards, weight (book x vote) + totals, per advisor
_COUNT_STEP = 1.0 / VOTE_COUNT_SCALE
_WEIGHT_STEP = [a / VOTE_WEIGHT_SCALE for a in _ABS_VALUES]


class Observer:
    """Fills the observation vector of one seat from its View.

    ``observer.slices[name]`` is the slice of a named piece; ``observer.size`` the vector length
    (the same for 4, 5 and 6 players).

    For speed the observer keeps, per seat, the last vector it produced and the View fields each
    group of slices was built from; a call rewrites only the groups whose fields changed, so the
    result is always exactly what a fresh build from this View would give.
    """

    def __init__(self, config: Config | None = None) -> None:
        self.config = config
        self.slices: dict[str, slice] = {}
        start = 0
        for name, size, _ in _LAYOUT:
            self.slices[name] = slice(start, start + size)
            start += size
        self.size = start
        self._o = {name: s.start for name, s in self.slices.items()}
        self._group = {g: slice(self.slices[a].start, self.slices[b].stop) for g, (a, b) in _GROUPS.items()}
        o = self._o
        self._turn_offsets = (
            self._group["turn"], o["table_cards"], o["table_seats"], o["passes"], o["phase"], o["to_move"],
            o["my_pending_vote"], o["deck_size"],
        )
        # per seat: [vector, roles, seat facts, decoded, (discard, face-up, reshuffles), votes, hand]
        self._seats: dict[int, list] = {}
        self._votes_seen: tuple | None = None
        self._raw_summary: list[float] = []
        self._blocks = np.zeros((2, self._group["votes"].stop - self._group["votes"].start), dtype=np.float32)
        self._public_key: tuple | None = None
        self._public: tuple[np.ndarray, np.ndarray] | None = None

    def describe(self) -> list[tuple[str, int, str]]:
        """Rows ``(name, size, meaning)`` in layout order, for the documentation's table."""
        return list(_LAYOUT)

    @staticmethod
    def describe_markdown() -> str:
        """The documentation's observation table (slice name with its index range, size, meaning)."""
        rows = ["| slice | size | meaning |", "|---|---|---|"]
        start = 0
        for name, size, meaning in _LAYOUT:
            rows.append(f"| `{name}` [{start}:{start + size}] | {size} | {meaning} |")
            start += size
        rows.append(f"| **total** | **{start}** | float32, every value in [0, 1] |")
        return "\n".join(rows)

    def observe(self, view: View, out: np.ndarray | None = None) -> np.ndarray:
        """The observation of ``view.seat``: a new array, or written into ``out``."""
        cache = self._seats.get(view.seat)
        if cache is None:
            cache = self._seats[view.seat] = [np.zeros(self.size, dtype=np.float32), None, None, None, None, None, None]
        vec = cache[0]
        # A group is rewritten unless the View fields it is built from are the very objects it was
        # built from last time for this seat (the engine replaces a tuple whenever its content
        # changes, so the same object means the same content).
        seat_facts = (view.identity, view.grimoire, view.black_man, view.true_book, view.peeked)
        if cache[1] is not view.roles or cache[2] != seat_facts:
            cache[1], cache[2] = view.roles, seat_facts
            self._write_seat(view, vec)
        if cache[3] is not view.decoded or cache[4] != (view.discard, view.face_up_books, view.reshuffles):
            cache[3], cache[4] = view.decoded, (view.discard, view.face_up_books, view.reshuffles)
            self._write_public(view, vec)
        if cache[5] is not view.votes:
            cache[5] = view.votes
            self._write_votes(view, vec)
        if cache[6] is not view.hand:
            cache[6] = view.hand
            self._write_hand(view, vec)
        self._write_turn(view, vec)
        if out is None:
            return vec.copy()
        out[:] = vec
        return out

    def _write_seat(self, view: View, vec: np.ndarray) -> None:
        o = self._o
        n = view.num_players
        me = view.seat
        vec[self._group["seat"]] = 0.0
        hot = [o["num_players"] + n - 4]
        role = view.roles[me]
        hot.append(o["my_role"] + _MY_ROLE_INDEX[view.identity if role == ADVISOR else role])
        base = o["seat_roles"]
        for rel in range(MAX_SEATS):
            if rel < n:
                hot.append(base + rel * 4 + _ROLE_INDEX[view.roles[(me + rel) % n]])
            else:
                hot.append(base + rel * 4 + 3)
        if view.black_man is not None:
            hot.append(o["black_man_seat"] + (view.black_man - me) % n)
        if view.grimoire is not None:
            hot.append(o["my_grimoire"] + view.grimoire)
        if view.true_book is not None:
            hot.append(o["true_grimoire"] + view.true_book)
        if view.peeked:
            hot.append(o["peeked"])
        vec[hot] = 1.0

    def _write_public(self, view: View, vec: np.ndarray) -> None:
        """Decoded cards (rotated to the seat), discard pile, face-up grimoires, reshuffles: built
        once per change for the table, then copied into each seat's vector."""
        key = (view.num_players, view.decoded, view.discard, view.face_up_books, view.reshuffles)
        o = self._o
        if self._public_key != key:
            decoded = np.zeros(MAX_SEATS * NUM_CARDS, dtype=np.float32)
            decoded[[seat * NUM_CARDS + card for seat, cards in enumerate(view.decoded) for card in cards]] = 1.0
            start = o["discard"]
            rest = np.zeros(self._group["public"].stop - start, dtype=np.float32)
            hot = [card for card in view.discard]
            hot += [o["face_up_grimoires"] - start + book for book in view.face_up_books]
            hot.append(o["reshuffles"] - start + min(view.reshuffles, RESHUFFLES_TO_END - 1))
            rest[hot] = 1.0
            self._public_key = key
            self._public = (decoded, rest)
        decoded, rest = self._public
        n, me = view.num_players, view.seat
        d = o["decoded"]
        split = d + (n - me) * NUM_CARDS  # seats me..n-1 first, then 0..me-1, then empty slots
        vec[d:split] = decoded[me * NUM_CARDS : n * NUM_CARDS]
        vec[split : d + n * NUM_CARDS] = decoded[: me * NUM_CARDS]
        if n < MAX_SEATS:
            vec[d + n * NUM_CARDS : o["discard"]] = 0.0
        vec[o["discard"] : self._group["public"].stop] = rest

    def _write_hand(self, view: View, vec: np.ndarray) -> None:
        region = self._group["hand"]
        vec[region] = 0.0
        base = region.start
        for card in view.hand:
            vec[base + card] = 1.0

    def _write_turn(self, view: View, vec: np.ndarray) -> None:
        # single-item writes: for this handful of entries faster than one fancy-indexed write
        turn, cards, seats, passes, phase, to_move, my_vote, deck = self._turn_offsets
        n = view.num_players
        me = view.seat
        vec[turn] = 0.0
        i = 0
        for seat, card in view.table:
            vec[cards + i * NUM_CARDS + card] = 1.0
            vec[seats + i * MAX_SEATS + (seat - me) % n] = 1.0
            i += 1
        for seat in view.passes:
            vec[passes + (seat - me) % n] = 1.0
        if view.phase in _PHASE_INDEX:
            vec[phase + _PHASE_INDEX[view.phase]] = 1.0
        if view.current_player is not None:
            vec[to_move + (view.current_player - me) % n] = 1.0
        if view.my_vote is not None:
            vec[my_vote + (0 if view.my_vote else 1)] = 1.0
        vec[deck] = view.deck_size / NUM_CARDS

    def _write_votes(self, view: View, vec: np.ndarray) -> None:
        region = self._group["votes"]
        if not view.votes:
            vec[region] = 0.0
            return
        # egocentric advisor order: the advisor met first clockwise from the observer comes first
        a0, a1 = view.advisors
        n, me = view.num_players, view.seat
        order = 0 if (a0 - me) % n <= (a1 - me) % n else 1
        vec[region] = self._vote_blocks(view.votes)[order]

    def _vote_blocks(self, votes: tuple) -> np.ndarray:
        """The vote-summary region for both egocentric advisor orders, cached per history and
        extended by one advice at a time."""
        if votes is self._votes_seen:
            return self._blocks
        seen = self._votes_seen
        if seen is not None and len(votes) == len(seen) + 1 and votes[-2] is seen[-1]:
            raw = self._raw_summary
            new = votes[-1:]
        else:
            raw = [0.0] * (2 * _SUMMARY_SIZE)
            new = votes
        for public in new:
            _add_advice_counts(raw, public)
        last = votes[-1].votes
        blocks = np.array(raw + [last[0], 1 - last[0], last[1], 1 - last[1]], dtype=np.float32)[_VOTE_PERMUTATIONS]
        np.minimum(blocks, 1.0, out=blocks)
        self._raw_summary = raw
        self._votes_seen = votes
        self._blocks = blocks
        return blocks


def _add_advice_counts(counts: list[float], public) -> None:
    """Add one revealed advice to the per-advisor summary (vote order, flat 2 x 26): per book x
    vote the proposals holding the book, the cards of the book, their |value|; then vote totals."""
    nb2 = NUM_BOOKS * 2
    books_in = set()
    for k in (0, 1):
        base = k * _SUMMARY_SIZE + (0 if public.votes[k] else 1)
        for _, card in public.table:
            book = card // NUM_VALUES
            books_in.add(book)
            counts[base + book * 2 + nb2] += _COUNT_STEP
            counts[base + book * 2 + 2 * nb2] += _WEIGHT_STEP[card]
        for book in books_in:
            counts[base + book * 2] += _COUNT_STEP
        counts[base + 3 * nb2] += _COUNT_STEP


def _vote_permutations() -> np.ndarray:
    """Index arrays turning ``[summary advisor 0 | summary advisor 1 | last votes]`` (vote order)
    into the observation's vote region for advisor orders (0, 1) and (1, 0)."""
    nb2 = NUM_BOOKS * 2
    rows = []
    for ks in ((0, 1), (1, 0)):
        row: list[int] = []
        for lo, hi in ((0, nb2), (nb2, 2 * nb2), (2 * nb2, 3 * nb2), (3 * nb2, 3 * nb2 + 2)):
            for k in ks:  # slot 0 then slot 1 within each named slice
                row.extend(range(k * _SUMMARY_SIZE + lo, k * _SUMMARY_SIZE + hi))
        for k in ks:
            row.extend((2 * _SUMMARY_SIZE + 2 * k, 2 * _SUMMARY_SIZE + 2 * k + 1))
        rows.append(row)
    return np.array(rows, dtype=np.intp)


_VOTE_PERMUTATIONS = _vote_permutations()


# ------------------------------------------------------------------------- global state

GLOBAL_EXTRA = NUM_BOOKS + MAX_SEATS + NUM_BOOKS + MAX_SEATS * NUM_CARDS + 2 * 2 + NUM_CARDS + MAX_SEATS


def global_size(observer: Observer) -> int:
    return observer.size + GLOBAL_EXTRA


def global_state(state, observer: Observer) -> np.ndarray:
    """The god's-eye array for centralised critics (never an agent's observation).

    Seat 0's observation, then (absolute seats): the true grimoire (one-hot 4), the Black Man's
    seat (one-hot 6), the Investigator's grimoire (one-hot 4), every seat's hand (6 x 24 multi-hot),
    the pending votes per advisor in vote order (2 x agree/oppose), the deck content (24 multi-hot)
    and who has peeked (6).
    """
    out = np.zeros(observer.size + GLOBAL_EXTRA, dtype=np.float32)
    observer.observe(state.player_view(0), out[: observer.size])
    base = observer.size
    hot = [base + state.true_book]
    base += NUM_BOOKS
    hot.append(base + state.black_man_seat)
    base += MAX_SEATS
    hot.append(base + state.grimoires[state.investigator_seat])
    base += NUM_BOOKS
    for seat, hand in enumerate(state.hands):
        hot.extend(base + seat * NUM_CARDS + c for c in hand)
    base += MAX_SEATS * NUM_CARDS
    for k, advisor in enumerate(state.advisors):
        vote = state.pending_votes.get(advisor)
        if vote is not None:
            hot.append(base + k * 2 + (0 if vote else 1))
    base += 4
    hot.extend(base + c for c in state.deck)
    base += NUM_CARDS
    hot.extend(base + s for s in state.peeked)
    out[hot] = 1.0
    return out
