"""The observation: one flat ``float32`` vector with named slices, built only from a seat's View.

Egocentric: wherever the vector holds one entry per seat, the observing seat comes first, then the
others clockwise. It is always laid out for **5 seats** (the most Members Only allows): with 3 or 4
players the missing seats' entries are zero and ``seats_present`` says which are real, so the
vector has the same size for 3, 4 and 5 players and one policy can play any table.

Every value lies in [0, 1]: counts are divided by their largest possible value. The names and
sizes are :meth:`Observer.describe`'s table (also on the documentation's Members Only page).
"""

from __future__ import annotations

from itertools import chain
from operator import itemgetter, sub

import numpy as np

from club_envs.members_only.engine import OVER, State, View
from club_envs.members_only.rules import (
    COPIES_PER_TYPE,
    FACE_UP_CARDS,
    MAX_PLAYERS,
    NORMAL_PER_CATEGORY,
    NO_PER_CATEGORY,
    NUM_CARD_TYPES,
    NUM_CATEGORIES,
    NUM_SPACES,
    PLAYER_COUNTS,
    DOUBLE_CHIPS,
    HAND_SIZE_BY_PLAYERS,
    SINGLE_CHIPS,
    TRACK_MAX,
    TRACK_SCORING_MIN,
    Config,
)

S = MAX_PLAYERS  # seats laid out in every per-seat slice
NUM_SPOTS = NUM_CATEGORIES * NUM_SPACES
SPOT_FEATURES = S + 2  # owner (5, relative) + double + risk
MAX_ROUNDS = 5  # 1 + 4 revealing rounds with 3 players
MAX_SCORE = NUM_CATEGORIES * TRACK_MAX

# (name, size, meaning) in layout order. The slices from ``hand`` to ``hand_sizes`` hold small
# counts and are written in one vectorised step (see Observer.observe).
LAYOUT: tuple[tuple[str, int, str], ...] = (
    ("num_players", len(PLAYER_COUNTS), "one-hot: 3, 4 or 5 players"),
    ("seats_present", S, "1 for each real seat (self first, then clockwise); 0 for padding"),
    ("heat", 1, "heat number / max_heats"),
    ("round", MAX_ROUNDS, "one-hot round within the heat (round 1 = the betting-only first round, chips go on the risk marker)"),
    ("phase", 3, "one-hot: bet decision, reveal decision, end-of-heat discard (all 0 when the game is over)"),
    ("start_player", S, "one-hot relative seat of this heat's start player"),
    ("current_player", S, "one-hot relative seat of the player to move"),
    ("pending_reveal", NUM_CARD_TYPES, "one-hot: own first card of a two-card reveal, not yet in the display"),
    ("own_discard", NUM_CARD_TYPES, "one-hot: own face-down discard this heat"),
    ("hand", NUM_CARD_TYPES, "own hand: count of each card type / copies in the deck (types: the 5 categories umbrella..hat, then their NO! cards)"),
    ("unseen", NUM_CARD_TYPES, "cards of each type this seat has not seen (other hands, out of play) / copies"),
    ("display", NUM_CARD_TYPES, "cards of each type that reached the display this heat / copies (face-up cards and cancelled pairs included)"),
    ("face_up", NUM_CARD_TYPES, "the 2 face-up cards of the heat start: count of each type / 2"),
    ("counts", NUM_CATEGORIES, "current count of each category (uncancelled normal cards) / 11"),
    ("waiting_no", NUM_CATEGORIES, "NO! cards of each category waiting for a normal card to cancel / 2"),
    ("revealed_by", S * NUM_CARD_TYPES, "per relative seat: cards of each type it put in the display this heat / copies"),
    ("chips", S * 2, "per relative seat: single chips in hand / 4, double chip in hand / 1"),
    ("hand_sizes", S, "per relative seat: cards in hand / 11"),
    ("board", NUM_SPOTS * SPOT_FEATURES, "per betting space (category-major, spaces <=1..>=8): owner one-hot by relative seat (5), double chip, on the risk marker"),
    ("tracks", S * NUM_CATEGORIES, "per relative seat: each category's track value / 10"),
    ("track_scoring", S * NUM_CATEGORIES, "per relative seat: 1 where the track is at 5 or more (it counts at the end)"),
    ("category_claimed", NUM_CATEGORIES, "1 where some player's track is at 5 or more (all 5 => the game ends)"),
    ("scores", S, "per relative seat: current score (sum of tracks at 5+) / 50"),
    ("rewards", NUM_SPACES, "the reward table (points per space <=1..>=8) / its largest value"),
)


