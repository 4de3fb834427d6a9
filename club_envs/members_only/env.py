"""
# Members Only

| Creation           | `members_only_v0.env(num_players=4)` or `pettingzoo.make("aec", "club_envs/members_only-v0")` |
|--------------------|--------------------------------------------------------------------|
| Actions            | Discrete                                                           |
| Parallel API       | No                                                                 |
| Manual Control     | No (see `club-envs play`)                                          |
| Agents             | `agents= ['player_0', ..., 'player_{n-1}']`                        |
| Agents             | 3, 4 or 5                                                          |
| Action Shape       | (1,)                                                               |
| Action Values      | Discrete(101)                                                      |
| Observation Shape  | (510,) (the same for 3, 4 and 5 players)                           |
| Observation Values | [0, 1]                                                             |

Reiner Knizia's betting game: each heat the players bet chips on how many uncancelled cards of
each of five categories will reach the public display, while revealing cards from their hands
that push the counts. Rules: docs/rules/members_only.md (and docs/games/members_only.md).

### Observation Space

A dictionary with an ``'observation'`` element -- a flat ``float32`` vector of named slices
(:mod:`club_envs.members_only.observer`; table in docs/games/members_only.md) -- and an ``'action_mask'``.
It is egocentric (the observing seat first, then the others clockwise) and always laid out for 5
seats, padded with zeros, so one policy can play any seat at any table size. It holds everything
the seat may know (own hand, the display, who revealed what, every chip, all chips in hand, all
tracks, hand sizes, heat/round/phase) and nothing hidden.

#### Legal Actions Mask

``action_mask`` is an ``int8`` vector of length 101 with 1 for each legal action of the agent to
move and all zeros for the other agents.

### Action Space

| actions | meaning |
|---|---|
| 0-79 | bet: ``(category * 8 + space) * 2 + chip`` (category 0-4 umbrella, crown, teacup, big_ben, hat; space 0-7 ``<=1``..``>=8``; chip 0 single, 1 double) |
| 80 | no bet this turn |
| 81-90 | reveal one card of type ``a - 81`` (0-4 normal cards of each category, 5-9 their NO! cards) |
| 91-100 | end-of-heat discard of one card of type ``a - 91`` |

A turn is a bet decision, then (outside a heat's first round) two reveal decisions; each player
makes one discard decision at the end of a heat (in seat order; nobody sees another's choice).

### Rewards

``reward_mode="win"`` (default), at the end of the game, zero-sum: the ``k`` winners (highest
score; ties share) get ``+1/k`` each and the other ``n-k`` players ``-1/(n-k)`` each; if everyone
ties, everyone gets 0. ``reward_mode="score"``: each player gets its final score minus the mean
final score of the other players (zero-sum, in points). ``heat_shaping=c`` (default 0, off) adds,
after each heat's settlement, ``c * (points moved on own tracks this heat - mean of the others')``.
A game cut short by ``max_heats`` is reported as *truncation* and scored like a finished game.
An illegal move ends the game: the offender gets -1, the others 0 (PettingZoo's
``TerminateIllegalWrapper``); the record ends with reason ``"illegal_action"``. With
``illegal_action="raise"`` an illegal move raises :class:`~club_envs.errors.IllegalActionError`
instead and leaves the game unchanged.

### Rendering

``render_mode="ansi"`` returns a text picture of the table, ``"human"`` prints it after each step.
``render_seat`` says whose view it is: ``None`` (default, PettingZoo's convention) the agent to
move -- so ``"human"`` shows each mover's own hand in turn; a seat number or agent name
(``"player_2"``) follows one player; ``"public"`` is a spectator's view (no hand is shown).
``env.unwrapped.render_for(seat)`` returns any seat's picture, or the public one, whatever the mode.

### Version History

* v0: Initial release.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.utils import EzPickle
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from club_envs.errors import IllegalActionError, check_choice
from club_envs.members_only import actions as A
from club_envs.members_only.engine import State
from club_envs.members_only.observer import GLOBAL_SIZE, SIZE, Observer, global_state
from club_envs.members_only.render import render_text
from club_envs.rendering import SeatRendering
from club_envs.members_only.rules import DEFAULT_REWARDS, Config

REWARD_MODES = ("win", "score")
ILLEGAL_ACTION_MODES = ("penalize", "raise")


def env(**kwargs: Any) -> AECEnv:
    """The environment as users should get it: ``raw_env`` inside PettingZoo's standard wrappers."""
    environment = raw_env(**kwargs)
    if environment.illegal_action == "penalize":
        environment = wrappers.TerminateIllegalWrapper(environment, illegal_reward=-1)
    environment = wrappers.AssertOutOfBoundsWrapper(environment)
    environment = wrappers.OrderEnforcingWrapper(environment)
    return environment


