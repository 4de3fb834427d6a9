"""The contract between a table and whoever sits at it.

Every game engine in club-envs hands an agent a :class:`Decision`: the seat to move, that seat's
*view* (an engine object built from what the seat may know and nothing else), the legal actions,
and -- on demand -- the flat observation vector the environments expose. Bots read the view;
neural policies read the observation. Because both come from the same filtered view, no agent can
see what its seat could not.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Sequence
from typing import Any, NamedTuple, Protocol, runtime_checkable

import numpy as np


class Decision:
    """One seat's turn, as that seat sees it.

    The observation vector is built lazily: a random or rule-based agent never pays for it.
    """

    __slots__ = ("seat", "view", "legal_actions", "_mask_fn", "_mask", "_observation_fn", "_observation")

    def __init__(
        self,
        seat: int,
        view: Any,
        legal_actions: Sequence[int],
        observation_fn: Callable[[], np.ndarray],
        mask_fn: Callable[[], np.ndarray],
    ) -> None:
        self.seat = seat
        self.view = view
        self.legal_actions = legal_actions
        self._observation_fn = observation_fn
        self._observation: np.ndarray | None = None
        self._mask_fn = mask_fn
        self._mask: np.ndarray | None = None

    @classmethod
    def from_mask(cls, seat: int, view: Any, mask: np.ndarray, observation_fn: Callable[[], np.ndarray]) -> "Decision":
        """A decision whose legal actions are read off a mask the caller already holds (the batched
        engines' rows: the mask is kept as given, the observation still built only when asked)."""
        decision = cls(seat, view, np.flatnonzero(mask).tolist(), observation_fn, lambda: mask)
        decision._mask = mask
        return decision

    @property
    def observation(self) -> np.ndarray:
        if self._observation is None:
            self._observation = self._observation_fn()
        return self._observation

    @property
    def action_mask(self) -> np.ndarray:
        if self._mask is None:
            self._mask = self._mask_fn()
        return self._mask

    def as_dict(self) -> dict[str, np.ndarray]:
        """The PettingZoo-style observation: ``{"observation": ..., "action_mask": ...}``."""
        return {"observation": self.observation, "action_mask": self.action_mask}


class Thought(NamedTuple):
    """One action an agent weighed at a decision, as its optional ``explain(decision)`` reports it.

    ``kind`` says what ``score`` is: ``"probability"`` (a policy's), ``"expected gain"`` (a
    heuristic's value of the action), ``"visits"`` (a search's count, ``note`` giving its mean
    value) ...; an agent lists its thoughts best first, by its own measure.
    """

    action: int
    score: float
    kind: str
    note: str = ""


def explain(agent: Any, decision: Decision) -> list[Thought]:
    """What ``agent`` weighs at ``decision``: its ``explain(decision)`` if it has one, else just the
    action it chooses (``kind="chosen"``). Agents are deterministic given the view, so asking again
    tells what they thought when they played."""
    method = getattr(agent, "explain", None)
    if callable(method):
        return list(method(decision))
    return [Thought(int(agent.act(decision)), 1.0, "chosen")]


@runtime_checkable
class Agent(Protocol):
    """Plays one seat of one game at a time.

    ``reset`` is called before every game with the seat the agent holds and a seed for its own
    randomness, so that a seeded game is repeatable whoever plays it.

    Optional: ``explain(decision) -> list[Thought]``, the actions it weighs with their scores
    (the replay viewer shows them), and ``beliefs(decision) -> list[tuple[str, float]]``, what it
    believes of the hidden facts (named in words, with a probability or an expected count).
    """

    name: str

    def reset(self, seat: int, seed: int | None = None) -> None: ...

    def act(self, decision: Decision) -> int: ...


class RandomAgent:
    """Uniform over the legal actions: the floor every other agent must clear."""

    name = "random"

    def __init__(self, seed: int | None = None) -> None:
        self._rng = np.random.default_rng(seed)

    def reset(self, seat: int, seed: int | None = None) -> None:
        if seed is not None:
            self._rng = np.random.default_rng(seed)

    def act(self, decision: Decision) -> int:
        legal = decision.legal_actions
        return int(legal[self._rng.integers(len(legal))])

    def explain(self, decision: Decision) -> list[Thought]:
        """Every legal action, equally likely."""
        legal = decision.legal_actions
        return [Thought(int(a), 1.0 / len(legal), "probability") for a in legal]


class CallableAgent:
    """Adapts a plain function ``f(observation_dict) -> action`` to the :class:`Agent` protocol.

    The function receives the PettingZoo-style dict with ``observation`` and ``action_mask``, so
    any policy written for the environments works as an opponent unchanged.
    """

    def __init__(self, fn: Callable[[dict[str, np.ndarray]], int], name: str | None = None) -> None:
        self._fn = fn
        self.name = name or getattr(fn, "__name__", "callable")

    def reset(self, seat: int, seed: int | None = None) -> None:
        reset = getattr(self._fn, "reset", None)
        if callable(reset):
            reset(seat, seed)

    def act(self, decision: Decision) -> int:
        return int(self._fn(decision.as_dict()))


def as_agent(obj: Any) -> Agent:
    """Accept an :class:`Agent` or any callable policy; reject anything else with a clear error."""
    if isinstance(obj, Agent):
        return obj
    if callable(obj):
        return CallableAgent(obj)
    raise TypeError(
        f"{obj!r} is not a policy: expected an object with reset(seat, seed) and act(decision), "
        "or a callable taking {'observation', 'action_mask'} and returning an action"
    )


def play_through(moves: Generator[tuple[Any, Decision], int, Any]) -> Any:
    """Run ``moves`` -- an environment step written as a generator that yields ``(agent, decision)``
    for every opponent move and receives the chosen action -- asking each agent itself; returns the
    generator's result. A vector environment can instead gather the decisions of many games and
    answer those of one policy with a single batched forward pass."""
    try:
        agent, decision = next(moves)
        while True:
            agent, decision = moves.send(agent.act(decision))
    except StopIteration as stop:
        return stop.value


def act_grouped(agents: Sequence[Any], decisions: Sequence[Decision]) -> list[int]:
    """``agents[i]``'s action at ``decisions[i]`` for every ``i``: agents with one ``batch_key``
    asked together through their ``act_batch`` (one batched evaluation), the others one by one."""
    groups: dict[Any, list[int]] = {}
    for i, agent in enumerate(agents):
        key = getattr(agent, "batch_key", None)
        groups.setdefault(("alone", id(agent), i) if key is None else key, []).append(i)
    actions = [0] * len(agents)
    for members in groups.values():
        first = agents[members[0]]
        if len(members) > 1 and hasattr(type(first), "act_batch"):
            chosen = type(first).act_batch([agents[i] for i in members], [decisions[i] for i in members])
        else:
            chosen = [agents[i].act(decisions[i]) for i in members]
        for i, action in zip(members, chosen):
            actions[i] = int(action)
    return actions
