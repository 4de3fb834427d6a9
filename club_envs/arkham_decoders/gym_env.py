"""The Gymnasium single-agent view of Arkham Decoders Club: the learner plays one role.

``gymnasium.make("club_envs/ArkhamDecoders-v0", num_players=5, role="black_man", opponents="heuristic")``

* ``role``: ``"leader"``, ``"member"``, ``"investigator"``, ``"black_man"`` (the learner takes the
  seat dealt that role; among several members one at random), or ``"any"`` (a random seat each
  episode).
* ``opponents``: who plays the other seats --
  a built-in name (``"random"``, ``"heuristic"``) or one policy for every other seat (an
  :class:`~club_envs.agents.base.Agent`, or a callable taking ``{"observation", "action_mask"}``
  and returning an action); a list with one entry per other seat, clockwise from the learner; or
  a dict ``{role: entry}`` for the four roles (the learner's own role may be left out).
  :meth:`ArkhamDecodersGymEnv.set_opponents` swaps them from the next episode on (e.g. self-play
  snapshots).
* Observation: the flat ``Box`` vector of :class:`~club_envs.arkham_decoders.observer.Observer`
  for the learner's seat; ``info["action_mask"]`` and :meth:`action_masks` give the legal actions
  (for sb3-contrib's ``MaskablePPO``); ``info["seat"]`` and ``info["role"]`` say where it sits.
* Reward: 0 until the end, then the learner's side's reward as in the AEC env
  (``reward_mode="win"``: +1/-1; ``"san"``: the scaled SAN total, negated for the Black Man).
* An illegal learner action ends the episode with reward -1 (``illegal_action="raise"`` raises).
  An opponent's illegal action raises :class:`~club_envs.errors.IllegalActionError` naming it.
* ``opponent_factory``: a picklable zero-argument callable returning an ``opponents`` value,
  called at the first ``reset`` -- so opponents that are costly or
  not picklable (frozen neural policies) are built inside a ``SubprocVecEnv`` worker.
* If a game ends before the learner's first decision (possible for the last member clockwise, who
  only acts when someone passes), the episode is dealt again, at most 100 times.
* ``privileged_state()``: what the learner may not see (the true grimoire, the Black Man's seat,
  every hand, the pending votes, the deck, who has peeked; then the learner's seat one-hot, since
  those are laid out by absolute seat; ``PRIVILEGED_SIZE`` floats), for a critic that reads it
  during training (``algorithm.critic: privileged``). Never an input of the actor or of a played
  policy.
* ``render()`` draws the learner's view (with the result once the game is over); ``render_seat``
  (a seat, ``"player_2"`` or ``"public"``, the spectator's view) draws another, and
  ``render_for(seat)`` any of them whatever the mode.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from club_envs.agents.base import Agent, Decision, as_agent, play_through
from club_envs.arkham_decoders import actions as A
from club_envs.arkham_decoders.roster import AGENT_NAMES, make_agent
from club_envs.arkham_decoders.engine import State
from club_envs.arkham_decoders.env import ILLEGAL_MODES, REWARD_MODES, team_reward
from club_envs.arkham_decoders.observer import GLOBAL_EXTRA, MAX_SEATS, Observer, global_state
from club_envs.arkham_decoders.render import render_text
from club_envs.arkham_decoders.rules import ROLES, Config
from club_envs.errors import ConfigError, IllegalActionError, check_choice
from club_envs.rendering import LearnerRendering

LEARNER_ROLES = ROLES + ("any",)
MAX_DEALS = 100

OpponentSpec = Any  # str | Agent | Callable | Sequence[...] | Mapping[str, ...]


PRIVILEGED_SIZE = GLOBAL_EXTRA + MAX_SEATS

class ArkhamDecodersGymEnv(LearnerRendering, gymnasium.Env):
    metadata = {"render_modes": ["ansi", "human"], "render_fps": 1}
    _draw = staticmethod(render_text)  # LearnerRendering draws the table with it (the result at the end)
    privileged_size = PRIVILEGED_SIZE  # the length of privileged_state()

    def __init__(
        self,
        num_players: int = 5,
        role: str = "any",
        opponents: OpponentSpec = "random",
        roles: Sequence[str] | None = None,
        insanity_penalty: int | None = None,
        reward_mode: str = "win",
        illegal_action: str = "penalize",
        render_mode: str | None = None,
        render_seat: int | str | None = None,
        opponent_factory: Callable[[], OpponentSpec] | None = None,
    ) -> None:
        self.config = Config(
            num_players=num_players,
            roles=tuple(roles) if roles is not None else None,
            insanity_penalty=insanity_penalty,
        )
        check_choice("role", role, tuple(LEARNER_ROLES))
        check_choice("reward_mode", reward_mode, tuple(REWARD_MODES))
        check_choice("illegal_action", illegal_action, tuple(ILLEGAL_MODES))
        check_choice("render_mode", render_mode, (None, *self.metadata["render_modes"]))
        self.num_players = self.config.num_players
        self.render_seat = self._render_seat(render_seat)  # whose view render() draws: the learner's by default
        self.role = role
        self.reward_mode = reward_mode
        self.illegal_action = illegal_action
        self.render_mode = render_mode
        self.observer = Observer(self.config)
        self.observation_space = spaces.Box(0.0, 1.0, (self.observer.size,), dtype=np.float32)
        self.action_space = spaces.Discrete(A.NUM_ACTIONS)
        self.set_opponents(opponents)
        self._opponent_factory = opponent_factory
        self.game: State | None = None
        self.seat = 0
        self._seated: list[Agent | None] = []

    # ------------------------------------------------------------- opponents
    def set_opponents(self, opponents: OpponentSpec) -> None:
        """Who plays the other seats from the next ``reset()`` on (see the module docstring)."""
        self._check_opponents(opponents)
        self._opponents = opponents
        self._opponent_factory = None

    def _check_opponents(self, spec: OpponentSpec) -> None:
        n = self.config.num_players
        if isinstance(spec, Mapping):
            unknown = [r for r in spec if r not in ROLES]
            if unknown:
                raise ConfigError(f"opponents names unknown role {unknown[0]!r}; expected roles {', '.join(ROLES)}")
            needed = [r for r in ROLES if r not in spec and (self.role == "any" or r != self.role)]
            if needed:
                raise ConfigError(f"opponents gives no policy for role(s) {', '.join(needed)}")
            for entry in spec.values():
                self._check_entry(entry)
        elif isinstance(spec, (list, tuple)):
            if len(spec) != n - 1:
                raise ConfigError(f"opponents list has {len(spec)} entries; expected {n - 1} (one per other seat)")
            for entry in spec:
                self._check_entry(entry)
        else:
            self._check_entry(spec)

    @staticmethod
    def _check_entry(entry: Any) -> None:
        if isinstance(entry, str):
            if entry not in AGENT_NAMES:
                raise ConfigError(f"unknown opponent {entry!r}; expected one of {', '.join(AGENT_NAMES)}, a policy, list or dict")
        else:
            as_agent(entry)  # raises TypeError naming what a policy is

    def _build(self, entry: Any, seed: int) -> Agent:
        if isinstance(entry, str):
            return make_agent(entry, self.config, seed=seed)
        return as_agent(entry)

    def _seat_opponents(self, game: State, learner: int) -> list[Agent | None]:
        n = game.num_players
        spec = self._opponents
        seeds = self.np_random.integers(0, 2**31 - 1, size=n)
        seated: list[Agent | None] = [None] * n
        others = [(learner + k) % n for k in range(1, n)]  # clockwise from the learner
        for i, seat in enumerate(others):
            if isinstance(spec, Mapping):
                entry = spec[game.role_of(seat)]
            elif isinstance(spec, (list, tuple)):
                entry = spec[i]
            else:
                entry = spec
            agent = self._build(entry, int(seeds[seat]))
            agent.reset(seat, int(seeds[seat]))
            seated[seat] = agent
        return seated

    # ------------------------------------------------------------- gym API
    def reset(self, *, seed: int | None = None, options: dict | None = None):
        return play_through(self.reset_moves(seed=seed, options=options))

    def step(self, action: int):
        return play_through(self.step_moves(action))

    def reset_moves(self, *, seed: int | None = None, options: dict | None = None):
        """:meth:`reset` as a generator of the opponents' moves (see ``club_envs.agents.base.play_through``)."""
        super().reset(seed=seed)
        if self._opponent_factory is not None:  # built here, i.e. inside a SubprocVecEnv worker
            self.set_opponents(self._opponent_factory())
        for _ in range(MAX_DEALS):
            game = State(self.config, seed=int(self.np_random.integers(0, 2**31 - 1)))
            self.game = game
            self.seat = self._choose_seat(game)
            self._seated = self._seat_opponents(game, self.seat)
            yield from self._opponent_moves()
            if not game.is_terminal:
                return self._observation(), self._info()
        raise RuntimeError(
            f"{MAX_DEALS} games in a row ended before the {self.role} learner had a decision; "
            "its seat only acts when the opponents pass (choose another role or other opponents)"
        )

    def _choose_seat(self, game: State) -> int:
        n = game.num_players
        if self.role == "any":
            return int(self.np_random.integers(n))
        seats = [s for s in range(n) if game.role_of(s) == self.role]
        return int(seats[self.np_random.integers(len(seats))])

    def step_moves(self, action: int):
        """:meth:`step` as a generator of the opponents' moves."""
        game = self.game
        if game is None or game.is_terminal:
            raise RuntimeError("step() after the episode ended; call reset()")
        action = int(action)
        if not 0 <= action < A.NUM_ACTIONS:
            raise ValueError(f"action {action} is outside the action space 0..{A.NUM_ACTIONS - 1}")
        if action in game.legal_actions():
            game.apply_action(action)
        elif self.illegal_action == "raise":
            game.apply_action(action)  # raises IllegalActionError naming the legal actions
        else:
            game.forfeit(self.seat)
        yield from self._opponent_moves()
        reward = 0.0
        if game.is_terminal:
            reward = self._final_reward()
        if self.render_mode == "human":
            self.render()
        return self._observation(), reward, game.is_terminal, False, self._info()

    def _opponent_moves(self):
        """Let the opponents move until the learner's turn or the end, yielding each ``(agent, decision)``."""
        game = self.game
        while not game.is_terminal and game.current_player != self.seat:
            seat = game.current_player
            view = game.player_view(seat)
            legal = game.legal_actions()
            decision = Decision(seat, view, legal, lambda v=view: self.observer.observe(v), lambda l=legal: _mask(l))
            agent = self._seated[seat]
            action = yield agent, decision
            if not game.is_legal(action):
                raise IllegalActionError(
                    f"opponent {agent.name!r} at seat {seat} chose illegal action {action!r}; legal: {legal}"
                )
            game.apply_action(int(action))

    def _final_reward(self) -> float:
        result = self.game.result
        if result["reason"] == "illegal_action":
            return -1.0 if result["offender"] == self.seat else 0.0
        r = team_reward(result["total"], self.reward_mode)
        return -r if self.seat == self.game.black_man_seat else r

    def _observation(self) -> np.ndarray:
        return self.observer.observe(self.game.player_view(self.seat))

    def action_masks(self) -> np.ndarray:
        """Legal actions of the learner now (all False once the episode is over)."""
        mask = np.zeros(A.NUM_ACTIONS, dtype=bool)
        if self.game is not None and self.game.current_player == self.seat:
            mask[self.game.legal_actions()] = True
        return mask

    def learner_view(self):
        """What the learner's seat may know now (the engine's ``View``), for extra policy inputs."""
        return self.game.player_view(self.seat)

    def privileged_state(self) -> np.ndarray:
        """The hidden part of the global ``state()`` and the learner's seat (one-hot); training-time only."""
        out = np.zeros(PRIVILEGED_SIZE, dtype=np.float32)
        out[:GLOBAL_EXTRA] = global_state(self.game, self.observer)[self.observer.size:]
        out[GLOBAL_EXTRA + self.seat] = 1.0
        return out

    def _info(self) -> dict[str, Any]:
        info: dict[str, Any] = {"action_mask": self.action_masks(), "seat": self.seat, "role": self.game.role_of(self.seat)}
        if self.game.is_terminal:
            info["result"] = dict(self.game.result)
            info["scores"] = list(self.game.result["scores"])
            info["winners"] = list(self.game.result["winners"])
        return info

    def record(self) -> dict[str, Any]:
        """The record of the current episode's game; the learner's controller is ``"learner"``."""
        names = [getattr(a, "name", "policy") if a is not None else "learner" for a in self._seated]
        return self.game.record(names)

    def save_record(self, path: str | Path) -> Path:
        from club_envs import records

        return records.save(self.record(), path)


def _mask(legal: list[int]) -> np.ndarray:
    mask = np.zeros(A.NUM_ACTIONS, dtype=np.int8)
    mask[legal] = 1
    return mask


__all__ = ["ArkhamDecodersGymEnv", "LEARNER_ROLES"]
