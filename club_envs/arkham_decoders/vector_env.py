"""Arkham Decoders Club as a Gymnasium vector environment: N single-agent games on the batched engine.

```python
import gymnasium, club_envs
envs = gymnasium.make_vec("club_envs/ArkhamDecoders-v0", num_envs=256, vectorization_mode="vector_entry_point",
                          num_players=5, role="black_man", opponents="random")
obs, info = envs.reset(seed=0)
masks = envs.action_masks()  # (256, 30) bool
obs, rewards, terminated, truncated, info = envs.step(actions)
```

The same game, per sub-environment, as ``gymnasium.make("club_envs/ArkhamDecoders-v0", ...)``
(:mod:`club_envs.arkham_decoders.gym_env`): the learner plays one role, the observation is its
seat's flat ``float32`` vector, the action space is ``Discrete(30)`` per game, and the reward is the
same (0 until the end, then ``reward_mode`` "win" +1/-1 or "san", the scaled SAN total, negated for
the Black Man). The games run on :mod:`club_envs.arkham_decoders.vector_engine` and the opponents
move inside compiled code, all games per call.

* ``role``: ``"leader"``, ``"member"``, ``"investigator"``, ``"black_man"`` (the seat dealt that
  role; among several members one at random) or ``"any"`` (a random seat every game). ``roles``
  fixes the public roles and ``insanity_penalty`` sets the penalty, as in the one-game env.
* ``opponents``: ``"random"`` (uniformly random legal moves, drawn per game).
* A game that ends before the learner's first decision (the last member clockwise only acts when
  someone passes) is dealt again, at most 100 times, as in the one-game env.
* Autoreset: ``AutoresetMode.SAME_STEP`` (``metadata["autoreset_mode"]``). The step that ends game
  ``i`` returns the first observation of its next game; the last observation is in
  ``info["final_obs"][i]``, and ``info["final_info"]`` holds the finished games' ``scores`` (N, n),
  ``winners`` (N, n) and SAN ``total`` (N,) (with the ``_final_obs``, ``_scores``, ``_winners`` and
  ``_total`` masks, as Gymnasium's vector infos have them). ``info["seat"]`` and ``info["role"]``
  say where the learner sits in every game.
* ``keep_records=True``: the step that ends game ``i`` also gives its standard JSON record
  (docs/records.md; the learner's controller ``"learner"``, the others ``"random"``) in
  ``info["record"][i]``, with the ``info["_record"]`` mask. It validates against the shipped schema
  and :func:`club_envs.arkham_decoders.replay.replay` reproduces it
  (:mod:`club_envs.arkham_decoders.vector_records`). Its ``seed`` is null: the record holds the deal
  and the reshuffled decks instead. Off by default: building a record replays the game on the
  reference engine.
* ``action_masks()``: ``(N, 30)`` bool; every game always has a legal action, since a game is only
  handed back on the learner's turn.
* Bad actions (wrong shape or dtype, an illegal action in any game) raise
  :class:`~club_envs.errors.IllegalActionError` naming the game and its legal actions; no game moves.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from club_envs.arkham_decoders import actions as A
from club_envs.arkham_decoders.env import REWARD_MODES, SAN_REWARD_SCALE
from club_envs.arkham_decoders.gym_env import LEARNER_ROLES, MAX_DEALS
from club_envs.arkham_decoders.rules import ROLES, Config
from club_envs.arkham_decoders.vector_bots import random_action
from club_envs.arkham_decoders.vector_engine import (
    END,
    NONE,
    Rules,
    VectorGames,
    apply_action,
    check_action_array,
    describe_illegal,
    draw_for,
    first_illegal,
    reset_game,
    role_of,
    san_total,
)
from club_envs.arkham_decoders.vector_observer import VectorObserver
from club_envs.arkham_decoders.vector_records import ActionLog, game_record, log_action
from club_envs.compiled import compiled
from club_envs.errors import ConfigError, IllegalActionError, check_choice
from club_envs.vector_rng import seed_states

OPPONENTS = ("random",)
WIN, SAN = 0, 1  # reward modes, in REWARD_MODES order
ANY_ROLE = -1


@compiled
def choose_seat(s, r: Rules, role: int) -> int:
    """The learner's seat in a new game: the seat dealt ``role`` (ROLES index; among several
    members one at random), or any seat at random (``role`` -1), drawn from the game's generator."""
    n = r.num_players
    if role == ANY_ROLE:
        return draw_for(s, n)
    count = 0
    for seat in range(n):
        count += role_of(s, seat) == role
    pick = draw_for(s, count) if count > 1 else 0
    for seat in range(n):
        if role_of(s, seat) == role:
            if pick == 0:
                return seat
            pick -= 1
    return NONE


