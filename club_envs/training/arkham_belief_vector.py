"""Arkham belief iteration's games on the batched engine: every game of a table size at once.

:func:`play_table` plays the games of one generation at one table size as rows of
:class:`~club_envs.arkham_decoders.vector_game.ArkhamDecodersVectorGame` -- game ``g`` dealt from its
own seed ``seeds[g]`` -- and labels them as :func:`club_envs.training.arkham_belief.play_game` labels
a game of the reference engine. Every seat is decided here, all games' seats of one kind in one
call:

* the team: :class:`~club_envs.arkham_decoders.vector_belief.BatchedBeliefAgent` (one forward pass
  for every team seat to move, the heuristic's rules compiled);
* the Black Man ``heuristic``: the bot compiled (:func:`~club_envs.arkham_decoders.vector_heuristic.choose_rows`);
* ``self``: :class:`~club_envs.arkham_decoders.vector_belief.BatchedBlackManAgent`, its exploration
  drawn from a generator per game;
* any other bot (``random``, the style bots): its reference code, one agent per game, asked on the
  Black Man's view built from the arrays (:func:`~club_envs.arkham_decoders.vector_views.view_of`).

Each game's Black Man is reset with the seed the reference path gives him in a game of that seed
(:func:`~club_envs.arkham_decoders.match.agent_seeds`), so he draws the same random numbers: the same
deal played on both engines is the same game, with the same examples
(``tests/training/test_arkham_belief.py`` replays the batched games on the reference engine).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from club_envs.agents.base import Decision
from club_envs.agents.batched import GameRows
from club_envs.arkham_decoders.belief_model import INPUT_SIZE as BELIEF_INPUTS
from club_envs.arkham_decoders.belief_model import BeliefModel
from club_envs.arkham_decoders.match import agent_seeds
from club_envs.arkham_decoders.rules import NUM_BOOKS, Config
from club_envs.arkham_decoders.vector_belief import BatchedBeliefAgent, BatchedBlackManAgent
from club_envs.arkham_decoders.vector_engine import VectorGames
from club_envs.arkham_decoders.vector_game import ArkhamDecodersVectorGame
from club_envs.arkham_decoders.vector_heuristic import Scratch, choose_rows
from club_envs.arkham_decoders.vector_views import view_of
from club_envs.arkham_decoders.vote_value import INPUT_SIZE as VOTE_INPUTS
from club_envs.arkham_decoders.vote_value import VOTES, VoteValueModel
from club_envs.training.settings import SELF

HEURISTIC = "heuristic"  # the Black Man played in compiled code


class Examples:
    """What a table's games teach, gathered move by move and put in game order at the end (the
    reference path's order: game after game, each in the order of play)."""

    def __init__(self) -> None:
        self.team: dict[str, list[np.ndarray]] = {"x": [], "prior": [], "label": [], "game": []}
        self.votes: dict[str, list[np.ndarray]] = {"bm_x": [], "bm_vote": [], "bm_game": []}

    def add_team(self, x: np.ndarray, prior: np.ndarray, label: np.ndarray, games: np.ndarray) -> None:
        for key, value in zip(("x", "prior", "label", "game"), (x.astype(np.float16), prior, label, games)):
            self.team[key].append(value)

    def add_votes(self, x: np.ndarray, votes: np.ndarray, games: np.ndarray) -> None:
        for key, value in zip(("bm_x", "bm_vote", "bm_game"), (x.astype(np.float16), votes, games)):
            self.votes[key].append(value)

    def arrays(self, team_won: np.ndarray) -> dict[str, np.ndarray]:
        """The examples by game (``game``, ``bm_game``: the game's index in the table) and, for the
        learned Black Man's votes, whether he won."""
        out = {**_in_game_order(self.team, "game", {"x": np.zeros((0, BELIEF_INPUTS), np.float16),
                                                    "prior": np.zeros((0, 2 * NUM_BOOKS))}),
               **_in_game_order(self.votes, "bm_game", {"bm_x": np.zeros((0, VOTE_INPUTS), np.float16)})}
        out["bm_won"] = ~team_won[out["bm_game"]]
        return out


