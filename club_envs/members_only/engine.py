"""The Members Only game engine: state, legal actions, transitions, settlement, scoring, record.

Plain Python (no gymnasium or PettingZoo): the environments, the bots and the record replayer all
drive this one :class:`State`. Each rule of docs/rules/members_only.md is one function below,
named after it, with the ruling quoted where the rulebook is silent.

A heat runs: heat start (refill, deal, face-up cards), the first round (one bet decision per
player, on the risk marker, no reveals), the revealing rounds (a bet decision and two reveal
decisions per turn), the end-of-heat discards (one decision per player, in seat order), then
settlement and the end-of-game check.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np

from club_envs.errors import IllegalActionError
from club_envs.members_only import actions as A
from club_envs.members_only.rules import (
    CATEGORIES,
    CHIP_TYPES,
    COPIES_PER_TYPE,
    DOUBLE_CHIPS,
    FACE_UP_CARDS,
    GAME_NAME,
    NUM_CARD_TYPES,
    NUM_CATEGORIES,
    NUM_SPACES,
    SINGLE_CHIPS,
    SPACE_IS_AT_MOST,
    SPACE_THRESHOLD,
    SPACES,
    TRACK_MAX,
    TRACK_SCORING_MIN,
    Config,
    card_name,
    full_deck,
    parse_card,
)

# Phases of play, in the order a heat passes through them.
BET, REVEAL, DISCARD, OVER = 0, 1, 2, 3
PHASES = ("bet", "reveal", "discard", "over")  # their names, by number (as messages and tools print them)

NUM_SPOTS = NUM_CATEGORIES * NUM_SPACES  # 40 betting spaces on the board
FULL_CHIPS = (SINGLE_CHIPS, DOUBLE_CHIPS)
_EMPTY_HAND = (0,) * NUM_CARD_TYPES
_EMPTY_BOARD = (None,) * NUM_SPOTS

Chip = tuple[int, int, bool]  # (owner seat, chip type 0 single / 1 double, on the risk marker)


class View(NamedTuple):
    """What one seat may know (rules, "Information") and nothing else.

    Built by :meth:`State.player_view`; everything is an immutable copy, so a view never changes
    after it is taken. Per-seat tuples are indexed by absolute seat number.
    """

    seat: int
    num_players: int
    rewards: tuple[int, ...]
    max_heats: int
    heat: int
    round: int
    rounds_per_heat: int
    phase: int  # BET, REVEAL, DISCARD or OVER
    current_player: int | None
    start_player: int
    hand: tuple[int, ...]  # own hand: count per card type
    pending_reveal: int | None  # own first card of a two-card reveal, not yet shown to the table
    own_discard: int | None  # own face-down discard this heat
    display: tuple[int, ...]  # cards of each type that reached the display this heat (face-up included)
    face_up: tuple[int, ...]  # the 2 cards turned face up at the heat start
    revealed_by: tuple[tuple[int, ...], ...]  # per seat: cards of each type it put in the display this heat
    board: tuple[Chip | None, ...]  # per betting space (category * 8 + space)
    bets: tuple[tuple[int, int, int, bool], ...]  # the same chips as (space, owner, chip, risk), in placement order
    chips: tuple[tuple[int, int], ...]  # per seat: (single, double) chips in hand
    tracks: tuple[tuple[int, ...], ...]  # per seat: the 5 track values
    hand_sizes: tuple[int, ...]
    terminal: bool
    truncated: bool


_new_view = tuple.__new__

# --------------------------------------------------------------------------- rules, one each


def refill_chips(chips: list[tuple[int, int]]) -> list[int]:
    """Start of a heat, rule 1: every player who holds one chip or none gets all 5 chips back
    (4 single + 1 double); everyone else keeps what they still have. Returns the refilled seats."""
    refilled = []
    for seat, (single, double) in enumerate(chips):
        if single + double <= 1:
            chips[seat] = FULL_CHIPS
            refilled.append(seat)
    return refilled


def deal_heat(rng: np.random.Generator, config: Config) -> tuple[list[list[int]], list[int], list[int]]:
    """Start of a heat, rules 2-4: shuffle all 65 cards, deal 11/9/7 each (3/4/5 players), turn 2
    face up; the rest are out of play, unseen by anyone."""
    deck = full_deck()
    order = rng.permutation(len(deck))
    return deal_from_deck([deck[i] for i in order], config)


def deal_from_deck(cards: Sequence[int], config: Config) -> tuple[list[list[int]], list[int], list[int]]:
    """The deal of a shuffled deck (the 65 card types in dealing order): consecutive hands of
    11/9/7 cards from the top, the next 2 face up, the rest out of play. The batched engine deals
    its decks the same way, so a deck order fixes the same heat in both engines."""
    size = config.hand_size
    n = config.num_players
    hands = [sorted(cards[i * size : (i + 1) * size]) for i in range(n)]
    face_up = cards[n * size : n * size + FACE_UP_CARDS]
    out_of_play = sorted(cards[n * size + FACE_UP_CARDS :])
    return hands, face_up, out_of_play


def check_deal(hands: Sequence[Sequence[int]], face_up: Sequence[int], out_of_play: Sequence[int], config: Config) -> None:
    """A given deal (from a record) must be one the rules could produce: one hand of 11/9/7 cards
    per seat, 2 face-up cards, and together with the cards out of play exactly the 65 cards."""
    n, size = config.num_players, config.hand_size
    if len(hands) != n or any(len(hand) != size for hand in hands):
        raise ValueError(f"a {n}-player deal has {n} hands of {size} cards, got sizes {[len(h) for h in hands]}")
    if len(face_up) != FACE_UP_CARDS:
        raise ValueError(f"a deal turns {FACE_UP_CARDS} cards face up, got {len(face_up)}")
    if sorted([c for hand in hands for c in hand] + list(face_up) + list(out_of_play)) != sorted(full_deck()):
        raise ValueError("hands, face-up and out-of-play cards must be the 65 cards, each once")


def first_start_player(rng: np.random.Generator, config: Config) -> int:
    """Start player of heat 1. **Ruling R2**: seat 0, unless the ``random_start_player`` option."""
    return int(rng.integers(config.num_players)) if config.random_start_player else 0


def next_start_player(start_player: int, num_players: int) -> int:
    """Each later heat is started by the player to the left (next seat clockwise)."""
    return (start_player + 1) % num_players


def category_count(display: Sequence[int], category: int) -> int:
    """The count of a category: its uncancelled normal cards. A NO! card cancels one normal card
    of its category as a pair; a NO! with nothing to cancel waits for one (max(0, normal - NO!))."""
    return max(0, display[category] - display[NUM_CATEGORIES + category])


def waiting_no_cards(display: Sequence[int], category: int) -> int:
    """NO! cards in the display with no normal card to cancel yet."""
    return max(0, display[NUM_CATEGORIES + category] - display[category])


def bet_is_correct(space: int, count: int) -> bool:
    """"k or less" is correct when count <= k; "k or more" when count >= k."""
    threshold = SPACE_THRESHOLD[space]
    return count <= threshold if SPACE_IS_AT_MOST[space] else count >= threshold


def chip_multiplier(chip: int, risk: bool) -> int:
    """1 single, 2 double, 2 single on the risk marker, **3** double on the risk marker."""
    if risk:
        return 3 if chip else 2
    return 2 if chip else 1


def settle_heat(
    board: Sequence[Chip | None],
    counts: Sequence[int],
    rewards: Sequence[int],
    tracks: list[tuple[int, ...]],
    chips: list[tuple[int, int]],
) -> list[dict[str, Any]]:
    """Settlement: a correct chip scores reward x multiplier on its category track (capped at 10,
    the excess lost) and returns to its owner; a wrong chip is removed from the game. Chips are
    settled in board order (category, then space). Returns the record's ``chips`` list."""
    settled = []
    for spot, chip in enumerate(board):
        if chip is None:
            continue
        seat, kind, risk = chip
        category, space = divmod(spot, NUM_SPACES)
        correct = bet_is_correct(space, counts[category])
        points = 0
        if correct:
            track = list(tracks[seat])
            before = track[category]
            track[category] = min(TRACK_MAX, before + rewards[space] * chip_multiplier(kind, risk))
            points = track[category] - before
            tracks[seat] = tuple(track)
            single, double = chips[seat]
            chips[seat] = (single, double + 1) if kind else (single + 1, double)
        settled.append(
            {
                "seat": seat,
                "category": CATEGORIES[category],
                "space": SPACES[space],
                "chip": CHIP_TYPES[kind],
                "risk": risk,
                "correct": correct,
                "points": points,
            }
        )
    return settled


