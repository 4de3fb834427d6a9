"""Many games stepped together with every seat a player: the batched interface for self-play.

A :class:`VectorGame` holds N games of one table size in arrays and steps them all per call, the
way Pgx does: each call takes one action per game -- the move of that game's player to move -- and
returns a :class:`VectorGameStep` with, for every game, the observation and the legal actions of
the player now to move, ``current_player``, the rewards this move gave to **every** seat, and
whether the game ended. One policy (or one per seat, chosen by ``current_player``) plays all seats
of all games, so self-play trainers see every decision of every game:

```python
import club_envs
game = club_envs.make_vector_game("members_only", num_games=256, num_players=4, seed=0)
step = game.reset(seed=0)
for _ in range(steps):
    actions = policy(step.observation, step.action_mask)   # (N,) one per game
    step = game.step(actions)
    returns += step.rewards                                # (N, players): every seat's reward
```

Shapes (N games, P players, A actions):

| field | shape, dtype | meaning |
|---|---|---|
| ``observation`` | (N, obs) float32 | the view of ``current_player`` (a finished game: seat 0's view) |
| ``action_mask`` | (N, A) bool | its legal actions (a finished game: every action, see below) |
| ``current_player`` | (N,) int64 | the seat to move; -1 for a finished game |
| ``rewards`` | (N, P) float32 | what the step's move gave each seat (0 for a finished game) |
| ``terminated`` | (N,) bool | the game ended by its rules on this step |
| ``truncated`` | (N,) bool | the game was cut short (a safety limit) on this step |
| ``info`` | dict | see below |

**Autoreset** (``metadata["autoreset_mode"]``, chosen by ``autoreset=``):

* ``AutoresetMode.SAME_STEP`` (``autoreset=True``, the default): the step that ends game ``i``
  reports its end (``terminated``/``truncated``, the final rewards) and already returns the first
  position of the next game in ``i``; every game always has a player to move and a legal action.
  ``info["final_obs"][i]`` holds every seat's view of the finished game, a ``(P, obs)`` array
  (``None`` for the other games), and ``info["final_info"]`` its results (``"scores"`` (N, P),
  ``"winners"`` (N, P) bool, ``"decisions"`` (N,) -- each with a ``"_name"`` mask, as Gymnasium's
  vector infos have them).
* ``AutoresetMode.DISABLED`` (``autoreset=False``): a finished game stays finished until
  ``reset(options={"reset_mask": mask})`` restarts the games of ``mask``. Its ``current_player``
  is -1, its rewards 0, its action is ignored, and its mask allows every action (as Pgx does: a
  masked softmax over it stays defined). ``info["final_obs"]``/``info["final_info"]`` come on the
  step that ends it, as above.

Seeding: ``reset(seed=s)`` fixes every game and every later automatic restart (a game's next deal
comes from its own generator, so it does not depend on the other games); the same seed and the
same actions give the same games. Bad input -- a wrong shape or dtype, an illegal action in any
game -- raises :class:`~club_envs.errors.IllegalActionError` naming the game and its legal actions,
and no game moves.

A game provides its batched version by subclassing :class:`VectorGame` (three methods over its
batched engine, which it hands over with its batched observer) and naming it in its spec's optional
``vector_game`` hook; :func:`make_vector_game` finds it by the game's name.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any, NamedTuple

import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode

from club_envs.errors import IllegalActionError
from club_envs.games import get_spec, specs

VECTOR_GAME_HOOK = "vector_game"


class VectorGameStep(NamedTuple):
    """What :meth:`VectorGame.reset` and :meth:`VectorGame.step` return (see the module docstring).

    The arrays are the caller's: the game does not write into them after returning them."""

    observation: np.ndarray
    action_mask: np.ndarray
    current_player: np.ndarray
    rewards: np.ndarray
    terminated: np.ndarray
    truncated: np.ndarray
    info: dict[str, Any]


