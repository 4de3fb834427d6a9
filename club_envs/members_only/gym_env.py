"""Members Only as a single-agent Gymnasium environment: the learner holds one seat, named policies
play the others.

```python
import gymnasium, club_envs
env = gymnasium.make("club_envs/MembersOnly-v0", num_players=4, opponents="heuristic", seat="random")
obs, info = env.reset(seed=0)
obs, reward, terminated, truncated, info = env.step(info["action_mask"].nonzero()[0][0])
```

* Observation: the learner's flat ``float32`` observation vector (the PettingZoo env's
  ``"observation"``; same size for 3, 4 and 5 players). Action: ``Discrete(101)``.
* ``action_masks()`` (sb3-contrib's ``MaskablePPO`` reads it) and ``info["action_mask"]`` give the
  legal actions; an illegal action ends the episode with reward -1 (``illegal_action="raise"``
  raises instead).
* ``seat``: the learner's seat, or ``"random"`` for a new seat every episode.
* ``opponents``: ``"random"``, ``"heuristic"``, an :class:`~club_envs.agents.base.Agent`, a
  callable ``f({"observation", "action_mask"}) -> action``, or a list with one of those per other
  seat (in clockwise order from the learner). ``opponent_factory``: a picklable zero-argument
  callable returning such a value, called at the first ``reset`` -- so opponents that are costly
  or not picklable (e.g. frozen neural policies) are built inside a ``SubprocVecEnv`` worker.
  ``set_opponents(value)`` swaps them between episodes.
* Rewards: as the PettingZoo env (``reward_mode`` "win" or "score", optional ``heat_shaping``),
  for the learner's seat, summed over the opponents' turns that follow its action.
* ``privileged_state()``: what the learner may not see (every hand and discard, seat by seat
  from the learner's, the pending reveal, the out-of-play cards; ``PRIVILEGED_SIZE`` floats), for
  a critic that reads it during training (``algorithm.critic: privileged``). Never an input of the
  actor or of a played policy.
* ``render()`` draws the learner's view; ``render_seat`` (a seat, ``"player_2"`` or ``"public"``,
  the spectator's view) draws another, and ``render_for(seat)`` any of them whatever the mode.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from club_envs.agents.base import Agent, Decision, as_agent, play_through
from club_envs.errors import ConfigError, IllegalActionError, check_choice
from club_envs.members_only import actions as A
from club_envs.members_only.roster import make_agent
from club_envs.members_only.engine import State
from club_envs.members_only.env import ILLEGAL_ACTION_MODES, REWARD_MODES, relative_to_others, win_rewards
from club_envs.members_only.match import agent_seeds
from club_envs.members_only.observer import GLOBAL_SIZE, MAX_PLAYERS, SIZE, Observer, global_state
from club_envs.members_only.render import render_text
from club_envs.members_only.rules import DEFAULT_REWARDS, Config
from club_envs.rendering import LearnerRendering

OpponentSpec = Any  # str | Agent | callable | Sequence of those
PRIVILEGED_SIZE = GLOBAL_SIZE - SIZE
_SEAT_BLOCKS = 2  # the hands and the discards: one block of MAX_PLAYERS rows each, rotated to the learner


class MembersOnlyGymEnv(LearnerRendering, gymnasium.Env):
    """The single-agent view of Members Only (see the module docstring)."""

    metadata = {"render_modes": ["ansi", "human"], "render_fps": 1}
    _draw = staticmethod(render_text)  # LearnerRendering draws the table with it
    privileged_size = PRIVILEGED_SIZE  # the length of privileged_state()

    def __init__(
        self,
        num_players: int = 4,
        opponents: OpponentSpec = "random",
        seat: int | str = 0,
        rewards: Any = DEFAULT_REWARDS,
        max_heats: int = 30,
        random_start_player: bool = False,
        reward_mode: str = "win",
        heat_shaping: float = 0.0,
        illegal_action: str = "penalize",
        opponent_factory: Callable[[], OpponentSpec] | None = None,
        render_mode: str | None = None,
        render_seat: int | str | None = None,
    ) -> None:
        self.config = Config(
            num_players=num_players, rewards=rewards, max_heats=max_heats, random_start_player=random_start_player
        )
        n = self.num_players = self.config.num_players
        if not (seat == "random" or (isinstance(seat, int) and not isinstance(seat, bool) and 0 <= seat < n)):
            raise ConfigError(f"seat={seat!r}: expected a seat 0..{n - 1} or 'random'")
        check_choice("reward_mode", reward_mode, tuple(REWARD_MODES))
        check_choice("illegal_action", illegal_action, tuple(ILLEGAL_ACTION_MODES))
        check_choice("render_mode", render_mode, (None, *self.metadata["render_modes"]))
        self.seat_option = seat
        self.reward_mode = reward_mode
        self.heat_shaping = float(heat_shaping)
        self.illegal_action = illegal_action
        self.render_mode = render_mode
        self.render_seat = self._render_seat(render_seat)  # whose view render() draws: the learner's by default
        self.observation_space = spaces.Box(low=0.0, high=1.0, shape=(SIZE,), dtype=np.float32)
        self.action_space = spaces.Discrete(A.NUM_ACTIONS)
        self.observer = Observer(self.config)
        self._opponent_spec: OpponentSpec = opponents
        self._opponent_factory = opponent_factory
        self._opponents: list[Agent] | None = None  # built lazily, one per other seat
        self.seat = seat if isinstance(seat, int) else 0
        self.game: State | None = None

    # ------------------------------------------------------------------ opponents

    def set_opponents(self, opponents: OpponentSpec) -> None:
        """Replace the opponents; they play from the next ``reset``."""
        self._opponent_spec = opponents
        self._opponent_factory = None
        self._opponents = None

    def _build_opponents(self) -> list[Agent]:
        spec = self._opponent_factory() if self._opponent_factory is not None else self._opponent_spec
        count = self.num_players - 1
        if isinstance(spec, (list, tuple)):
            if len(spec) != count:
                raise ConfigError(f"opponents lists {len(spec)} policies; {self.num_players} players need {count}")
            items = list(spec)
        else:
            items = [spec] * count
        built = []
        for item in items:
            if isinstance(item, str):
                built.append(make_agent(item, self.config))
            else:
                built.append(as_agent(item))
        return built

    # ------------------------------------------------------------------ the Gymnasium API

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        return play_through(self.reset_moves(seed=seed, options=options))

    def step(self, action: Any):
        return play_through(self.step_moves(action))

    def reset_moves(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        """:meth:`reset` as a generator of the opponents' moves (see ``club_envs.agents.base.play_through``)."""
        super().reset(seed=seed)
        if self._opponents is None:
            self._opponents = self._build_opponents()
        n = self.num_players
        if self.seat_option == "random":
            self.seat = int(self.np_random.integers(n))
        game_seed = int(self.np_random.integers(2**31 - 1))
        self.game = State(self.config, seed=game_seed)
        # Opponents sit clockwise after the learner: opponent i at seat (learner + 1 + i) % n.
        self._by_seat: dict[int, Agent] = {}
        for i, agent in enumerate(self._opponents):
            self._by_seat[(self.seat + 1 + i) % n] = agent
        for seat_i, agent_seed in enumerate(agent_seeds(game_seed, n)):
            if seat_i in self._by_seat:
                self._by_seat[seat_i].reset(seat_i, agent_seed)
        self._heat = 1
        yield from self._opponent_moves()  # nothing is scored before the learner's first move in heat 1
        return self._observation(), self._info()

    def step_moves(self, action: Any):
        """:meth:`step` as a generator of the opponents' moves."""
        game = self.game
        if game is None or game.is_over:
            raise RuntimeError("step() called on a finished game; call reset() first")
        action = int(action)
        if not game.is_legal(action):
            if self.illegal_action == "raise" or not 0 <= action < A.NUM_ACTIONS:
                game.apply_action(action)  # raises IllegalActionError naming the legal actions
            game.forfeit(self.seat)
            return self._observation(), -1.0, True, False, self._info()
        game.apply_action(action)
        reward = self._after_action()
        reward += yield from self._opponent_moves()
        terminated = game.is_terminal
        truncated = game.is_truncated
        if self.render_mode == "human":
            self.render()
        return self._observation(), reward, terminated, truncated, self._info()

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions as booleans (all False once the game is over)."""
        if self.game is None or self.game.current_player != self.seat:
            return np.zeros(A.NUM_ACTIONS, dtype=bool)
        return self.game.legal_mask().astype(bool)

    def learner_view(self):
        """What the learner's seat may know now (the engine's ``View``)."""
        return self.game.player_view(self.seat)

    def privileged_state(self) -> np.ndarray:
        """The hidden part of the global ``state()``, its per-seat rows starting at the learner's seat
        (row k is the seat k places after the learner); training-time only."""
        hidden = global_state(self.game, self.observer)[SIZE:]
        rows = hidden[: _SEAT_BLOCKS * MAX_PLAYERS * A.NUM_CARD_TYPES].reshape(_SEAT_BLOCKS, MAX_PLAYERS, -1)
        order = [(self.seat + k) % self.num_players for k in range(self.num_players)]
        rows[:, : self.num_players] = rows[:, order].copy()
        return hidden

    # ------------------------------------------------------------------ internals

    def _opponent_moves(self):
        """Let the opponents move until it is the learner's turn or the game is over, yielding each
        ``(agent, decision)`` for its action; returns the learner's reward collected meanwhile."""
        game = self.game
        reward = 0.0
        while not game.is_over and game.current_player != self.seat:
            seat = game.current_player
            view = game.player_view(seat)
            decision = Decision(
                seat, view, game.legal_actions(), lambda v=view: self.observer.observe(v), game.legal_mask
            )
            agent = self._by_seat[seat]
            action = yield agent, decision
            if not game.is_legal(action):
                raise IllegalActionError(
                    f"opponent {agent.name!r} at seat {seat} chose illegal action {action}; "
                    f"legal: {list(game.legal_actions())}"
                )
            game.apply_action(action)
            reward += self._after_action()
        return reward

    def _after_action(self) -> float:
        game = self.game
        reward = 0.0
        if game.heat != self._heat or game.is_over:
            self._heat = game.heat
            if self.heat_shaping:
                settle = game.last_settle()
                points = [0.0] * self.num_players
                for chip in settle["chips"]:
                    points[chip["seat"]] += chip["points"]
                reward += self.heat_shaping * relative_to_others(points)[self.seat]
            if game.is_over and game.result is not None and game.result["reason"] != "illegal_action":
                if self.reward_mode == "win":
                    reward += win_rewards(game.result["winners"], self.num_players)[self.seat]
                else:
                    reward += relative_to_others([float(s) for s in game.result["scores"]])[self.seat]
        return reward

    def _observation(self) -> np.ndarray:
        return self.observer.observe(self.game.player_view(self.seat))

    def _info(self) -> dict[str, Any]:
        info: dict[str, Any] = {"action_mask": self.action_masks(), "seat": self.seat}
        if self.game.result is not None:
            info["scores"] = list(self.game.result["scores"])
            info["winners"] = list(self.game.result["winners"])
        return info

    # ------------------------------------------------------------------ records

    def record(self) -> dict[str, Any]:
        """The record of the current game; the learner's controller is ``"learner"``."""
        controllers = ["learner" if s == self.seat else self._by_seat[s].name for s in range(self.num_players)]
        return self.game.record(controllers=controllers)

    def save_record(self, path: str | Path) -> Path:
        from club_envs import records

        return records.save(self.record(), path)


__all__ = ["MembersOnlyGymEnv"]