def game_is_over(tracks: Sequence[Sequence[int]]) -> bool:
    """After settlement: the game ends when every one of the 5 tracks has at least one marker (of
    any player) at 5 or more."""
    return all(any(t[c] >= TRACK_SCORING_MIN for t in tracks) for c in range(NUM_CATEGORIES))


def final_score(track: Sequence[int]) -> int:
    """A player's score: the sum of their markers at 5 or more; markers at 1-4 count nothing."""
    return sum(v for v in track if v >= TRACK_SCORING_MIN)


def winners_of(scores: Sequence[float]) -> list[int]:
    """Highest score wins. **Ruling R5**: equal scores share the win."""
    best = max(scores)
    return [seat for seat, s in enumerate(scores) if s == best]


# --------------------------------------------------------------------------- the state


class State:
    """One game of Members Only in progress.

    ``deals`` (used by replay) fixes each heat's deal instead of shuffling: a sequence of dicts
    with ``hands`` (per seat, card types), ``face_up``, ``out_of_play`` and, for heat 1,
    ``start_player``.
    """

    def __init__(self, config: Config, seed: int | None = None, deals: Sequence[dict[str, Any]] | None = None):
        self.config = config
        self.seed = seed
        self.num_players = n = config.num_players
        self._rng = np.random.default_rng(seed)
        self._deals = list(deals) if deals is not None else None
        self._rounds_per_heat = config.rounds_per_heat
        # Record events: the frequent ones (bets, reveals, discards) are logged as compact tuples
        # during play and turned into dicts when ``events`` is read.
        self._log: list[dict[str, Any] | tuple] = []
        self._materialised = 0
        self.result: dict[str, Any] | None = None
        self.is_terminal = False
        self.is_truncated = False
        self.heat = 0
        self.round = 0
        self.phase = BET
        self.turn = 0  # turns taken in this round
        self.current_player: int | None = None
        # Per-seat public values are immutable tuples, replaced when they change, so a view can
        # share them and an observer can tell by identity whether they changed.
        self.chips: tuple[tuple[int, int], ...] = (FULL_CHIPS,) * n
        self.tracks: tuple[tuple[int, ...], ...] = ((0,) * NUM_CATEGORIES,) * n
        self.board: list[Chip | None] = [None] * NUM_SPOTS
        self._board_view: tuple[Chip | None, ...] = _EMPTY_BOARD
        self.bets: tuple[tuple[int, int, int, bool], ...] = ()  # (spot, owner, chip, risk) in placement order
        self.hands: list[list[int]] = [list(_EMPTY_HAND) for _ in range(n)]
        self._hand_sizes: tuple[int, ...] = (0,) * n  # public sizes (see hand_sizes)
        self.display: tuple[int, ...] = _EMPTY_HAND  # immutable: replaced whenever cards arrive
        self.revealed_by: tuple[tuple[int, ...], ...] = (_EMPTY_HAND,) * n
        self.face_up: tuple[int, ...] = ()
        self.out_of_play: list[int] = []
        self.discards: list[int | None] = [None] * n
        self.pending_reveal: int | None = None
        self._legal: list[int] | None = None
        if self._deals:
            self.start_player = int(self._deals[0].get("start_player", 0))
            if not config.random_start_player and self.start_player != 0:
                raise ValueError(f"heat 1 is started by seat 0 unless random_start_player is set, not seat {self.start_player}")
        else:
            self.start_player = first_start_player(self._rng, config)
        self._start_heat()

    # ----------------------------------------------------------------- heat structure

    def _start_heat(self) -> None:
        n = self.num_players
        self.heat += 1
        if self.heat > 1:
            self.start_player = next_start_player(self.start_player, n)
        chips = list(self.chips)
        refilled = refill_chips(chips) if self.heat > 1 else []
        self.chips = tuple(chips)
        if self._deals is not None:
            if self.heat > len(self._deals):
                raise ValueError(f"no recorded deal for heat {self.heat}")
            deal = self._deals[self.heat - 1]
            dealt = [sorted(h) for h in deal["hands"]]
            face_up = list(deal["face_up"])
            out_of_play = sorted(deal["out_of_play"])
            check_deal(dealt, face_up, out_of_play, self.config)
        else:
            dealt, face_up, out_of_play = deal_heat(self._rng, self.config)
        self.hands = [[0] * NUM_CARD_TYPES for _ in range(n)]
        for seat, cards in enumerate(dealt):
            for card in cards:
                self.hands[seat][card] += 1
        self.face_up = tuple(face_up)
        self.out_of_play = out_of_play
        display = [0] * NUM_CARD_TYPES
        for card in face_up:
            display[card] += 1
        self.display = tuple(display)
        self._hand_sizes = tuple(sum(h) for h in self.hands)
        self.revealed_by = (_EMPTY_HAND,) * n
        self.discards = [None] * n
        self.pending_reveal = None
        self.board = [None] * NUM_SPOTS
        self._board_view = _EMPTY_BOARD
        self.bets = ()
        # Legal-action masks kept up to date as the heat goes (a mask is one copy away):
        # bets by which chip types the player holds, reveals and discards by each player's hand.
        self._bet_masks = _BET_MASK_BY_CHIPS.copy()
        self._reveal_masks = [_hand_mask(hand, A.REVEAL_BASE) for hand in self.hands]
        self._discard_masks = [_hand_mask(hand, A.DISCARD_BASE) for hand in self.hands]
        self.round = 1
        self.turn = 0
        self.phase = BET
        self.current_player = self.start_player
        self._legal = None
        self._log.append(
            {
                "type": "heat_start",
                "heat": self.heat,
                "start_player": self.start_player,
                "chips_refilled": refilled,
                "chips": [{"single": s, "double": d} for s, d in self.chips],
                "hands": [[card_name(c) for c in cards] for cards in dealt],
                "face_up": [card_name(c) for c in face_up],
                "out_of_play": [card_name(c) for c in out_of_play],
            }
        )

    def _end_turn(self) -> None:
        """Play goes clockwise from the start player; after the last revealing round the heat
        ends (every player holds 3 cards) and the discards begin."""
        self.turn += 1
        if self.turn == self.num_players:
            self.turn = 0
            if self.round == self._rounds_per_heat:
                self.phase = DISCARD
                # Ruling R4: players choose their discard in seat order; nobody sees another's choice.
                self.current_player = 0
                return
            self.round += 1
        self.phase = BET
        self.current_player = (self.start_player + self.turn) % self.num_players

    def _end_heat(self) -> None:
        """After every discard: the kept cards go to the display, the heat is settled, and the
        game ends or the next heat starts."""
        display = list(self.display)
        revealed_by = list(self.revealed_by)
        for seat, hand in enumerate(self.hands):
            if any(hand):
                revealed = list(revealed_by[seat])
                for card, k in enumerate(hand):
                    if k:
                        display[card] += k
                        revealed[card] += k
                        hand[card] = 0
                revealed_by[seat] = tuple(revealed)
        self.revealed_by = tuple(revealed_by)
        self.display = tuple(display)
        self._hand_sizes = (0,) * self.num_players
        counts = [category_count(display, c) for c in range(NUM_CATEGORIES)]
        tracks, chips = list(self.tracks), list(self.chips)
        settled = settle_heat(self.board, counts, self.config.rewards, tracks, chips)
        self.tracks, self.chips = tuple(tracks), tuple(chips)
        self.board = [None] * NUM_SPOTS
        self._board_view = _EMPTY_BOARD
        self.bets = ()
        self._log.append(
            {
                "type": "settle",
                "heat": self.heat,
                "counts": dict(zip(CATEGORIES, counts)),
                "chips": settled,
                "tracks": [list(t) for t in self.tracks],
            }
        )
        if game_is_over(self.tracks):
            self._end_game("tracks")
        elif self.heat >= self.config.max_heats:
            # Ruling R6 (safety net): truncation, scored like a finished game in the record.
            self._end_game("max_heats")
            self.is_truncated = True
            self.is_terminal = False
        else:
            self._start_heat()

    def _end_game(self, reason: str, offender: int | None = None) -> None:
        scores = self.scores()
        if offender is None:
            winners = winners_of(scores)
        else:
            winners = [s for s in range(self.num_players) if s != offender]
        event: dict[str, Any] = {"type": "game_end", "reason": reason, "scores": scores, "winners": winners}
        if offender is not None:
            event["offender"] = offender
        self._log.append(event)
        self.result = {"reason": reason, "scores": scores, "winners": winners}
        if offender is not None:
            self.result["offender"] = offender
        self.phase = OVER
        self.current_player = None
        self.is_terminal = True
        self._legal = []

    # ----------------------------------------------------------------- queries

    @property
    def events(self) -> list[dict[str, Any]]:
        """The record events so far, in order (docs/records.md). Read-only."""
        log = self._log
        for i in range(self._materialised, len(log)):
            entry = log[i]
            if type(entry) is tuple:
                log[i] = _event_dict(entry)
        self._materialised = len(log)
        return log  # type: ignore[return-value]

    def last_settle(self) -> dict[str, Any] | None:
        """The latest ``settle`` event (the scoring of the last heat), or None before the first.

        Read from the end of the log: settle events are stored as records already, so the
        per-heat reward shaping of the training environments finds one without turning every
        compact move entry before it into a record (what :attr:`events` does)."""
        for entry in reversed(self._log):
            if type(entry) is not tuple and entry["type"] == "settle":
                return entry
        return None

    @property
    def is_over(self) -> bool:
        """Terminal or truncated: no one moves any more."""
        return self.phase == OVER

    def scores(self) -> list[int]:
        return [final_score(t) for t in self.tracks]

    def counts(self) -> list[int]:
        """The current count of every category in the display."""
        return [category_count(self.display, c) for c in range(NUM_CATEGORIES)]

    def legal_actions(self) -> list[int]:
        """Legal actions of the player to move, ascending; empty when the game is over."""
        legal = self._legal
        if legal is None:
            legal = self._legal = self._compute_legal()
        return legal

    def _compute_legal(self) -> list[int]:
        phase = self.phase
        if phase == BET:
            return legal_bets(self.board, self.chips[self.current_player])
        hand = self.hands[self.current_player]
        base = A.REVEAL_BASE if phase == REVEAL else A.DISCARD_BASE
        return [base + card for card in range(NUM_CARD_TYPES) if hand[card]]

    def legal_mask(self) -> np.ndarray:
        """The legal actions as a 0/1 ``int8`` vector of length ``NUM_ACTIONS`` (a fresh array)."""
        phase = self.phase
        if phase == BET:
            single, double = self.chips[self.current_player]
            return self._bet_masks[(single > 0) + 2 * (double > 0)].copy()
        if phase == REVEAL:
            return self._reveal_masks[self.current_player].copy()
        if phase == DISCARD:
            return self._discard_masks[self.current_player].copy()
        return np.zeros(A.NUM_ACTIONS, dtype=np.int8)

    def is_legal(self, action: int) -> bool:
        phase = self.phase
        if phase == BET:
            if action == A.NO_BET:
                return True
            if not 0 <= action < A.NUM_BETS or self.board[action >> 1] is not None:
                return False
            return self.chips[self.current_player][action & 1] > 0
        if phase == REVEAL:
            card = action - A.REVEAL_BASE
        elif phase == DISCARD:
            card = action - A.DISCARD_BASE
        else:
            return False
        return 0 <= card < NUM_CARD_TYPES and self.hands[self.current_player][card] > 0

    def hand_sizes(self) -> tuple[int, ...]:
        """Public hand sizes. A card picked for a two-card reveal still counts until both are shown,
        and every hand counts 3 until all discards are made, so nobody learns another's choice."""
        return self._hand_sizes

    def player_view(self, seat: int) -> View:
        """Everything ``seat`` may know, as an immutable :class:`View`."""
        own_turn = seat == self.current_player
        # tuple.__new__ skips the NamedTuple's Python-level constructor (one view per step).
        return _new_view(
            View,
            (
                seat,
                self.num_players,
                self.config.rewards,
                self.config.max_heats,
                self.heat,
                self.round,
                self._rounds_per_heat,
                self.phase,
                self.current_player,
                self.start_player,
                tuple(self.hands[seat]),
                self.pending_reveal if own_turn else None,
                self.discards[seat],
                self.display,
                self.face_up,
                self.revealed_by,
                self._board_view,
                self.bets,
                self.chips,
                self.tracks,
                self._hand_sizes,
                self.is_terminal,
                self.is_truncated,
            ),
        )

    # ----------------------------------------------------------------- transitions

    def apply_action(self, action: int) -> None:
        """Play ``action`` for the player to move; :class:`IllegalActionError` (listing the legal
        actions) leaves the state unchanged."""
        if self.phase == OVER:
            raise IllegalActionError(f"the game is over; no action is legal (got {action})")
        action = int(action)
        if not self.is_legal(action):
            legal = ", ".join(f"{a} ({A.action_to_string(a)})" for a in self.legal_actions())
            what = A.action_to_string(action) if 0 <= action < A.NUM_ACTIONS else "outside the action space"
            raise IllegalActionError(
                f"action {action} ({what}) is not legal for seat {self.current_player} in the "
                f"{PHASES[self.phase]} phase; legal actions: {legal}"
            )
        self._legal = None
        seat = self.current_player
        phase = self.phase
        if phase == BET:
            self._bet(seat, action)
        elif phase == REVEAL:
            self._reveal(seat, action - A.REVEAL_BASE)
        else:
            self._discard(seat, action - A.DISCARD_BASE)

    def _bet(self, seat: int, action: int) -> None:
        """A turn **may** place one chip on an empty space. In the first round of a heat the chip
        goes on the player's risk marker and no cards are revealed. **Ruling R3**: the risk marker
        can only be used in the first round."""
        first_round = self.round == 1
        if action == A.NO_BET:
            self._log.append(("no_bet", seat, self.round))
        else:
            spot, kind = action >> 1, action & 1
            self.board[spot] = (seat, kind, first_round)
            self._board_view = tuple(self.board)
            self.bets += ((spot, seat, kind, first_round),)
            self._bet_masks[:, 2 * spot : 2 * spot + 2] = 0
            chips = list(self.chips)
            single, double = chips[seat]
            chips[seat] = (single, double - 1) if kind else (single - 1, double)
            self.chips = tuple(chips)
            self._log.append(("bet", seat, self.round, spot, kind, first_round))
        if first_round:
            self._end_turn()
        else:
            self.phase = REVEAL

    def _reveal(self, seat: int, card: int) -> None:
        """A turn **must** reveal 2 cards from hand into the display (one decision per card; both
        reach the display together after the second)."""
        hand = self.hands[seat]
        hand[card] -= 1
        if not hand[card]:
            self._reveal_masks[seat][A.REVEAL_BASE + card] = 0
            self._discard_masks[seat][A.DISCARD_BASE + card] = 0
        first = self.pending_reveal
        if first is None:
            self.pending_reveal = card
            return
        self.pending_reveal = None
        display = list(self.display)
        display[first] += 1
        display[card] += 1
        self.display = tuple(display)
        sizes = list(self._hand_sizes)
        sizes[seat] -= 2
        self._hand_sizes = tuple(sizes)
        revealed = list(self.revealed_by[seat])
        revealed[first] += 1
        revealed[card] += 1
        revealed_by = list(self.revealed_by)
        revealed_by[seat] = tuple(revealed)
        self.revealed_by = tuple(revealed_by)
        self._log.append(("reveal", seat, self.round, first, card))
        self._end_turn()

    def _discard(self, seat: int, card: int) -> None:
        """End of the heat: each player secretly discards 1 of their 3 cards (out of play, never
        counted); the other 2 go to the display once everyone has chosen."""
        hand = self.hands[seat]
        hand[card] -= 1
        if not hand[card]:
            self._discard_masks[seat][A.DISCARD_BASE + card] = 0
        self.discards[seat] = card
        self._log.append(("discard", seat, card, tuple(hand)))
        if seat + 1 < self.num_players:
            self.current_player = seat + 1
        else:
            self._end_heat()

    def forfeit(self, seat: int) -> None:
        """End the game because ``seat`` made an illegal move: reason ``"illegal_action"``; the
        record names the offender and the other seats share the win."""
        if self.phase == OVER:
            return
        self._end_game("illegal_action", offender=seat)

    # ----------------------------------------------------------------- copies and records

    def clone(self) -> State:
        other = State.__new__(State)
        other.__dict__.update(self.__dict__)
        other._rng = np.random.Generator(type(self._rng.bit_generator)())
        other._rng.bit_generator.state = self._rng.bit_generator.state
        other._log = list(self.events)
        other._materialised = len(other._log)
        other.result = dict(self.result) if self.result is not None else None
        other.board = list(self.board)
        other.hands = [list(h) for h in self.hands]
        other.out_of_play = list(self.out_of_play)
        other.discards = list(self.discards)
        other._deals = list(self._deals) if self._deals is not None else None
        other._bet_masks = self._bet_masks.copy()
        other._reveal_masks = [m.copy() for m in self._reveal_masks]
        other._discard_masks = [m.copy() for m in self._discard_masks]
        other._legal = None
        return other

    def record(self, controllers: Sequence[str] | None = None, agents: Sequence[str] | None = None) -> dict[str, Any]:
        """The game record (docs/records.md) of everything so far."""
        n = self.num_players
        controllers = list(controllers) if controllers is not None else ["unknown"] * n
        agents = list(agents) if agents is not None else [f"player_{i}" for i in range(n)]
        record: dict[str, Any] = {
            "format": "club-envs-record",
            "format_version": 1,
            "game": GAME_NAME,
            "config": self.config.to_record(),
            "seed": self.seed,
            "seats": [{"seat": i, "agent": agents[i], "controller": controllers[i]} for i in range(n)],
            "events": [dict(e) for e in self.events],
        }
        if self.result is not None:
            record["result"] = dict(self.result)
        return record


