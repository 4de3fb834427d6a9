"""Members Only: the components, the per-player-count tables, and the play options.

Everything here is a static fact of the rulebook (docs/rules/members_only.md); the dynamic
game lives in :mod:`club_envs.members_only.engine`.

Cards are integers 0..9 naming a card *type*: ``category`` (0..4) for a normal card and
``5 + category`` for a NO! card. The deck holds 11 normal and 2 NO! cards of each category.
Betting spaces are integers 0..7 in board order ``<=1, <=2, <=3, <=4, >=5, >=6, >=7, >=8``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from club_envs.errors import ConfigError

GAME_NAME = "members_only"
PLAYER_COUNTS = (3, 4, 5)
MAX_PLAYERS = max(PLAYER_COUNTS)

CATEGORIES = ("umbrella", "crown", "teacup", "big_ben", "hat")
NUM_CATEGORIES = len(CATEGORIES)
NORMAL_PER_CATEGORY = 11
NO_PER_CATEGORY = 2
DECK_SIZE = NUM_CATEGORIES * (NORMAL_PER_CATEGORY + NO_PER_CATEGORY)  # 65
NUM_CARD_TYPES = 2 * NUM_CATEGORIES  # normal 0..4, NO! 5..9
COPIES_PER_TYPE = (NORMAL_PER_CATEGORY,) * NUM_CATEGORIES + (NO_PER_CATEGORY,) * NUM_CATEGORIES

SPACES = ("<=1", "<=2", "<=3", "<=4", ">=5", ">=6", ">=7", ">=8")
NUM_SPACES = len(SPACES)
SPACE_THRESHOLD = (1, 2, 3, 4, 5, 6, 7, 8)
SPACE_IS_AT_MOST = (True, True, True, True, False, False, False, False)
DEFAULT_REWARDS = (5, 3, 2, 1, 1, 2, 3, 5)  # the printed board, the same for every category

CHIP_TYPES = ("single", "double")
SINGLE, DOUBLE = 0, 1
SINGLE_CHIPS = 4
DOUBLE_CHIPS = 1

HAND_SIZE_BY_PLAYERS = {3: 11, 4: 9, 5: 7}
FACE_UP_CARDS = 2
CARDS_LEFT_AT_HEAT_END = 3
CARDS_PER_REVEAL = 2
TRACK_MAX = 10
TRACK_SCORING_MIN = 5  # markers at 1-4 count nothing; 5-10 count their value
# The largest reward and heat limit: what a record holds (64-bit integers, the schema's maximum),
# so a game that can be configured can also be saved.
MAX_RECORD_INT = 2**63 - 1


def revealing_rounds(num_players: int) -> int:
    """Rounds with reveals after the first round: 4, 3, 2 for 3, 4, 5 players."""
    return (HAND_SIZE_BY_PLAYERS[num_players] - CARDS_LEFT_AT_HEAT_END) // CARDS_PER_REVEAL


def card_category(card: int) -> int:
    return card % NUM_CATEGORIES


def card_is_no(card: int) -> bool:
    return card >= NUM_CATEGORIES


def card_name(card: int) -> str:
    """The record's card string: ``"hat"`` for a normal card, ``"hat-no"`` for a NO! card."""
    name = CATEGORIES[card % NUM_CATEGORIES]
    return name + "-no" if card >= NUM_CATEGORIES else name


_CARD_BY_NAME = {card_name(c): c for c in range(NUM_CARD_TYPES)}


def parse_card(text: str) -> int:
    """The card type of a record card string; ``ValueError`` names the expected form."""
    try:
        return _CARD_BY_NAME[text]
    except KeyError:
        raise ValueError(
            f"unknown card {text!r}; expected a category ({', '.join(CATEGORIES)}), "
            "optionally followed by '-no' for a NO! card"
        ) from None


def parse_space(text: str) -> int:
    try:
        return SPACES.index(text)
    except ValueError:
        raise ValueError(f"space {text!r} is not a betting space; expected one of {', '.join(SPACES)}") from None


