"""Who plays each seat of self-play tables on the batched engine, and the bots' moves, round by round.

A self-play trainer on :class:`~club_envs.members_only.vector_game.MembersOnlyVectorGame` decides
every seat of every game itself. :class:`TableSeats` holds, per game and seat, either the learner
(whose moves the trainer asks of its own policy, all its rows of a round in one call) or a bot,
and answers the bots' moves of a round:

* ``random``, ``heuristic`` and ``heuristic_bold``
  (:data:`~club_envs.members_only.vector_lineup.NAMED`) in compiled code, all their rows in one
  call: a uniformly random legal action from the game's own generator
  (:mod:`club_envs.members_only.vector_bots`), or the exact heuristic
  (:mod:`club_envs.members_only.vector_heuristic`), whose rare near-ties the reference bot settles;
* every other built-in bot (:mod:`club_envs.members_only.roster`: the style families,
  ``heuristic_sampled``) as one instance per game and seat, started with the seat's seed
  (``reset(seat, seed)``, as at a one-game table): ``heuristic_sampled`` drawing from its own
  generator in compiled code (:mod:`club_envs.members_only.vector_sampled`), the others by their
  reference code, asked on the seat's view rebuilt from the arrays
  (:func:`~club_envs.members_only.vector_views.view_of`) -- bots of one ``batch_key`` together
  through their ``act_batch``. They decide as they would at a one-game table.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from club_envs.agents.base import Decision, act_grouped
from club_envs.members_only.bots import HeuristicAgent
from club_envs.members_only.compiled import compiled
from club_envs.members_only.roster import AGENT_NAMES, make_agent
from club_envs.members_only.vector_bots import random_action
from club_envs.members_only.vector_engine import Rules, Tables, VectorGames
from club_envs.members_only.vector_heuristic import UNCLEAR, Scratch, heuristic_action, reference_choice
from club_envs.members_only.vector_lineup import AGENT, HEURISTIC, NAMED, RANDOM
from club_envs.members_only.vector_rng import seed_states
from club_envs.members_only.vector_sampled import SampledScratch, answer_compiled
from club_envs.members_only.vector_views import view_of

LEARNER = -1  # a seat's kind: the learner's (the trainer answers it)


@compiled
def compiled_bot_actions(
    t: Tables, r: Rules, rows: np.ndarray, kinds: np.ndarray, chip_cost: np.ndarray, rival_weight: np.ndarray,
    states: np.ndarray, mask: np.ndarray, unseen: np.ndarray, shown: np.ndarray, offsets: np.ndarray,
    counts: np.ndarray, p: np.ndarray, values: np.ndarray, worth: np.ndarray, out: np.ndarray,
) -> None:
    """``out[k]``: the move of the compiled bot (``kinds[k]`` RANDOM or HEURISTIC, with its
    ``chip_cost[k]`` and ``rival_weight[k]``) to move in game ``rows[k]`` -- :data:`UNCLEAR` for a
    heuristic's near-tie."""
    for k in range(rows.shape[0]):
        g = rows[k]
        if kinds[k] == RANDOM:
            out[k] = random_action(t, g, states, mask)
        else:
            out[k] = heuristic_action(t, r, g, chip_cost[k], rival_weight[k], mask, unseen, shown, offsets, counts,
                                      p, values, worth)


