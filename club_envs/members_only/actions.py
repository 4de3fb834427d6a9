"""The flat ``Discrete(101)`` action layout of Members Only.

| actions | meaning |
|---|---|
| 0-79 | bet: ``(category * 8 + space) * 2 + chip`` (category 0-4 umbrella..hat, space 0-7 ``<=1``..``>=8``, chip 0 single / 1 double) |
| 80 | no bet this turn |
| 81-90 | reveal one card of type ``a - 81`` (0-4 a normal card of that category, 5-9 its NO! card) |
| 91-100 | end-of-heat discard of one card of type ``a - 91`` |

A turn is one bet decision (a bet or "no bet"), then -- outside the first round -- two reveal
decisions, one card each. At the end of a heat each player makes one discard decision.
"""

from __future__ import annotations

from club_envs.members_only.rules import (
    CATEGORIES,
    CHIP_TYPES,
    NUM_CARD_TYPES,
    NUM_CATEGORIES,
    NUM_SPACES,
    SPACES,
    card_name,
    parse_card,
)

NUM_BETS = NUM_CATEGORIES * NUM_SPACES * 2  # 80
NO_BET = NUM_BETS  # 80
REVEAL_BASE = NO_BET + 1  # 81
DISCARD_BASE = REVEAL_BASE + NUM_CARD_TYPES  # 91
NUM_ACTIONS = DISCARD_BASE + NUM_CARD_TYPES  # 101


def encode_bet(category: int, space: int, chip: int) -> int:
    return (category * NUM_SPACES + space) * 2 + chip


def decode_bet(action: int) -> tuple[int, int, int]:
    """``(category, space, chip)`` of a bet action."""
    spot, chip = divmod(action, 2)
    category, space = divmod(spot, NUM_SPACES)
    return category, space, chip


def encode_reveal(card: int) -> int:
    return REVEAL_BASE + card


def encode_discard(card: int) -> int:
    return DISCARD_BASE + card


def is_bet(action: int) -> bool:
    return 0 <= action < NUM_BETS


def is_reveal(action: int) -> bool:
    return REVEAL_BASE <= action < DISCARD_BASE


def is_discard(action: int) -> bool:
    return DISCARD_BASE <= action < NUM_ACTIONS


def action_to_string(action: int) -> str:
    """A short readable code: ``"bet crown >=6 double"``, ``"no bet"``, ``"reveal hat-no"``,
    ``"discard teacup"``."""
    action = int(action)
    if is_bet(action):
        category, space, chip = decode_bet(action)
        return f"bet {CATEGORIES[category]} {SPACES[space]} {CHIP_TYPES[chip]}"
    if action == NO_BET:
        return "no bet"
    if is_reveal(action):
        return f"reveal {card_name(action - REVEAL_BASE)}"
    if is_discard(action):
        return f"discard {card_name(action - DISCARD_BASE)}"
    raise ValueError(f"action {action} is outside the action space 0..{NUM_ACTIONS - 1}")


def parse_action(text: str) -> int:
    """The action for a typed command (the inverse of :func:`action_to_string`) or a number.

    ``"bet crown >=6"`` means a single chip; ``"pass"`` is accepted for ``"no bet"``.
    """
    words = text.strip().lower().split()
    if not words:
        raise ValueError("empty action; type e.g. 'bet crown >=6 double', 'no bet', 'reveal hat-no', 'discard teacup'")
    if len(words) == 1 and words[0].isdigit():
        action = int(words[0])
        if action >= NUM_ACTIONS:
            raise ValueError(f"action {action} is outside the action space 0..{NUM_ACTIONS - 1}")
        return action
    verb = words[0]
    if verb == "bet" and len(words) in (3, 4):
        from club_envs.members_only.rules import parse_category, parse_space

        chip = words[3] if len(words) == 4 else "single"
        if chip not in CHIP_TYPES:
            raise ValueError(f"chip {chip!r} is not a chip type; expected one of {', '.join(CHIP_TYPES)}")
        return encode_bet(parse_category(words[1]), parse_space(words[2]), CHIP_TYPES.index(chip))
    if words in (["no", "bet"], ["pass"], ["nobet"]):
        return NO_BET
    if verb == "reveal" and len(words) == 2:
        return encode_reveal(parse_card(words[1]))
    if verb == "discard" and len(words) == 2:
        return encode_discard(parse_card(words[1]))
    raise ValueError(
        f"cannot read action {text!r}; expected 'bet <category> <space> [single|double]', 'no bet', "
        "'reveal <card>' or 'discard <card>' (cards: category or category-no)"
    )