def _in_game_order(chunks: dict[str, list[np.ndarray]], key: str, empty: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """The chunks of each field joined and sorted by their game ``key``, the order of play kept
    within a game (no chunks: ``empty``'s arrays, and no rows of whole numbers for the others)."""
    if not chunks[key]:
        return {name: empty.get(name, np.zeros(0, np.int64)) for name in chunks}
    order = np.argsort(np.concatenate(chunks[key]), kind="stable")
    return {name: np.concatenate(parts)[order] for name, parts in chunks.items()}


def true_hypothesis(games: VectorGames, rows: np.ndarray, seats: np.ndarray) -> np.ndarray:
    """The label of seat ``seats[k]``'s decision in game ``rows[k]``: the Black Man's egocentric
    advisor slot (the advisor met first clockwise from the seat is slot 0) x 4 + the true book."""
    t, n = games.tables, games.num_players
    first = np.where((t.advisors[rows, 0] - seats) % n <= (t.advisors[rows, 1] - seats) % n, 0, 1)
    black_man = np.where(t.advisors[rows, 0] == t.black_man[rows], 0, 1)
    return (black_man != first).astype(np.int64) * NUM_BOOKS + t.true_book[rows].astype(np.int64)


def play_table(config: Config, model: BeliefModel, black_men: Sequence[str], seeds: Sequence[int],
               black_man: VoteValueModel | None, exploration: float, bot_seed: int,
               phase: Any = None) -> tuple[dict[str, np.ndarray], VectorGames]:
    """The games of ``seeds`` at one table size, game ``g`` against the Black Man ``black_men[g]``
    (a bot's name, or ``self``: the learned ``black_man`` exploring that share of his votes), the
    current ``model`` in every team seat; ``bot_seed`` seeds the bots as the reference path loads
    them. Returns the examples in the reference path's form (``game``, ``bm_game``: the game's
    index here) and the finished games (their deals and reshuffles replay them on the reference
    engine). ``phase`` counts the games as they end."""
    from club_envs.agents.registry import load as load_agent
    from club_envs.games import load_game

    count, n = len(seeds), config.num_players
    table = ArkhamDecodersVectorGame(count, num_players=n, autoreset=False)
    step = table.reset(seed=[int(s) for s in seeds])
    games = table.games
    seat_of = games.tables.black_man.astype(np.int64)  # the Black Man's seat in every game
    kind = np.array(list(black_men), dtype=object)
    team, scratch = BatchedBeliefAgent(model), Scratch()

    def bm_seed(g: int) -> int | None:  # what the reference path resets game g's Black Man with
        return agent_seeds(int(seeds[g]), n)[seat_of[g]]

    learned = BatchedBlackManAgent(black_man, name=SELF, exploration=exploration) if SELF in black_men else None
    if learned is not None:
        mine = np.flatnonzero(kind == SELF)
        learned.seed_games(mine, [bm_seed(g) for g in mine])
    bots = {}
    for g in np.flatnonzero((kind != SELF) & (kind != HEURISTIC)).tolist():
        bots[g] = load_agent(kind[g], game=load_game("arkham_decoders"), config=config, seed=bot_seed)
        bots[g].reset(int(seat_of[g]), bm_seed(g))
    examples = Examples()
    while (step.current_player >= 0).any():
        actions = np.zeros(count, np.int64)
        rows = np.flatnonzero(step.current_player >= 0)
        seats = step.current_player[rows]
        black = seat_of[rows] == seats
        side = rows[~black]
        decided = team.decide(step.observation[side], step.action_mask[side], GameRows(games, side, seats[~black]))
        actions[side] = decided.actions
        asked = side[decided.asked]
        examples.add_team(decided.inputs, decided.prior, true_hypothesis(games, asked, step.current_player[asked]), asked)
        _black_men_move(step, rows[black], kind, games, scratch, learned, bots, actions, examples)
        step = table.step(actions)
        if phase is not None and step.terminated.any():
            phase.update(int(step.terminated.sum()))
    return examples.arrays(games.scores()[0] >= 1), games


def _black_men_move(step: Any, rows: np.ndarray, kind: np.ndarray, games: VectorGames, scratch: Scratch,
                    learned: BatchedBlackManAgent | None, bots: dict[int, Any], actions: np.ndarray,
                    examples: Examples) -> None:
    """The Black Men to move in the games ``rows``: the heuristic compiled, the learned one in one
    call (his votes kept as examples), the other bots by their reference code."""
    heuristic, mine = rows[kind[rows] == HEURISTIC], rows[kind[rows] == SELF]
    if len(heuristic):
        actions[heuristic], _ = choose_rows(games, heuristic, scratch)
    if len(mine):
        seats = step.current_player[mine]
        decided = learned.decide(step.observation[mine], step.action_mask[mine], GameRows(games, mine, seats))
        actions[mine] = decided.actions
        asked = mine[decided.asked]
        examples.add_votes(decided.inputs, np.where(actions[asked] == VOTES[0], 0, 1), asked)
    for g in rows[(kind[rows] != HEURISTIC) & (kind[rows] != SELF)]:
        seat, mask = int(step.current_player[g]), step.action_mask[g]
        observation = step.observation[g]
        decision = Decision(seat, view_of(games, int(g), seat), np.flatnonzero(mask).tolist(), lambda o=observation: o,
                            lambda m=mask: m)
        actions[g] = bots[int(g)].act(decision)


__all__ = ["play_table"]