def _bet_mask(single: bool, double: bool) -> np.ndarray:
    mask = np.zeros(A.NUM_ACTIONS, dtype=np.int8)
    mask[0 : A.NUM_BETS : 2] = single
    mask[1 : A.NUM_BETS : 2] = double
    mask[A.NO_BET] = 1
    return mask


# Index: (holds a single chip) + 2 * (holds the double chip).
_BET_MASK_BY_CHIPS = np.stack(
    [_bet_mask(False, False), _bet_mask(True, False), _bet_mask(False, True), _bet_mask(True, True)]
)


def _hand_mask(hand: Sequence[int], base: int) -> np.ndarray:
    mask = np.zeros(A.NUM_ACTIONS, dtype=np.int8)
    mask[base : base + NUM_CARD_TYPES] = [1 if k else 0 for k in hand]
    return mask


_SPOT_ACTIONS = [((2 * s,), (2 * s + 1,), (2 * s, 2 * s + 1)) for s in range(NUM_SPOTS)]


def legal_bets(board: Sequence[Chip | None], chips: tuple[int, int]) -> list[int]:
    """A bet places one chip (single or double, while the player has one) on any **empty** space;
    "no bet" is always allowed."""
    single, double = chips
    if single and double:
        legal = [a for s in range(NUM_SPOTS) if board[s] is None for a in _SPOT_ACTIONS[s][2]]
    elif single:
        legal = [2 * s for s in range(NUM_SPOTS) if board[s] is None]
    elif double:
        legal = [2 * s + 1 for s in range(NUM_SPOTS) if board[s] is None]
    else:
        legal = []
    legal.append(A.NO_BET)
    return legal


