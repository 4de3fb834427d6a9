"""Members Only as a Gymnasium vector environment: N single-agent games on the batched engine.

```python
import gymnasium, club_envs
envs = gymnasium.make_vec("club_envs/MembersOnly-v0", num_envs=256, vectorization_mode="vector_entry_point",
                          num_players=4, opponents="random")
obs, info = envs.reset(seed=0)
masks = envs.action_masks()  # (256, 101) bool
obs, rewards, terminated, truncated, info = envs.step(actions)
```

The same game, per sub-environment, as ``gymnasium.make("club_envs/MembersOnly-v0", ...)``
(:mod:`club_envs.members_only.gym_env`): the learner holds one seat, the observation is its flat
``float32`` vector, the action space is ``Discrete(101)`` per game, and the rewards are the same
(``reward_mode`` "win" or "score", optional ``heat_shaping``), summed over the opponents' moves
that follow the learner's. The games run on :mod:`club_envs.members_only.vector_engine` and the
opponents move inside compiled code, all games per call.

* ``opponents``: ``"random"`` (uniformly random legal moves, drawn per game).
* ``seat``: the learner's seat, or ``"random"`` for a new seat every game.
* Autoreset: ``AutoresetMode.SAME_STEP`` (``metadata["autoreset_mode"]``). The step that ends game
  ``i`` returns the first observation of its next game; the last observation is in
  ``info["final_obs"][i]`` and the final scores in ``info["final_info"]["scores"][i]`` (with the
  ``_final_obs`` and ``_scores`` masks, as Gymnasium's vector infos have them).
* ``action_masks()``: ``(N, 101)`` bool; every game always has a legal action, since a game is
  only handed back on the learner's turn.
* An illegal action in any game raises :class:`~club_envs.errors.IllegalActionError` naming the
  game and its legal actions; no game moves. ``reset(options={"decks": ...})`` deals given decks
  (see :meth:`~club_envs.members_only.vector_engine.VectorGames.reset`).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from club_envs.errors import ConfigError, IllegalActionError, check_choice
from club_envs.members_only import actions as A
from club_envs.members_only.compiled import compiled
from club_envs.members_only.engine import OVER
from club_envs.members_only.env import REWARD_MODES
from club_envs.members_only.observer import SIZE
from club_envs.members_only.rules import DEFAULT_REWARDS, Config
from club_envs.members_only.vector_bots import random_action
from club_envs.members_only.vector_engine import (
    Rules,
    Tables,
    VectorGames,
    apply_action,
    final_score,
    first_illegal,
    winners_of,
)
from club_envs.members_only.vector_observer import VectorObserver
from club_envs.members_only.vector_rng import seed_states

OPPONENTS = ("random",)
WIN, SCORE = 0, 1  # reward modes, in REWARD_MODES order


@compiled
def end_reward(t: Tables, r: Rules, g: int, seat: int, reward_mode: int, winners: np.ndarray) -> float:
    """The learner's reward when game ``g`` ends: "win" -- winners share +1 and the others -1 (0
    for all when everyone ties); "score" -- its score minus the mean of the others'."""
    n = r.num_players
    if reward_mode == WIN:
        winners_of(t, g, n, winners)
        k = 0
        for s in range(n):
            k += winners[s]
        if k == n:
            return 0.0
        if winners[seat]:
            return 1.0 / k
        return -1.0 / (n - k)
    total = 0.0
    for s in range(n):
        total += final_score(t, g, s)
    own = float(final_score(t, g, seat))
    return own - (total - own) / (n - 1)


