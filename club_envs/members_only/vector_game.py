"""Members Only for self-play trainers: N games on the batched engine, every seat played by the caller.

```python
import club_envs
game = club_envs.make_vector_game("members_only", num_games=256, num_players=4, seed=0)
step = game.reset(seed=0)
step = game.step(actions)      # (256,) one action per game, for step.current_player
step.rewards                   # (256, 4) what the move gave each seat
```

The interface is :class:`club_envs.vector_game.VectorGame`'s (observation and mask of the player to
move, ``current_player``, rewards to every seat, ``terminated``/``truncated``, same-step or disabled
autoreset). Each game is the PettingZoo environment's game (:mod:`club_envs.members_only.env`): the
same observation vector (510 ``float32``) and ``Discrete(101)`` actions, and after every move the
same rewards to every seat as its ``env.rewards`` -- ``reward_mode`` "win" (winners share +1, the
others -1, all 0 when everyone ties) or "score" (own score minus the mean of the others'), at the
end of the game, plus ``heat_shaping`` x (own points this heat minus the mean of the others') after
every heat. A game cut short by ``max_heats`` is ``truncated`` and scored like a finished one.

The games run on :mod:`club_envs.members_only.vector_engine` (the move and every seat's rewards in
one compiled call for all games) and are observed by
:mod:`club_envs.members_only.vector_observer`. Its deals are the batched engine's (a seed gives
other, equally random games than the reference engine's); ``reset(options={"decks": ...})`` deals
given decks (see :meth:`~club_envs.members_only.vector_engine.VectorGames.reset`), as the tests do to
replay each game on the reference engine.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces

from club_envs.errors import check_choice
from club_envs.members_only import actions as A
from club_envs.members_only.compiled import compiled
from club_envs.members_only.engine import OVER
from club_envs.members_only.env import REWARD_MODES
from club_envs.members_only.observer import SIZE
from club_envs.members_only.rules import DEFAULT_REWARDS, Config
from club_envs.members_only.vector_engine import Rules, Tables, VectorGames, apply_action, final_score, winners_of
from club_envs.members_only.vector_observer import VectorObserver
from club_envs.vector_game import VectorGame

WIN, SCORE = 0, 1  # reward modes, in REWARD_MODES order


@compiled
def seat_rewards(
    t: Tables, r: Rules, g: int, heat_before: int, reward_mode: int, heat_shaping: float, winners: np.ndarray,
    out: np.ndarray,
) -> None:
    """``out[seat]``: what the move just played in game ``g`` gave each seat -- nothing unless it
    settled a heat; then ``heat_shaping`` x (own points minus the mean of the others'), and at the
    end of the game the "win" or "score" reward (the PettingZoo environment's, term for term)."""
    over = t.phase[g] == OVER
    if t.heat[g] == heat_before and not over:
        return
    n = r.num_players
    if heat_shaping != 0.0:
        total = 0.0
        for s in range(n):
            total += t.heat_points[g, s]
        for s in range(n):
            own = float(t.heat_points[g, s])
            out[s] += heat_shaping * (own - (total - own) / (n - 1))
    if not over:
        return
    if reward_mode == WIN:
        winners_of(t, g, n, winners)
        k = 0
        for s in range(n):
            k += winners[s]
        if k == n:
            return
        for s in range(n):
            out[s] += 1.0 / k if winners[s] else -1.0 / (n - k)
        return
    total = 0.0
    for s in range(n):
        total += final_score(t, g, s)
    for s in range(n):
        own = float(final_score(t, g, s))
        out[s] += own - (total - own) / (n - 1)


@compiled
def play_moves(
    t: Tables, r: Rules, actions: np.ndarray, reward_mode: int, heat_shaping: float, winners: np.ndarray,
    rewards: np.ndarray, row: np.ndarray,
) -> None:
    """Every game still playing takes its (legal) action; ``rewards[g]``: every seat's reward for it
    (summed in float64 in ``row``, then stored, as the reference sums Python floats)."""
    n = r.num_players
    for g in range(actions.shape[0]):
        if t.phase[g] == OVER:
            continue
        heat = t.heat[g]
        apply_action(t, r, g, actions[g])
        row[:] = 0.0
        seat_rewards(t, r, g, heat, reward_mode, heat_shaping, winners, row)
        for s in range(n):
            rewards[g, s] = row[s]


class MembersOnlyVectorGame(VectorGame):
    """N games of Members Only, every seat played by the caller (see the module docstring).

    ``num_players`` (3-5), ``rewards``, ``max_heats`` and ``random_start_player`` are the rules
    options of :class:`~club_envs.members_only.rules.Config`; ``reward_mode`` and ``heat_shaping``
    the PettingZoo environment's; ``autoreset`` True (same-step) or False (disabled); ``seed`` the
    first games' (``reset(seed=...)`` sets it again).
    """

    def __init__(
        self,
        num_games: int,
        num_players: int = 4,
        rewards: Any = DEFAULT_REWARDS,
        max_heats: int = 30,
        random_start_player: bool = False,
        reward_mode: str = "win",
        heat_shaping: float = 0.0,
        autoreset: bool = True,
        seed: int | None = None,
    ) -> None:
        self.config = Config(
            num_players=num_players, rewards=rewards, max_heats=max_heats, random_start_player=random_start_player
        )
        check_choice("reward_mode", reward_mode, tuple(REWARD_MODES))
        self.reward_mode = reward_mode
        self.heat_shaping = float(heat_shaping)
        self.games = VectorGames(self.config, num_games, seed=seed)
        self.num_games = self.games.num_games
        self.num_players = self.config.num_players
        self.single_observation_space = spaces.Box(low=0.0, high=1.0, shape=(SIZE,), dtype=np.float32)
        self.single_action_space = spaces.Discrete(A.NUM_ACTIONS)
        self.observer = VectorObserver(self.config)
        self._winners = np.zeros(self.num_players, np.bool_)
        self._row = np.zeros(self.num_players, np.float64)
        self._setup(autoreset)

    def _new_games(self, which: np.ndarray | None, seed: Any, options: dict[str, Any]) -> None:
        if which is not None:
            self.games.reset_games(which)
            return
        unknown = set(options) - {"decks", "start_players"}
        if unknown:
            raise ValueError(f"unknown reset options {', '.join(sorted(unknown))}; expected decks, start_players, "
                             "reset_mask")
        self.games.reset(seed=seed, decks=options.get("decks"), start_players=options.get("start_players"))

    def _play(self, actions: np.ndarray, rewards: np.ndarray) -> None:
        self.games.check_actions(actions)
        play_moves(self.games.tables, self.games.rules, actions, REWARD_MODES.index(self.reward_mode),
                   self.heat_shaping, self._winners, rewards, self._row)

    def _results(self, games: np.ndarray) -> dict[str, np.ndarray]:
        scores, winners = self.games.scores()
        return {"scores": scores[games], "winners": winners[games]}


__all__ = ["MembersOnlyVectorGame"]
