"""The search's paired play-outs on the batched engine: every world and candidate in one call.

Paired search (:func:`club_envs.search.ismcts.paired_search`) plays each candidate of the searching
seat out to the end of the heat in the same sampled worlds. On the reference engine that is one
Python-level game per world and candidate, a decision at a time -- most of a search's time. Here
the worlds are loaded into the batched engine's tables (:mod:`club_envs.members_only.vector_positions`),
copied once per candidate, the candidate played, and all of them played out together in compiled
code by the batched form of the rollout policy; the positions are valued as
:func:`club_envs.members_only.search.position_values` values them.

The rollout policies: ``light`` (the default: the heuristic's bets and discards, reveals at random,
:class:`~club_envs.members_only.search.LightRollout`), ``heuristic`` (the exact heuristic
everywhere) and ``random``. Their random choices come from each row's own generator, seeded with the
world's rollout seed -- every candidate of a world meets the same draws, as on the reference engine
(common random numbers), but other draws than the reference's, so the two engines' searches agree
in distribution, not move for move. The heuristic's choices are its decision rule computed in
compiled arithmetic; where two options are equal to ~1e-15 this may pick the other one of the two
than the reference bot does (:mod:`club_envs.members_only.vector_heuristic` explains why), which is
immaterial to a play-out.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from club_envs.members_only.bots import HeuristicAgent
from club_envs.members_only.compiled import compiled
from club_envs.members_only.engine import OVER, REVEAL, State, View
from club_envs.members_only.rules import NUM_CATEGORIES, Config
from club_envs.members_only.vector_bots import random_action
from club_envs.members_only.vector_engine import Rules, Tables, VectorGames, apply_action, winners_of
from club_envs.members_only.vector_heuristic import (
    SEVERAL,
    Scratch,
    choice_on_offsets,
    known_position,
    offset_distribution,
    only_action,
    track_value,
)
from club_envs.members_only.vector_positions import load_states

LIGHT, HEURISTIC, RANDOM = 0, 1, 2
ROLLOUTS = {"light": LIGHT, "heuristic": HEURISTIC, "random": RANDOM}
NO_MARGIN = -1.0  # choice_on_offsets with a negative margin answers the first best option, never "unclear"


@compiled
def rollout_action(
    t: Tables, r: Rules, g: int, kind: int, chip_cost: np.ndarray, rival_weight: float, mask: np.ndarray,
    unseen: np.ndarray, shown: np.ndarray, offsets: np.ndarray, counts: np.ndarray, p: np.ndarray,
    values: np.ndarray, worth: np.ndarray,
) -> int:
    """The rollout policy ``kind``'s move for game ``g``'s player to move (still playing)."""
    if kind == RANDOM or (kind == LIGHT and t.phase[g] == REVEAL):
        return random_action(t, g, t.rng, mask)
    single = only_action(t, g, mask)
    if single != SEVERAL:
        return single
    seat = t.current[g]
    to_come = known_position(t, r, g, seat, unseen, shown)
    offset_distribution(unseen, to_come, offsets)
    return choice_on_offsets(t, r, g, seat, chip_cost, rival_weight, NO_MARGIN, mask, shown, offsets, counts, p,
                             values, worth)


@compiled
def play_out(
    t: Tables, r: Rules, rows: np.ndarray, first: np.ndarray, stop_heat: int, kind: int, chip_cost: np.ndarray,
    rival_weight: float, mask: np.ndarray, unseen: np.ndarray, shown: np.ndarray, offsets: np.ndarray,
    counts: np.ndarray, p: np.ndarray, values: np.ndarray, worth: np.ndarray,
) -> None:
    """Game ``rows[i]`` plays ``first[i]`` (legal), then the rollout policy until the game is over
    or heat ``stop_heat`` has ended."""
    for i in range(rows.shape[0]):
        g = rows[i]
        apply_action(t, r, g, first[i])
        while t.phase[g] != OVER and t.heat[g] == stop_heat:
            action = rollout_action(t, r, g, kind, chip_cost, rival_weight, mask, unseen, shown, offsets, counts, p,
                                    values, worth)
            apply_action(t, r, g, action)


@compiled
def position_values(t: Tables, r: Rules, rows: np.ndarray, temperature: float, chip_worth: np.ndarray,
                    winners: np.ndarray, out: np.ndarray) -> None:
    """``out[i]``: per seat, what game ``rows[i]`` is worth (``search.position_values``): win
    shares once over, else a softmax of the seats' track values plus the chips in hand."""
    n = r.num_players
    for i in range(rows.shape[0]):
        g = rows[i]
        if t.phase[g] == OVER:
            winners_of(t, g, n, winners)
            share = 0
            for s in range(n):
                share += winners[s]
            for s in range(n):
                out[i, s] = winners[s] / share
            continue
        best = -math.inf
        for s in range(n):
            w = 0.0
            for c in range(NUM_CATEGORIES):
                w += track_value(float(t.tracks[g, s, c]))
            w += chip_worth[0] * t.chips[g, s, 0] + chip_worth[1] * t.chips[g, s, 1]
            out[i, s] = w
            best = max(best, w)
        total = 0.0
        for s in range(n):
            out[i, s] = math.exp((out[i, s] - best) / temperature)
            total += out[i, s]
        for s in range(n):
            out[i, s] /= total


class Playouts:
    """``playouts(worlds, actions, seeds, view)``: the values ``(worlds, actions, seats)`` of
    playing each candidate action in each world, then the rollout policy ``rollout`` to the end of
    ``view``'s heat -- the batched form of paired search's loop (see the module docstring).
    ``temperature`` and ``chip_worth`` value an unfinished position as
    :func:`club_envs.members_only.search.position_values` does (its defaults are passed in by
    :func:`club_envs.members_only.search.batched_playouts`)."""

    def __init__(self, config: Config, rollout: str, temperature: float, chip_worth: tuple[float, float]) -> None:
        if rollout not in ROLLOUTS:
            raise ValueError(f"no batched play-outs for rollout {rollout!r}; batched rollouts: {', '.join(ROLLOUTS)}")
        self.config = config
        self.rollout = rollout
        self._kind = ROLLOUTS[rollout]
        bot = HeuristicAgent()
        self._chip_cost = np.array(bot.chip_cost, dtype=np.float64)
        self._rival_weight = float(bot.rival_weight)
        self._temperature = float(temperature)
        self._chip_worth = np.array(chip_worth, dtype=np.float64)
        self._scratch = Scratch()
        self._winners = np.zeros(config.num_players, np.bool_)
        self._games: VectorGames | None = None

    def __call__(self, worlds: Sequence[State], actions: Sequence[int], seeds: Sequence[int], view: View) -> np.ndarray:
        w, c = len(worlds), len(actions)
        games = self._tables(w * c)
        rows = np.arange(w * c, dtype=np.int64)
        load_states(games, worlds, rows=rows[::c], seeds=seeds)
        t = games.tables
        source = np.repeat(rows[::c], c)
        for array in t:
            array[rows] = array[source]
        first = np.tile(np.asarray(actions, dtype=np.int64), w)
        play_out(t, games.rules, rows, first, int(view.heat), self._kind, self._chip_cost, self._rival_weight,
                 *self._scratch.arrays())
        out = np.empty((w * c, self.config.num_players))
        position_values(t, games.rules, rows, self._temperature, self._chip_worth, self._winners, out)
        return out.reshape(w, c, -1)

    def _tables(self, size: int) -> VectorGames:
        if self._games is None or self._games.num_games < size:
            self._games = VectorGames(self.config, size, seed=0)
        return self._games