@compiled
def move_reward(
    t: Tables, r: Rules, g: int, seat: int, heat_before: int, reward_mode: int, heat_shaping: float, winners: np.ndarray
) -> float:
    """The learner's reward from one move of game ``g``: nothing unless the move settled a heat;
    then ``heat_shaping`` x (its points minus the mean of the others'), plus :func:`end_reward` if
    the game ended."""
    over = t.phase[g] == OVER
    if t.heat[g] == heat_before and not over:
        return 0.0
    reward = 0.0
    n = r.num_players
    if heat_shaping != 0.0:
        total = 0.0
        for s in range(n):
            total += t.heat_points[g, s]
        own = float(t.heat_points[g, seat])
        reward += heat_shaping * (own - (total - own) / (n - 1))
    if over:
        reward += end_reward(t, r, g, seat, reward_mode, winners)
    return reward


@compiled
def opponents_move(
    t: Tables, r: Rules, g: int, seats: np.ndarray, states: np.ndarray, mask: np.ndarray,
    reward_mode: int, heat_shaping: float, winners: np.ndarray,
) -> float:
    """Random opponents move in game ``g`` until the learner's turn or the end; returns the
    learner's reward meanwhile."""
    seat = seats[g]
    reward = 0.0
    while t.phase[g] != OVER and t.current[g] != seat:
        heat = t.heat[g]
        apply_action(t, r, g, random_action(t, g, states, mask))
        reward += move_reward(t, r, g, seat, heat, reward_mode, heat_shaping, winners)
    return reward


@compiled
def play_turns(
    t: Tables, r: Rules, which: np.ndarray, learners: bool, actions: np.ndarray, seats: np.ndarray,
    states: np.ndarray, mask: np.ndarray, reward_mode: int, heat_shaping: float, winners: np.ndarray,
    rewards: np.ndarray,
) -> None:
    """In every game of ``which``: the learner's (legal) action if ``learners`` (otherwise a new
    game: the opponents' moves before the learner's first turn), then the opponents' until the
    learner's next turn; ``rewards[g]``: the learner's reward for it all. (One function for both,
    so the turn's code is compiled once.)"""
    for g in range(which.shape[0]):
        if not which[g]:
            continue
        rewards[g] = 0.0
        if learners:
            heat = t.heat[g]
            apply_action(t, r, g, actions[g])
            rewards[g] = move_reward(t, r, g, seats[g], heat, reward_mode, heat_shaping, winners)
        rewards[g] += opponents_move(t, r, g, seats, states, mask, reward_mode, heat_shaping, winners)