def _event_dict(entry: tuple) -> dict[str, Any]:
    """The record event of a compact log entry (see ``State._log``)."""
    kind = entry[0]
    if kind == "bet":
        _, seat, round_, spot, chip, risk = entry
        category, space = divmod(spot, NUM_SPACES)
        return {
            "type": "bet",
            "seat": seat,
            "round": round_,
            "category": CATEGORIES[category],
            "space": SPACES[space],
            "chip": CHIP_TYPES[chip],
            "risk": risk,
        }
    if kind == "no_bet":
        return {"type": "no_bet", "seat": entry[1], "round": entry[2]}
    if kind == "reveal":
        _, seat, round_, first, second = entry
        return {"type": "reveal", "seat": seat, "round": round_, "cards": [card_name(first), card_name(second)]}
    _, seat, card, hand = entry
    kept = [card_name(c) for c in range(NUM_CARD_TYPES) for _ in range(hand[c])]
    return {"type": "discard", "seat": seat, "card": card_name(card), "kept": kept}


def deals_from_record(events: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """The recorded deal of every heat, in the form :class:`State` accepts as ``deals``."""
    deals = []
    for event in events:
        if event.get("type") == "heat_start":
            deals.append(
                {
                    "hands": [[parse_card(c) for c in hand] for hand in event["hands"]],
                    "face_up": [parse_card(c) for c in event["face_up"]],
                    "out_of_play": [parse_card(c) for c in event["out_of_play"]],
                    "start_player": event["start_player"],
                }
            )
    return deals


def state_from_view(
    view: View,
    hands: Sequence[Sequence[int]],
    discards: Sequence[int | None],
    out_of_play: Sequence[int],
    pending_reveal: int | None = None,
    seed: int | None = None,
) -> State:
    """A full :class:`State` at the position ``view`` describes, completed by a choice of every
    hidden card: each seat's hand (card counts per type), face-down discard and the cards out of
    play, and the card the player to move has picked for a two-card reveal.

    This is how a world sampler (:mod:`club_envs.members_only.sampler`) turns a seat's view into a
    game a search can play on. The public part is copied from the view; the hidden part must add up
    to the 65 cards with the display, or ``ValueError`` says what is off. The new state has no
    history (its record starts here) and later heats are dealt from ``seed``.
    """
    if view.phase == OVER:
        raise ValueError("the game is over; there is no position to complete")
    n = view.num_players
    config = Config(num_players=n, rewards=view.rewards, max_heats=view.max_heats)
    if len(hands) != n or len(discards) != n:
        raise ValueError(f"a {n}-player position needs {n} hands and {n} discards")
    if tuple(hands[view.seat]) != view.hand:
        raise ValueError("the hand of the viewing seat must be the one in its view")
    if pending_reveal is not None and view.current_player is not None and view.current_player == view.seat:
        if pending_reveal != view.pending_reveal:
            raise ValueError("the viewing seat's pending reveal must be the one in its view")
    total = [sum(col) for col in zip(*hands)]
    total = [t + d for t, d in zip(total, view.display)]
    for card in [*out_of_play, *(d for d in discards if d is not None)]:
        total[card] += 1
    if pending_reveal is not None:
        total[pending_reveal] += 1
    if tuple(total) != COPIES_PER_TYPE:
        raise ValueError("hands, discards, out-of-play cards, the pending reveal and the display must be the 65 cards")
    state = State.__new__(State)
    state.config = config
    state.seed = seed
    state.num_players = n
    state._rng = np.random.default_rng(seed)
    state._deals = None
    state._rounds_per_heat = view.rounds_per_heat
    state._log = []
    state._materialised = 0
    state.result = None
    state.is_terminal = False
    state.is_truncated = False
    state.heat = view.heat
    state.round = view.round
    state.phase = view.phase
    state.start_player = view.start_player
    state.current_player = view.current_player
    state.turn = 0 if view.phase == DISCARD else (view.current_player - view.start_player) % n
    state.chips = view.chips
    state.tracks = view.tracks
    state.board = list(view.board)
    state._board_view = view.board
    state.bets = view.bets
    state.hands = [list(h) for h in hands]
    state._hand_sizes = view.hand_sizes
    state.display = view.display
    state.revealed_by = view.revealed_by
    state.face_up = view.face_up
    state.out_of_play = sorted(out_of_play)
    state.discards = list(discards)
    state.pending_reveal = pending_reveal
    state._bet_masks = _BET_MASK_BY_CHIPS.copy()
    for spot, chip in enumerate(view.board):
        if chip is not None:
            state._bet_masks[:, 2 * spot : 2 * spot + 2] = 0
    state._reveal_masks = [_hand_mask(hand, A.REVEAL_BASE) for hand in state.hands]
    state._discard_masks = [_hand_mask(hand, A.DISCARD_BASE) for hand in state.hands]
    state._legal = None
    return state
