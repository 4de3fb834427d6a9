"""What each of Members Only's 101 actions is, as numbers a network can read.

A policy with one output per action learns every action on its own: a bet of a double chip on
"crown >= 6" teaches it nothing about a single chip there, or about "crown >= 5". Monte-Carlo Q
learning with action features (DouZero's design, :mod:`club_envs.training.table_dmc`) instead
reads what an action *is* -- its kind, the category it concerns, the space's threshold and
direction, the chip, the card type -- so what it learns of one action carries over to the actions
that share those parts. The action's own one-hot is kept as well, so nothing is lost where actions
do differ.
"""

from __future__ import annotations

import numpy as np

from club_envs.members_only import actions as A
from club_envs.members_only.rules import NUM_CARD_TYPES, NUM_CATEGORIES, NUM_SPACES, SPACE_IS_AT_MOST, SPACE_THRESHOLD

KINDS = ("bet", "no bet", "reveal", "discard")


def action_features() -> np.ndarray:
    """``(101, F)`` float32 rows, one per action: the kind (4 one-hot), the category (5 one-hot:
    the bet's, or the revealed / discarded card's), the space (8 one-hot), its threshold / 8 and
    whether it is an "at most" space, the chip (2 one-hot), whether the card is a NO! card, and the
    action itself (101 one-hot)."""
    width = len(KINDS) + NUM_CATEGORIES + NUM_SPACES + 2 + 2 + 1
    out = np.zeros((A.NUM_ACTIONS, width + A.NUM_ACTIONS), np.float32)
    category_at, space_at = len(KINDS), len(KINDS) + NUM_CATEGORIES
    threshold_at = space_at + NUM_SPACES
    chip_at, no_at = threshold_at + 2, threshold_at + 4
    for action in range(A.NUM_ACTIONS):
        row = out[action]
        row[width + action] = 1.0
        if A.is_bet(action):
            category, space, chip = A.decode_bet(action)
            row[0] = row[category_at + category] = row[space_at + space] = row[chip_at + chip] = 1.0
            row[threshold_at] = SPACE_THRESHOLD[space] / NUM_SPACES
            row[threshold_at + 1] = float(SPACE_IS_AT_MOST[space])
        elif action == A.NO_BET:
            row[1] = 1.0
        else:
            kind, card = (2, action - A.REVEAL_BASE) if A.is_reveal(action) else (3, action - A.DISCARD_BASE)
            row[kind] = row[category_at + card % NUM_CATEGORIES] = 1.0
            row[no_at] = float(card >= NUM_CARD_TYPES // 2)
    return out
