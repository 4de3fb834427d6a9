"""The batched Members Only engine: N games in numpy arrays, every rule a compiled function.

:mod:`club_envs.members_only.engine` is the reference and the readable statement of the rules; this
module plays the same game on many tables at once, for training and evaluation at array speed. The
state of all games is one :class:`Tables` (a struct of arrays, indexed by game first); each rule of
docs/rules/members_only.md is one ``@compiled`` function below, named like its counterpart in the
reference engine and taking the tables and a game index ``g``. :class:`VectorGames` owns the arrays
and steps all games per call. ``tests/members_only/test_vector_engine.py`` replays its games move by
move on the reference engine, compiled and with ``NUMBA_DISABLE_JIT=1`` (the same code as plain
Python, for stepping through in a debugger).

Differences from the reference, all outside the rules: the shuffles come from one small generator
per game (:mod:`club_envs.members_only.vector_rng`), not numpy's ``Generator``, so a seed gives other
(equally random) games; :meth:`VectorGames.reset` takes explicit decks to play given deals. There is
no record and no forfeit: an illegal action raises before any game moves.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from club_envs.members_only.compiled import compiled

from club_envs.errors import IllegalActionError
from club_envs.members_only import actions as A
from club_envs.members_only.engine import BET, DISCARD, OVER, PHASES, REVEAL
from club_envs.members_only.rules import (
    DECK_SIZE,
    DOUBLE_CHIPS,
    FACE_UP_CARDS,
    NUM_CARD_TYPES,
    NUM_CATEGORIES,
    NUM_SPACES,
    SINGLE_CHIPS,
    SPACE_IS_AT_MOST,
    SPACE_THRESHOLD,
    TRACK_MAX,
    TRACK_SCORING_MIN,
    Config,
    full_deck,
)
from club_envs.members_only.vector_rng import draw, seed_states

NUM_SPOTS = NUM_CATEGORIES * NUM_SPACES
NO_SEAT = -1  # current player of a finished game, owner of an empty space, no card picked
# Why a game ended (Tables.reason); PLAYING while it goes on.
PLAYING, ENDED_BY_TRACKS, ENDED_BY_MAX_HEATS = 0, 1, 2

_FULL_DECK = np.array(full_deck(), dtype=np.int8)
_THRESHOLD = np.array(SPACE_THRESHOLD, dtype=np.int64)
_AT_MOST = np.array(SPACE_IS_AT_MOST, dtype=np.bool_)


class Tables(NamedTuple):
    """The state of N games, one row per game (``n``: the players at every table).

    Per game: ``heat``, ``round``, ``phase`` (BET, REVEAL, DISCARD, OVER), ``turn`` (turns taken in
    the round), ``current`` (seat to move, -1 once over), ``start`` (the heat's start player),
    ``reason`` (PLAYING, ENDED_BY_TRACKS, ENDED_BY_MAX_HEATS), ``pending`` (the mover's first card of
    a two-card reveal, or -1). Per seat: ``chips`` (n, 2: single, double in hand), ``tracks`` (n, 5),
    ``hands`` (n, 10: count per card type), ``hand_sizes`` (n: the public sizes, see the reference's
    ``State.hand_sizes``), ``revealed_by`` (n, 10), ``discards`` (n: card or -1), ``heat_points``
    (n: points scored in the latest settlement). Per space (40, category-major): ``board_owner``
    (seat or -1), ``board_chip`` (0 single / 1 double), ``board_risk``; ``bet_spots`` (40: the
    occupied spaces in placement order, the first ``bet_count`` of them -- the reference's
    ``View.bets`` order, which the heuristic bot's sums follow). Per card type: ``display``,
    ``face_up``. Dealing: ``rng`` (the game's generator), ``deck`` (this heat's deck order),
    ``given_decks`` (H, 65) and ``given_heats`` (heats 1..given_heats are dealt from it).
    """

    heat: np.ndarray
    round: np.ndarray
    phase: np.ndarray
    turn: np.ndarray
    current: np.ndarray
    start: np.ndarray
    reason: np.ndarray
    pending: np.ndarray
    chips: np.ndarray
    tracks: np.ndarray
    hands: np.ndarray
    hand_sizes: np.ndarray
    revealed_by: np.ndarray
    discards: np.ndarray
    heat_points: np.ndarray
    board_owner: np.ndarray
    board_chip: np.ndarray
    board_risk: np.ndarray
    bet_spots: np.ndarray
    bet_count: np.ndarray
    display: np.ndarray
    face_up: np.ndarray
    rng: np.ndarray
    deck: np.ndarray
    given_decks: np.ndarray
    given_heats: np.ndarray


class Rules(NamedTuple):
    """The options of a :class:`~club_envs.members_only.rules.Config`, as the compiled code reads them."""

    num_players: int
    hand_size: int
    rounds_per_heat: int
    max_heats: int
    random_start_player: bool
    rewards: np.ndarray  # int64, per space <=1..>=8


def rules_of(config: Config) -> Rules:
    return Rules(
        config.num_players,
        config.hand_size,
        config.rounds_per_heat,
        config.max_heats,
        config.random_start_player,
        np.array(config.rewards, dtype=np.int64),
    )


def allocate_tables(num_games: int, num_players: int, given_heats: int = 0) -> Tables:
    """Arrays for ``num_games`` games (contents set by :func:`reset_game`)."""
    g, n = num_games, num_players
    small = np.int8
    return Tables(
        heat=np.zeros(g, np.int32),
        round=np.zeros(g, small),
        phase=np.full(g, OVER, small),
        turn=np.zeros(g, small),
        current=np.full(g, NO_SEAT, small),
        start=np.zeros(g, small),
        reason=np.zeros(g, small),
        pending=np.full(g, NO_SEAT, small),
        chips=np.zeros((g, n, 2), small),
        tracks=np.zeros((g, n, NUM_CATEGORIES), small),
        hands=np.zeros((g, n, NUM_CARD_TYPES), small),
        hand_sizes=np.zeros((g, n), small),
        revealed_by=np.zeros((g, n, NUM_CARD_TYPES), small),
        discards=np.full((g, n), NO_SEAT, small),
        heat_points=np.zeros((g, n), np.int16),
        board_owner=np.full((g, NUM_SPOTS), NO_SEAT, small),
        board_chip=np.zeros((g, NUM_SPOTS), small),
        board_risk=np.zeros((g, NUM_SPOTS), small),
        bet_spots=np.zeros((g, NUM_SPOTS), small),
        bet_count=np.zeros(g, small),
        display=np.zeros((g, NUM_CARD_TYPES), small),
        face_up=np.zeros((g, NUM_CARD_TYPES), small),
        rng=np.ones(g, np.uint64),
        deck=np.zeros((g, DECK_SIZE), small),
        given_decks=np.zeros((g, given_heats, DECK_SIZE), small),
        given_heats=np.zeros(g, np.int32),
    )


# --------------------------------------------------------------------------- rules, one each


@compiled
def refill_chips(t: Tables, g: int, n: int) -> None:
    """Start of a heat, rule 1: every player who holds one chip or none gets all 5 chips back
    (4 single + 1 double); everyone else keeps what they still have."""
    for seat in range(n):
        if t.chips[g, seat, 0] + t.chips[g, seat, 1] <= 1:
            t.chips[g, seat, 0] = SINGLE_CHIPS
            t.chips[g, seat, 1] = DOUBLE_CHIPS


@compiled
def shuffle_deck(t: Tables, g: int) -> None:
    """All 65 cards in a uniformly random order (Fisher-Yates on the game's generator)."""
    deck = t.deck[g]
    for i in range(DECK_SIZE):
        deck[i] = _FULL_DECK[i]
    for i in range(DECK_SIZE - 1, 0, -1):
        j = draw(t.rng, g, i + 1)
        deck[i], deck[j] = deck[j], deck[i]


@compiled
def deal_heat(t: Tables, r: Rules, g: int) -> None:
    """Start of a heat, rules 2-4, from the heat's deck order (the reference's ``deal_from_deck``):
    11/9/7 cards each (3/4/5 players) from the top, the next 2 face up into the display; the rest
    are out of play, unseen by anyone."""
    heat = t.heat[g]
    if heat <= t.given_heats[g]:
        for i in range(DECK_SIZE):
            t.deck[g, i] = t.given_decks[g, heat - 1, i]
    else:
        shuffle_deck(t, g)
    deck = t.deck[g]
    n, size = r.num_players, r.hand_size
    t.hands[g] = 0
    for seat in range(n):
        for i in range(seat * size, (seat + 1) * size):
            t.hands[g, seat, deck[i]] += 1
        t.hand_sizes[g, seat] = size
    t.face_up[g] = 0
    t.display[g] = 0
    for i in range(n * size, n * size + FACE_UP_CARDS):
        t.face_up[g, deck[i]] += 1
        t.display[g, deck[i]] += 1


@compiled
def first_start_player(t: Tables, r: Rules, g: int) -> int:
    """Start player of heat 1. **Ruling R2**: seat 0, unless the ``random_start_player`` option."""
    return draw(t.rng, g, r.num_players) if r.random_start_player else 0


@compiled
def next_start_player(start_player: int, num_players: int) -> int:
    """Each later heat is started by the player to the left (next seat clockwise)."""
    return (start_player + 1) % num_players


@compiled
def category_count(display: np.ndarray, category: int) -> int:
    """The count of a category: its uncancelled normal cards (max(0, normal - NO!))."""
    return max(0, display[category] - display[NUM_CATEGORIES + category])


@compiled
def waiting_no_cards(display: np.ndarray, category: int) -> int:
    """NO! cards in the display with no normal card to cancel yet."""
    return max(0, display[NUM_CATEGORIES + category] - display[category])


@compiled
def bet_is_correct(space: int, count: int) -> bool:
    """"k or less" is correct when count <= k; "k or more" when count >= k."""
    threshold = _THRESHOLD[space]
    return count <= threshold if _AT_MOST[space] else count >= threshold


@compiled
def chip_multiplier(chip: int, risk: int) -> int:
    """1 single, 2 double, 2 single on the risk marker, **3** double on the risk marker."""
    if risk:
        return 3 if chip else 2
    return 2 if chip else 1


@compiled
def settle_heat(t: Tables, r: Rules, g: int) -> None:
    """Settlement: a correct chip scores reward x multiplier on its category track (capped at 10,
    the excess lost) and returns to its owner; a wrong chip is removed from the game. The board is
    cleared; ``heat_points`` holds what each seat scored."""
    t.heat_points[g] = 0
    for spot in range(NUM_SPOTS):
        seat = t.board_owner[g, spot]
        if seat == NO_SEAT:
            continue
        category, space = spot // NUM_SPACES, spot % NUM_SPACES
        if bet_is_correct(space, category_count(t.display[g], category)):
            chip = t.board_chip[g, spot]
            before = t.tracks[g, seat, category]
            after = min(TRACK_MAX, before + r.rewards[space] * chip_multiplier(chip, t.board_risk[g, spot]))
            t.tracks[g, seat, category] = after
            t.heat_points[g, seat] += after - before
            t.chips[g, seat, chip] += 1
        t.board_owner[g, spot] = NO_SEAT
        t.board_chip[g, spot] = 0
        t.board_risk[g, spot] = 0
    t.bet_count[g] = 0


@compiled
def game_is_over(t: Tables, g: int, n: int) -> bool:
    """After settlement: the game ends when every one of the 5 tracks has at least one marker (of
    any player) at 5 or more."""
    for category in range(NUM_CATEGORIES):
        claimed = False
        for seat in range(n):
            if t.tracks[g, seat, category] >= TRACK_SCORING_MIN:
                claimed = True
        if not claimed:
            return False
    return True


@compiled
def final_score(t: Tables, g: int, seat: int) -> int:
    """A player's score: the sum of their markers at 5 or more; markers at 1-4 count nothing."""
    total = 0
    for category in range(NUM_CATEGORIES):
        value = t.tracks[g, seat, category]
        if value >= TRACK_SCORING_MIN:
            total += value
    return total


@compiled
def winners_of(t: Tables, g: int, n: int, out: np.ndarray) -> None:
    """Highest score wins. **Ruling R5**: equal scores share the win. ``out[seat]``: a winner."""
    best = -1
    for seat in range(n):
        best = max(best, final_score(t, g, seat))
    for seat in range(n):
        out[seat] = final_score(t, g, seat) == best


# --------------------------------------------------------------------------- heat structure


@compiled
def start_heat(t: Tables, r: Rules, g: int) -> None:
    """Heat start: the start player moves clockwise (after heat 1), chips are refilled, the cards
    dealt; the first round begins with the start player."""
    n = r.num_players
    t.heat[g] += 1
    if t.heat[g] > 1:
        t.start[g] = next_start_player(t.start[g], n)
        refill_chips(t, g, n)
    deal_heat(t, r, g)
    t.revealed_by[g] = 0
    t.discards[g] = NO_SEAT
    t.pending[g] = NO_SEAT
    t.round[g] = 1
    t.turn[g] = 0
    t.phase[g] = BET
    t.current[g] = t.start[g]


@compiled
def reset_game(t: Tables, r: Rules, g: int, start_player: int) -> None:
    """A new game at table ``g``: full chips, empty tracks and board, heat 1 dealt. A
    ``start_player`` below 0 draws heat 1's start player by :func:`first_start_player`."""
    t.heat[g] = 0
    t.reason[g] = PLAYING
    t.chips[g, :, 0] = SINGLE_CHIPS
    t.chips[g, :, 1] = DOUBLE_CHIPS
    t.tracks[g] = 0
    t.heat_points[g] = 0
    t.board_owner[g] = NO_SEAT
    t.board_chip[g] = 0
    t.board_risk[g] = 0
    t.bet_count[g] = 0
    t.start[g] = first_start_player(t, r, g) if start_player < 0 else start_player
    start_heat(t, r, g)


@compiled
def end_turn(t: Tables, r: Rules, g: int) -> None:
    """Play goes clockwise from the start player; after the last revealing round the heat ends
    (every player holds 3 cards) and the discards begin. **Ruling R4**: players choose their
    discard in seat order."""
    n = r.num_players
    t.turn[g] += 1
    if t.turn[g] == n:
        t.turn[g] = 0
        if t.round[g] == r.rounds_per_heat:
            t.phase[g] = DISCARD
            t.current[g] = 0
            return
        t.round[g] += 1
    t.phase[g] = BET
    t.current[g] = (t.start[g] + t.turn[g]) % n


@compiled
def end_game(t: Tables, g: int, reason: int) -> None:
    t.phase[g] = OVER
    t.current[g] = NO_SEAT
    t.reason[g] = reason


@compiled
def end_heat(t: Tables, r: Rules, g: int) -> None:
    """After every discard: the kept cards go to the display, the heat is settled, and the game
    ends (every track claimed; or **ruling R6**, the ``max_heats`` safety net, a truncation) or the
    next heat starts."""
    n = r.num_players
    for seat in range(n):
        for card in range(NUM_CARD_TYPES):
            kept = t.hands[g, seat, card]
            t.display[g, card] += kept
            t.revealed_by[g, seat, card] += kept
            t.hands[g, seat, card] = 0
        t.hand_sizes[g, seat] = 0
    settle_heat(t, r, g)
    if game_is_over(t, g, n):
        end_game(t, g, ENDED_BY_TRACKS)
    elif t.heat[g] >= r.max_heats:
        end_game(t, g, ENDED_BY_MAX_HEATS)
    else:
        start_heat(t, r, g)


# --------------------------------------------------------------------------- turns


@compiled
def place_bet(t: Tables, r: Rules, g: int, seat: int, action: int) -> None:
    """A turn **may** place one chip on an empty space. In the first round of a heat the chip goes
    on the player's risk marker and no cards are revealed. **Ruling R3**: the risk marker can only
    be used in the first round."""
    first_round = t.round[g] == 1
    if action != A.NO_BET:
        spot, chip = action >> 1, action & 1
        t.board_owner[g, spot] = seat
        t.board_chip[g, spot] = chip
        t.board_risk[g, spot] = first_round
        t.bet_spots[g, t.bet_count[g]] = spot
        t.bet_count[g] += 1
        t.chips[g, seat, chip] -= 1
    if first_round:
        end_turn(t, r, g)
    else:
        t.phase[g] = REVEAL


@compiled
def reveal_card(t: Tables, r: Rules, g: int, seat: int, card: int) -> None:
    """A turn **must** reveal 2 cards from hand into the display (one decision per card; both reach
    the display together after the second, and the hand's public size drops then)."""
    t.hands[g, seat, card] -= 1
    first = t.pending[g]
    if first == NO_SEAT:
        t.pending[g] = card
        return
    t.pending[g] = NO_SEAT
    t.display[g, first] += 1
    t.display[g, card] += 1
    t.revealed_by[g, seat, first] += 1
    t.revealed_by[g, seat, card] += 1
    t.hand_sizes[g, seat] -= 2
    end_turn(t, r, g)


@compiled
def discard_card(t: Tables, r: Rules, g: int, seat: int, card: int) -> None:
    """End of the heat: each player secretly discards 1 of their 3 cards (out of play, never
    counted); the other 2 go to the display once everyone has chosen."""
    t.hands[g, seat, card] -= 1
    t.discards[g, seat] = card
    if seat + 1 < r.num_players:
        t.current[g] = seat + 1
    else:
        end_heat(t, r, g)


@compiled
def apply_action(t: Tables, r: Rules, g: int, action: int) -> None:
    """Play a legal ``action`` for game ``g``'s player to move."""
    seat = t.current[g]
    phase = t.phase[g]
    if phase == BET:
        place_bet(t, r, g, seat, action)
    elif phase == REVEAL:
        reveal_card(t, r, g, seat, action - A.REVEAL_BASE)
    elif phase == DISCARD:
        discard_card(t, r, g, seat, action - A.DISCARD_BASE)


# --------------------------------------------------------------------------- legal actions


@compiled
def is_legal(t: Tables, g: int, action: int) -> bool:
    """A bet needs an empty space and a chip of its kind in hand; "no bet" is always allowed; a
    reveal or discard needs the card in hand. Nothing is legal once the game is over."""
    # Plain ifs: numba compiles ``return a and b`` over array reads into a much slower path.
    phase = t.phase[g]
    seat = t.current[g]
    if phase == BET:
        if action == A.NO_BET:
            return True
        if action < 0 or action >= A.NUM_BETS:
            return False
        if t.board_owner[g, action >> 1] != NO_SEAT:
            return False
        return t.chips[g, seat, action & 1] > 0
    if phase == REVEAL:
        card = action - A.REVEAL_BASE
    elif phase == DISCARD:
        card = action - A.DISCARD_BASE
    else:
        return False
    if card < 0 or card >= NUM_CARD_TYPES:
        return False
    return t.hands[g, seat, card] > 0


@compiled
def legal_mask(t: Tables, g: int, out: np.ndarray) -> None:
    """Game ``g``'s legal actions as flags in ``out`` (length NUM_ACTIONS; all False once over)."""
    out[:] = False
    phase = t.phase[g]
    seat = t.current[g]
    if phase == BET:
        single, double = t.chips[g, seat, 0] > 0, t.chips[g, seat, 1] > 0
        for spot in range(NUM_SPOTS):
            if t.board_owner[g, spot] == NO_SEAT:
                out[2 * spot] = single
                out[2 * spot + 1] = double
        out[A.NO_BET] = True
    elif phase == REVEAL or phase == DISCARD:
        base = A.REVEAL_BASE if phase == REVEAL else A.DISCARD_BASE
        for card in range(NUM_CARD_TYPES):
            out[base + card] = t.hands[g, seat, card] > 0


# --------------------------------------------------------------------------- all games at once


@compiled
def reset_games(t: Tables, r: Rules, which: np.ndarray, start_players: np.ndarray) -> None:
    for g in range(which.shape[0]):
        if which[g]:
            reset_game(t, r, g, start_players[g])


@compiled
def first_illegal(t: Tables, actions: np.ndarray) -> int:
    """The first game still playing whose action is illegal, or -1."""
    for g in range(actions.shape[0]):
        if t.phase[g] != OVER and not is_legal(t, g, actions[g]):
            return g
    return -1


@compiled
def step_games(t: Tables, r: Rules, actions: np.ndarray) -> None:
    """Every game still playing takes its (legal) action; finished games are left as they are."""
    for g in range(actions.shape[0]):
        if t.phase[g] != OVER:
            apply_action(t, r, g, actions[g])


@compiled
def legal_masks(t: Tables, out: np.ndarray) -> None:
    for g in range(out.shape[0]):
        legal_mask(t, g, out[g])


@compiled
def score_all(t: Tables, r: Rules, scores: np.ndarray, winners: np.ndarray) -> None:
    """Every game's current scores (N, n) and who leads or has won (N, n flags)."""
    for g in range(scores.shape[0]):
        for seat in range(r.num_players):
            scores[g, seat] = final_score(t, g, seat)
        winners_of(t, g, r.num_players, winners[g])


# --------------------------------------------------------------------------- the owner of the arrays


class VectorGames:
    """N games of Members Only at one table size, stepped together.

    ``reset`` deals every game (from ``seed``, or from given decks); ``step(actions)`` plays one
    action in every game still going (an ``(N,)`` integer array; entries of finished games are
    ignored); ``reset_games(mask)`` starts new games where ``mask`` is set. ``current_player`` is -1
    for a finished game. Observations come from
    :class:`~club_envs.members_only.vector_observer.VectorObserver`.
    """

    def __init__(self, config: Config, num_games: int, seed: int | None = None) -> None:
        if isinstance(num_games, bool) or not isinstance(num_games, (int, np.integer)) or num_games < 1:
            raise ValueError(f"num_games={num_games!r}: expected a whole number >= 1")
        self.config = config
        self.num_games = int(num_games)
        self.num_players = config.num_players
        self.rules = rules_of(config)
        self.tables = allocate_tables(self.num_games, self.num_players)
        self._mask = np.zeros((self.num_games, A.NUM_ACTIONS), dtype=np.bool_)
        self.reset(seed=seed)

    def reset(
        self,
        seed: int | None = None,
        decks: np.ndarray | None = None,
        start_players: np.ndarray | None = None,
    ) -> None:
        """New games everywhere. ``seed`` seeds each game's generator. ``decks`` (N, H, 65): the
        deck order of heats 1..H of every game (dealt as the reference's ``deal_from_deck``; later
        heats are shuffled). ``start_players`` (N,): heat 1's start player of every game (seat 0
        unless the ``random_start_player`` option, as with the reference's ``deals``)."""
        n, count = self.num_players, self.num_games
        heats = 0 if decks is None else self._check_decks(decks)
        if heats != self.tables.given_decks.shape[1]:
            self.tables = self.tables._replace(given_decks=np.zeros((count, heats, DECK_SIZE), np.int8))
        t = self.tables
        t.rng[:] = seed_states(seed, count)
        if decks is not None:
            t.given_decks[:] = decks
        t.given_heats[:] = heats
        if start_players is None:
            start = np.full(count, NO_SEAT, np.int64)
        else:
            start = np.asarray(start_players, dtype=np.int64)
            if start.shape != (count,) or start.min() < 0 or start.max() >= n:
                raise ValueError(f"start_players must be {count} seats in 0..{n - 1}")
            if not self.config.random_start_player and start.any():
                raise ValueError("heat 1 is started by seat 0 unless random_start_player is set")
        reset_games(t, self.rules, np.ones(count, np.bool_), start)

    def _check_decks(self, decks: np.ndarray) -> int:
        decks = np.asarray(decks)
        if decks.ndim != 3 or decks.shape[0] != self.num_games or decks.shape[2] != DECK_SIZE:
            raise ValueError(f"decks must have shape ({self.num_games}, heats, {DECK_SIZE}), got {decks.shape}")
        if decks.size and not (np.sort(decks, axis=2) == _FULL_DECK).all():
            raise ValueError("every deck must hold the 65 cards, each once")
        return decks.shape[1]

    def reset_games(self, mask: np.ndarray) -> None:
        """New games (shuffled from each game's generator) where ``mask`` is set."""
        mask = np.asarray(mask, dtype=np.bool_)
        self.tables.given_heats[mask] = 0
        reset_games(self.tables, self.rules, mask, np.full(self.num_games, NO_SEAT, np.int64))

    def step(self, actions: np.ndarray) -> None:
        """One action per game; :class:`IllegalActionError` (naming the game and its legal actions)
        leaves every game as it was."""
        step_games(self.tables, self.rules, self.check_actions(actions))

    def check_actions(self, actions: np.ndarray) -> np.ndarray:
        """``actions`` as int64 if each game still playing can take its own; otherwise
        :class:`IllegalActionError` naming the (first) game at fault and its legal actions."""
        actions = np.asarray(actions)
        if actions.shape != (self.num_games,) or not np.issubdtype(actions.dtype, np.integer):
            raise IllegalActionError(
                f"actions must be {self.num_games} whole numbers, one per game; got shape {actions.shape}, "
                f"dtype {actions.dtype}"
            )
        actions = actions.astype(np.int64, copy=False)
        bad = first_illegal(self.tables, actions)
        if bad >= 0:
            legal = np.flatnonzero(self.legal_masks()[bad])
            phase = PHASES[self.tables.phase[bad]]
            raise IllegalActionError(
                f"game {bad}: action {actions[bad]} is not legal for seat {self.tables.current[bad]} in the "
                f"{phase} phase; legal actions: {', '.join(map(str, legal))}"
            )
        return actions

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
        return self.tables.phase == OVER

    @property
    def is_terminal(self) -> np.ndarray:
        return self.tables.reason == ENDED_BY_TRACKS

    @property
    def is_truncated(self) -> np.ndarray:
        return self.tables.reason == ENDED_BY_MAX_HEATS

    def scores(self) -> tuple[np.ndarray, np.ndarray]:
        """``(scores, winners)``: (N, n) current scores and (N, n) flags of the leaders (the
        winners, ruling R5, once a game is over)."""
        scores = np.zeros((self.num_games, self.num_players), np.int64)
        winners = np.zeros((self.num_games, self.num_players), np.bool_)
        score_all(self.tables, self.rules, scores, winners)
        return scores, winners
