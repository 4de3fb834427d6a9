"""One game with one person at the table: the shared core of terminal and browser play.

A :class:`HumanGame` deals a game on the bare engine, seats the person (by seat, or by role for
games with roles) and one agent in every other seat, and then alternates between

* :meth:`HumanGame.advance` -- the agents play until the person must move (or the game ends),
  each agent move giving a :class:`Frame`: what the person saw happen, and the table as their
  seat sees it right after;
* :meth:`HumanGame.play` -- the person's move, checked against the legal moves first, so a
  wrong entry never changes the game.

Everything shown comes from ``state.player_view(human_seat)`` and from the game's events as
filtered by the game's presenter (:mod:`club_envs.play.presenters`): the person never sees more
than their seat may know. The record names the person's seat (``controller == "human"`` and
``human_seat``) and the agents, and is saved finished or not.
"""

from __future__ import annotations

import random
import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np

from club_envs import records
from club_envs.agents.base import Agent, Decision
from club_envs.errors import IllegalActionError
from club_envs.games import load_game, spec_of
from club_envs.play.agents import parse_opponents, public_agent_labels, resolve_agent
from club_envs.play.presenters import Presenter, presenter_for

HUMAN = "human"
RANDOM_ROLE = "random"
SEED_BITS = 128


@dataclass(frozen=True)
class Move:
    """A legal move offered to the person: the short ``code`` they type or click."""

    code: str
    action: int
    label: str
    group: str


@dataclass
class Frame:
    """What the person saw after one move: lines of narration and their seat's view then."""

    seat: int | None
    lines: list[str]
    view: Any


class NotYourTurn(Exception):
    """The person tried to move while an agent is to move, or after the end."""


class IllegalMove(ValueError):
    """The person's entry names no legal move; the message lists what is allowed."""


