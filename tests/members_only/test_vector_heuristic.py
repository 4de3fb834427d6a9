"""The compiled ``heuristic`` bot decides as :class:`~club_envs.members_only.bots.HeuristicAgent`
at every position of recorded games.

Games are played on the reference engine and, dealt the same decks, on the batched engine, move for
move: at each decision the reference bot's choice on the reference view is compared with the
compiled bot's on the batched engine's arrays (and the batched engine's view of that seat with
the reference view). Some moves are random, so the positions go beyond what heuristic players
reach. ``CLUB_ENVS_LONG=1`` plays many more games; the check runs once more with
``NUMBA_DISABLE_JIT=1`` (the compiled functions as plain Python), in a subprocess.
"""

from __future__ import annotations


import numpy as np
import pytest

from club_envs.agents.base import Decision
from club_envs.members_only.bots import make_agent
from club_envs.members_only.rules import Config
from club_envs.members_only.vector_engine import VectorGames, apply_action
from club_envs.members_only.vector_heuristic import Scratch, choose
from club_envs.members_only.vector_views import view_of
from tests.differential import LONG, NO_JIT, passes_without_jit
from tests.members_only.helpers import random_decks, reference_game

GAMES = 400 if LONG else (2 if NO_JIT else 12)  # per case


@pytest.mark.parametrize("num_players", [3, 4, 5])
@pytest.mark.parametrize("bot_name", ["heuristic", "heuristic_bold"])
def test_the_compiled_bot_chooses_the_reference_bots_action_at_every_recorded_position(num_players, bot_name):
    config = Config(num_players=num_players, max_heats=12)
    rng = np.random.default_rng(num_players * 10 + len(bot_name))
    decks = random_decks(rng, GAMES, config.max_heats)
    games = VectorGames(config, GAMES)
    games.reset(decks=decks)
    bot = make_agent(bot_name, config)
    scratch = Scratch()
    decisions = unclear = 0
    for g in range(GAMES):
        state = reference_game(config, decks[g], 0)
        explore = rng.random() < 0.5  # half the games mix in random moves
        while not state.is_over:
            seat = state.current_player
            view = state.player_view(seat)
            assert view_of(games, g, seat) == view
            legal = state.legal_actions()
            expected = bot.act(Decision(seat, view, legal, lambda: None, state.legal_mask))
            got, asked = choose(games, g, bot, scratch)
            assert got == expected, f"game {g}, heat {state.heat}, seat {seat}: {got} != {expected}"
            decisions += 1
            unclear += asked
            action = int(rng.choice(legal)) if explore and rng.random() < 0.3 else expected
            state.apply_action(action)
            apply_action(games.tables, games.rules, g, action)
    assert decisions > 100 * GAMES
    assert unclear < 0.05 * decisions  # the reference settles the rare near-ties only


def test_the_same_decisions_with_the_jit_disabled():
    passes_without_jit(__file__, "test_the_compiled_bot_chooses_the_reference_bots_action_at_every_recorded_position[heuristic-4]")
