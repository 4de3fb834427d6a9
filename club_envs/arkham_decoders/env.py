# noqa: D212, D415
"""
# Arkham Decoders Club

| Creation           | `from club_envs import arkham_decoders_v0; arkham_decoders_v0.env(num_players=5)` or `pettingzoo.make("aec", "club_envs/arkham_decoders-v0", num_players=5)` |
|--------------------|--------------------------------------------------|
| Actions            | Discrete                                         |
| Parallel API       | No                                               |
| Manual Control     | No (see `club-envs play`)                        |
| Agents             | `agents= ['player_0', ..., 'player_{n-1}']`       |
| Agents             | 4, 5 or 6                                        |
| Action Shape       | (1,)                                             |
| Action Values      | Discrete(30)                                     |
| Observation Shape  | (409,) (the same for 4, 5 and 6 players) plus action_mask (30,) |
| Observation Values | [0, 1]                                           |

A cooperative deduction game with a hidden traitor. The leader and the members show chapter cards
of four grimoires; the two advisors (secretly the Investigator and the Black Man) vote on which get
decoded. Cards of the three fake grimoires bring +1 SAN, cards of the true grimoire (the Black
Man's) cost their value. The team (leader, members, Investigator) wins when the table's SAN total
is 1 or more at the end; otherwise the Black Man wins. Rules: docs/rules/arkham_decoders_club.md.

### Observation Space

A dict with an `'observation'` (a flat float32 vector) and an `'action_mask'`. The vector is built
only from what the observing seat may know (its `View`): own role and, for advisors, identity and
grimoire (the Black Man thereby knows the true book); own hand; every seat's public role; the
face-up cards and who showed them; every seat's decoded cards; the discard pile; the public vote
history summarised per advisor and book; face-up grimoires; deck size; reshuffles; what a
fourth-card peek taught; the phase and whose turn it is. Seats are egocentric (self first, then
clockwise) and padded to 6, so one policy plays 4, 5 or 6 players. The named slices are
`Observer(config).slices`; the table is in docs/games/arkham_decoders.md (`Observer.describe_markdown()`).

The second advisor to vote does not see the first advisor's pending vote.

#### Legal Actions Mask

`action_mask` (int8, 30) marks the legal actions of the agent to move; it is all zeros for every
other agent. With the default `illegal_action="penalize"` an illegal action ends the game
(PettingZoo's `TerminateIllegalWrapper`): the offender gets -1, everyone else 0, and the record
ends with reason `illegal_action`. With
`illegal_action="raise"` an `IllegalActionError` is raised and nothing changes. An action outside
0..29 always raises.

### Action Space

| action | meaning | who / when |
|---|---|---|
| 0..23 | reveal chapter card `a` (`book * 6 + value index`, values -1,-2,-3,-5,-7,-10; books eibon, cthaat, necronomicon, nameless_cults) | leader/member to move, proposal phase |
| 24 | pass | a member in the proposal phase (the leader never passes) |
| 25 | agree | advisor to vote |
| 26 | oppose | advisor to vote |
| 27..29 | decode the face-up card in slot 0/1/2 (reveal order) | leader after a 1-1 vote; never a card of a face-up grimoire |

### Rewards

Given at the end of the game.
* `reward_mode="win"` (default): every team seat (leader, members, Investigator) +1 and the Black
  Man -1 when the total SAN is 1 or more; the reverse otherwise.
* `reward_mode="san"`: scaled by the final total: team seats get `clip((total - 0.5) / 10, -1, 1)`
  and the Black Man its negative (the 0.5 puts the win threshold, total 1 versus 0, on the sign).

### Options

`num_players` (4, 5, 6; default 5), `roles` (fix the public role per seat, default random),
`insanity_penalty` (default the rulebook's 3/2/1 for 4/5/6 players; 0 = first game),
`reward_mode`, `illegal_action`, `render_mode` ("ansi" returns the text picture of the table,
"human" prints it), `render_seat` (whose view it draws: `None`, the default, the seat to move as
PettingZoo does -- so "human" shows each mover's hand in turn; a seat number or agent name to
follow one player; `"public"` for a spectator, no hand or identity shown). `render_for(seat)`
returns any seat's picture, or the public one, whatever the `render_mode`.

`state()` returns a god's-eye array for centralised critics (see `observer.global_state`).

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

from club_envs.arkham_decoders import actions as A
from club_envs.arkham_decoders.engine import State
from club_envs.arkham_decoders.observer import Observer, global_size, global_state
from club_envs.arkham_decoders.render import render_text
from club_envs.rendering import SeatRendering
from club_envs.arkham_decoders.rules import Config
from club_envs.errors import IllegalActionError, check_choice

REWARD_MODES = ("win", "san")
ILLEGAL_MODES = ("penalize", "raise")
SAN_REWARD_SCALE = 10.0


def env(**kwargs: Any) -> AECEnv:
    """The environment as users get it: ``raw_env`` inside PettingZoo's standard wrappers."""
    environment = raw_env(**kwargs)
    if environment.illegal_action == "penalize":
        environment = wrappers.TerminateIllegalWrapper(environment, illegal_reward=-1)
    environment = wrappers.AssertOutOfBoundsWrapper(environment)
    environment = wrappers.OrderEnforcingWrapper(environment)
    return environment


