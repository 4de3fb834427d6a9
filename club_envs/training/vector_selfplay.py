"""Self-play on the batched engines: all of a learner's games stepped at once, each game's
opponents drawn from the self-play pools when it starts.

What :class:`~club_envs.training.selfplay.SelfPlayEnv` does for one game -- pick a table variant,
draw the opponents from the pools, play their moves, hand the learner's result to the pool -- is
done here for N games on the games' vector environments
(``gymnasium.make_vec(..., vectorization_mode="vector_entry_point")``):

* The games are split as evenly as possible over the side's table sizes, one vector environment
  each, whose games take the side's roles in turn (the one-game path draws a size and a role per
  episode: the same mix in expectation).
* When a game is about to be dealt (``before_deal``), its opponents are drawn from the pools with
  that game's own generator and seated for that game alone (``set_opponents(value, games=...)``).
  Bots the batched engine plays itself stay names; every frozen snapshot in play becomes one
  :class:`~club_envs.agents.policy.BatchedPolicyAgent`, which answers every game and seat it holds with one forward pass per
  round of moves.
* The learner's inputs (the observation, plus ``network.features`` computed from the engine's
  arrays, :attr:`~club_envs.agents.features.Features.from_state`) are built for all games at once;
  with ``privileged=True`` each row ends with what the learner may not see (the game's
  ``vector_privileged`` hook, equal to the one-game view's ``privileged_state()``), for the
  privileged critic of :mod:`club_envs.training.privileged`.
* A finished game's result goes to ``info["final_info"]["selfplay"][i]`` (``{"opponents": ids,
  "win": share}``, as the one-game path's ``info["selfplay"]``), read by the trainer's callback for
  the pool's statistics; with ``keep_records=True`` its standard record goes to
  ``info["final_info"]["record"][i]``, the opponents named by their pool ids.

It is a Gymnasium ``VectorEnv`` with same-step autoreset; :class:`~club_envs.sb3.SB3VecEnv` makes it
what MaskablePPO trains on. Same seed, same games: the deals come from the vector environments'
reset seeds, the draws and the snapshots' sampling from generators spawned from the run's seed.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from club_envs.agents.batched import GameRows
from club_envs.agents.features import get as get_features
from club_envs.agents.policy import BatchedPolicyAgent
from club_envs.games import get_spec
from club_envs.training import games
from club_envs.training.engines import PRIVILEGED_HOOK, batched_bots
from club_envs.training.selfplay import PoolReader
from club_envs.training.settings import GameSettings


def split(total: int, parts: int) -> list[int]:
    """``total`` games over ``parts`` variants, as evenly as possible (the first ones one more)."""
    return [total // parts + (1 if k < total % parts else 0) for k in range(parts)]


class LearnerVectorEnv(VectorEnv):
    """A learner's ``num_envs`` games on the batched engine, split over table ``variants`` (each the
    options of one vector environment; ``opponents`` seated at the start), with the learner's inputs
    built for all games at once: the observation, ``features`` (``"none"``: nothing more), and with
    ``privileged`` the hidden state. A finished game's last inputs are read before its next deal
    (``info["final_obs"]``); subclasses add to its results (:meth:`_finished_game`) and seat the next
    game's opponents (:meth:`_seat`)."""

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": []}

    def __init__(self, game: str, variants: list[dict[str, Any]], num_envs: int, seed: int, opponents: Any = "random",
                 features: str = "none", keep_records: bool = False, privileged: bool = False) -> None:
        self.parts: list[Any] = []
        if num_envs < len(variants):
            raise ValueError(f"{num_envs} games cannot cover the {len(variants)} table variants of {game} "
                             f"(table sizes) on the batched engine; give at least {len(variants)} games")
        self.num_envs, self.game = int(num_envs), game
        self.features = get_features(features)
        spec = get_spec(game)
        for k, (kwargs, count) in enumerate(zip(variants, split(num_envs, len(variants)))):
            part = gymnasium.make_vec(spec.gym_id, num_envs=count, vectorization_mode="vector_entry_point",
                                      opponents=opponents, keep_records=keep_records, **kwargs).unwrapped
            part.before_deal = functools.partial(self._before_deal, k)
            self.parts.append(part)
        self.offsets = np.cumsum([0] + [p.num_envs for p in self.parts])
        first = self.parts[0]
        size = first.single_observation_space.shape[0]
        if self.features is not None:
            size = self.features.obs_size + self.features.extra
        # with a privileged critic, each row ends with what the learner may not see (the critic's alone)
        hidden = spec.hook(PRIVILEGED_HOOK) if privileged else None  # the module: privileged_rows, SIZE
        self._hidden = None if hidden is None else hidden.privileged_rows
        self.privileged_size = 0 if hidden is None else int(hidden.SIZE)
        if self.features is not None or privileged:
            self.single_observation_space = spaces.Box(-np.inf, np.inf, (size + self.privileged_size,), np.float32)
        else:
            self.single_observation_space = first.single_observation_space
        self.single_action_space = first.single_action_space
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self._win_share = games.win_share(game)
        self._finished: dict[int, tuple[np.ndarray, dict[str, Any]]] = {}
        self._resetting = False
        self._seed(seed)

    def _seed(self, seed: int) -> None:
        deals, self._seeds = np.random.SeedSequence(seed).spawn(2)
        self._deal_seeds = [int(s.generate_state(1)[0]) for s in deals.spawn(len(self.parts))]

    # ------------------------------------------------------------------ the VectorEnv API
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        if seed is not None:
            self._seed(seed)
        observations = []
        self._resetting = True  # the games under way are abandoned, not finished: no results
        try:
            for part, deal_seed in zip(self.parts, self._deal_seeds):
                obs, _ = part.reset(seed=deal_seed, options=options)
                observations.append(self._inputs(part, obs))
        finally:
            self._resetting = False
        self._finished.clear()
        return np.concatenate(observations), {}

    def step(self, actions: Any):
        actions = np.asarray(actions)
        if actions.shape != (self.num_envs,):
            raise ValueError(f"actions must be {self.num_envs} whole numbers, one per game; got shape {actions.shape}")
        results = [part.step(actions[lo:hi]) for part, lo, hi in zip(self.parts, self.offsets[:-1], self.offsets[1:])]
        observations = np.concatenate([self._inputs(part, r[0]) for part, r in zip(self.parts, results)])
        rewards = np.concatenate([r[1] for r in results]).astype(np.float64)
        terminated = np.concatenate([r[2] for r in results])
        truncated = np.concatenate([r[3] for r in results])
        info: dict[str, Any] = {}
        done = terminated | truncated
        if done.any():
            final_obs = np.full(self.num_envs, None, dtype=object)
            final_info: dict[str, Any] = {}
            for g in np.flatnonzero(done):
                final_obs[g], results_of_game = self._finished.pop(int(g))
                for key, value in results_of_game.items():
                    final_info.setdefault(key, np.full(self.num_envs, None, dtype=object))[g] = value
            for key in list(final_info):
                final_info["_" + key] = done.copy()
            if any("record" in r[4] for r in results):  # keep_records: each finished game's record
                final_info["record"] = np.concatenate([r[4].get("record", np.full(p.num_envs, None, object))
                                                       for p, r in zip(self.parts, results)])
                final_info["_record"] = done.copy()
            info = {"final_obs": final_obs, "_final_obs": done.copy(), "final_info": final_info}
        return observations, rewards, terminated, truncated, info

    def action_masks(self) -> np.ndarray:
        """(N, actions) bool: the learner's legal actions in every game."""
        return np.concatenate([part.action_masks() for part in self.parts])

    def close(self, **kwargs: Any) -> None:
        for part in self.parts:
            part.close()

    # ------------------------------------------------------------------ inputs and results
    def _inputs(self, part: Any, observations: np.ndarray, rows: np.ndarray | None = None) -> np.ndarray:
        """The learner's inputs in ``part``'s games ``rows`` (default: all) from their observations."""
        if self.features is None and self._hidden is None:
            return np.asarray(observations, np.float32)
        rows = np.arange(part.num_envs) if rows is None else rows
        seats = part.seats[rows].astype(np.int64)
        inputs = np.asarray(observations, np.float32)
        if self.features is not None:
            masks = part.games.legal_masks()[rows]
            inputs = self.features.state_inputs(inputs, masks, GameRows(part.games, rows, seats)).astype(np.float32)
        if self._hidden is not None:
            inputs = np.concatenate([inputs, self._hidden(part.games, rows, seats)], axis=1)
        return inputs

    def _before_deal(self, k: int, which: np.ndarray) -> None:
        """Part ``k``'s games ``which`` are about to be dealt anew: keep the learner's last inputs
        and results in those that just finished, then seat the next games' opponents."""
        part = self.parts[k]
        over = np.flatnonzero(which & part.games.is_over)
        if len(over) and not self._resetting:
            last = self._inputs(part, part.observer.observe_games(part.games, over, part.seats[over]), over)
            for j, row, share in zip(over, last, self._shares(part, over)):
                g = int(self.offsets[k] + j)
                self._finished[g] = (row, self._finished_game(g, share))
        self._seat(k, which)

    def _finished_game(self, g: int, win: float) -> dict[str, Any]:
        """What ``info["final_info"]`` reports of finished game ``g`` besides its record."""
        return {"win": win}

    def _seat(self, k: int, which: np.ndarray) -> None:
        """Seat the opponents of part ``k``'s games ``which`` before their deal (here: as they are)."""

    def _shares(self, part: Any, over: np.ndarray) -> list[float]:
        """The learner's win share in each finished game of ``over``: a tied win shared (or a
        side's win whole), as the one-game path counts it."""
        winners = part.games.scores()[-1]  # (scores, winners) or (totals, scores, winners): winners last
        shares = []
        for j in over:
            seat = int(part.seats[j])
            info = {"winners": [int(s) for s in np.flatnonzero(winners[j])], "seat": seat}
            shares.append(self._win_share(info, 0.0))
        return shares

