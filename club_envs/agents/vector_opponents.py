"""Any agent as an opponent of the batched engines' vector environments, where that can be done.

A vector environment seats, per game and seat, a bot it plays by name (compiled, or its reference
code) or a :class:`~club_envs.agents.batched.BatchedPolicy`. :func:`vector_opponent` turns what
:func:`club_envs.agents.registry.load` gives into one of those:

* a built-in bot's name stays a name;
* a trained policy (:class:`~club_envs.agents.policy.PolicyAgent`) becomes a
  :class:`~club_envs.agents.policy.BatchedPolicyAgent` (one forward pass per round for all games);
* an agent that decides from the seat's view alone, the same way every time (``stateless = True``),
  becomes its own batched form when it has one (``batched()``: the Members Only belief agent's
  compiled decision rule), else, if it decides many seats at once (``act_batch``), a :class:`ViewPolicy`: asked on the seats' views rebuilt from the engine's arrays (the
  game's ``vector_view`` hook);
* a role-dispatching agent (Arkham's pairs of policies) becomes one opponent per role;
* anything else (a search, an agent with its own random choices per game) gets ``None``: it plays
  on the one-game environments.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from club_envs.agents.base import Decision
from club_envs.agents.batched import GameRows
from club_envs.agents.policy import BatchedPolicyAgent, PolicyAgent, RoleDispatchAgent
from club_envs.agents.registry import SEARCH_BOT, load
from club_envs.games import get_spec, spec_of

VECTOR_ENV_HOOK, VECTOR_VIEW_HOOK = "vector_env", "vector_view"


class ViewPolicy:
    """A deterministic agent with ``act_batch`` as a batched opponent: each row's decision built on
    the seat's view from the engine's arrays, all rows asked in one ``act_batch`` call."""

    reads_state = True

    def __init__(self, agent: Any, view_of: Any) -> None:
        self.agent, self.view_of = agent, view_of
        self.name = getattr(agent, "name", "agent")

    def __call__(self, observations: np.ndarray, action_masks: np.ndarray, state: GameRows) -> np.ndarray:
        decisions = [Decision.from_mask(int(seat), self.view_of(state.games, int(g), int(seat)), mask, lambda o=obs: o)
                     for obs, mask, g, seat in zip(observations, action_masks, state.rows, state.seats)]
        chosen = type(self.agent).act_batch([self.agent] * len(decisions), decisions)
        return np.asarray(chosen, dtype=np.int64)


def vector_opponent(game: str, agent: Any, seed: int | None = None) -> Any:
    """What ``game``'s vector environment seats for ``agent`` (a bot name or a loaded agent), or
    ``None`` when it cannot play it (module docstring)."""
    spec = get_spec(game)
    if not spec.has_hook(VECTOR_ENV_HOOK):
        return None
    if isinstance(agent, str):
        return agent if agent in getattr(spec.hook(VECTOR_ENV_HOOK), "OPPONENT_BOTS", ()) else None
    if isinstance(agent, PolicyAgent):
        if agent.features is not None and agent.features.from_state is None:
            return None
        return BatchedPolicyAgent(agent, seed)
    if isinstance(agent, RoleDispatchAgent):
        parts = {role: vector_opponent(game, inner, seed) for role, inner in agent.by_role.items()}
        return None if any(p is None for p in parts.values()) else parts
    if getattr(agent, "stateless", False) and callable(getattr(agent, "batched", None)):
        return agent.batched()  # the agent's own batched form (compiled, as the belief agents have)
    if getattr(agent, "stateless", False) and hasattr(type(agent), "act_batch") and spec.has_hook(VECTOR_VIEW_HOOK):
        return ViewPolicy(agent, spec.hook(VECTOR_VIEW_HOOK))
    return None


def seated_for(game: Any, config: Any, name: str, seed: int | None = None) -> Any:
    """What the vector environment of ``game`` (a game module) seats for the agent called ``name``:
    the name itself for a bot it plays, else :func:`vector_opponent` of the loaded agent -- or
    ``None`` (a search is not even loaded: it never plays in batches)."""
    game_name = spec_of(game).name
    seated = vector_opponent(game_name, name)
    if seated is not None or name.split(":")[0] == SEARCH_BOT:
        return seated
    return vector_opponent(game_name, load(name, game=game, config=config, seed=seed), seed)


def seated_by_role(game: Any, config: Any, role_agents: dict[str, str], seed: int | None = None
                   ) -> tuple[dict[str, Any] | None, str | None]:
    """What the vector environment seats for every role of a line-up by role (role -> agent name),
    and ``None``; or ``None`` and why it cannot (a role's agent it does not play in batches, or no
    policy among the roles to be its learner)."""
    seated: dict[str, Any] = {}
    for name in dict.fromkeys(role_agents.values()):
        batched = seated_for(game, config, name, seed)
        if batched is None:
            return None, f"it cannot play {name!r} as a batch (a search, or an agent with its own random moves)"
        seated.update({r: (batched[r] if isinstance(batched, dict) else batched)
                       for r, n in role_agents.items() if n == name})
    if all(isinstance(v, str) for v in seated.values()):
        return None, "it needs a policy in one of the roles to play the games around (this line-up is bots only)"
    return seated, None


__all__ = ["ViewPolicy", "seated_by_role", "seated_for", "vector_opponent"]