@dataclass
class HumanGame:
    """A game of ``game_name`` with the person in one seat and agents in the others.

    Build one with :meth:`HumanGame.create`, which checks every option before dealing.
    """

    game: ModuleType
    config: Any
    seed: int
    human_seat: int
    agent_names: dict[int, str]
    agents: dict[int, Agent]
    state: Any
    presenter: Presenter
    interface: str = "terminal"
    game_id: str = field(default_factory=lambda: secrets.token_urlsafe(12))
    started_at: str = field(default_factory=lambda: _now())
    ended_at: str | None = None
    abandoned: bool = False
    history: list[Frame] = field(default_factory=list)
    saved_path: Path | None = None
    moves_played: int = 0
    # every move in order, ``(seat, action)``: with the seed it re-creates the game exactly
    move_log: list[tuple[int, int]] = field(default_factory=list)
    # further top-level fields of the record (a study's condition and participant)
    record_extra: dict[str, Any] = field(default_factory=dict)
    _seen_events: int = 0
    _observer: Any = None

    # ------------------------------------------------------------------ set-up
    @classmethod
    def create(
        cls,
        game_name: str,
        *,
        num_players: int,
        seat: int | None = None,
        role: str | None = None,
        opponents: str | Sequence[str] = "heuristic",
        seed: int | None = None,
        interface: str = "terminal",
        make_agent: Callable[[ModuleType, str, Any, int | None], Agent] = resolve_agent,
        show_agents: bool = True,
    ) -> HumanGame:
        """Deal a game and seat everyone; ``ValueError`` names any bad option and what is allowed.

        Without a ``seed`` the deal comes from 128 bits of fresh entropy: a smaller seed space
        could be searched for the deal that matches the person's first view. ``show_agents=False``
        keeps agent names off the table altogether (a blind study); with ``True`` a seat's agent
        is named only when the name follows from public information (see :func:`public_agent_labels`).
        """
        game = load_game(game_name)
        if num_players not in game.PLAYER_COUNTS:
            raise ValueError(
                f"{game.RECORD_NAME} takes {', '.join(map(str, game.PLAYER_COUNTS))} players, not {num_players}"
            )
        config = game.Config(num_players=num_players)
        if seed is None:
            seed = secrets.randbits(SEED_BITS)
        elif isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**SEED_BITS:
            raise ValueError(f"seed {seed!r} is not allowed; expected a whole number from 0 to 2**{SEED_BITS} - 1")
        state = _engine(game).State(config, seed=seed)
        human_seat = _choose_seat(game, state, num_players, seat, role, seed)
        per_seat, per_role = parse_opponents(opponents, game, num_players)
        others = [s for s in range(num_players) if s != human_seat]
        if per_seat is not None:
            names = dict(zip(others, per_seat))
        else:
            roles = {s: _role_of(state, s) for s in others}
            missing = sorted({r for r in roles.values() if r not in per_role}, key=list(game.ROLES).index)
            if missing:
                raise ValueError(f"--opponents names no agent for role(s) {', '.join(missing)} at this table")
            names = {s: per_role[roles[s]] for s in others}
        seeds = np.random.SeedSequence(seed).spawn(num_players)
        agents: dict[int, Agent] = {}
        for s, name in names.items():
            agent_seed = int(seeds[s].generate_state(1)[0])
            agent = make_agent(game, name, config, agent_seed)
            agent.reset(s, agent_seed)
            agents[s] = agent
        presenter_class = presenter_for(game.RECORD_NAME)
        public_roles = getattr(state, "roles", None)
        shown = public_agent_labels(names, per_role, public_roles, presenter_class.hidden_roles, show_agents)
        presenter = presenter_class(config, human_seat, shown, public_roles)
        self = cls(game, config, seed, human_seat, names, agents, state, presenter, interface)
        self.history.append(Frame(None, self._new_lines(), self.view()))
        return self

    # ------------------------------------------------------------------ queries
    @property
    def num_players(self) -> int:
        return self.config.num_players

    @property
    def finished(self) -> bool:
        return bool(self.state.is_terminal or self.state.is_truncated)

    @property
    def over(self) -> bool:
        """Finished, or given up by the person."""
        return self.finished or self.abandoned

    @property
    def human_to_move(self) -> bool:
        return not self.over and self.state.current_player == self.human_seat

    @property
    def step(self) -> int:
        """How many moves have been played: a browser move names it, so a repeated click is refused."""
        return self.moves_played

    @property
    def human_role(self) -> str | None:
        return _role_of(self.state, self.human_seat)

    def view(self) -> Any:
        return self.state.player_view(self.human_seat)

    def table_text(self) -> str:
        return _render(self.game).render_text(self.view())

    def moves(self) -> list[Move]:
        """The person's legal moves with short codes ``1``, ``2``, ... (empty when not their turn)."""
        if not self.human_to_move:
            return []
        view = self.view()
        return [
            Move(str(i), int(a), self.presenter.move_label(int(a), view), self.presenter.move_group(int(a)))
            for i, a in enumerate(sorted(self.state.legal_actions()), start=1)
        ]

    def parse_move(self, text: str) -> int:
        """The action the person typed: a short code, or the game's own action text
        (``bet crown >=6 double``, ``reveal eibon:-3``...). ``IllegalMove`` if it names no legal move."""
        text = text.strip()
        moves = self.moves()
        by_code = {m.code: m.action for m in moves}
        if text in by_code:
            return by_code[text]
        if text.isdigit():  # numbers are the short codes, never raw action ids
            raise IllegalMove(f"no move has the number {text}; the moves are numbered 1-{len(moves)}.")
        try:
            action = _actions(self.game).parse_action(text)
        except ValueError as exc:
            raise IllegalMove(f"{exc}. Type a move's number (1-{len(moves)}) or 'help'.") from None
        if action not in by_code.values():
            raise IllegalMove(
                f"'{text}' is not a legal move now. Type a move's number (1-{len(moves)}) or 'help'."
            )
        return action

    # ------------------------------------------------------------------ play
    def play(self, action: int) -> Frame:
        """The person's move. Refused (nothing changes) unless it is their turn and ``action`` is legal."""
        if not self.human_to_move:
            raise NotYourTurn("the game is over" if self.over else "it is not your turn")
        legal = self.state.legal_actions()
        if action not in legal:
            raise IllegalMove(
                f"action {action!r} is not legal now; legal: "
                + ", ".join(f"{a} ({self.presenter.move_label(a, self.view())})" for a in sorted(legal))
            )
        label = self.presenter.move_label(int(action), self.view())
        frame = self._apply(self.human_seat, int(action))
        if not frame.lines:  # a move the table sees only later (the first card of a reveal)
            frame.lines.append(f"You chose: {label}.")
        return frame

    def advance(self, on_frame: Callable[[Frame], None] | None = None) -> list[Frame]:
        """Let the agents play until the person must move or the game ends; one frame per move."""
        frames = []
        while not self.over and self.state.current_player != self.human_seat:
            seat = self.state.current_player
            frame = self._agent_move(seat)
            frames.append(frame)
            if on_frame is not None:
                on_frame(frame)
        return frames

    def decision(self) -> Decision:
        """The seat to move's turn as that seat sees it (what an agent in it is asked)."""
        seat = self.state.current_player
        view = self.state.player_view(seat)
        legal = list(self.state.legal_actions())
        return Decision(seat, view, legal, lambda: self._observe(view), lambda: self._mask(legal))

    def _agent_move(self, seat: int, stored: int | None = None) -> Frame:
        decision = self.decision()
        # Asked even when the move is known (a resumed game): the agent's own state (its random
        # generator, its beliefs) must advance exactly as it did the first time.
        action = int(self.agents[seat].act(decision))
        if stored is not None:
            action = stored
        try:
            return self._apply(seat, action)
        except IllegalActionError:
            # A broken agent must not hang the person's game: it forfeits, as in the environments.
            self.state.forfeit(seat)
            self.moves_played += 1
            self.move_log.append((seat, action))
            return self._frame(seat, [f"{self.presenter.labels[seat]} tried an illegal move and forfeits."])

    def _apply(self, seat: int, action: int) -> Frame:
        self.state.apply_action(action)
        self.moves_played += 1
        self.move_log.append((seat, action))
        return self._frame(seat)

    def replay_moves(self, moves: Sequence[tuple[int, int]]) -> None:
        """Play ``moves`` (a stored :attr:`move_log`) on a freshly created game of the same seed
        and options: the game, the agents and the person's log end exactly where they stood.

        ``ValueError`` if a move does not fit the game (a store that does not belong to it).
        """
        for number, (seat, action) in enumerate(moves):
            if self.over or self.state.current_player != seat:
                raise ValueError(f"stored move {number} is for seat {seat}, but the game expects "
                                 f"{'no move' if self.over else f'seat {self.state.current_player}'}")
            if seat == self.human_seat:
                try:
                    self.play(int(action))
                except (NotYourTurn, IllegalMove) as exc:
                    raise ValueError(f"stored move {number} does not fit the game: {exc}") from None
            else:
                self._agent_move(seat, stored=int(action))

    def _frame(self, seat: int | None, extra: Sequence[str] = ()) -> Frame:
        frame = Frame(seat, [*extra, *self._new_lines()], self.view())
        if self.finished and self.ended_at is None:
            self.ended_at = _now()
        self.history.append(frame)
        return frame

    def _new_lines(self) -> list[str]:
        events = self.state.events
        lines: list[str] = []
        for event in events[self._seen_events:]:
            lines.extend(self.presenter.narrate(event))
        self._seen_events = len(events)
        return lines

    def _observe(self, view: Any) -> np.ndarray:
        if self._observer is None:
            self._observer = spec_of(self.game).hook("observer")(self.config)
        return self._observer.observe(view)

    def _mask(self, legal: Sequence[int]) -> np.ndarray:
        mask = np.zeros(_actions(self.game).NUM_ACTIONS, dtype=np.int8)
        mask[list(legal)] = 1
        return mask

    # ------------------------------------------------------------------ the end
    def quit(self) -> None:
        """The person gives up: the game stays unfinished and its record has no result."""
        if not self.finished:
            self.abandoned = True
            self.ended_at = _now()

    def result_lines(self) -> list[str]:
        """The result and how it was scored, from the person's point of view."""
        if not self.finished:
            return ["The game was left unfinished; no result."]
        return self.presenter.explain_result(self.state.result, self.state)

    def record(self) -> dict[str, Any]:
        controllers = [HUMAN if s == self.human_seat else self.agent_names[s] for s in range(self.num_players)]
        record = self.state.record(controllers)
        record["human_seat"] = self.human_seat
        record["interface"] = self.interface
        record["started_at"] = self.started_at
        record["game_id"] = self.game_id
        if self.ended_at is not None:
            record["ended_at"] = self.ended_at
        if not self.finished:
            record["abandoned"] = True
        record.update(self.record_extra)
        return record

    @property
    def record_name(self) -> str:
        """The record's file name, fixed by the game's id and start (:func:`club_envs.records.file_name`)."""
        return records.file_name(self.game.RECORD_NAME, self.started_at, self.game_id)

    def save(self, folder: str | Path) -> Path:
        """Write the record to ``folder`` (created if needed); the same file on every later save."""
        if self.saved_path is None or Path(folder) != self.saved_path.parent:
            self.saved_path = Path(folder) / self.record_name
        return records.save(self.record(), self.saved_path)