@compiled
def end_reward(s, r: Rules, seat: int, reward_mode: int) -> float:
    """The learner's reward at the end: its side's "win" +1/-1 (the team wins at a SAN total of 1
    or more), or "san" the clipped, scaled total; the Black Man gets the negative."""
    total = san_total(s, r)
    if reward_mode == SAN:
        team = min(1.0, max(-1.0, (total - 0.5) / SAN_REWARD_SCALE))
    else:
        team = 1.0 if total >= 1 else -1.0
    return -team if seat == s.black_man else team


@compiled
def opponents_move(
    s, r: Rules, g: int, seat: int, states: np.ndarray, mask: np.ndarray, log: np.ndarray, counts: np.ndarray
) -> None:
    """Random opponents move in game ``g`` until the learner's turn or the end (each move kept in
    ``log``, see :mod:`~club_envs.arkham_decoders.vector_records`)."""
    while s.phase != END and s.current != seat:
        action = random_action(s, g, states, mask)
        log_action(log, counts, g, action)
        apply_action(s, r, action)


@compiled
def open_games(
    t: np.ndarray, r: Rules, which: np.ndarray, role: int, seats: np.ndarray, states: np.ndarray, mask: np.ndarray,
    log: np.ndarray, counts: np.ndarray,
) -> int:
    """New games where ``which`` is set: dealt, the learner seated, the opponents' moves before its
    first turn; dealt again while a game ends before that. Returns a game that ended
    ``MAX_DEALS`` times in a row before the learner's first decision, or -1."""
    for g in range(which.shape[0]):
        if not which[g]:
            continue
        s = t[g]
        for _ in range(MAX_DEALS):
            reset_game(s, r)
            counts[g] = 0
            seats[g] = choose_seat(s, r, role)
            opponents_move(s, r, g, seats[g], states, mask, log, counts)
            if s.phase != END:
                break
        if s.phase == END:
            return g
    return -1


@compiled
def play_turns(
    t: np.ndarray, r: Rules, actions: np.ndarray, seats: np.ndarray, states: np.ndarray, mask: np.ndarray,
    reward_mode: int, rewards: np.ndarray, log: np.ndarray, counts: np.ndarray,
) -> None:
    """In every game: the learner's (legal) action, then the opponents' until the learner's next
    turn or the end; ``rewards[g]``: the learner's reward for it all."""
    for g in range(actions.shape[0]):
        s = t[g]
        log_action(log, counts, g, actions[g])
        apply_action(s, r, actions[g])
        opponents_move(s, r, g, seats[g], states, mask, log, counts)
        rewards[g] = end_reward(s, r, seats[g], reward_mode) if s.phase == END else 0.0