def _slices() -> dict[str, slice]:
    out, start = {}, 0
    for name, size, _ in LAYOUT:
        out[name] = slice(start, start + size)
        start += size
    return out


SLICES = _slices()
SIZE = max(s.stop for s in SLICES.values())

# How observe() writes the vector (speed matters: one observation per environment step). Every
# value is a small whole number (a count, a flag, a track value) times a fixed scale, so the
# observer keeps one bytearray of the whole vector, shared with numpy: it writes each slice's
# whole numbers with a few slice assignments, then a single multiply by the scales makes the
# float32 observation. The board and track slices change a few times per heat: each observing
# seat keeps them as bytes, updated only when bets or tracks change.
_INV_COPIES = tuple(1.0 / c for c in COPIES_PER_TYPE)


def observation_scales(config: Config) -> np.ndarray:
    """The ``float32`` factor of every entry (1 / its largest value; 1 for one-hots and flags):
    an observation is its whole numbers times these. Shared with the batched observer, which must
    produce the same floats."""
    max_heats, top_reward = config.max_heats, max(max(config.rewards), 1)
    per_slice = {
        "heat": (1.0 / max_heats,),
        "hand": _INV_COPIES,
        "unseen": _INV_COPIES,
        "display": _INV_COPIES,
        "face_up": (1.0 / FACE_UP_CARDS,) * NUM_CARD_TYPES,
        "counts": (1.0 / NORMAL_PER_CATEGORY,) * NUM_CATEGORIES,
        "waiting_no": (1.0 / NO_PER_CATEGORY,) * NUM_CATEGORIES,
        "revealed_by": _INV_COPIES * S,
        "chips": (1.0 / SINGLE_CHIPS, 1.0 / DOUBLE_CHIPS) * S,
        "hand_sizes": (1.0 / max(HAND_SIZE_BY_PLAYERS.values()),) * S,
        "tracks": (1.0 / TRACK_MAX,) * (S * NUM_CATEGORIES),
        "scores": (1.0 / MAX_SCORE,) * S,
        "rewards": (1.0 / top_reward,) * NUM_SPACES,
    }
    scale = np.ones(SIZE, dtype=np.float32)  # one-hots and flags: 1
    for name, values in per_slice.items():
        scale[SLICES[name]] = values
    return scale


def _start(name: str) -> int:
    return SLICES[name].start


_HEAT = _start("heat")
# Written together, in this order: round, phase, start_player, current_player (one lookup),
# pending_reveal, own_discard, hand, unseen, then display, face_up, counts, waiting_no (shared by
# all seats), then revealed_by, chips, hand_sizes (one pick), then the per-seat block.
_DYNAMIC = slice(_start("round"), SLICES["scores"].stop)
_BLOCK = slice(_start("board"), SLICES["scores"].stop)  # board, tracks, track_scoring, category_claimed, scores
_BLOCK_SIZE = _BLOCK.stop - _BLOCK.start
_TRACKS_IN_BLOCK = _start("tracks") - _BLOCK.start
_T_SCORING = _start("track_scoring") - _start("tracks")
_T_CLAIMED = _start("category_claimed") - _start("tracks")
_T_SCORES = _start("scores") - _start("tracks")


