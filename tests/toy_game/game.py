"""High Card Swap: rules, engine, observer, bots and records in one module."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from club_envs.agents.base import Decision, RandomAgent, as_agent
from club_envs.game_spec import SeatOutcome
from club_envs.records import FORMAT, FORMAT_VERSION, RecordError

RECORD_NAME = "toy_high_card"
PLAYER_COUNTS = (2, 3)
ROLES: tuple[str, ...] = ()
AGENT_NAMES = ("random", "heuristic")
CARDS = tuple(range(1, 10))
KEEP, SWAP = 0, 1
NUM_ACTIONS = 2
ACTION_EVENTS = ("keep", "swap")


@dataclass(frozen=True)
class Config:
    num_players: int = 2

    def __post_init__(self) -> None:
        if isinstance(self.num_players, bool) or self.num_players not in PLAYER_COUNTS:
            raise ValueError(f"num_players={self.num_players!r} is not allowed; expected one of 2, 3")

    def to_record(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_record(cls, data: dict[str, Any]) -> Config:
        return cls(**data)


@dataclass(frozen=True)
class View:
    """What one seat knows: its own card, whose turn it is and who has swapped."""

    seat: int
    num_players: int
    card: int
    current_player: int | None
    swapped: tuple[bool, ...]


class State:
    def __init__(self, config: Config, seed: int | None = None) -> None:
        self.config = config
        self.num_players = config.num_players
        self.seed = seed
        deck = list(np.random.default_rng(seed).permutation(CARDS))
        self.hands = [int(deck.pop()) for _ in range(self.num_players)]
        self.deck = [int(c) for c in deck]
        self.swapped = [False] * self.num_players
        self.current_player: int | None = 0
        self.events: list[dict[str, Any]] = []
        self.result: dict[str, Any] | None = None

    @property
    def is_over(self) -> bool:
        return self.current_player is None

    def legal_actions(self) -> list[int]:
        return [] if self.is_over else [KEEP, SWAP]

    def legal_mask(self) -> np.ndarray:
        return np.array([0 if self.is_over else 1] * NUM_ACTIONS, dtype=np.int8)

    def is_legal(self, action: int) -> bool:
        return not self.is_over and action in (KEEP, SWAP)

    def player_view(self, seat: int) -> View:
        return View(seat, self.num_players, self.hands[seat], self.current_player, tuple(self.swapped))

    def apply_action(self, action: int) -> None:
        if not self.is_legal(action):
            raise ValueError(f"action {action!r} is not legal; legal: {self.legal_actions()}")
        seat = self.current_player
        if action == SWAP:
            self.hands[seat], self.swapped[seat] = self.deck.pop(), True
        self.events.append({"type": ACTION_EVENTS[action], "seat": seat})
        self.current_player = seat + 1 if seat + 1 < self.num_players else None
        if self.is_over:
            best = max(self.hands)
            self._end("highest_card", [s for s, c in enumerate(self.hands) if c == best])

    def forfeit(self, seat: int) -> None:
        self.current_player = None
        self._end("illegal_action", [s for s in range(self.num_players) if s != seat])

    def _end(self, reason: str, winners: list[int]) -> None:
        self.result = {"reason": reason, "scores": list(self.hands), "winners": winners}
        self.events.append({"type": "end", **self.result})

    def record(self, controllers: Sequence[str] | None = None) -> dict[str, Any]:
        controllers = controllers or ["unknown"] * self.num_players
        return {"format": FORMAT, "format_version": FORMAT_VERSION, "game": RECORD_NAME,
                "config": self.config.to_record(), "seed": self.seed,
                "seats": [{"seat": s, "controller": c} for s, c in enumerate(controllers)],
                "events": list(self.events), "result": self.result}


class Observer:
    """Own card one-hot (9), who has swapped (3), own seat one-hot (3)."""

    size = len(CARDS) + 6

    def __init__(self, config: Config) -> None:
        self.config = config

    def observe(self, view: View) -> np.ndarray:
        obs = np.zeros(self.size, dtype=np.float32)
        obs[view.card - 1] = 1.0
        obs[9:9 + view.num_players] = view.swapped
        obs[12 + view.seat] = 1.0
        return obs


def render_text(view: View) -> str:
    return f"seat {view.seat} holds {view.card}; swapped: {list(view.swapped)}"


class HeuristicAgent:
    """Swap a card below the deck's average."""

    name = "heuristic"

    def reset(self, seat: int, seed: int | None = None) -> None:
        pass

    def act(self, decision: Decision) -> int:
        return SWAP if decision.view.card < 5 else KEEP


def make_agent(name: str, config: Config, seed: int | None = None):
    if name == "random":
        return RandomAgent(seed)
    if name == "heuristic":
        return HeuristicAgent()
    raise ValueError(f"unknown agent {name!r} for {RECORD_NAME}; expected one of {', '.join(AGENT_NAMES)}")


def play_match(config: Config, agents: Sequence[Any], seed: int | None = None) -> dict[str, Any]:
    players = [as_agent(a) for a in agents]
    if len(players) != config.num_players:
        raise ValueError(f"play_match needs {config.num_players} agents, got {len(players)}")
    seeds = np.random.SeedSequence(seed).spawn(len(players)) if seed is not None else [None] * len(players)
    for seat, (agent, s) in enumerate(zip(players, seeds)):
        agent.reset(seat, int(s.generate_state(1)[0]) if s is not None else None)
    state, observer = State(config, seed), Observer(config)
    while not state.is_over:
        seat = state.current_player
        view = state.player_view(seat)
        action = players[seat].act(Decision(seat, view, state.legal_actions(), lambda v=view: observer.observe(v),
                                            state.legal_mask))
        if not state.is_legal(action):
            state.forfeit(seat)
            break
        state.apply_action(action)
    return state.record([a.name for a in players])


def replay(record: dict[str, Any]) -> dict[str, Any]:
    state = State(Config.from_record(record["config"]), seed=record.get("seed"))
    for event in record["events"]:
        if event["type"] in ACTION_EVENTS:
            state.apply_action(ACTION_EVENTS.index(event["type"]))
    if state.events != record["events"] or state.result != record["result"]:
        raise RecordError("the record does not replay to itself")
    return state.result


def outcomes(record: dict[str, Any]) -> list[SeatOutcome]:
    result = record["result"]
    share = 1.0 / len(result["winners"])
    return [SeatOutcome(s["seat"], s["controller"], float(result["scores"][s["seat"]]),
                        share if s["seat"] in result["winners"] else 0.0) for s in record["seats"]]


def record_schema() -> dict[str, Any]:
    return {"type": "object", "required": ["format", "game", "config", "seats", "events"],
            "properties": {"game": {"const": RECORD_NAME}, "seats": {"type": "array", "maxItems": 3}}}
