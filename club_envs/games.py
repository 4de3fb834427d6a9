"""The games club-envs knows, and what every game package provides.

A game package (``club_envs.members_only``, ``club_envs.arkham_decoders``) exports, from its
``__init__``, the same few names, so that the command-line tools, evaluation and human play work
on any game without knowing its rules:

``RECORD_NAME``
    the ``game`` string of its records (``"members_only"``, ``"arkham_decoders_club"``).
``PLAYER_COUNTS``
    the supported numbers of players.
``ROLES``
    the role names an agent can be assigned to (empty for games without roles).
``Config``
    a frozen dataclass of every option that changes play; ``Config(**kwargs)`` validates and
    raises ``ValueError`` naming the bad option and the allowed values; ``config.to_record()``
    gives the record's ``config`` object and ``Config.from_record(d)`` reads it back.
``make_agent(name, config, seed=None) -> Agent``
    the built-in agents by name (``"random"``, ``"heuristic"``); ``ValueError`` lists the names.
``play_match(config, agents, seed=None) -> dict``
    plays one game on the bare engine and returns its record. ``agents`` is a sequence with one
    :class:`~club_envs.agents.base.Agent` per seat, or a callable ``(seat, role) -> Agent`` for
    games whose roles are dealt at setup.
``replay(record) -> dict``
    re-plays a record on the engine, checks every event and the result, and returns the result;
    raises :class:`~club_envs.records.RecordError` on the first disagreement.
``outcomes(record) -> list[SeatOutcome]``
    one row per seat of a finished record: controller, role, score and win share, the common
    currency of ``simulate``, ``evaluate`` and ``report``.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from types import ModuleType

_PACKAGES = {
    "members_only": "club_envs.members_only",
    "arkham_decoders_club": "club_envs.arkham_decoders",
}
_ALIASES = {
    "members_only": "members_only",
    "members-only": "members_only",
    "arkham_decoders": "arkham_decoders_club",
    "arkham_decoders_club": "arkham_decoders_club",
    "arkham": "arkham_decoders_club",
}


@dataclass(frozen=True)
class SeatOutcome:
    """How one seat fared in one game."""

    seat: int
    controller: str
    score: float
    win: float  # 1 for a sole win, 1/k for a k-way shared win, 0 for a loss
    role: str | None = None


def canonical_name(name: str) -> str:
    """Map a user's spelling of a game to its record name, or say which names exist."""
    key = name.strip().lower()
    if key not in _ALIASES:
        raise ValueError(f"unknown game {name!r}; expected one of {', '.join(sorted(set(_ALIASES)))}")
    return _ALIASES[key]


def load_game(name: str) -> ModuleType:
    """The game package for ``name`` (any accepted spelling)."""
    return importlib.import_module(_PACKAGES[canonical_name(name)])


def game_names() -> list[str]:
    return sorted(_PACKAGES)


PUBLIC_VIEW = "public"  # the spectator's view in render(): what every seat knows


def render_seat(seat, agents) -> int | str | None:
    """``seat`` as a game's ``render_text`` takes it: ``None`` (the agent to move), ``"public"``, a
    seat number or an agent name from ``agents``; anything else raises ``ConfigError`` naming the
    allowed values."""
    import numpy as np

    from club_envs.errors import ConfigError

    if seat is None or seat == PUBLIC_VIEW:
        return seat
    if isinstance(seat, str) and seat in agents:
        return list(agents).index(seat)
    if isinstance(seat, (int, np.integer)) and not isinstance(seat, bool) and 0 <= seat < len(agents):
        return int(seat)
    raise ConfigError(f"render_seat={seat!r} is not allowed; expected None (the agent to move), "
                      f"{PUBLIC_VIEW!r} (a spectator), a seat 0..{len(agents) - 1} or an agent name "
                      f"({', '.join(agents)})")



def table_view(state, seat, public_view):
    """The view a drawing of ``state`` shows: the spectator's (``public_view(state)``) for
    ``"public"``, else ``seat``'s -- by default the player to move, or seat 0 once the game is over."""
    if seat == PUBLIC_VIEW:
        return public_view(state)
    if seat is None:
        seat = state.current_player if state.current_player is not None else 0
    return state.player_view(seat)

class SeatRendering:
    """``render()`` and ``render_for()`` of the PettingZoo environments, the same for every game.

    The environment provides ``render_mode``, ``render_seat``, ``game`` (its engine state, or
    ``None`` before ``reset``), ``possible_agents``, ``metadata`` and ``_draw``: its game's
    ``render_text(state, seat)``.
    """

    def render(self) -> str | None:
        """Draw the table as the seat in :attr:`render_seat` sees it.

        ``render_seat=None`` (the default, PettingZoo's convention) draws the view of the agent to
        move: with ``render_mode="human"`` that prints each mover's own hand in turn, so use a seat
        (``2`` or ``"player_2"``) to follow one player or ``"public"`` for the spectator's view,
        which shows no hand. ``"ansi"`` returns the text, ``"human"`` prints it.
        """
        if self.render_mode is None:
            import gymnasium

            gymnasium.logger.warn("render() called without a render_mode; pass render_mode='ansi' or 'human'")
            return None
        text = self.render_for(self.render_seat)
        if self.render_mode == "human":
            print(text + "\n")
            return None
        return text

    def render_for(self, seat: int | str | None = None) -> str:
        """The table as text from ``seat``'s view whatever the ``render_mode``: a seat number, an
        agent name (``"player_2"``), ``"public"`` (what a spectator sees: no hand) or ``None`` (the
        agent to move)."""
        seat = self._render_seat(seat)
        if self.game is None:
            return f"{self.metadata['name']}: call reset() first"
        return self._draw(self.game, seat)

    def _render_seat(self, seat: int | str | None) -> int | str | None:
        return render_seat(seat, self.possible_agents)