def _one_hot(size: int) -> dict[int | None, tuple[int, ...]]:
    table: dict[int | None, tuple[int, ...]] = {i: tuple(int(i == j) for j in range(size)) for i in range(size)}
    table[None] = (0,) * size
    return table


_ROUND_ONE_HOT = _one_hot(MAX_ROUNDS)
_PHASE_ONE_HOT = _one_hot(3)
_PHASE_ONE_HOT[OVER] = (0, 0, 0)
_SEAT_ONE_HOT = _one_hot(S)
_CARD_ONE_HOT = _one_hot(NUM_CARD_TYPES)
# The round, phase, start_player and current_player slices together, by
# (round index or None, phase, relative start player, relative current player or None).
_TURN_ONE_HOTS = {
    (r, phase, start, current): bytes(
        _ROUND_ONE_HOT[r] + _PHASE_ONE_HOT[phase] + _SEAT_ONE_HOT[start] + _SEAT_ONE_HOT[current]
    )
    for r in [*range(MAX_ROUNDS), None]
    for phase in (0, 1, 2, OVER)
    for start in range(S)
    for current in [*range(S), None]
}
_CARD_BYTES = {card: bytes(flags) for card, flags in _CARD_ONE_HOT.items()}
# Category count and waiting NO! cards by (normal, NO!) cards in the display.
_PAIRS = [(a, b) for a in range(NORMAL_PER_CATEGORY + 1) for b in range(NO_PER_CATEGORY + 1)]
_COUNT = {(a, b): max(0, a - b) for a, b in _PAIRS}
_WAITING = {(a, b): max(0, b - a) for a, b in _PAIRS}
_FACE_UP_COUNTS = {
    (a, b): tuple((a == c) + (b == c) for c in range(NUM_CARD_TYPES))
    for a in range(NUM_CARD_TYPES)
    for b in range(NUM_CARD_TYPES)
}