def team_reward(total: int, reward_mode: str) -> float:
    """What a team seat earns for a final SAN total (the Black Man earns its negative)."""
    if reward_mode == "san":
        return float(np.clip((total - 0.5) / SAN_REWARD_SCALE, -1.0, 1.0))
    return 1.0 if total >= 1 else -1.0


class raw_env(SeatRendering, AECEnv, EzPickle):
    metadata = {
        "render_modes": ["ansi", "human"],
        "name": "arkham_decoders_v0",
        "is_parallelizable": False,
        "render_fps": 1,
    }
    _draw = staticmethod(render_text)  # SeatRendering draws the table with it

    def __init__(
        self,
        num_players: int = 5,
        roles: tuple[str, ...] | list[str] | None = None,
        insanity_penalty: int | None = None,
        reward_mode: str = "win",
        illegal_action: str = "penalize",
        render_mode: str | None = None,
        render_seat: int | str | None = None,
    ) -> None:
        EzPickle.__init__(self, num_players, roles, insanity_penalty, reward_mode, illegal_action, render_mode,
                          render_seat)
        super().__init__()
        self.config = Config(
            num_players=num_players,
            roles=tuple(roles) if roles is not None else None,
            insanity_penalty=insanity_penalty,
        )
        check_choice("reward_mode", reward_mode, tuple(REWARD_MODES))
        check_choice("illegal_action", illegal_action, tuple(ILLEGAL_MODES))
        check_choice("render_mode", render_mode, (None, *self.metadata["render_modes"]))
        self.num_players = self.config.num_players
        self.reward_mode = reward_mode
        self.illegal_action = illegal_action
        self.render_mode = render_mode
        self.observer = Observer(self.config)
        n = self.config.num_players
        self.possible_agents = [f"player_{i}" for i in range(n)]
        self._seat = {agent: i for i, agent in enumerate(self.possible_agents)}
        self._render_seat(render_seat)  # refuse a bad seat now, not at the first render
        self.render_seat = render_seat  # whose view render() draws (see render)
        obs_space = spaces.Dict(
            {
                "observation": spaces.Box(0.0, 1.0, (self.observer.size,), dtype=np.float32),
                "action_mask": spaces.Box(0, 1, (A.NUM_ACTIONS,), dtype=np.int8),
            }
        )
        self.observation_spaces = {agent: obs_space for agent in self.possible_agents}
        self.action_spaces = {agent: spaces.Discrete(A.NUM_ACTIONS) for agent in self.possible_agents}
        self.state_space = spaces.Box(0.0, 1.0, (global_size(self.observer),), dtype=np.float32)
        self.game: State | None = None
        self.controllers: list[str] | None = None  # names written into records; "env" if unset
        self._seeder = np.random.default_rng()

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    # ------------------------------------------------------------------ AEC API
    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """Start a new game. ``seed`` fixes it (and the seeds of later unseeded resets)."""
        if seed is not None:
            self._seeder = np.random.default_rng(seed)
            game_seed = int(seed)
        else:
            game_seed = int(self._seeder.integers(2**31 - 1))
        self.game = State(self.config, seed=game_seed)
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self.agent_selection = self.possible_agents[self.game.current_player]
        self._legal = self.game.legal_actions()

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        seat = self._seat[agent]
        observation = self.observer.observe(self.game.player_view(seat))
        mask = np.zeros(A.NUM_ACTIONS, dtype=np.int8)
        if seat == self.game.current_player:
            for action in self._legal:
                mask[action] = 1
        return {"observation": observation, "action_mask": mask}

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if action is None or not 0 <= int(action) < A.NUM_ACTIONS:
            raise ValueError(f"action {action!r} is outside the action space 0..{A.NUM_ACTIONS - 1}")
        action = int(action)
        seat = self._seat[agent]
        self._cumulative_rewards[agent] = 0.0
        game = self.game
        if action in self._legal:
            game.apply_legal_action(action)
        elif self.illegal_action == "raise":
            game.apply_action(action)  # raises IllegalActionError naming the legal actions
        else:
            game.forfeit(seat)  # reached only without the wrapper (raw_env used directly)
        if game.is_over:
            self._finish(offender=seat if game.result["reason"] == "illegal_action" else None)
            self._accumulate_rewards()
        else:
            # mid-game every reward is 0 (set at reset), so there is nothing to accumulate
            self.agent_selection = self.possible_agents[game.current_player]
            self._legal = game.legal_actions()
        if self.render_mode == "human":
            self.render()

    def _finish(self, offender: int | None) -> None:
        game = self.game
        if offender is not None:
            self.rewards = {a: 0.0 for a in self.agents}
            self.rewards[self.possible_agents[offender]] = -1.0
        else:
            r = team_reward(game.result["total"], self.reward_mode)
            self.rewards = {
                a: (-r if self._seat[a] == game.black_man_seat else r) for a in self.agents
            }
        self.terminations = {a: True for a in self.agents}
        self._legal = []
        for a in self.agents:
            self.infos[a] = {"result": dict(game.result)}

    # ------------------------------------------------------------------ extras
    def state(self) -> np.ndarray:
        """God's-eye array (hidden identities, hands, pending votes, deck) for centralised critics."""
        return global_state(self.game, self.observer)

    def _deads_step_first(self) -> str:
        # PettingZoo's TerminateIllegalWrapper calls this (and nothing else does for an AEC-only
        # env) right after it ended the game for an illegal action of the agent to move; the
        # record then ends the same way. Hooking here keeps the standard wrapper unchanged and
        # costs nothing on legal steps.
        if self.game is not None and not self.game.is_over:
            self._record_forfeit(self.agent_selection)
        return super()._deads_step_first()

    def _record_forfeit(self, agent: str) -> None:
        """End the game and its record for an illegal action of ``agent``."""
        self.game.forfeit(self._seat[agent])
        self._legal = []
        for a in self.agents:
            self.infos[a] = {"result": dict(self.game.result)}

    def record(self) -> dict[str, Any]:
        """The record of the current game (docs/records.md)."""
        return self.game.record(self.controllers or ["env"] * self.config.num_players)

    def save_record(self, path: str | Path) -> Path:
        """Validate and write the current game's record as JSON."""
        from club_envs import records

        return records.save(self.record(), path)

    def close(self) -> None:
        pass


__all__ = ["env", "raw_env", "IllegalActionError"]
