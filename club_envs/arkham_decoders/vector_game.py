"""Arkham Decoders Club for self-play trainers: N games on the batched engine, every seat played by the caller.

```python
import club_envs
game = club_envs.make_vector_game("arkham_decoders", num_games=256, num_players=5, seed=0)
step = game.reset(seed=0)
step = game.step(actions)      # (256,) one action per game, for step.current_player
step.rewards                   # (256, 5) what the move gave each seat
```

The interface is :class:`club_envs.vector_game.VectorGame`'s (observation and mask of the player to
move, ``current_player``, rewards to every seat, ``terminated``/``truncated``, same-step or disabled
autoreset). Each game is the PettingZoo environment's game (:mod:`club_envs.arkham_decoders.env`):
the same observation vector (409 ``float32``, seats egocentric and padded to 6) and ``Discrete(30)``
actions, and after every move the same rewards to every seat as its ``env.rewards`` -- 0 until the
end, then ``reward_mode`` "win" (+1 to every team seat and -1 to the Black Man when the SAN total is
1 or more, the reverse otherwise) or "san" (the team's ``clip((total - 0.5) / 10, -1, 1)``, the
Black Man its negative). No game is ever ``truncated``: the deck runs out within three reshuffles.
``info["final_info"]`` has the finished games' ``scores`` and ``winners`` (per seat) and their SAN
``total``; with ``keep_records=True``, ``info["record"][g]`` is the finished game's standard record
(docs/records.md; with the ``info["_record"]`` mask), as in the single-agent vector environment.

The games run on :mod:`club_envs.arkham_decoders.vector_engine` (the moves and every seat's rewards
in one compiled call for all games) and are observed by
:mod:`club_envs.arkham_decoders.vector_observer`. Its deals are the batched engine's (a seed gives
other, equally random games than the reference engine's; ``reset(seed=[s0, s1, ...])`` deals game
``g`` from its own seed alone, whatever the other games are); ``game.games.setup(g)`` and
``game.games.reshuffle_decks(g)`` give what ``State(config, setup=..., reshuffle_decks=...)`` needs to
replay game ``g`` on the reference engine, as the tests do.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from gymnasium import spaces

from club_envs.arkham_decoders import actions as A
from club_envs.arkham_decoders.env import REWARD_MODES
from club_envs.arkham_decoders.rules import Config
from club_envs.arkham_decoders.vector_engine import END, Rules, VectorGames, apply_action
from club_envs.arkham_decoders.vector_turns import end_reward
from club_envs.arkham_decoders.vector_observer import SIZE, VectorObserver
from club_envs.arkham_decoders.vector_records import ActionLog, game_record, log_action
from club_envs.compiled import compiled
from club_envs.errors import check_choice
from club_envs.vector_game import VectorGame


@compiled
def play_moves(
    t: np.ndarray, r: Rules, actions: np.ndarray, reward_mode: int, rewards: np.ndarray, log: np.ndarray,
    counts: np.ndarray,
) -> None:
    """Every game still playing takes its (legal) action (kept in ``log``, see
    :mod:`~club_envs.arkham_decoders.vector_records`); ``rewards[g]``: every seat's reward for it
    -- nothing until the move that ends the game, then each seat's end reward."""
    for g in range(actions.shape[0]):
        s = t[g]
        if s.phase == END:
            continue
        log_action(log, counts, g, actions[g])
        apply_action(s, r, actions[g])
        if s.phase == END:
            for seat in range(r.num_players):
                rewards[g, seat] = end_reward(s, r, seat, reward_mode)


class ArkhamDecodersVectorGame(VectorGame):
    """N games of Arkham Decoders Club, every seat played by the caller (see the module docstring).

    ``num_players`` (4-6), ``roles`` and ``insanity_penalty`` are the rules options of
    :class:`~club_envs.arkham_decoders.rules.Config`; ``reward_mode`` the PettingZoo environment's;
    ``autoreset`` True (same-step) or False (disabled); ``seed`` the first games'
    (``reset(seed=...)`` sets it again); ``keep_records`` adds each finished game's record to the
    infos of the step that ends it.
    """

    def __init__(
        self,
        num_games: int,
        num_players: int = 5,
        roles: Sequence[str] | None = None,
        insanity_penalty: int | None = None,
        reward_mode: str = "win",
        autoreset: bool = True,
        seed: int | None = None,
        keep_records: bool = False,
    ) -> None:
        self.config = Config(
            num_players=num_players, roles=tuple(roles) if roles is not None else None,
            insanity_penalty=insanity_penalty,
        )
        check_choice("reward_mode", reward_mode, tuple(REWARD_MODES))
        self.reward_mode = reward_mode
        self._reward_code = tuple(REWARD_MODES).index(reward_mode)
        self.games = VectorGames(self.config, num_games, seed=seed)
        self.num_games = self.games.num_games
        self.num_players = self.config.num_players
        self.single_observation_space = spaces.Box(low=0.0, high=1.0, shape=(SIZE,), dtype=np.float32)
        self.single_action_space = spaces.Discrete(A.NUM_ACTIONS)
        self.observer = VectorObserver(self.config)
        if not isinstance(keep_records, bool):
            raise ValueError(f"keep_records={keep_records!r}: expected True or False")
        self.keep_records = keep_records
        self._log = ActionLog(self.num_games, keep_records)
        self._setup(autoreset)

    def _new_games(self, which: np.ndarray | None, seed: Any, options: dict[str, Any]) -> None:
        if which is not None:
            self.games.reset_games(which)
            self._log.counts[which] = 0
            return
        if options:
            raise ValueError(f"unknown reset options {', '.join(sorted(options))}; expected reset_mask")
        self.games.reset(seed=seed)
        self._log.counts[:] = 0

    def _play(self, actions: np.ndarray, rewards: np.ndarray) -> None:
        self.games.check_actions(actions)
        play_moves(self.games.arrays, self.games.rules, actions, self._reward_code, rewards, self._log.actions,
                   self._log.counts)

    def _results(self, games: np.ndarray) -> dict[str, np.ndarray]:
        totals, scores, winners = self.games.scores()
        return {"scores": scores[games].astype(np.float64), "winners": winners[games], "total": totals[games]}

    def _final_infos(self, games: np.ndarray, ended: np.ndarray) -> dict[str, Any]:
        """The base's infos of the games that just ended, and with ``keep_records`` their records
        (``info["record"][g]``, ``info["_record"]``; every seat's controller ``"env"``, as the
        PettingZoo environment writes them)."""
        info = super()._final_infos(games, ended)
        if self.keep_records:
            totals = info["final_info"]["total"]
            records = np.full(self.num_games, None, dtype=object)
            for g in games:
                records[g] = game_record(self.games, int(g), self._log.decisions(g), ["env"] * self.num_players,
                                         int(totals[g]))
            info["record"], info["_record"] = records, ended.copy()
        return info


__all__ = ["ArkhamDecodersVectorGame"]