class ArkhamDecodersVectorEnv(VectorEnv):
    """N games of the single-agent Arkham Decoders Club view (see the module docstring)."""

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": []}

    def __init__(
        self,
        num_envs: int,
        num_players: int = 5,
        role: str = "any",
        opponents: str = "random",
        roles: Sequence[str] | None = None,
        insanity_penalty: int | None = None,
        reward_mode: str = "win",
        keep_records: bool = False,
    ) -> None:
        self.config = Config(
            num_players=num_players, roles=tuple(roles) if roles is not None else None, insanity_penalty=insanity_penalty
        )
        self.num_players = self.config.num_players
        if not isinstance(opponents, str) or opponents not in OPPONENTS:
            raise ConfigError(
                f"opponents={opponents!r} is not available in the vector environment; expected one of "
                f"{', '.join(OPPONENTS)} (other opponents: vectorization_mode='sync')"
            )
        check_choice("role", role, tuple(LEARNER_ROLES))
        check_choice("reward_mode", reward_mode, tuple(REWARD_MODES))
        if isinstance(num_envs, bool) or not isinstance(num_envs, (int, np.integer)) or num_envs < 1:
            raise ConfigError(f"num_envs={num_envs!r}: expected a whole number >= 1")
        self.num_envs = int(num_envs)
        if not isinstance(keep_records, bool):
            raise ConfigError(f"keep_records={keep_records!r}: expected True or False")
        self.keep_records = keep_records
        self._log = ActionLog(self.num_envs, keep_records)
        self.role = role
        self.opponents = opponents
        self._role_code = ANY_ROLE if role == "any" else ROLES.index(role)
        self.reward_mode = tuple(REWARD_MODES).index(reward_mode)
        self.observer = VectorObserver(self.config)
        self.single_observation_space = spaces.Box(low=0.0, high=1.0, shape=(self.observer.size,), dtype=np.float32)
        self.single_action_space = spaces.Discrete(A.NUM_ACTIONS)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self.games = VectorGames(self.config, self.num_envs, seed=0)
        self.seats = np.zeros(self.num_envs, np.int64)
        self._states = seed_states(0, self.num_envs)
        self._mask = np.zeros(A.NUM_ACTIONS, np.bool_)
        self._rewards = np.zeros(self.num_envs, np.float64)
        self._obs = np.zeros((self.num_envs, self.observer.size), np.float32)

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        """New games everywhere (``seed``: the deals and the opponents' moves of every game)."""
        super().reset(seed=seed)
        deals, moves = np.random.SeedSequence(seed).spawn(2)
        self.games.tables.rng[:] = seed_states(deals, self.num_envs)
        self._states[:] = seed_states(moves, self.num_envs)
        self._open(np.ones(self.num_envs, np.bool_))
        return self.observer.observe(self.games, self.seats, self._obs).copy(), self._info()

    def step(self, actions: Any):
        actions = self._check_actions(actions)
        games = self.games
        play_turns(games.tables, games.rules, actions, self.seats, self._states, self._mask, self.reward_mode,
                   self._rewards, self._log.actions, self._log.counts)
        terminated = games.is_over.copy()
        truncated = np.zeros(self.num_envs, np.bool_)
        obs = self.observer.observe(games, self.seats, self._obs)
        info: dict[str, Any] = {}
        if terminated.any():
            final_obs = np.full(self.num_envs, None, dtype=object)
            for g in np.flatnonzero(terminated):
                final_obs[g] = obs[g].copy()
            totals, scores, winners = games.scores()
            info = {
                "final_obs": final_obs, "_final_obs": terminated,
                "final_info": {
                    "scores": scores.astype(np.float64), "_scores": terminated, "winners": winners,
                    "_winners": terminated, "total": totals, "_total": terminated,
                },
            }
            if self.keep_records:
                info["record"], info["_record"] = self._records(terminated, totals), terminated.copy()
            self._open(terminated)
            obs = self.observer.observe(games, self.seats, self._obs)
        info.update(self._info())
        return obs.copy(), self._rewards.copy(), terminated, truncated, info

    def action_masks(self) -> np.ndarray:
        """(N, 30) bool: the learner's legal actions in every game."""
        return self.games.legal_masks().copy()

    def _open(self, which: np.ndarray) -> None:
        games = self.games
        stuck = open_games(games.tables, games.rules, which, self._role_code, self.seats, self._states, self._mask,
                           self._log.actions, self._log.counts)
        if stuck >= 0:
            raise RuntimeError(
                f"game {stuck}: {MAX_DEALS} games in a row ended before the {self.role} learner had a decision; "
                "its seat only acts when the opponents pass (choose another role or other opponents)"
            )

    def _records(self, ended: np.ndarray, totals: np.ndarray) -> np.ndarray:
        """The records of the games that just ended (None for the others)."""
        records = np.full(self.num_envs, None, dtype=object)
        for g in np.flatnonzero(ended):
            controllers = ["learner" if s == self.seats[g] else self.opponents for s in range(self.num_players)]
            records[g] = game_record(self.games, int(g), self._log.decisions(g), controllers, int(totals[g]))
        return records

    def _info(self) -> dict[str, Any]:
        roles = self.games.roles()[np.arange(self.num_envs), self.seats]
        return {"seat": self.seats.copy(), "role": np.array(ROLES, dtype=object)[roles]}

    def _check_actions(self, actions: Any) -> np.ndarray:
        actions = check_action_array(actions, self.num_envs)
        bad = first_illegal(self.games.tables, actions)
        if bad >= 0:
            who = f"the learner (seat {self.seats[bad]})"
            raise IllegalActionError(
                describe_illegal(self.games.tables, self.games.legal_masks()[bad], bad, actions[bad], who)
            )
        return actions


__all__ = ["ArkhamDecodersVectorEnv"]