class MembersOnlyVectorEnv(VectorEnv):
    """N games of the single-agent Members Only view (see the module docstring)."""

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": []}

    def __init__(
        self,
        num_envs: int,
        num_players: int = 4,
        opponents: str = "random",
        seat: int | str = 0,
        rewards: Any = DEFAULT_REWARDS,
        max_heats: int = 30,
        random_start_player: bool = False,
        reward_mode: str = "win",
        heat_shaping: float = 0.0,
    ) -> None:
        self.config = Config(
            num_players=num_players, rewards=rewards, max_heats=max_heats, random_start_player=random_start_player
        )
        n = self.num_players = self.config.num_players
        if not isinstance(opponents, str) or opponents not in OPPONENTS:
            raise ConfigError(
                f"opponents={opponents!r} is not available in the vector environment; expected one of "
                f"{', '.join(OPPONENTS)} (other opponents: vectorization_mode='sync')"
            )
        if not (seat == "random" or (isinstance(seat, int) and not isinstance(seat, bool) and 0 <= seat < n)):
            raise ConfigError(f"seat={seat!r}: expected a seat 0..{n - 1} or 'random'")
        check_choice("reward_mode", reward_mode, tuple(REWARD_MODES))
        self.num_envs = int(num_envs)
        self.seat_option = seat
        self.reward_mode = tuple(REWARD_MODES).index(reward_mode)
        self.heat_shaping = float(heat_shaping)
        self.single_observation_space = spaces.Box(low=0.0, high=1.0, shape=(SIZE,), dtype=np.float32)
        self.single_action_space = spaces.Discrete(A.NUM_ACTIONS)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self.games = VectorGames(self.config, self.num_envs, seed=0)
        self.observer = VectorObserver(self.config)
        self.seats = np.zeros(self.num_envs, np.int64)
        self._states = seed_states(0, self.num_envs)
        self._mask = np.zeros(A.NUM_ACTIONS, np.bool_)
        self._winners = np.zeros(n, np.bool_)
        self._rewards = np.zeros(self.num_envs, np.float64)
        # The opening moves score nothing: no heat is settled before the learner's first turn.
        self._opening_rewards = np.zeros(self.num_envs, np.float64)
        self._everywhere = np.ones(self.num_envs, np.bool_)
        self._no_actions = np.zeros(self.num_envs, np.int64)
        self._obs = np.zeros((self.num_envs, SIZE), np.float32)

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        """New games everywhere; ``options={"decks": (N, H, 65)}`` deals those decks for heats 1..H."""
        super().reset(seed=seed)
        deals, moves = np.random.SeedSequence(seed).spawn(2)
        decks = (options or {}).get("decks")
        self.games.reset(seed=deals, decks=decks)
        self._states[:] = seed_states(moves, self.num_envs)
        everywhere = np.ones(self.num_envs, np.bool_)
        self._seat_games(everywhere)
        self._play(everywhere, learners=False, actions=self._no_actions, rewards=self._opening_rewards)
        return self.observer.observe(self.games, self.seats, self._obs).copy(), {"seat": self.seats.copy()}

    def step(self, actions: Any):
        actions = self._check_actions(actions)
        games = self.games
        self._play(self._everywhere, learners=True, actions=actions, rewards=self._rewards)
        terminated, truncated = games.is_terminal.copy(), games.is_truncated.copy()
        obs = self.observer.observe(games, self.seats, self._obs)
        info: dict[str, Any] = {}
        done = terminated | truncated
        if done.any():
            final_obs = np.full(self.num_envs, None, dtype=object)
            for g in np.flatnonzero(done):
                final_obs[g] = obs[g].copy()
            scores, _ = games.scores()
            info = {"final_obs": final_obs, "_final_obs": done, "final_info": {"scores": scores, "_scores": done}}
            games.reset_games(done)
            self._seat_games(done)
            self._play(done, learners=False, actions=self._no_actions, rewards=self._opening_rewards)
            obs = self.observer.observe(games, self.seats, self._obs)
        info["seat"] = self.seats.copy()
        return obs.copy(), self._rewards.copy(), terminated, truncated, info

    def action_masks(self) -> np.ndarray:
        """(N, 101) bool: the learner's legal actions in every game."""
        return self.games.legal_masks().copy()

    def _play(self, which: np.ndarray, learners: bool, actions: np.ndarray, rewards: np.ndarray) -> None:
        games = self.games
        play_turns(
            games.tables, games.rules, which, learners, actions, self.seats, self._states, self._mask,
            self.reward_mode, self.heat_shaping, self._winners, rewards,
        )

    def _seat_games(self, which: np.ndarray) -> None:
        if self.seat_option == "random":
            self.seats[which] = self.np_random.integers(self.num_players, size=int(which.sum()))
        else:
            self.seats[which] = self.seat_option

    def _check_actions(self, actions: Any) -> np.ndarray:
        actions = np.asarray(actions)
        if actions.shape != (self.num_envs,) or not np.issubdtype(actions.dtype, np.integer):
            raise IllegalActionError(
                f"actions must be {self.num_envs} whole numbers, one per game; got shape {actions.shape}, "
                f"dtype {actions.dtype}"
            )
        actions = actions.astype(np.int64)
        bad = first_illegal(self.games.tables, actions)
        if bad >= 0:
            legal = np.flatnonzero(self.games.legal_masks()[bad])
            raise IllegalActionError(
                f"game {bad}: action {actions[bad]} is not legal for the learner (seat {self.seats[bad]}); "
                f"legal actions: {', '.join(map(str, legal))}"
            )
        return actions


__all__ = ["MembersOnlyVectorEnv"]
