"""The presenter base class every game's presenter extends: seat names and labels, and a plain
menu of moves, with the wording helpers the presenters share.

It sits below both :mod:`club_envs.play.presenters` (which picks a game's presenter) and the
game presenters (:mod:`club_envs.play.members_only`, :mod:`club_envs.play.arkham_decoders`), so
neither imports the other.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any


class Presenter:
    """Base: seat names, and a plain menu of moves. One subclass per game.

    ``human_seat`` is the seat whose point of view the words take; ``None`` narrates for a
    spectator, who holds no hand and is told nothing private to any seat.
    """

    game = ""
    help_text = ""
    # public role -> the secret roles a seat showing it may hold (the rest show what they are)
    hidden_roles: Mapping[str, tuple[str, ...]] = {}

    def __init__(
        self,
        config: Any,
        human_seat: int | None,
        agent_names: Mapping[int, str | None],
        public_roles: Sequence[str] | None = None,
    ) -> None:
        self.config = config
        self.human_seat = human_seat
        self.agent_names = dict(agent_names)
        self.public_roles = tuple(public_roles) if public_roles is not None else None
        self.labels = [self._label(s) for s in range(config.num_players)]

    def _label(self, seat: int) -> str:
        """From public facts only: the seat, its public role, and its agent's name when shown."""
        if seat == self.human_seat:
            return "you"
        parts = [self.public_roles[seat]] if self.public_roles else []
        if self.agent_names.get(seat):
            parts.append(str(self.agent_names[seat]))
        return f"seat {seat} ({', '.join(parts)})" if parts else f"seat {seat}"

    def seat_name(self, seat: int) -> str:
        """``"seat 2 (heuristic)"`` for an agent; ``"you (seat 0)"`` for the person."""
        return f"you (seat {seat})" if seat == self.human_seat else self.labels[seat]

    def who(self, seat: int, capital: bool = True) -> str:
        """The subject of a sentence: ``You`` or ``Seat 2 (heuristic)``."""
        text = self.labels[seat]
        return text[:1].upper() + text[1:] if capital else text

    def short(self, seat: int) -> str:
        """``"you"`` or ``"seat 2"``: for a seat named a second time in one sentence."""
        return "you" if seat == self.human_seat else f"seat {seat}"

    def narrate(self, event: dict[str, Any]) -> list[str]:
        raise NotImplementedError

    def move_label(self, action: int, view: Any) -> str:
        raise NotImplementedError

    def move_group(self, action: int) -> str:
        raise NotImplementedError

    def explain_result(self, result: dict[str, Any], state: Any) -> list[str]:
        raise NotImplementedError

    def terminal_menu(self, moves: Sequence[Any], view: Any) -> list[str]:
        """The legal moves for the terminal: ``[code] label``, a few to a line."""
        cells = [f"[{m.code}] {m.label}" for m in moves]
        width = max(len(c) for c in cells) + 2 if cells else 0
        per_line = max(1, 96 // max(width, 1))
        return [
            "  " + "".join(c.ljust(width) for c in cells[i:i + per_line]).rstrip()
            for i in range(0, len(cells), per_line)
        ]


def plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"