def parse_category(text: str) -> int:
    try:
        return CATEGORIES.index(text)
    except ValueError:
        raise ValueError(f"unknown category {text!r}; expected one of {', '.join(CATEGORIES)}") from None


def full_deck() -> list[int]:
    """The 65 cards, as card types, in a fixed order (shuffled by the engine)."""
    return [card for card in range(NUM_CARD_TYPES) for _ in range(COPIES_PER_TYPE[card])]


def _rewards_tuple(rewards: Any) -> tuple[int, ...]:
    if isinstance(rewards, Mapping):
        unknown = [k for k in rewards if k not in SPACES]
        missing = [s for s in SPACES if s not in rewards]
        if unknown or missing:
            raise ConfigError(
                f"rewards must map every betting space {', '.join(SPACES)} to points; "
                + (f"unknown {unknown}" if unknown else f"missing {missing}")
            )
        values = [rewards[s] for s in SPACES]
    elif isinstance(rewards, Sequence) and not isinstance(rewards, str):
        values = list(rewards)
        if len(values) != NUM_SPACES:
            raise ConfigError(f"rewards needs {NUM_SPACES} values (spaces {', '.join(SPACES)}), got {len(values)}")
    else:
        raise ConfigError(f"rewards={rewards!r}: expected a mapping space -> points or {NUM_SPACES} numbers")
    for space, value in zip(SPACES, values):
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_RECORD_INT:
            raise ConfigError(f"rewards[{space!r}]={value!r}: expected a whole number 0..{MAX_RECORD_INT}")
    return tuple(values)


@dataclass(frozen=True)
class Config:
    """Every option that changes play.

    num_players
        3, 4 or 5.
    rewards
        points printed on each betting space, in space order ``<=1 .. >=8`` (a sequence of 8
        whole numbers, or a mapping space string -> points). Default ``5,3,2,1,1,2,3,5``.
    max_heats
        the safety net: a game not ended after this many heats is truncated (default 30).
    random_start_player
        ``False`` (default, the ruling): seat 0 starts heat 1. ``True``: a seeded random seat.
    """

    num_players: int = 4
    rewards: tuple[int, ...] = DEFAULT_REWARDS
    max_heats: int = 30
    random_start_player: bool = False

    def __post_init__(self) -> None:
        if isinstance(self.num_players, bool) or self.num_players not in PLAYER_COUNTS:
            raise ConfigError(
                f"num_players={self.num_players!r} is not supported; expected one of "
                f"{', '.join(map(str, PLAYER_COUNTS))}"
            )
        object.__setattr__(self, "rewards", _rewards_tuple(self.rewards))
        if isinstance(self.max_heats, bool) or not isinstance(self.max_heats, int) or \
                not 1 <= self.max_heats <= MAX_RECORD_INT:
            raise ConfigError(f"max_heats={self.max_heats!r} is not allowed; expected a whole number 1..{MAX_RECORD_INT}")
        if not isinstance(self.random_start_player, bool):
            raise ConfigError(f"random_start_player={self.random_start_player!r}: expected True or False")

    @property
    def hand_size(self) -> int:
        return HAND_SIZE_BY_PLAYERS[self.num_players]

    @property
    def rounds_per_heat(self) -> int:
        """The first (betting-only) round plus the revealing rounds."""
        return 1 + revealing_rounds(self.num_players)

    def to_record(self) -> dict[str, Any]:
        return {
            "num_players": self.num_players,
            "rewards": dict(zip(SPACES, self.rewards)),
            "max_heats": self.max_heats,
            "random_start_player": self.random_start_player,
        }

    @classmethod
    def from_record(cls, data: dict[str, Any]) -> Config:
        return cls(
            num_players=data["num_players"],
            rewards=data["rewards"],
            max_heats=data["max_heats"],
            random_start_player=data.get("random_start_player", False),
        )
