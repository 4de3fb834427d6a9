"""Hand-set Members Only positions for the rule tests, and shared deals for the batched engine's tests."""

from __future__ import annotations

from collections import Counter

import numpy as np

from club_envs.members_only import actions as A
from club_envs.members_only.engine import BET, DISCARD, REVEAL, State, deal_from_deck
from club_envs.members_only.rules import Config, full_deck, parse_card


def cards(text: str) -> list[int]:
    """``"umbrella*3 hat-no crown"`` -> card types."""
    out = []
    for word in text.split():
        name, _, times = word.partition("*")
        out += [parse_card(name)] * int(times or 1)
    return out


def make_deal(num_players: int, hands: list[str], face_up: str, start_player: int = 0) -> dict:
    """A deal with the given hands and face-up cards; every other card is out of play."""
    size = Config(num_players=num_players).hand_size
    dealt = [cards(h) for h in hands]
    assert all(len(h) == size for h in dealt), f"hands must hold {size} cards each"
    shown = cards(face_up)
    rest = Counter(full_deck())
    rest.subtract(Counter(c for h in dealt for c in h))
    rest.subtract(Counter(shown))
    assert all(v >= 0 for v in rest.values()), "more copies of a card than the deck holds"
    out_of_play = sorted(rest.elements())
    return {"hands": dealt, "face_up": shown, "out_of_play": out_of_play, "start_player": start_player}


FILLER_ORDER = ("big_ben", "hat", "teacup", "big_ben-no", "hat-no", "teacup-no")


def filler_hands(num_players: int, given: dict[int, str] | None = None, face_up: str = "teacup teacup") -> list[str]:
    """Hands as given for some seats; the others filled with big_ben, hat and teacup cards (then
    their NO! cards), so a test controls the umbrella and crown counts exactly."""
    size = Config(num_players=num_players).hand_size
    given = given or {}
    left = Counter({parse_card(name): 11 if "-" not in name else 2 for name in FILLER_ORDER})
    left.subtract(Counter(c for text in given.values() for c in cards(text)))
    left.subtract(Counter(cards(face_up)))
    pool = [name for name in FILLER_ORDER for _ in range(max(0, left[parse_card(name)]))]
    hands = []
    for seat in range(num_players):
        if seat in given:
            hands.append(given[seat])
        else:
            hands.append(" ".join(pool[:size]))
            pool = pool[size:]
    return hands


def state_with(num_players: int, hands: list[str], face_up: str = "teacup teacup", heats: int = 1, **config) -> State:
    """A fresh game whose first ``heats`` heats are dealt exactly as given (the same deal each)."""
    deal = make_deal(num_players, hands, face_up)
    return State(Config(num_players=num_players, **config), seed=0, deals=[deal] * heats)


def play_default(state: State, until=lambda s: False, bets=None, reveals=None, discards=None) -> None:
    """Advance with simple choices until ``until(state)`` or the game is over: no bet (or
    ``bets[(heat, round, seat)]``), reveal the lowest card type (or ``reveals[seat]``'s next card
    in hand), discard the highest card type (or ``discards[seat]``)."""
    bets = bets or {}
    while not state.is_over and not until(state):
        seat = state.current_player
        hand = state.hands[seat]
        if state.phase == BET:
            action = bets.get((state.heat, state.round, seat), A.NO_BET)
        elif state.phase == REVEAL:
            preferred = [c for c in (reveals or {}).get(seat, []) if hand[c]]
            card = preferred[0] if preferred else min(c for c in range(10) if hand[c])
            action = A.encode_reveal(card)
        else:
            assert state.phase == DISCARD
            wanted = (discards or {}).get(seat)
            card = wanted if wanted is not None and hand[wanted] else max(c for c in range(10) if hand[c])
            action = A.encode_discard(card)
        state.apply_action(action)


def random_decks(rng: np.random.Generator, count: int, heats: int) -> np.ndarray:
    """(count, heats, 65) shuffled decks: one deck order per game and heat."""
    deck = np.broadcast_to(np.array(full_deck(), np.int8), (count, heats, len(full_deck())))
    return rng.permuted(deck, axis=2)


def reference_game(config: Config, decks: np.ndarray, start_player: int) -> State:
    """A reference game dealt from one game's decks (heat by heat), as the batched engine deals them."""
    deals = []
    for deck in decks:
        hands, face_up, out_of_play = deal_from_deck(deck.tolist(), config)
        deals.append({"hands": hands, "face_up": face_up, "out_of_play": out_of_play})
    deals[0]["start_player"] = start_player
    return State(config, deals=deals)
