"""Arkham Decoders Club as a pure state machine (plain Python and numpy; no gymnasium, no pettingzoo).

A :class:`State` is one game from setup to SAN scoring. Every rule of
docs/rules/arkham_decoders_club.md is one method named after it (``deal_setup``,
``reveal_chapter_card``, ``pass_turn``, ``refill_hand``, ``reshuffle``, ``cast_vote``,
``resolve_votes``, ``decode_cards``, ``fourth_card_peek``, ``end_game``, ``score_san``), with the
ruling quoted where the rulebook is silent.

Turn structure: ``current_player`` is the one seat to act. In the proposal phase that is the
leader or a member; in the advice phase the two advisors vote one after the other (clockwise from
the leader) but the votes are *simultaneous*: the second advisor's view does not contain the first
one's pending vote; both enter the public vote history only when both are cast. In the decoding
phase the leader picks the card after a 1-1 vote.

What a seat may know is exactly :meth:`State.player_view`; bots and the observer read nothing else.
"""

from __future__ import annotations

import random
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
    NUM_BOOKS,
    NUM_CARDS,
    NUM_VALUES,
    PEEK_AT_DECODED,
    RESHUFFLES_TO_END,
    VALUES,
    CARD_NAMES,
    Config,
    card_name,
    parse_card,
    role_table,
)
from club_envs.errors import IllegalActionError

PROPOSAL, VOTE, CHOOSE, END = "proposal", "vote", "choose", "end"
PHASES = (PROPOSAL, VOTE, CHOOSE)
TEAM, BLACK_MAN_SIDE = "team", "black_man"
AGREE_VOTE, OPPOSE_VOTE = 1, 0


class PublicVote(NamedTuple):
    """One revealed advice: the 3 proposed cards (with who showed them) and both votes."""

    table: tuple[tuple[int, int], ...]  # (seat, card) in reveal order
    votes: tuple[int, int]  # per advisor in vote order (View.advisors): 1 agree, 0 oppose


class View(NamedTuple):
    """Everything one seat may know, and nothing else.

    Built by :meth:`State.player_view`; immutable. Fields that only some seats may know are
    ``None`` for the others (``identity``, ``grimoire``, ``black_man``, ``true_book``).
    """

    seat: int
    num_players: int
    hand_size: int
    insanity_penalty: int
    roles: tuple[str, ...]  # public role per seat
    leader: int
    advisors: tuple[int, int]  # clockwise from the leader = vote order
    identity: str | None  # own identity (advisors only)
    grimoire: int | None  # own grimoire book (advisors only)
    black_man: int | None  # the Black Man's seat, if known (advisors; players who peeked)
    true_book: int | None  # the true grimoire (the Black Man only)
    hand: tuple[int, ...]  # own chapter cards, sorted
    table: tuple[tuple[int, int], ...]  # face-up (seat, card) of this proposal, reveal order
    decoded: tuple[tuple[int, ...], ...]  # per seat, decoded cards in decoding order
    discard: tuple[int, ...]  # discard pile content, sorted (every card in it was shown)
    face_up_books: tuple[int, ...]  # grimoires turned face up, in flipping order
    deck_size: int
    reshuffles: int
    votes: tuple[PublicVote, ...]  # public vote history
    my_vote: int | None  # own vote cast in this advice phase, not yet revealed
    peeked: bool  # this seat saw the identity cards (fourth decoded card)
    phase: str  # proposal / vote / choose / end
    current_player: int | None
    passes: tuple[int, ...]  # seats that passed in this proposal phase, in order


_new_view = tuple.__new__  # builds a View from a ready tuple without NamedTuple's __new__ wrapper