class PooledVectorEnv(LearnerVectorEnv):
    """``num_envs`` self-play games of ``side``'s learner on the batched engine, each game's
    opponents drawn from the pools (``pools``: side -> ``<run>/pool/<side>``) when it starts
    (module docstring); a finished game's ``final_info["selfplay"]`` gives the pool its result."""

    def __init__(self, game: GameSettings, side: str, pools: dict[str, str | Path], num_envs: int, seed: int,
                 features: str = "none", keep_records: bool = False, privileged: bool = False) -> None:
        self.side = side
        self._draw = games.opponents_for(game.name, side)
        self._readers = {s: PoolReader(folder, np.random.default_rng(0)) for s, folder in pools.items()}
        self._snapshots: dict[tuple[str, str], BatchedPolicyAgent] = {}  # (side, snapshot id) -> its batched form
        self._bots = batched_bots(game.name) or ()
        self._drawn: list[list[str]] = [[] for _ in range(num_envs)]
        super().__init__(game.name, games.vector_variants(game, side), num_envs, seed, "random", features,
                         keep_records, privileged)

    def _seed(self, seed: int) -> None:
        super()._seed(seed)
        draws, self._snapshot_seeds = self._seeds.spawn(2)
        self._rngs = [np.random.default_rng(s) for s in draws.spawn(self.num_envs)]

    def _finished_game(self, g: int, win: float) -> dict[str, Any]:
        return {"selfplay": {"opponents": list(self._drawn[g]), "win": win}}

    def _seat(self, k: int, which: np.ndarray) -> None:
        """Draw and seat the opponents of each new game, with the game's own generator."""
        part = self.parts[k]
        for j in np.flatnonzero(which):
            g = int(self.offsets[k] + j)
            for reader in self._readers.values():
                reader.rng = self._rngs[g]
            drawn, self._drawn[g] = self._draw(part.num_players, self._readers, self._rngs[g])
            part.set_opponents(self._opponent(drawn), games=[int(j)])

    def _opponent(self, drawn: Any) -> Any:
        """A draw (bot names and loaded policies, per seat or per role) in the vector environment's terms."""
        if isinstance(drawn, dict):
            return {role: self._opponent(agent) for role, agent in drawn.items()}
        if isinstance(drawn, (list, tuple)):
            return [self._opponent(agent) for agent in drawn]
        if isinstance(drawn, str):
            if drawn not in self._bots:
                raise ValueError(f"bot {drawn!r} is not played by the {self.game} batched engine; its bots: "
                                 f"{', '.join(self._bots)} (envs.engine: reference plays the others)")
            return drawn
        # A snapshot is named by its step, and both Arkham sides snapshot at the same steps: the side
        # is part of the key, or one side's network would play the other side's seats.
        key = (str(drawn.meta.get("side")), drawn.name)
        if key not in self._snapshots:
            seed = int(self._snapshot_seeds.spawn(1)[0].generate_state(1)[0])
            self._snapshots[key] = BatchedPolicyAgent(drawn, seed)
            self._let_go()
        return self._snapshots[key]

    def _let_go(self) -> None:
        """Forget snapshots that left every pool (their files are gone; no game draws them again)."""
        if len(self._snapshots) > 64:
            live = {(side, oid) for side, reader in self._readers.items() for oid in reader._members}
            self._snapshots = {key: p for key, p in self._snapshots.items() if key in live}


def pooled_env(game: GameSettings, side: str, run_dir: str | Path, num_envs: int, seed: int,
               features: str = "none", keep_records: bool = False, privileged: bool = False) -> PooledVectorEnv:
    """``side``'s learner's games on the batched engine, drawing from ``run_dir``'s pools."""
    pools = {s: str(Path(run_dir) / "pool" / s) for s in games.side_names(game.name)}
    return PooledVectorEnv(game, side, pools, num_envs, seed, features, keep_records, privileged)


__all__ = ["LearnerVectorEnv", "PooledVectorEnv", "pooled_env", "split"]