class Observer:
    """Builds the observation of one seat from that seat's :class:`~club_envs.members_only.engine.View`.

    ``slices`` maps each name to its slice of the vector; ``observe(view, out)`` fills ``out`` in
    place (or returns a new array). See the comment above for how it is kept fast.
    """

    size = SIZE
    slices = SLICES

    def __init__(self, config: Config) -> None:
        self.config = config
        n = self.num_players = config.num_players
        top_reward = max(max(config.rewards), 1)
        self._scale = observation_scales(config)
        # Heats and rewards beyond a byte are written as floats after the multiply.
        self._heat_in_bytes = config.max_heats <= 255
        self._rewards_in_bytes = top_reward <= 255
        self._bytes = bytearray(SIZE)
        self._values = np.frombuffer(self._bytes, dtype=np.uint8)
        self._bytes[SLICES["num_players"].start + PLAYER_COUNTS.index(n)] = 1
        self._bytes[_start("seats_present") : _start("seats_present") + n] = bytes([1] * n)
        if self._rewards_in_bytes:
            self._bytes[SLICES["rewards"]] = bytes(config.rewards)
        # The revealed_by, chips and hand_sizes slices of seat ``me``, egocentric and padded to
        # 5 seats, picked in one call from the flat tuple (revealed_by, chips, hand_sizes, 0).
        zero = n * NUM_CARD_TYPES + n * 2 + n
        self._seat_getters = []
        for me in range(n):
            order = [(me + r) % n if r < n else None for r in range(S)]
            index = [zero if s is None else s * NUM_CARD_TYPES + k for s in order for k in range(NUM_CARD_TYPES)]
            index += [zero if s is None else n * NUM_CARD_TYPES + s * 2 + k for s in order for k in range(2)]
            index += [zero if s is None else n * NUM_CARD_TYPES + n * 2 + s for s in order]
            self._seat_getters.append(itemgetter(*index))
        self._seat_sources: tuple | None = None
        self._seat_values: tuple[int, ...] = ()
        # relative[me][seat]: places clockwise from ``me``; None stays None.
        self._relative = [{**{s: (s - me) % n for s in range(n)}, None: None} for me in range(n)]
        self._seat_orders = np.array([[(me + r) % n for r in range(n)] for me in range(n)])
        # Per observing seat: its board..scores block as bytes, and the bets and tracks it encodes.
        self._blocks = [bytearray(_BLOCK_SIZE) for _ in range(n)]
        self._block_bets: list[tuple] = [()] * n
        self._block_tracks: list[tuple | None] = [None] * n
        self._tracks: tuple | None = None
        self._track_parts: list[bytes] = []
        self._display: tuple[int, ...] | None = None
        self._face_up: tuple[int, ...] | None = None
        self._not_displayed: tuple[int, ...] = ()
        self._display_values = b""

    def __reduce__(self):
        # Copies and pickles start with empty caches (the bytearray/numpy pair must not be split).
        return (Observer, (self.config,))

    def observe(self, view: View, out: np.ndarray | None = None) -> np.ndarray:
        """The observation of ``view.seat``, written into ``out`` (float32, length ``size``)."""
        buf = self._bytes
        me = view.seat
        rel = self._relative[me]
        hand = view.hand
        display = view.display
        if display is not self._display or view.face_up is not self._face_up:
            # The same for every seat until cards arrive (tuples are immutable: identity is enough).
            self._display, self._face_up = display, view.face_up
            pairs = tuple(zip(display[:NUM_CATEGORIES], display[NUM_CATEGORIES:]))
            self._not_displayed = tuple(map(sub, COPIES_PER_TYPE, display))
            self._display_values = bytes(
                (*display, *_FACE_UP_COUNTS[view.face_up], *map(_COUNT.__getitem__, pairs), *map(_WAITING.__getitem__, pairs))
            )
        unseen = list(map(sub, self._not_displayed, hand))
        pending = view.pending_reveal
        discard = view.own_discard
        if pending is not None:
            unseen[pending] -= 1
        if discard is not None:
            unseen[discard] -= 1
        sources = (view.revealed_by, view.chips, view.hand_sizes)
        if sources != self._seat_sources:  # the same for every seat until a reveal or a bet
            self._seat_sources = sources
            self._seat_values = (*chain.from_iterable(sources[0]), *chain.from_iterable(sources[1]), *sources[2], 0)
        block = self._blocks[me]
        bets = view.bets
        if bets is not self._block_bets[me] and bets != self._block_bets[me]:
            # Chips are only ever added during a heat: write the new ones into the board part.
            known = self._block_bets[me]
            if bets[: len(known)] != known:
                known = ()
                block[:_TRACKS_IN_BLOCK] = bytes(_TRACKS_IN_BLOCK)
            for spot, owner, kind, risk in bets[len(known) :]:
                base = spot * SPOT_FEATURES
                block[base + rel[owner]] = 1
                if kind:
                    block[base + S] = 1
                if risk:
                    block[base + S + 1] = 1
            self._block_bets[me] = bets
        tracks = view.tracks
        if tracks is not self._block_tracks[me] and tracks != self._block_tracks[me]:
            if tracks != self._tracks:  # encoded for every seat at once
                self._tracks = tracks
                self._track_parts = _encode_tracks(tracks, self._seat_orders)
            block[_TRACKS_IN_BLOCK:] = self._track_parts[me]
            self._block_tracks[me] = tracks

        # Everything from ``round`` to ``scores`` is contiguous: one joined write.
        current = view.current_player
        buf[_DYNAMIC] = b"".join(
            (
                _TURN_ONE_HOTS[None if current is None else view.round - 1, view.phase, rel[view.start_player], rel[current]],
                _CARD_BYTES[pending],
                _CARD_BYTES[discard],
                bytes(hand),
                bytes(unseen),
                self._display_values,
                bytes(self._seat_getters[me](self._seat_values)),
                block,
            )
        )
        if self._heat_in_bytes:
            buf[_HEAT] = view.heat

        if out is None:
            out = np.multiply(self._values, self._scale, dtype=np.float32)
        else:
            np.multiply(self._values, self._scale, out=out)
        if not self._heat_in_bytes:
            out[_HEAT] = view.heat * self._scale[_HEAT]
        if not self._rewards_in_bytes:
            out[SLICES["rewards"]] = np.array(self.config.rewards, dtype=np.float32) * self._scale[SLICES["rewards"]]
        return out

    def describe(self) -> list[tuple[str, int, str]]:
        """``(name, size, meaning)`` per slice, in layout order."""
        return [(name, size, meaning) for name, size, meaning in LAYOUT]

    @staticmethod
    def describe_markdown() -> str:
        """The documentation's observation table (docs/games/members_only.md)."""
        lines = ["| slice | size | meaning |", "|---|---|---|"]
        for name, size, meaning in LAYOUT:
            lines.append(f"| `{name}` | {size} | {meaning} |")
        lines.append(f"| **total** | **{SIZE}** | |")
        return "\n".join(lines)



