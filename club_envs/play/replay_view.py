"""A finished (or abandoned) game's record, step by step, as each seat, a spectator and a researcher
saw it: what the replay viewer (:mod:`club_envs.web.viewer`, ``club-envs view``) shows.

:class:`Replay` walks the record once on the engine (the game's ``replay_steps`` hook, which checks
every event as it goes) and keeps, for every moment -- the deal, then after each move -- each
seat's own view of the table, the spectator's view, and the narration each of them was given
(the game's presenter from that seat's point of view, or a spectator's). The researcher's
(*omniscient*) view adds what no seat knew (the game's ``hidden_facts``).

"What the agent was thinking" is worked out on demand (:meth:`Replay.thinking`): at a decision the
agent that played the seat is asked again on the seat's view then -- agents decide from the view
alone -- through its optional ``explain`` and ``beliefs``; at a person's decision, the shipped
agent for the seat's role is asked instead. Only agents known by name (the built-in bots, search
and the shipped agents) are loaded: a record is untrusted, and a file path in it is never opened.

Which views a caller may show is the caller's business (the CLI's ``--seat``, the web server's
owner checks); this module only keeps every view apart, so a seat's view holds nothing that seat
did not know at that moment.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from club_envs import records
from club_envs.agents.base import Decision, explain
from club_envs.games import get_spec
from club_envs.play.presenters import presenter_for

PUBLIC = "public"  # the spectator's view
OMNISCIENT = "all"  # the researcher's view: every seat's hidden facts
HUMAN = "human"  # the controller of a person's seat in records
TOP_THOUGHTS = 5  # the actions shown per decision


def view_names(num_players: int) -> list[str]:
    """Every view of a game of ``num_players``: the seats (``"0"``, ``"1"``, ...), ``public`` and ``all``."""
    return [str(s) for s in range(num_players)] + [PUBLIC, OMNISCIENT]


def parse_view(text: Any, num_players: int) -> str:
    """``text`` as a view name, or ``ValueError`` naming the allowed ones."""
    names = view_names(num_players)
    value = str(text).strip().lower()
    if value not in names:
        raise ValueError(f"view {str(text)[:20]!r} is not one of this game's views; expected a seat "
                         f"0..{num_players - 1}, {PUBLIC!r} (a spectator) or {OMNISCIENT!r} (the researcher's view)")
    return value


@dataclass
class Moment:
    """The table after one move (or the deal, for moment 0), for every view."""

    seat: int | None  # who moved (None: the deal)
    action: int | None  # the engine action (None: the deal, or a forfeit)
    views: dict[str, Any]  # view name -> the engine view to draw (seats and public)
    lines: dict[str, list[str]]  # view name -> the narration of this move
    chapter: str
    hidden: list[tuple[str, str]]  # what no seat knew (the omniscient view only)
    decision: tuple[Any, list[int], dict[str, float]] | None = None  # mover's view, legal actions, belief truths


@dataclass
class Replay:
    """One record walked through (see the module docstring). Build with :meth:`from_record`."""

    record: dict[str, Any]
    game: str  # the record name
    num_players: int
    controllers: list[str]
    moments: list[Moment]
    presenters: dict[str, Any]  # view name -> presenter (labels, move words)
    final_lines: dict[str, list[str]]
    hide_agents: bool = False
    _agents: dict[str, Any] = field(default_factory=dict, repr=False)  # agents asked again, by name
    _thinking: dict[tuple[int, bool], dict[str, Any] | None] = field(default_factory=dict, repr=False)
    _spec: Any = field(default=None, repr=False)
    _config: Any = field(default=None, repr=False)
    _observer: Any = field(default=None, repr=False)
    _seen: int = 0  # the engine events narrated so far, while the record is walked
    _pending: Any = field(default=None, repr=False)  # the move being walked: seat, action, decision, label
    # the web server asks from several threads; an agent is reset and asked under this lock
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    @classmethod
    def from_record(cls, record: dict[str, Any], hide_agents: bool = False) -> Replay:
        """Walk ``record`` (validated here) on its engine; :class:`~club_envs.records.RecordError`
        names the first problem. ``hide_agents`` (a blind study) names no agent in any seat's or the
        spectator's words."""
        records.validate(record)
        spec = get_spec(record["game"])
        if not (spec.has_hook("replay_steps") and spec.has_hook("presenter") and spec.has_hook("web_table")):
            raise records.RecordError(f"{spec.title} records cannot be viewed: the game provides no replay viewer hooks")
        controllers = [str(s.get("controller", "")) for s in sorted(record["seats"], key=lambda s: s["seat"])]
        walk = spec.hook("replay_steps")(record)
        try:
            state, seat, action = next(walk)
            self = cls._start(record, spec, controllers, state, hide_agents)
            while seat is not None:
                self._move(spec, state, seat, action)
                state, seat, action = next(walk)  # the walk applies the move, checks its events
                self._after_move(state)
        except records.RecordError:
            raise
        except (ValueError, LookupError, TypeError, ArithmeticError) as exc:
            raise records.RecordError(f"the record does not replay: {exc.__class__.__name__}: {exc}") from None
        self._finish(state)
        return self

    # ------------------------------------------------------------------ building
    @classmethod
    def _start(cls, record: dict[str, Any], spec: Any, controllers: list[str], state: Any,
               hide_agents: bool) -> Replay:
        n = len(controllers)
        presenter_class = presenter_for(record["game"])
        config = state.config
        public_roles = getattr(state, "roles", None)
        shown = _public_names(controllers, public_roles, presenter_class.hidden_roles, hide_agents)
        presenters = {}
        for name in view_names(n):
            me = int(name) if name.isdigit() else None
            presenters[name] = presenter_class(config, me, {s: v for s, v in shown.items() if s != me}, public_roles)
        # the researcher knows who played where (unless the game was blind to whoever is asking)
        every = {s: None if hide_agents else c for s, c in enumerate(controllers)}
        presenters[OMNISCIENT] = presenter_class(config, None, every, public_roles)
        self = cls(record, record["game"], n, controllers, [], presenters, {}, hide_agents)
        self._spec = spec
        self._config = config
        self._seen = 0
        self.moments.append(self._moment(state, None, None))
        return self

    def _move(self, spec: Any, state: Any, seat: int, action: int | None) -> None:
        legal = [int(a) for a in state.legal_actions()] if action is not None else []
        view = state.player_view(seat)
        truths = spec.hook("belief_truths")(state, seat) if spec.has_hook("belief_truths") else {}
        label = self.presenters[str(seat)].move_label(action, view) if action is not None else "an illegal move"
        self._pending = (seat, action, (view, legal, truths), label)

    def _after_move(self, state: Any) -> None:
        seat, action, decision, label = self._pending
        moment = self._moment(state, seat, action)
        moment.decision = decision if action is not None else None
        if not moment.lines[str(seat)]:  # a move the table sees only later (the first card of a reveal)
            moment.lines[str(seat)] = [f"You chose: {label}."]
        for name, lines in moment.lines.items():
            if not lines and name != str(seat):
                lines.append(f"{self.presenters[name].who(seat)} chose (shown later).")
        self.moments.append(moment)

    def _moment(self, state: Any, seat: int | None, action: int | None) -> Moment:
        events = state.events[self._seen:]
        self._seen = len(state.events)
        lines = {}
        for name, presenter in self.presenters.items():
            lines[name] = [line for event in events for line in presenter.narrate(event)]
        public = self._spec.hook("render").public_view(state)
        views = {str(s): state.player_view(s) for s in range(self.num_players)}
        views[PUBLIC] = public
        hidden = self._spec.hook("hidden_facts")(state) if self._spec.has_hook("hidden_facts") else []
        chapter = self._spec.hook("replay_chapter")(public) if self._spec.has_hook("replay_chapter") else ""
        return Moment(seat, action, views, lines, chapter, hidden)

    def _finish(self, state: Any) -> None:
        result = self.record.get("result")
        for name, presenter in self.presenters.items():
            if result is None:
                self.final_lines[name] = ["The game was left unfinished; it has no result."]
            elif name.isdigit():
                self.final_lines[name] = presenter.explain_result(result, state)
            else:
                winners = ", ".join(presenter.seat_name(s) for s in result.get("winners", [])) or "nobody"
                self.final_lines[name] = [f"{presenter.seat_name(s)}: {score}" for s, score in
                                          enumerate(result.get("scores", []))] + [f"Winners: {winners}."]
        self._pending = None

    # ------------------------------------------------------------------ reading
    @property
    def total(self) -> int:
        """The number of moves (the last moment's number)."""
        return len(self.moments) - 1

    @property
    def result(self) -> dict[str, Any] | None:
        return self.record.get("result")

    def chapters(self) -> list[tuple[str, int]]:
        """``(chapter, first moment)`` of every heat or round, in order."""
        found: dict[str, int] = {}
        for number, moment in enumerate(self.moments):
            found.setdefault(moment.chapter, number)
        return list(found.items())

    def moment(self, number: int) -> Moment:
        if not 0 <= number <= self.total:
            raise ValueError(f"step {number} does not exist; this game has steps 0..{self.total}")
        return self.moments[number]

    def log(self, view: str, upto: int) -> list[dict[str, Any]]:
        """The narration of ``view`` from the deal up to moment ``upto``, one entry per moment."""
        return [{"step": i, "lines": m.lines[view]} for i, m in enumerate(self.moments[:upto + 1])]

    def thinking(self, number: int, view: str) -> dict[str, Any] | None:
        """What the mover of moment ``number`` weighed, if ``view`` may know it (the mover's own
        seat, or the researcher's view), else ``None``; beliefs' true values only in the latter."""
        moment = self.moment(number)
        if moment.decision is None or view not in (str(moment.seat), OMNISCIENT):
            return None
        omniscient = view == OMNISCIENT
        key = (number, omniscient)
        with self._lock:
            if key not in self._thinking:
                self._thinking[key] = self._think(moment, omniscient)
            return self._thinking[key]

    def _think(self, moment: Moment, omniscient: bool) -> dict[str, Any]:
        seat = moment.seat
        view, legal, truths = moment.decision
        controller = self.controllers[seat]
        person = controller == HUMAN
        name = self._stand_in(view) if person else controller
        presenter = self.presenters[str(seat)]
        out: dict[str, Any] = {"seat": seat, "agent": name, "person": person,
                               "played": presenter.move_label(moment.action, view), "thoughts": [], "beliefs": []}
        if name is None:
            out["problem"] = "no shipped agent plays this seat's role"
            return out
        if person and self.hide_agents:  # a blind study names no agent, not even the stand-in
            out["agent"] = "the shipped agent"
        agent, problem = self._agent(name, seat)
        if agent is None:
            out["problem"] = problem
            return out
        decision = self._decision(seat, view, legal)
        try:
            agent.reset(seat, 0)
            thoughts = explain(agent, decision)[:TOP_THOUGHTS]
            method = getattr(agent, "beliefs", None)
            beliefs = list(method(decision)) if callable(method) else []
        except (ValueError, LookupError, TypeError, ArithmeticError) as exc:
            out["problem"] = f"agent {name} could not be asked: {exc.__class__.__name__}: {exc}"
            return out
        out["thoughts"] = [{"label": presenter.move_label(t.action, view), "score": round(float(t.score), 4),
                            "kind": t.kind, "note": t.note, "played": t.action == moment.action} for t in thoughts]
        out["beliefs"] = [{"label": label, "value": round(float(value), 4),
                           **({"truth": truths.get(label)} if omniscient else {})} for label, value in beliefs]
        return out

    def _stand_in(self, view: Any) -> str | None:
        """The shipped agent for the seat of ``view``: the one named after the game (it plays every
        seat), else one that plays the seat's role, else the heuristic bot."""
        from club_envs.agents.policy import view_role
        from club_envs.agents.registry import SHIPPED, shipped_names

        try:
            role = view_role(view)
        except ValueError:
            role = None
        mine = [n for n in shipped_names() if get_spec(SHIPPED[n][0]).record_name == self.game]
        for name in sorted(mine, key=lambda n: n != self._spec.name):
            files = SHIPPED[name][1]
            if "*" in files or role in files:
                return name
        return "heuristic" if "heuristic" in self._spec.bots else None

    def _agent(self, name: str, seat: int) -> tuple[Any, str]:
        from club_envs.agents import registry

        base = name.split(":")[0]
        if base not in (*self._spec.bots, registry.SEARCH_BOT, *registry.SHIPPED):
            return None, (f"agent {name!r} is not a built-in or shipped agent; the viewer loads no agent "
                          "a record names by file")
        if name not in self._agents:
            try:
                self._agents[name] = registry.load(name, game=self._spec.module, config=self._config, seed=0)
            except (ValueError, OSError) as exc:
                return None, f"agent {name!r} cannot be loaded: {exc}"
        return self._agents[name], ""

    def _decision(self, seat: int, view: Any, legal: list[int]) -> Decision:
        observer = self._observer
        if observer is None:
            observer = self._observer = self._spec.hook("observer")(self._config)
        size = self._spec.hook("actions").NUM_ACTIONS

        def mask() -> np.ndarray:
            m = np.zeros(size, dtype=np.int8)
            m[legal] = 1
            return m

        return Decision(seat, view, legal, lambda: observer.observe(view), mask)


def _public_names(controllers: list[str], public_roles: Any, hidden_roles: dict[str, Any],
                  hide: bool) -> dict[int, str | None]:
    """The agent name each seat's words may give another seat: none in a blind study; and a seat
    whose public role hides a secret one (Arkham's advisors) is named only when every seat of that
    public role has the same controller -- otherwise the name would tell who is who."""
    if hide:
        return {s: None for s in range(len(controllers))}
    shown: dict[int, str | None] = {}
    for seat, controller in enumerate(controllers):
        role = public_roles[seat] if public_roles else None
        if role in hidden_roles:
            same = {controllers[s] for s in range(len(controllers)) if public_roles[s] == role}
            shown[seat] = controller if len(same) == 1 else None
        else:
            shown[seat] = controller
    return shown
