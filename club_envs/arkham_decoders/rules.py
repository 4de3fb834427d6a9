"""Arkham Decoders Club: the components, the per-player-count tables, and the play options.

Everything here is a static fact of the rulebook (docs/rules/arkham_decoders_club.md); the
dynamic game lives in :mod:`club_envs.arkham_decoders.engine`.

Cards are integers 0..23: ``card = book * 6 + value_index`` where ``book`` indexes :data:`BOOKS`
and ``value_index`` indexes :data:`VALUES` (-1, -2, -3, -5, -7, -10).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from club_envs.errors import ConfigError

GAME_NAME = "arkham_decoders_club"
PLAYER_COUNTS = (4, 5, 6)

BOOKS = ("eibon", "cthaat", "necronomicon", "nameless_cults")
NUM_BOOKS = len(BOOKS)
VALUES = (-1, -2, -3, -5, -7, -10)
NUM_VALUES = len(VALUES)
NUM_CARDS = NUM_BOOKS * NUM_VALUES  # 24
CARDS_PER_PROPOSAL = 3
FAKE_CARD_POINTS = 1
PEEK_AT_DECODED = 4  # the fourth decoded card lets its owner look at the identity cards
RESHUFFLES_TO_END = 3  # the game ends when the deck would be reshuffled for the third time

# Public roles (dealt face up) and secret identities (advisors only).
ADVISOR, LEADER, MEMBER = "advisor", "leader", "member"
PUBLIC_ROLES = (ADVISOR, LEADER, MEMBER)
INVESTIGATOR, BLACK_MAN = "investigator", "black_man"
IDENTITIES = (INVESTIGATOR, BLACK_MAN)
# The role an agent is assigned to: advisors are resolved to their identity.
ROLES = (LEADER, MEMBER, INVESTIGATOR, BLACK_MAN)

MEMBERS_BY_PLAYERS = {4: 1, 5: 2, 6: 3}
HAND_SIZE_BY_PLAYERS = {4: 3, 5: 2, 6: 2}
INSANITY_PENALTY_BY_PLAYERS = {4: 3, 5: 2, 6: 1}
# The largest insanity penalty: four leaders/members at -(240 + penalty) SAN each (all 24 cards,
# at most -10 each, then the penalty) still total within the 64-bit integers a record holds.
MAX_INSANITY_PENALTY = 2**60


def card_book(card: int) -> int:
    return card // NUM_VALUES


def card_value(card: int) -> int:
    return VALUES[card % NUM_VALUES]


def card_name(card: int) -> str:
    """The record's card string, e.g. ``"necronomicon:-7"``."""
    return f"{BOOKS[card // NUM_VALUES]}:{VALUES[card % NUM_VALUES]}"


CARD_NAMES = tuple(card_name(c) for c in range(NUM_CARDS))
_CARD_BY_NAME = {name: c for c, name in enumerate(CARD_NAMES)}


def parse_card(text: str) -> int:
    """The card id of a record card string; ``ValueError`` names the expected form."""
    try:
        return _CARD_BY_NAME[text]
    except KeyError:
        raise ValueError(
            f"unknown card {text!r}; expected '<book>:<value>' with book in {', '.join(BOOKS)} "
            f"and value in {', '.join(map(str, VALUES))}"
        ) from None


def role_table(num_players: int) -> tuple[str, ...]:
    """The role cards in play: 2 advisors, 1 leader and 1-3 members."""
    return (ADVISOR, ADVISOR, LEADER) + (MEMBER,) * MEMBERS_BY_PLAYERS[num_players]


@dataclass(frozen=True)
class Config:
    """Every option that changes play.

    num_players
        4, 5 or 6.
    roles
        ``None`` (default) deals the public roles at random, as the rulebook does; or a sequence
        with one of ``"advisor"``, ``"leader"``, ``"member"`` per seat fixing them (the table may
        swap roles by agreement). It must hold exactly the role cards for the player count.
    insanity_penalty
        points lost by each leader/member whose SAN is 0 or less. ``None`` (default) takes the
        rulebook's value for the player count (3/2/1 for 4/5/6 players); ``0`` is the rulebook's
        suggested first game.
    """

    num_players: int = 5
    roles: tuple[str, ...] | None = None
    insanity_penalty: int | None = None

    def __post_init__(self) -> None:
        if isinstance(self.num_players, bool) or self.num_players not in PLAYER_COUNTS:
            raise ConfigError(
                f"num_players={self.num_players!r} is not supported; expected one of "
                f"{', '.join(map(str, PLAYER_COUNTS))}"
            )
        if self.roles is not None:
            roles = tuple(self.roles) if not isinstance(self.roles, str) else (self.roles,)
            bad = [r for r in roles if r not in PUBLIC_ROLES]
            if bad:
                raise ConfigError(f"roles has {bad[0]!r}; each seat's role is one of {', '.join(PUBLIC_ROLES)}")
            if sorted(roles) != sorted(role_table(self.num_players)):
                raise ConfigError(
                    f"roles={list(roles)} does not match the role cards for {self.num_players} players: "
                    f"exactly 2 advisor, 1 leader and {MEMBERS_BY_PLAYERS[self.num_players]} member"
                )
            object.__setattr__(self, "roles", roles)
        if self.insanity_penalty is None:
            object.__setattr__(self, "insanity_penalty", INSANITY_PENALTY_BY_PLAYERS[self.num_players])
        elif (
            isinstance(self.insanity_penalty, bool)
            or not isinstance(self.insanity_penalty, int)
            or not 0 <= self.insanity_penalty <= MAX_INSANITY_PENALTY
        ):
            raise ConfigError(
                f"insanity_penalty={self.insanity_penalty!r} is not allowed; expected a whole number "
                f"0..{MAX_INSANITY_PENALTY} "
                f"(rulebook: 3/2/1 for 4/5/6 players, 0 for a first game) or None for the rulebook value"
            )

    @property
    def hand_size(self) -> int:
        """H: 3 chapter cards with 4 players, 2 with 5 or 6."""
        return HAND_SIZE_BY_PLAYERS[self.num_players]

    def to_record(self) -> dict[str, Any]:
        return {
            "num_players": self.num_players,
            "hand_size": self.hand_size,
            "insanity_penalty": self.insanity_penalty,
            "roles": list(self.roles) if self.roles is not None else None,
        }

    @classmethod
    def from_record(cls, data: dict[str, Any]) -> Config:
        config = cls(
            num_players=data["num_players"],
            roles=tuple(data["roles"]) if data.get("roles") is not None else None,
            insanity_penalty=data["insanity_penalty"],
        )
        if "hand_size" in data and data["hand_size"] != config.hand_size:
            raise ConfigError(
                f"hand_size={data['hand_size']!r} does not match {config.num_players} players "
                f"(the rules fix it at {config.hand_size})"
            )
        return config