class State:
    """One game of Arkham Decoders Club.

    ``State(config, seed)`` deals a fresh game; ``State(config, setup=event)`` starts from a
    recorded ``setup`` event and ``reshuffle_decks`` (a list of recorded decks) replaces the
    random reshuffles, which is how records are replayed.
    """

    def __init__(
        self,
        config: Config,
        seed: int | None = None,
        *,
        setup: dict[str, Any] | None = None,
        reshuffle_decks: Sequence[tuple[str | None, Sequence[str]]] | None = None,
    ) -> None:
        self.config = config
        self.seed = seed
        self.num_players = config.num_players
        self.hand_size = config.hand_size
        self._rng = random.Random(seed)
        self._forced_reshuffles = list(reshuffle_decks) if reshuffle_decks is not None else None
        self.events: list[dict[str, Any]] = []
        self._init_empty()
        if setup is None:
            setup = self.deal_setup()
        self._apply_setup(setup)
        self._start_proposal()

    # ----------------------------------------------------------------- setup
    def _init_empty(self) -> None:
        n = self.num_players
        self.roles: tuple[str, ...] = ()
        self.identities: dict[int, str] = {}
        self.grimoires: dict[int, int] = {}
        self.unowned: list[int] = []
        self.face_up_books: tuple[int, ...] = ()
        self.hands: list[list[int]] = [[] for _ in range(n)]
        self._hand_views: list[tuple[int, ...]] = [() for _ in range(n)]
        self.deck: list[int] = []  # top of the deck is the END of the list (pop())
        self.discard: list[int] = []
        self._discard_view: tuple[int, ...] = ()
        self.table: tuple[tuple[int, int], ...] = ()  # face up, reveal order
        self.decoded: list[list[int]] = [[] for _ in range(n)]
        self._decoded_view: tuple[tuple[int, ...], ...] = tuple(() for _ in range(n))
        self.peeked: set[int] = set()
        self.reshuffles = 0
        self.pending_votes: dict[int, int] = {}
        self.votes: tuple[PublicVote, ...] = ()
        self.passes: tuple[int, ...] = ()
        self.phase = PROPOSAL
        self.current_player: int | None = None
        self._proposer_index = 0
        self.result: dict[str, Any] | None = None
        self._forfeit_seat: int | None = None

    def deal_setup(self) -> dict[str, Any]:
        """Setup 1-4: deal public roles, secret identities and grimoires, hands of H, the deck.

        Roles are dealt at random unless ``config.roles`` fixes them (the rulebook lets the table
        swap roles by agreement).
        """
        rng = self._rng
        n = self.num_players
        if self.config.roles is not None:
            roles = list(self.config.roles)
        else:
            roles = list(role_table(n))
            rng.shuffle(roles)
        advisors = [s for s in range(n) if roles[s] == ADVISOR]
        identities = [INVESTIGATOR, BLACK_MAN]
        rng.shuffle(identities)
        books = list(range(NUM_BOOKS))
        rng.shuffle(books)
        cards = list(range(NUM_CARDS))
        rng.shuffle(cards)
        hands: dict[str, list[str]] = {}
        for s in range(n):
            if roles[s] != ADVISOR:
                hands[str(s)] = [card_name(cards.pop()) for _ in range(self.hand_size)]
        return {
            "type": "setup",
            "roles": roles,
            "identities": {str(a): identities[i] for i, a in enumerate(advisors)},
            "grimoires": {str(a): BOOKS[books[i]] for i, a in enumerate(advisors)},
            "unowned": [BOOKS[books[2]], BOOKS[books[3]]],
            "hands": hands,
            "deck": [card_name(c) for c in reversed(cards)],  # top first
        }

    def _apply_setup(self, setup: dict[str, Any]) -> None:
        n = self.num_players
        roles = tuple(setup["roles"])
        if len(roles) != n or sorted(roles) != sorted(role_table(n)):
            raise ValueError(f"setup roles {list(roles)} do not match {n} players")
        if self.config.roles is not None and list(roles) != list(self.config.roles):
            raise ValueError(f"setup roles {list(roles)} differ from the configured roles {list(self.config.roles)}")
        self.roles = roles
        self.leader = roles.index(LEADER)
        order = [(self.leader + k) % n for k in range(n)]  # clockwise from the leader
        self.advisors: tuple[int, int] = tuple(s for s in order if roles[s] == ADVISOR)  # type: ignore[assignment]
        self.proposers: tuple[int, ...] = tuple(s for s in order if roles[s] != ADVISOR)
        self.identities = {int(s): v for s, v in setup["identities"].items()}
        self.grimoires = {int(s): BOOKS.index(b) for s, b in setup["grimoires"].items()}
        self.black_man_seat = next(s for s, v in self.identities.items() if v == BLACK_MAN)
        self.investigator_seat = next(s for s, v in self.identities.items() if v == INVESTIGATOR)
        self.true_book = self.grimoires[self.black_man_seat]
        self.unowned = [BOOKS.index(b) for b in setup["unowned"]]
        for s, cards in setup["hands"].items():
            self.hands[int(s)] = [parse_card(c) for c in cards]
            self._hand_views[int(s)] = tuple(sorted(self.hands[int(s)]))
        self.deck = [parse_card(c) for c in reversed(setup["deck"])]
        self._check_setup()
        self.events.append(
            {
                "type": "setup",
                "roles": list(roles),
                "identities": {str(s): v for s, v in sorted(self.identities.items())},
                "grimoires": {str(s): BOOKS[b] for s, b in sorted(self.grimoires.items())},
                "unowned": [BOOKS[b] for b in self.unowned],
                "hands": {str(s): [card_name(c) for c in self.hands[s]] for s in self.proposers_sorted()},
                "deck": [card_name(c) for c in reversed(self.deck)],
            }
        )

    def _check_setup(self) -> None:
        """A setup (dealt or recorded) must match the components and the player count."""
        advisors = sorted(self.advisors)
        if sorted(self.identities) != advisors or sorted(self.identities.values()) != [BLACK_MAN, INVESTIGATOR]:
            raise ValueError(f"setup identities must give the advisors {advisors} one investigator and one black_man")
        if sorted(self.grimoires) != advisors:
            raise ValueError(f"setup grimoires must give each advisor {advisors} one book")
        if sorted(list(self.grimoires.values()) + self.unowned) != list(range(NUM_BOOKS)):
            raise ValueError("setup grimoires and unowned must hold each of the 4 books once")
        if any(self.hands[seat] for seat in self.advisors):
            raise ValueError("advisors hold no chapter cards")
        for seat in self.proposers:
            if len(self.hands[seat]) != self.hand_size:
                raise ValueError(f"seat {seat} must start with {self.hand_size} chapter cards")
        if sorted(self.all_cards()) != list(range(NUM_CARDS)):
            raise ValueError("setup hands and deck must hold each of the 24 chapter cards once")

    def proposers_sorted(self) -> list[int]:
        return sorted(self.proposers)

    # ------------------------------------------------------------- queries
    @property
    def is_terminal(self) -> bool:
        return self.phase == END

    @property
    def is_over(self) -> bool:
        """Terminal (the game never truncates): no one moves any more."""
        return self.phase == END

    @property
    def is_truncated(self) -> bool:
        """Never: the deck runs out within three reshuffles, so every game ends by the rules."""
        return False

    def role_of(self, seat: int) -> str:
        """The seat's role with advisors resolved: leader, member, investigator or black_man."""
        role = self.roles[seat]
        return self.identities[seat] if role == ADVISOR else role

    def legal_actions(self) -> list[int]:
        if self.phase == PROPOSAL:
            seat = self.current_player
            legal = list(self._hand_views[seat])  # REVEAL + card == card
            if seat != self.leader:
                legal.append(A.PASS)
            return legal
        if self.phase == VOTE:
            return [A.AGREE, A.OPPOSE]
        if self.phase == CHOOSE:
            return [A.DECODE + i for i in self.eligible_slots()]
        return []

    def legal_mask(self) -> np.ndarray:
        """``legal_actions()`` as an int8 vector over the 30 actions."""
        mask = np.zeros(A.NUM_ACTIONS, dtype=np.int8)
        mask[self.legal_actions()] = 1
        return mask

    def is_legal(self, action: Any) -> bool:
        try:
            return int(action) in self.legal_actions()
        except (TypeError, ValueError):
            return False

    def eligible_slots(self) -> list[int]:
        """Face-up slots the leader may decode after a 1-1 vote: not of a face-up grimoire."""
        face_up = self.face_up_books
        return [i for i, (_, card) in enumerate(self.table) if card // NUM_VALUES not in face_up]

    def player_view(self, seat: int) -> View:
        role = self.roles[seat]
        identity = self.identities.get(seat)
        knows_black_man = role == ADVISOR or seat in self.peeked
        return _new_view(
            View,
            (
                seat,
                self.num_players,
                self.hand_size,
                self.config.insanity_penalty,
                self.roles,
                self.leader,
                self.advisors,
                identity,
                self.grimoires.get(seat),
                self.black_man_seat if knows_black_man else None,
                self.true_book if identity == BLACK_MAN else None,
                self._hand_views[seat],
                self.table,
                self._decoded_view,
                self._discard_view,
                self.face_up_books,
                len(self.deck),
                self.reshuffles,
                self.votes,
                self.pending_votes.get(seat),
                seat in self.peeked,
                self.phase,
                self.current_player,
                self.passes,
            ),
        )

    # ------------------------------------------------------------- actions
    def apply_action(self, action: int) -> None:
        """Play ``action`` for ``current_player``; an illegal action raises and changes nothing."""
        legal = self.legal_actions()
        if action not in legal:
            self._raise_illegal(action, legal)
        self.apply_legal_action(int(action))

    def apply_legal_action(self, action: int) -> None:
        """:meth:`apply_action` without the legality check, for callers that already made it."""
        if self.phase == PROPOSAL:
            if action == A.PASS:
                self.pass_turn()
            else:
                self.reveal_chapter_card(action - A.REVEAL)
        elif self.phase == VOTE:
            self.cast_vote(AGREE_VOTE if action == A.AGREE else OPPOSE_VOTE)
        else:
            self.decode_cards(self.leader, [action - A.DECODE])

    def _raise_illegal(self, action: Any, legal: list[int]) -> None:
        if self.phase == END:
            raise IllegalActionError(f"the game is over; no action is legal (got {action!r})")
        try:
            what = A.action_to_string(int(action))
        except (TypeError, ValueError):
            what = "outside the action space"
        allowed = ", ".join(f"{a} ({A.action_to_string(a)})" for a in legal)
        raise IllegalActionError(
            f"action {action!r} ({what}) is not legal for seat {self.current_player} in the "
            f"{self.phase} phase; legal: {allowed}"
        )

    def reveal_chapter_card(self, card: int) -> None:
        """Proposal: show one chapter card face up, then at once refill the hand to H."""
        seat = self.current_player
        self.hands[seat].remove(card)
        self._hand_views[seat] = tuple(sorted(self.hands[seat]))
        self.table = self.table + ((seat, card),)
        self.events.append({"type": "reveal", "seat": seat, "card": CARD_NAMES[card]})
        if not self.refill_hand(seat):
            return  # the deck could not be rebuilt: the game ended
        if len(self.table) == CARDS_PER_PROPOSAL:
            self._start_vote()
        else:
            self._next_proposer()

    def pass_turn(self) -> None:
        """Proposal: a member may pass instead of revealing; the leader never may."""
        seat = self.current_player
        if seat == self.leader:
            raise IllegalActionError("the leader may never pass")
        self.passes = self.passes + (seat,)
        self.events.append({"type": "pass", "seat": seat})
        self._next_proposer()

    def refill_hand(self, seat: int) -> bool:
        """Draw back up to the hand size H at once after revealing.

        Ruling R2: the rulebook says "draw until you hold 2", written for 5-6 players; the engine
        refills to H (3 with 4 players). When the deck is empty the discard pile is reshuffled
        (:meth:`reshuffle`); returns False when that ended the game.
        """
        hand = self.hands[seat]
        if len(hand) == self.hand_size - 1 and self.deck:  # the usual case: one card, deck not empty
            card = self.deck.pop()
            hand.append(card)
            self._hand_views[seat] = tuple(sorted(hand))
            self.events.append({"type": "draw", "seat": seat, "cards": [CARD_NAMES[card]]})
            return True
        drawn: list[int] = []
        while len(hand) < self.hand_size:
            if not self.deck:
                if drawn:
                    self.events.append({"type": "draw", "seat": seat, "cards": [CARD_NAMES[c] for c in drawn]})
                    drawn = []
                if not self.reshuffle():
                    self._hand_views[seat] = tuple(sorted(hand))
                    return False
            card = self.deck.pop()
            hand.append(card)
            drawn.append(card)
        self._hand_views[seat] = tuple(sorted(hand))
        if drawn:
            self.events.append({"type": "draw", "seat": seat, "cards": [CARD_NAMES[c] for c in drawn]})
        return True

    def reshuffle(self) -> bool:
        """A draw from an empty deck: shuffle the discard pile into a new deck, flip a grimoire.

        Each reshuffle turns one of the unowned grimoires (at random) face up: a known fake.
        The game ends instead (returns False) when this would be the **third** reshuffle (reason
        ``"reshuffle"``), or else when no new deck can be made because the discard pile is empty
        (reason ``"no_deck"``). Ruling R6: the third reshuffle is not carried out (no ``reshuffle``
        event), since no card is drawn from it; when both conditions hold the third-reshuffle
        reason is recorded (ruling R7).
        """
        if self.reshuffles + 1 >= RESHUFFLES_TO_END:
            self.end_game("reshuffle")
            return False
        if not self.discard:
            self.end_game("no_deck")
            return False
        self.reshuffles += 1
        if self._forced_reshuffles is not None:
            if not self._forced_reshuffles:
                raise ValueError("the record has no deck for this reshuffle")
            flipped_name, deck_names = self._forced_reshuffles.pop(0)
            candidates = [b for b in self.unowned if b not in self.face_up_books]
            flipped = BOOKS.index(flipped_name) if flipped_name in BOOKS else None
            if (flipped is None and candidates) or (flipped is not None and flipped not in candidates):
                allowed = ", ".join(BOOKS[b] for b in candidates) or "null"
                raise ValueError(
                    f"reshuffle {self.reshuffles} flips {flipped_name!r}; "
                    f"it must flip an unowned grimoire not yet face up: {allowed}"
                )
            new_deck = [parse_card(c) for c in reversed(deck_names)]
            if sorted(new_deck) != sorted(self.discard):
                raise ValueError("the recorded reshuffled deck is not the discard pile")
        else:
            candidates = [b for b in self.unowned if b not in self.face_up_books]
            flipped = self._rng.choice(candidates) if candidates else None
            new_deck = list(self.discard)
            self._rng.shuffle(new_deck)
        if flipped is not None:
            self.face_up_books = self.face_up_books + (flipped,)
        self.deck = new_deck
        self.discard = []
        self._discard_view = ()
        self.events.append(
            {
                "type": "reshuffle",
                "number": self.reshuffles,
                "flipped": BOOKS[flipped] if flipped is not None else None,
                "deck": [card_name(c) for c in reversed(self.deck)],
            }
        )
        return True

    def cast_vote(self, vote: int) -> None:
        """Advice: each advisor secretly agrees or opposes; both are revealed together.

        The first advisor's vote stays pending (in no other seat's view) until the second is cast.
        """
        seat = self.current_player
        self.pending_votes[seat] = vote
        self.events.append({"type": "vote", "seat": seat, "vote": "agree" if vote else "oppose"})
        if len(self.pending_votes) < 2:
            self.current_player = self.advisors[1]
            return
        self.resolve_votes()

    def resolve_votes(self) -> None:
        """Decoding: 2 agree decode all 3; 2 oppose discard all 3; 1-1 the leader picks one.

        Rulings R4, R5: after a 1-1 vote the leader chooses (the members' discussion is not modelled). A
        card of a face-up grimoire may not be chosen; if none of the 3 may be, none is decoded.
        """
        votes = (self.pending_votes[self.advisors[0]], self.pending_votes[self.advisors[1]])
        self.votes = self.votes + (PublicVote(self.table, votes),)
        self.pending_votes = {}
        agrees = votes[0] + votes[1]
        if agrees == 2:
            self.decode_cards(None, list(range(len(self.table))))
        elif agrees == 0:
            self.decode_cards(None, [])
        elif self.eligible_slots():
            self.phase = CHOOSE
            self.current_player = self.leader
        else:
            self.decode_cards(None, [])

    def decode_cards(self, chooser: int | None, slots: list[int]) -> None:
        """Decoded cards stay face up before whoever revealed them; the rest go to the discard pile."""
        decoded = []
        discarded = []
        for i, (seat, card) in enumerate(self.table):
            if i in slots:
                self.decoded[seat].append(card)
                decoded.append({"seat": seat, "card": CARD_NAMES[card]})
            else:
                self.discard.append(card)
                discarded.append(CARD_NAMES[card])
        self._decoded_view = tuple(tuple(d) for d in self.decoded)
        self._discard_view = tuple(sorted(self.discard))
        self.events.append({"type": "decode", "chooser": chooser, "decoded": decoded, "discarded": discarded})
        self.table = ()
        self.fourth_card_peek()
        self._start_proposal()

    def fourth_card_peek(self) -> None:
        """A player whose decoded cards reach 4 secretly sees the identity cards, once."""
        for seat in range(self.num_players):
            if seat not in self.peeked and len(self.decoded[seat]) >= PEEK_AT_DECODED:
                self.peeked.add(seat)
                self.events.append({"type": "peek", "seat": seat})

    # ------------------------------------------------------------ turn flow
    def _start_proposal(self) -> None:
        self.phase = PROPOSAL
        self.passes = ()
        self._proposer_index = 0
        self.current_player = self.leader

    def _next_proposer(self) -> None:
        self._proposer_index = (self._proposer_index + 1) % len(self.proposers)
        self.current_player = self.proposers[self._proposer_index]

    def _start_vote(self) -> None:
        self.phase = VOTE
        self.current_player = self.advisors[0]

    # ------------------------------------------------------------- the end
    def score_san(self) -> dict[int, int]:
        """SAN per leader/member: a true-grimoire card counts its value, a fake one +1; then
        the insanity penalty for a total of 0 or less."""
        true_book = self.true_book
        penalty = self.config.insanity_penalty
        san = {}
        for seat in self.proposers_sorted():
            total = 0
            for card in self.decoded[seat]:
                total += VALUES[card % NUM_VALUES] if card // NUM_VALUES == true_book else FAKE_CARD_POINTS
            if total <= 0:
                total -= penalty
            san[seat] = total
        return san

    def end_game(self, reason: str) -> None:
        """Score SAN; the team (Investigator, leader, members) wins at a total of 1 or more.

        Cards face up in an unfinished proposal are not decoded.
        """
        san = self.score_san()
        total = sum(san.values())
        if reason == "illegal_action":
            offender_team = self._forfeit_seat != self.black_man_seat
            winner = BLACK_MAN_SIDE if offender_team else TEAM
        else:
            winner = TEAM if total >= 1 else BLACK_MAN_SIDE
        self.phase = END
        self.current_player = None
        self.pending_votes = {}
        event = {
            "type": "game_end",
            "reason": reason,
            "true_grimoire": BOOKS[self.true_book],
            "san": {str(s): v for s, v in san.items()},
            "total": total,
            "winner": winner,
        }
        if reason == "illegal_action":
            event["offender"] = self._forfeit_seat
        self.events.append(event)
        winners = [s for s in range(self.num_players) if self._side(s) == winner]
        self.result = {
            "reason": reason,
            "true_grimoire": BOOKS[self.true_book],
            "san": event["san"],
            "total": total,
            "winner": winner,
            "winners": winners,
            "roles": [self.role_of(s) for s in range(self.num_players)],
            "scores": self.scores(san, total),
        }
        if reason == "illegal_action":
            self.result["offender"] = self._forfeit_seat

    def _side(self, seat: int) -> str:
        return BLACK_MAN_SIDE if seat == self.black_man_seat else TEAM

    def scores(self, san: dict[int, int] | None = None, total: int | None = None) -> list[float]:
        """Per seat: a leader/member's own SAN; the Investigator the total; the Black Man -total."""
        if san is None:
            san = self.score_san()
            total = sum(san.values())
        out = []
        for s in range(self.num_players):
            if s in san:
                out.append(float(san[s]))
            elif s == self.black_man_seat:
                out.append(float(-total))
            else:
                out.append(float(total))
        return out

    def returns(self) -> list[float]:
        """+1 for every seat of the winning side, -1 for the others (0 while the game runs)."""
        if self.result is None:
            return [0.0] * self.num_players
        winner = self.result["winner"]
        return [1.0 if self._side(s) == winner else -1.0 for s in range(self.num_players)]

    def forfeit(self, seat: int) -> None:
        """End the game at once because ``seat`` tried an illegal action; its side loses."""
        if self.phase == END:
            return
        self._forfeit_seat = seat
        self.end_game("illegal_action")

    # ---------------------------------------------------------- utilities
    def clone(self) -> State:
        new = State.__new__(State)
        new.__dict__.update(self.__dict__)
        new._rng = random.Random()
        new._rng.setstate(self._rng.getstate())
        new._forced_reshuffles = list(self._forced_reshuffles) if self._forced_reshuffles is not None else None
        new.events = list(self.events)
        new.hands = [list(h) for h in self.hands]
        new._hand_views = list(self._hand_views)
        new.deck = list(self.deck)
        new.discard = list(self.discard)
        new.decoded = [list(d) for d in self.decoded]
        new.peeked = set(self.peeked)
        new.pending_votes = dict(self.pending_votes)
        new.unowned = list(self.unowned)
        new.result = dict(self.result) if self.result is not None else None
        return new

    def all_cards(self) -> list[int]:
        """Every chapter card wherever it is (hands, deck, discard, face up, decoded): 24 of them."""
        cards = list(self.deck) + list(self.discard) + [c for _, c in self.table]
        for s in range(self.num_players):
            cards += self.hands[s] + self.decoded[s]
        return cards

    def record(self, controllers: Sequence[str] | None = None) -> dict[str, Any]:
        """The full game record (docs/records.md)."""
        controllers = list(controllers) if controllers is not None else ["unknown"] * self.num_players
        record: dict[str, Any] = {
            "format": "club-envs-record",
            "format_version": 1,
            "game": "arkham_decoders_club",
            "config": self.config.to_record(),
            "seed": self.seed,
            "seats": [
                {"seat": s, "agent": f"player_{s}", "controller": controllers[s], "role": self.role_of(s)}
                for s in range(self.num_players)
            ],
            "events": [dict(e) for e in self.events],
        }
        if self.result is not None:
            record["result"] = dict(self.result)
        return record


def state_from_view(
    view: View,
    black_man: int,
    grimoires: dict[int, int],
    unowned: Sequence[int],
    hands: dict[int, Sequence[int]],
    deck: Sequence[int],
    pending_votes: dict[int, int] | None = None,
    seed: int | None = None,
) -> State:
    """A full :class:`State` at the position ``view`` describes, completed by a choice of every
    hidden fact: which advisor is the Black Man, each advisor's grimoire and the two unowned books,
    every leader's/member's hand, the deck (``deck[-1]`` is drawn next) and an advisor's vote still
    hidden in this advice phase.

    This is how a world sampler (:mod:`club_envs.arkham_decoders.sampler`) turns a seat's view into
    a game a search can play on. The public part is copied from the view; ``ValueError`` says what
    is inconsistent. The new state has no history (its record starts here) and later reshuffles
    are drawn from ``seed``.
    """
    if view.phase == END:
        raise ValueError("the game is over; there is no position to complete")
    n = view.num_players
    roles = view.roles
    advisors = tuple(sorted(view.advisors))
    if black_man not in advisors:
        raise ValueError(f"the Black Man must be one of the advisors {list(advisors)}, not seat {black_man}")
    if sorted(grimoires) != list(advisors) or sorted([*grimoires.values(), *unowned]) != list(range(NUM_BOOKS)):
        raise ValueError("each advisor holds one grimoire and the other two are unowned: the 4 books once each")
    if any(book not in unowned for book in view.face_up_books):
        raise ValueError("a face-up grimoire is an unowned one")
    cards = list(deck) + list(view.discard) + [c for _, c in view.table]
    for s in range(n):
        cards += list(hands.get(s, ())) + list(view.decoded[s])
    if sorted(cards) != list(range(NUM_CARDS)):
        raise ValueError("hands, deck, discard, table and decoded cards must be the 24 chapter cards once each")
    if tuple(sorted(hands.get(view.seat, ()))) != view.hand:
        raise ValueError("the hand of the viewing seat must be the one in its view")
    config = Config(num_players=n, insanity_penalty=view.insanity_penalty)
    state = State.__new__(State)
    state.config = config
    state.seed = seed
    state.num_players = n
    state.hand_size = view.hand_size
    state._rng = random.Random(seed)
    state._forced_reshuffles = None
    state.events = []
    state._init_empty()
    state.roles = roles
    state.leader = view.leader
    state.advisors = view.advisors
    order = [(view.leader + k) % n for k in range(n)]
    state.proposers = tuple(s for s in order if roles[s] != ADVISOR)
    state.identities = {a: (BLACK_MAN if a == black_man else INVESTIGATOR) for a in advisors}
    state.grimoires = dict(grimoires)
    state.black_man_seat = black_man
    state.investigator_seat = next(a for a in advisors if a != black_man)
    state.true_book = grimoires[black_man]
    state.unowned = list(unowned)
    state.face_up_books = view.face_up_books
    for s in range(n):
        state.hands[s] = list(hands.get(s, ()))
        state._hand_views[s] = tuple(sorted(state.hands[s]))
    state.deck = list(deck)
    state.discard = list(view.discard)
    state._discard_view = view.discard
    state.table = view.table
    state.decoded = [list(d) for d in view.decoded]
    state._decoded_view = view.decoded
    state.peeked = {s for s in range(n) if len(view.decoded[s]) >= PEEK_AT_DECODED}
    state.reshuffles = view.reshuffles
    state.pending_votes = dict(pending_votes or {})
    if view.my_vote is not None:
        state.pending_votes[view.seat] = view.my_vote
    state.votes = view.votes
    state.passes = view.passes
    state.phase = view.phase
    state.current_player = view.current_player
    if view.phase == PROPOSAL:
        state._proposer_index = state.proposers.index(view.current_player)
    return state