def win_rewards(winners: list[int], num_players: int) -> list[float]:
    """Winners share +1, the others share -1; all-way ties give 0."""
    k = len(winners)
    if k == num_players:
        return [0.0] * num_players
    return [1.0 / k if s in winners else -1.0 / (num_players - k) for s in range(num_players)]


def relative_to_others(values: list[float]) -> list[float]:
    """Each value minus the mean of the others' (zero-sum)."""
    n = len(values)
    total = sum(values)
    return [v - (total - v) / (n - 1) for v in values]


class raw_env(SeatRendering, AECEnv, EzPickle):
    """Members Only as a PettingZoo AEC environment (see the module docstring)."""

    metadata = {
        "name": "members_only_v0",
        "render_modes": ["ansi", "human"],
        "is_parallelizable": False,
        "render_fps": 1,
    }
    _draw = staticmethod(render_text)  # SeatRendering draws the table with it

    def __init__(
        self,
        num_players: int = 4,
        rewards: Any = DEFAULT_REWARDS,
        max_heats: int = 30,
        random_start_player: bool = False,
        reward_mode: str = "win",
        heat_shaping: float = 0.0,
        illegal_action: str = "penalize",
        render_mode: str | None = None,
        render_seat: int | str | None = None,
    ) -> None:
        EzPickle.__init__(
            self, num_players, rewards, max_heats, random_start_player, reward_mode, heat_shaping, illegal_action,
            render_mode, render_seat,
        )
        super().__init__()
        self.config = Config(
            num_players=num_players, rewards=rewards, max_heats=max_heats, random_start_player=random_start_player
        )
        check_choice("reward_mode", reward_mode, tuple(REWARD_MODES))
        check_choice("illegal_action", illegal_action, tuple(ILLEGAL_ACTION_MODES))
        check_choice("render_mode", render_mode, (None, *self.metadata["render_modes"]))
        self.reward_mode = reward_mode
        self.heat_shaping = float(heat_shaping)
        self.illegal_action = illegal_action
        self.render_mode = render_mode
        n = self.num_players = self.config.num_players
        self.possible_agents = [f"player_{i}" for i in range(n)]
        self.agent_name_mapping = {agent: i for i, agent in enumerate(self.possible_agents)}
        self._render_seat(render_seat)  # refuse a bad seat now, not at the first render
        self.render_seat = render_seat  # whose view render() draws (see render)
        self.observer = Observer(self.config)
        observation_space = spaces.Dict(
            {
                "observation": spaces.Box(low=0.0, high=1.0, shape=(SIZE,), dtype=np.float32),
                "action_mask": spaces.Box(low=0, high=1, shape=(A.NUM_ACTIONS,), dtype=np.int8),
            }
        )
        self.observation_spaces = {agent: observation_space for agent in self.possible_agents}
        self.action_spaces = {agent: spaces.Discrete(A.NUM_ACTIONS) for agent in self.possible_agents}
        self.state_space = spaces.Box(low=0.0, high=1.0, shape=(GLOBAL_SIZE,), dtype=np.float32)
        self._seeder = np.random.default_rng()
        self.game: State | None = None
        self.controllers: list[str] | None = None

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    # ------------------------------------------------------------------ the AEC API

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Start a new game. ``seed`` fixes it (and the seeds of later unseeded resets)."""
        if seed is not None:
            self._seeder = np.random.default_rng(seed)
            game_seed = int(seed)
        else:
            game_seed = int(self._seeder.integers(2**31 - 1))
        self.game = State(self.config, seed=game_seed)
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {agent: {} for agent in self.agents}
        self.agent_selection = self.agents[self.game.current_player]
        self._heat = self.game.heat
        self._rewards_pending = False

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        seat = self.agent_name_mapping[agent]
        game = self.game
        observation = self.observer.observe(game.player_view(seat))
        if seat == game.current_player:
            mask = game.legal_mask()
        else:
            mask = np.zeros(A.NUM_ACTIONS, dtype=np.int8)
        return {"observation": observation, "action_mask": mask}

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        game = self.game
        action = int(action)
        if not 0 <= action < A.NUM_ACTIONS:
            raise ValueError(f"action {action} is outside the action space Discrete({A.NUM_ACTIONS}) (0..{A.NUM_ACTIONS - 1})")
        try:
            game.apply_action(action)
        except IllegalActionError:
            if self.illegal_action == "raise":
                raise
            self._cumulative_rewards[agent] = 0.0
            self._record_forfeit(agent)
            self.rewards = dict.fromkeys(self.agents, 0.0)
            self.rewards[agent] = -1.0
            self.terminations = dict.fromkeys(self.agents, True)
            self._accumulate_rewards()
            return
        self._cumulative_rewards[agent] = 0.0
        current = game.current_player  # None once the game is over
        if game.heat != self._heat or current is None:
            self._heat = game.heat
            rewards = self.rewards = dict.fromkeys(self.agents, 0.0)
            if self.heat_shaping:
                self._add_heat_shaping(rewards)
            if current is None:
                self._add_final_rewards(rewards)
                if game.is_truncated:
                    self.truncations = dict.fromkeys(self.agents, True)
                else:
                    self.terminations = dict.fromkeys(self.agents, True)
            self._rewards_pending = True
            self._accumulate_rewards()
        elif self._rewards_pending:
            # Rewards are only ever non-zero on the step that ends a heat; clear them after it.
            # (On every other step they stay all zero, so accumulating them would change nothing.)
            self.rewards = dict.fromkeys(self.agents, 0.0)
            self._rewards_pending = False
        if current is not None:
            self.agent_selection = self.agents[current]
        if self.render_mode == "human":
            self.render()

    def _add_heat_shaping(self, rewards: dict[str, float]) -> None:
        settle = self.game.last_settle()
        points = [0.0] * self.num_players
        for chip in settle["chips"]:
            points[chip["seat"]] += chip["points"]
        for agent, value in zip(self.possible_agents, relative_to_others(points)):
            rewards[agent] += self.heat_shaping * value

    def _add_final_rewards(self, rewards: dict[str, float]) -> None:
        result = self.game.result
        if self.reward_mode == "win":
            final = win_rewards(result["winners"], self.num_players)
        else:
            final = relative_to_others([float(s) for s in result["scores"]])
        for agent, value in zip(self.possible_agents, final):
            rewards[agent] += value

    def _record_forfeit(self, agent: str) -> None:
        self.game.forfeit(self.agent_name_mapping[agent])

    def _deads_step_first(self) -> str:
        # PettingZoo's TerminateIllegalWrapper ends the game on an illegal move by setting the
        # terminations itself and calling this, with the offender still to move: record the
        # forfeit so that the game record ends with reason "illegal_action".
        if self.game is not None and not self.game.is_over:
            self._record_forfeit(self.agent_selection)
        return super()._deads_step_first()

    def state(self) -> np.ndarray:
        """The global state (every hand, discard and out-of-play card) for centralised critics."""
        return global_state(self.game, self.observer)

    def close(self) -> None:
        pass

    # ------------------------------------------------------------------ records

    def record(self) -> dict[str, Any]:
        """The record of the current game (docs/records.md)."""
        controllers = self.controllers or ["env"] * self.num_players
        return self.game.record(controllers=controllers, agents=self.possible_agents)

    def save_record(self, path: str | Path) -> Path:
        """Validate and write the current game's record as JSON."""
        from club_envs import records

        return records.save(self.record(), path)
