"""Drawing a table for one seat: the part of ``render()`` that is the same for every game.

The PettingZoo environments of both games draw through :class:`SeatRendering`, their Gymnasium
views through :class:`LearnerRendering`, and the games' ``render_text`` pick the view to draw with
:func:`table_view`, so "whose view" means the same in every game: a seat, an agent name,
``"public"`` (the spectator: no hand) or, by default, the player to move (PettingZoo) or the
learner (Gymnasium).
"""

from __future__ import annotations

PUBLIC_VIEW = "public"  # the spectator's view in render(): what every seat knows


def render_seat(seat, agents, default: str = "the agent to move") -> int | str | None:
    """``seat`` as a game's ``render_text`` takes it: ``None`` (``default``), ``"public"``, a
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
    raise ConfigError(f"render_seat={seat!r} is not allowed; expected None ({default}), "
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
            return f"{self.metadata.get('name', type(self).__name__)}: call reset() first"
        return self._draw(self.game, self._view_seat(seat))

    def _render_seat(self, seat: int | str | None) -> int | str | None:
        return render_seat(seat, self.possible_agents)

    def _view_seat(self, seat: int | str | None) -> int | str | None:
        """The seat ``_draw`` is given for a checked ``seat`` (``None``: the agent to move, which
        the game's ``render_text`` picks)."""
        return seat


class LearnerRendering(SeatRendering):
    """``render()`` and ``render_for()`` of the Gymnasium views, the same for every game.

    As :class:`SeatRendering`, with the learner's seat in place of the agent to move (``render_for(None)``
    draws the learner's view). The
    environment provides ``render_mode``, ``render_seat`` (checked with :meth:`_render_seat` when
    it is made), ``seat`` (the learner's, this episode), ``game`` (``None`` before ``reset``),
    ``num_players``, ``metadata`` and ``_draw``: its game's ``render_text(state, seat)``.
    """

    def render(self) -> str | None:
        """Draw the table as :attr:`render_seat` sees it: by default the learner's own seat; a
        seat (``2`` or ``"player_2"``) follows another player, ``"public"`` draws what a spectator
        sees (no hand). ``"ansi"`` returns the text, ``"human"`` prints it."""
        if self.render_mode is None or self.game is None:
            return None
        return super().render()

    def _render_seat(self, seat: int | str | None) -> int | str | None:
        return render_seat(seat, [f"player_{i}" for i in range(self.num_players)], default="the learner")

    def _view_seat(self, seat: int | str | None) -> int | str | None:
        return self.seat if seat is None else seat
