"""The compiled ``heuristic`` bot decides as :class:`~club_envs.arkham_decoders.bots.HeuristicAgent`
at every position of many games, for every seat and role.

Games are played on the batched engine, every seat by the compiled bot, some moves at random so
the positions go beyond what heuristic players reach. They are then replayed move by move on the
reference engine from the same setups and reshuffles, in step with a second batched run: at each
decision the reference bot's choice on the reference view is compared with the compiled bot's on
the batched engine's arrays, and the compiled bot's ``P(true)`` -- the numbers its near-ties rest
on -- with the reference's, bit for bit. ``CLUB_ENVS_LONG=1`` plays many more games; the check
runs once more with ``NUMBA_DISABLE_JIT=1`` (the compiled functions as plain Python), in a
subprocess.
"""

from __future__ import annotations

import numpy as np
import pytest

from club_envs.agents.base import Decision
from club_envs.arkham_decoders.bots import HeuristicAgent, leader_true_book, true_book_probabilities
from club_envs.arkham_decoders.engine import VOTE, State
from club_envs.arkham_decoders.rules import BLACK_MAN, NUM_VALUES, Config
from club_envs.arkham_decoders.vector_engine import VectorGames, apply_action
from club_envs.arkham_decoders.vector_heuristic import Scratch, choose
from tests.differential import LONG, NO_JIT, passes_without_jit

GAMES = 1_000 if LONG else (3 if NO_JIT else 80)  # per case
CASES = {
    "4p": Config(num_players=4),
    "5p": Config(num_players=5),
    "6p": Config(num_players=6),
    "5p-fixed-roles-no-penalty": Config(num_players=5, roles=("member", "advisor", "leader", "advisor", "member"),
                                        insanity_penalty=0),
}


def play_with_the_bot(config: Config, count: int, seed: int) -> tuple[VectorGames, list[list[int]]]:
    """Every seat of ``count`` batched games played by the compiled bot, with random moves mixed
    into half the games; returns the games (over) and each game's actions."""
    games, scratch = VectorGames(config, count, seed=seed), Scratch()
    rng = np.random.default_rng(seed)
    played: list[list[int]] = []
    for g in range(count):
        explore, actions = g % 2 == 1, []
        while not games.is_over[g]:
            action, _ = choose(games, g, scratch)
            if explore and rng.random() < 0.3:
                action = int(rng.choice(np.flatnonzero(games.legal_masks()[g])))
            apply_action(games.tables[g], games.rules, action)
            actions.append(action)
        played.append(actions)
    return games, played


def reference_numbers(view) -> np.ndarray | None:
    """The ``P(true)`` the reference bot decides on at this view (None: a Black Man's vote with no
    card of the true book face up, which needs none)."""
    if view.phase == VOTE and view.identity == BLACK_MAN:
        if not any(card // NUM_VALUES == view.true_book for _, card in view.table):
            return None
        return leader_true_book(view, view.seat)
    return true_book_probabilities(view)


@pytest.mark.long
@pytest.mark.parametrize("case", list(CASES))
def test_the_compiled_bot_chooses_the_reference_bots_action_at_every_position(case):
    config, seed = CASES[case], 100 * list(CASES).index(case)
    first, played = play_with_the_bot(config, GAMES, seed)
    games, scratch, bot = VectorGames(config, GAMES, seed=seed), Scratch(), HeuristicAgent()
    decisions = handed_back = 0
    for g, actions in enumerate(played):
        state = State(config, setup=first.setup(g), reshuffle_decks=first.reshuffle_decks(g))
        for step, action in enumerate(actions):
            seat, where = state.current_player, f"{case}, game {g}, decision {step}"
            view = state.player_view(seat)
            legal = state.legal_actions()
            expected = bot.act(Decision(seat, view, legal, lambda: None, state.legal_mask))
            got, asked = choose(games, g, scratch)
            assert got == expected, f"{where}, seat {seat} ({state.role_of(seat)}): {got} != {expected}"
            numbers = reference_numbers(view)
            if numbers is not None:
                compiled = scratch.p_leader if view.identity == BLACK_MAN and view.phase == VOTE else scratch.p_true
                assert compiled.tobytes() == np.asarray(numbers, np.float64).tobytes(), where
            decisions += 1
            handed_back += asked
            state.apply_action(action)
            apply_action(games.tables[g], games.rules, action)
        assert state.is_over and games.is_over[g], f"{case}, game {g}"
    assert decisions > 60 * GAMES
    assert handed_back < 0.02 * decisions  # the reference settles the rare near-ties only


def test_the_same_decisions_with_the_jit_disabled():
    passes_without_jit(__file__, "test_the_compiled_bot_chooses_the_reference_bots_action_at_every_position[5p]")