class VectorGame(ABC):
    """N games of one table size, every seat played by the caller (see the module docstring).

    A game implements :meth:`_new_games`, :meth:`_play` and :meth:`_results` over its own batched
    engine, and sets ``num_games``, ``num_players``, ``single_observation_space`` (a ``Box``),
    ``single_action_space`` (a ``Discrete``), ``games`` (its batched engine) and ``observer`` (its
    batched observer) before calling :meth:`_setup`; this class does the checks, the rewards'
    bookkeeping, the autoreset and the infos. :meth:`_ends`, :meth:`_observe`, :meth:`_legal_masks`
    and :meth:`_current_player` read ``games`` and ``observer`` through the interface both batched
    engines share (``is_terminal``, ``is_truncated``, ``legal_masks()``, ``current_player``;
    ``observe_games``); a game whose engine differs overrides them.
    """

    num_games: int
    num_players: int
    single_observation_space: spaces.Box
    single_action_space: spaces.Discrete
    games: Any  # the batched engine
    observer: Any  # the batched observer

    def _setup(self, autoreset: bool) -> None:
        if not isinstance(autoreset, bool):
            raise ValueError(f"autoreset={autoreset!r}: expected True (same-step autoreset) or False (disabled)")
        self.autoreset = autoreset
        self.metadata = {"autoreset_mode": AutoresetMode.SAME_STEP if autoreset else AutoresetMode.DISABLED}
        self.num_actions = int(self.single_action_space.n)
        self.observation_size = int(self.single_observation_space.shape[0])
        self._decisions = np.zeros(self.num_games, np.int64)
        self._everywhere = np.arange(self.num_games)

    # ----------------------------------------------------------------------------- the game's part
    @abstractmethod
    def _new_games(self, which: np.ndarray | None, seed: Any, options: dict[str, Any]) -> None:
        """New games everywhere (``which`` None; ``seed`` seeds every game) or in the games of the
        bool mask ``which`` (dealt from each game's own generator)."""

    @abstractmethod
    def _play(self, actions: np.ndarray, rewards: np.ndarray) -> None:
        """Every game still playing takes its action (int64, already shape-checked); ``rewards``
        (N, P) float32 receives what each move gave each seat. An illegal action in a game still
        playing raises :class:`IllegalActionError` naming the game and its legal actions, before
        any game moves."""

    def _ends(self) -> tuple[np.ndarray, np.ndarray]:
        """``(terminated, truncated)``: (N,) bool, the games over by their rules / cut short."""
        return self.games.is_terminal, self.games.is_truncated

    def _observe(self, games: np.ndarray, seats: np.ndarray) -> np.ndarray:
        """(K, obs) float32: row ``k`` is seat ``seats[k]``'s view of game ``games[k]``."""
        return self.observer.observe_games(self.games, games, seats)

    def _legal_masks(self) -> np.ndarray:
        """(N, A) bool: the legal actions of each game's player to move (all False once over)."""
        return self.games.legal_masks()

    def _current_player(self) -> np.ndarray:
        """(N,) integers: each game's seat to move, -1 once over."""
        return self.games.current_player

    @abstractmethod
    def _results(self, games: np.ndarray) -> dict[str, np.ndarray]:
        """The results of the finished ``games`` (K,): ``"scores"`` (K, P) and ``"winners"`` (K, P) bool."""

    # ----------------------------------------------------------------------------- the interface
    def reset(self, *, seed: Any = None, options: dict[str, Any] | None = None) -> VectorGameStep:
        """New games everywhere (``seed`` fixes them and every later restart), or with
        ``options={"reset_mask": mask}`` only in the games of ``mask`` (the others keep going).
        Other options are the game's own (see its class)."""
        options = dict(options or {})
        mask = options.pop("reset_mask", None)
        if mask is None:
            self._new_games(None, seed, options)
            self._decisions[:] = 0
        else:
            mask = np.asarray(mask)
            if mask.shape != (self.num_games,) or mask.dtype != np.bool_:
                raise ValueError(f"reset_mask must be {self.num_games} bools, one per game; got shape {mask.shape}, "
                                 f"dtype {mask.dtype}")
            if seed is not None or options:
                raise ValueError("reset_mask restarts games from their own generators: pass no seed and no other option")
            self._new_games(mask, None, {})
            self._decisions[mask] = 0
        nothing = np.zeros(self.num_games, np.bool_)
        return self._step_result(np.zeros((self.num_games, self.num_players), np.float32), nothing, nothing, {})

    def step(self, actions: Any) -> VectorGameStep:
        """One action per game, for its player to move (see the module docstring)."""
        actions = np.asarray(actions)
        if actions.shape != (self.num_games,) or not np.issubdtype(actions.dtype, np.integer):
            raise IllegalActionError(
                f"actions must be {self.num_games} whole numbers, one per game; got shape {actions.shape}, "
                f"dtype {actions.dtype}"
            )
        playing = self._current_player() >= 0
        rewards = np.zeros((self.num_games, self.num_players), np.float32)
        self._play(actions.astype(np.int64), rewards)
        self._decisions += playing
        terminated, truncated = self._ends()
        ended = (terminated | truncated) & playing
        terminated, truncated = terminated & ended, truncated & ended
        info: dict[str, Any] = {}
        if ended.any():
            info = self._final_infos(np.flatnonzero(ended), ended)
            if self.autoreset:
                self._new_games(ended, None, {})
                self._decisions[ended] = 0
        return self._step_result(rewards, terminated, truncated, info)

    def observe(self, seats: Any) -> np.ndarray:
        """(N, obs) float32: seat ``seats[g]``'s view of game ``g`` (a seat per game, or one seat
        for all) -- for critics that look at other seats than the one to move."""
        seats = np.broadcast_to(np.asarray(seats), (self.num_games,))
        if not np.issubdtype(seats.dtype, np.integer) or seats.min() < 0 or seats.max() >= self.num_players:
            raise ValueError(f"seats must be seats 0..{self.num_players - 1}, one per game or one for all")
        return self._observe(self._everywhere, seats.astype(np.int64))

    @property
    def current_player(self) -> np.ndarray:
        """(N,) int64: each game's seat to move, -1 for a finished game (only without autoreset)."""
        return np.asarray(self._current_player(), dtype=np.int64).copy()

    def close(self) -> None:
        """Nothing to release (the games are arrays); here for the Gymnasium habit."""

    # ----------------------------------------------------------------------------- bookkeeping
    def _final_infos(self, games: np.ndarray, ended: np.ndarray) -> dict[str, Any]:
        n = self.num_players
        views = self._observe(np.repeat(games, n), np.tile(np.arange(n, dtype=np.int64), len(games)))
        final_obs = np.full(self.num_games, None, dtype=object)
        for k, g in enumerate(games):
            final_obs[g] = views[k * n:(k + 1) * n]
        results = self._results(games)
        final_info: dict[str, Any] = {}
        for name, rows in results.items():
            full = np.zeros((self.num_games, *rows.shape[1:]), rows.dtype)
            full[games] = rows
            final_info[name], final_info["_" + name] = full, ended.copy()
        final_info["decisions"], final_info["_decisions"] = np.where(ended, self._decisions, 0), ended.copy()
        return {"final_obs": final_obs, "_final_obs": ended.copy(), "final_info": final_info}

    def _step_result(self, rewards: np.ndarray, terminated: np.ndarray, truncated: np.ndarray,
                     info: dict[str, Any]) -> VectorGameStep:
        current = self.current_player
        observation = self._observe(self._everywhere, np.maximum(current, 0))
        masks = self._legal_masks().copy()
        masks[current < 0] = True  # a finished game (no autoreset): its action is ignored
        return VectorGameStep(observation, masks, current, rewards, terminated, truncated, info)


def vector_game_names() -> tuple[str, ...]:
    """The games that have a batched multi-agent version."""
    return tuple(s.name for s in specs() if s.has_hook(VECTOR_GAME_HOOK))


def make_vector_game(game: str, num_games: int, **options: Any) -> VectorGame:
    """The batched multi-agent version of ``game`` (any of its names) with ``num_games`` games;
    ``options`` are its own (``num_players``, ``seed``, ``autoreset``, rules options)."""
    spec = get_spec(game)
    if not spec.has_hook(VECTOR_GAME_HOOK):
        raise ValueError(f"{spec.name} has no batched multi-agent version; games with one: "
                         f"{', '.join(vector_game_names()) or 'none'}")
    return spec.hook(VECTOR_GAME_HOOK)(num_games=num_games, **options)


__all__ = ["VECTOR_GAME_HOOK", "VectorGame", "VectorGameStep", "make_vector_game", "vector_game_names"]