def _encode_tracks(tracks: tuple[tuple[int, ...], ...], seat_orders: np.ndarray) -> list[bytes]:
    """Per observing seat, the whole numbers of its ``tracks``, ``track_scoring``,
    ``category_claimed`` and ``scores`` slices (contiguous), egocentric and padded."""
    n = len(tracks)
    values = np.array(tracks, dtype=np.int64)[seat_orders]  # (seat, relative seat, category)
    scoring = values >= TRACK_SCORING_MIN
    parts = np.zeros((n, _start("scores") + S - _start("tracks")), dtype=np.uint8)
    parts[:, : n * NUM_CATEGORIES] = values.reshape(n, -1)
    parts[:, _T_SCORING : _T_SCORING + n * NUM_CATEGORIES] = scoring.reshape(n, -1)
    parts[:, _T_CLAIMED : _T_CLAIMED + NUM_CATEGORIES] = scoring[0].any(axis=0)
    parts[:, _T_SCORES : _T_SCORES + n] = (values * scoring).sum(axis=2)
    return [row.tobytes() for row in parts]


# ------------------------------------------------------------------------- global state

GLOBAL_EXTRA = (MAX_PLAYERS * NUM_CARD_TYPES) * 2 + NUM_CARD_TYPES * 2
GLOBAL_SIZE = SIZE + GLOBAL_EXTRA


def global_state(state: State, observer: Observer) -> np.ndarray:
    """The god's-eye array for centralised critics (never an agent's observation): seat 0's
    observation, then every seat's hand and discard (5 x 10 each, / copies), the pending reveal
    card of the player to move (one-hot 10) and the out-of-play cards (10, / copies)."""
    out = np.zeros(GLOBAL_SIZE, dtype=np.float32)
    observer.observe(state.player_view(0), out[:SIZE])
    inv = np.array(_INV_COPIES, dtype=np.float32)
    base = SIZE
    for seat, hand in enumerate(state.hands):
        out[base + seat * NUM_CARD_TYPES : base + (seat + 1) * NUM_CARD_TYPES] = np.array(hand) * inv
    base += MAX_PLAYERS * NUM_CARD_TYPES
    for seat, card in enumerate(state.discards):
        if card is not None:
            out[base + seat * NUM_CARD_TYPES + card] = 1.0
    base += MAX_PLAYERS * NUM_CARD_TYPES
    if state.pending_reveal is not None:
        out[base + state.pending_reveal] = 1.0
    base += NUM_CARD_TYPES
    out_of_play = [0] * NUM_CARD_TYPES
    for card in state.out_of_play:
        out_of_play[card] += 1
    out[base : base + NUM_CARD_TYPES] = np.array(out_of_play) * inv
    return out
