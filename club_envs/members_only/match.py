"""Playing whole games on the bare engine (no environment): fast, for simulation and evaluation."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from club_envs.agents.base import Agent, Decision, as_agent
from club_envs.game_spec import SeatOutcome
from club_envs.members_only.engine import State
from club_envs.members_only.observer import Observer
from club_envs.members_only.rules import Config


def agent_seeds(seed: int | None, num_players: int) -> list[int | None]:
    """One seed per seat derived from the game seed, so a seeded game is repeatable whoever plays."""
    if seed is None:
        return [None] * num_players
    return [int(s.generate_state(1)[0]) for s in np.random.SeedSequence(seed).spawn(num_players)]


def play_match(config: Config, agents: Sequence[Any], seed: int | None = None) -> dict[str, Any]:
    """Play one game between ``agents`` (one per seat: :class:`Agent` objects or callables) and
    return its record. An illegal action ends the game with reason ``"illegal_action"``."""
    n = config.num_players
    if len(agents) != n:
        raise ValueError(f"play_match needs {n} agents (one per seat), got {len(agents)}")
    players: list[Agent] = [as_agent(a) for a in agents]
    for seat, (agent, agent_seed) in enumerate(zip(players, agent_seeds(seed, n))):
        agent.reset(seat, agent_seed)
    state = State(config, seed=seed)
    observer = Observer(config)
    while not state.is_over:
        seat = state.current_player
        view = state.player_view(seat)
        decision = Decision(seat, view, state.legal_actions(), lambda v=view: observer.observe(v), state.legal_mask)
        action = players[seat].act(decision)
        if not state.is_legal(action):
            state.forfeit(seat)
            break
        state.apply_action(action)
    return state.record(controllers=[a.name for a in players])


def outcomes(record: dict[str, Any]) -> list[SeatOutcome]:
    """One row per seat of a finished record: controller, score and win share."""
    result = record["result"]
    winners = result["winners"]
    share = 1.0 / len(winners) if winners else 0.0
    return [
        SeatOutcome(
            seat=seat["seat"],
            controller=seat["controller"],
            score=float(result["scores"][seat["seat"]]),
            win=share if seat["seat"] in winners else 0.0,
        )
        for seat in record["seats"]
    ]
