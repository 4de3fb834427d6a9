"""play_match: one game on the bare engine between agents, returning its record (fast path)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from club_envs.agents.base import Agent, Decision, as_agent
from club_envs.arkham_decoders.engine import State
from club_envs.arkham_decoders.observer import Observer
from club_envs.arkham_decoders.rules import Config
from club_envs.errors import IllegalActionError
from club_envs.game_spec import SeatOutcome


def agent_seeds(seed: int | None, num_players: int) -> list[int | None]:
    """One seed per seat derived from the game seed, so a seeded game is repeatable whoever plays."""
    if seed is None:
        return [None] * num_players
    return [int(s.generate_state(1)[0]) for s in np.random.SeedSequence(seed).spawn(num_players)]


def resolve_agents(
    state: State, agents: Sequence[Any] | Callable[[int, str], Any]
) -> list[Agent]:
    """One agent per seat: a list as given, or ``agents(seat, role)`` once roles are dealt
    (role is leader, member, investigator or black_man)."""
    n = state.num_players
    if callable(agents) and not isinstance(agents, (list, tuple)) and not isinstance(agents, Agent):
        return [as_agent(agents(seat, state.role_of(seat))) for seat in range(n)]
    agents = list(agents)
    if len(agents) != n:
        raise ValueError(f"play_match needs one agent per seat: got {len(agents)} for {n} players")
    return [as_agent(a) for a in agents]


def play_match(
    config: Config,
    agents: Sequence[Any] | Callable[[int, str], Any],
    seed: int | None = None,
    *,
    illegal: str = "penalize",
) -> dict[str, Any]:
    """Play one game and return its record.

    ``agents`` is one :class:`~club_envs.agents.base.Agent` (or callable policy) per seat, or a
    callable ``(seat, role) -> Agent`` called after the roles are dealt. An illegal action ends
    the game with reason ``"illegal_action"``, lost by the offender's side (``illegal="raise"``
    raises instead).
    """
    state = State(config, seed=seed)
    seated = resolve_agents(state, agents)
    for seat, (agent, seat_seed) in enumerate(zip(seated, agent_seeds(seed, state.num_players))):
        agent.reset(seat, seat_seed)
    observer: Observer | None = None

    while not state.is_terminal:
        seat = state.current_player
        view = state.player_view(seat)
        legal = state.legal_actions()

        def observation(view=view) -> np.ndarray:
            nonlocal observer
            if observer is None:
                observer = Observer(config)
            return observer.observe(view)

        action = seated[seat].act(Decision(seat, view, legal, observation, state.legal_mask))
        try:
            state.apply_action(int(action))
        except (IllegalActionError, TypeError, ValueError):
            if illegal == "raise":
                raise
            state.forfeit(seat)
    return state.record([getattr(a, "name", type(a).__name__) for a in seated])


def outcomes(record: dict[str, Any]) -> list[SeatOutcome]:
    """One row per seat: controller, role (leader/member/investigator/black_man), score, win.

    Score: a leader's/member's own SAN; the Investigator the table's total; the Black Man minus
    the total. Win: 1 for every seat of the winning side (the team wins or loses together).
    """
    result = record["result"]
    winners = set(result["winners"])
    return [
        SeatOutcome(
            seat=seat["seat"],
            controller=seat["controller"],
            score=float(result["scores"][seat["seat"]]),
            win=1.0 if seat["seat"] in winners else 0.0,
            role=result["roles"][seat["seat"]],
        )
        for seat in record["seats"]
    ]