# ---------------------------------------------------------------------------------------------
# Engine-level helpers: the game packages share module names, so these work for every game.


def _engine(game: ModuleType) -> ModuleType:
    return spec_of(game).hook("engine")


def _actions(game: ModuleType) -> ModuleType:
    return spec_of(game).hook("actions")


def _render(game: ModuleType) -> ModuleType:
    return spec_of(game).hook("render")


def _role_of(state: Any, seat: int) -> str | None:
    role_of = getattr(state, "role_of", None)
    return role_of(seat) if callable(role_of) else None


def _choose_seat(game: ModuleType, state: Any, num_players: int, seat: int | None, role: str | None, seed: int) -> int:
    if seat is not None and role is not None:
        raise ValueError("give a seat or a role, not both")
    rng = random.Random(seed)
    if role is not None:
        roles = tuple(game.ROLES)
        if not roles:
            raise ValueError(f"{game.RECORD_NAME} has no roles; choose a seat instead")
        if role == RANDOM_ROLE:
            return rng.randrange(num_players)
        if role not in roles:
            raise ValueError(f"unknown role {role!r}; expected one of {', '.join(roles)} or {RANDOM_ROLE}")
        # Roles are dealt by the rules; the person takes a seat that was dealt the role asked for.
        return rng.choice([s for s in range(num_players) if _role_of(state, s) == role])
    if seat is None:
        return rng.randrange(num_players)
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < num_players:
        raise ValueError(f"seat {seat!r} does not exist; expected 0..{num_players - 1}")
    return seat


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")