class TableSeats:
    """The seats of the games of ``games``: ``lineups[g][seat]`` is ``None`` for the learner or a
    built-in bot's name; ``agent_seeds[g][seat]`` the seed a reference-code bot starts game ``g``
    with; ``seed`` seeds the compiled ``random`` bots' generators (one per game). Raises
    ``ValueError`` naming a seat whose bot is not a built-in one."""

    def __init__(self, games: VectorGames, lineups: Sequence[Sequence[str | None]],
                 agent_seeds: Sequence[Sequence[int | None]], seed: Any = None) -> None:
        n, count = games.num_players, games.num_games
        if len(lineups) != count or any(len(lineup) != n for lineup in lineups):
            raise ValueError(f"lineups must name {n} seats for each of the {count} games")
        self.games = games
        self.kinds = np.full((count, n), LEARNER, np.int64)
        self.chip_cost = np.zeros((count, n, 2), np.float64)
        self.rival_weight = np.zeros((count, n), np.float64)
        self.agents: dict[tuple[int, int], Any] = {}
        self._reference_bots: dict[tuple[float, float, float], HeuristicAgent] = {}
        for g, lineup in enumerate(lineups):
            for seat, name in enumerate(lineup):
                if name is None:
                    continue
                key = name.strip().lower()
                if key in NAMED:
                    kind, cost, rival = NAMED[key]
                    self.kinds[g, seat], self.chip_cost[g, seat], self.rival_weight[g, seat] = kind, cost, rival
                elif key in AGENT_NAMES:
                    self.kinds[g, seat] = AGENT
                    agent = make_agent(key, games.config)
                    agent.reset(seat, agent_seeds[g][seat])
                    self.agents[g, seat] = agent
                else:
                    raise ValueError(f"game {g}, seat {seat}: unknown bot {name!r}; expected one of "
                                     f"{', '.join(AGENT_NAMES)} (compiled: {', '.join(NAMED)})")
        self.states = seed_states(seed, count)
        self.scratch = Scratch()
        self.sampled = SampledScratch()
        self.unclear = 0  # the compiled heuristic's near-ties, settled by the reference bot

    def learner(self, rows: np.ndarray, seats: np.ndarray) -> np.ndarray:
        """Which of the seats ``seats[k]`` of games ``rows[k]`` are the learner's (bool per row)."""
        return self.kinds[rows, seats] == LEARNER

    def bot_actions(self, rows: np.ndarray, seats: np.ndarray, observations: np.ndarray,
                    masks: np.ndarray) -> np.ndarray:
        """The bots' moves: ``seats[k]`` (a bot's, to move) in game ``rows[k]``, whose observation
        and legal actions are ``observations[k]`` and ``masks[k]``."""
        rows, seats = np.asarray(rows, np.int64), np.asarray(seats, np.int64)
        out = np.zeros(len(rows), np.int64)
        kinds = self.kinds[rows, seats]
        fast = np.flatnonzero(kinds != AGENT)
        if len(fast):
            games, s = self.games, self.scratch
            at, who = rows[fast], seats[fast]
            chosen = np.zeros(len(fast), np.int64)
            compiled_bot_actions(games.tables, games.rules, at, kinds[fast], self.chip_cost[at, who],
                                 self.rival_weight[at, who], self.states, *s.arrays(), chosen)
            for k in np.flatnonzero(chosen == UNCLEAR):
                i = fast[k]
                chosen[k] = reference_choice(games, int(rows[i]), self._reference_bot(int(rows[i]), int(seats[i])),
                                             masks[i], s)
                self.unclear += 1
            out[fast] = chosen
        slow = np.flatnonzero(kinds == AGENT)
        if len(slow):
            out[slow] = self._agent_actions(rows[slow], seats[slow], observations[slow], masks[slow])
        return out

    def _agent_actions(self, rows: np.ndarray, seats: np.ndarray, observations: np.ndarray,
                       masks: np.ndarray) -> np.ndarray:
        """The per-seat bots' moves: the sampled heuristic's in compiled code, the others each asked
        on its seat's view (bots of one kind together, as their ``act_batch`` allows)."""
        agents = [self.agents[g, seat] for g, seat in zip(rows.tolist(), seats.tolist())]
        out = np.zeros(len(rows), np.int64)
        fast, chosen = answer_compiled(self.games, rows, agents, self.sampled)  # heuristic_sampled, compiled
        out[fast] = chosen
        decisions = []
        for k in np.flatnonzero(~fast).tolist():
            g, seat, mask = int(rows[k]), int(seats[k]), masks[k].copy()
            decisions.append(Decision(seat, view_of(self.games, g, seat), np.flatnonzero(mask).tolist(),
                                      lambda o=observations[k]: o, lambda m=mask: m))
        if decisions:
            out[~fast] = act_grouped([a for a, f in zip(agents, fast) if not f], decisions)
        return out

    def _reference_bot(self, g: int, seat: int) -> HeuristicAgent:
        """The reference heuristic bot of game ``g``'s ``seat``: it settles the compiled code's near-ties."""
        key = (*self.chip_cost[g, seat].tolist(), float(self.rival_weight[g, seat]))
        if key not in self._reference_bots:
            self._reference_bots[key] = HeuristicAgent(chip_cost=key[:2], rival_weight=key[2])
        return self._reference_bots[key]


__all__ = ["LEARNER", "TableSeats", "compiled_bot_actions"]
