"""The compiled belief decision decides as :class:`~club_envs.members_only.belief_agent.BeliefAgent`
at every position of games played on both engines.

The games are dealt the same decks on the reference engine and on the batched engine and played
move for move. At each round every game's player to move is answered on the batched engine by one
call of :class:`~club_envs.members_only.vector_belief.VectorBeliefPolicy` (one forward pass for all
the games, as in training) and, game by game, by the reference agent on the reference view and
observation (asked alone): the two choices must be the same. The model is a random one with a
non-zero last layer, so its belief differs from the uniform prior and from position to position;
some moves are random, so the positions go beyond what belief players reach. ``CLUB_ENVS_LONG=1``
plays many more games; the check runs once more with ``NUMBA_DISABLE_JIT=1``, in a subprocess.
"""

from __future__ import annotations

import numpy as np
import pytest

from club_envs.agents.base import Decision
from club_envs.agents.batched import GameRows
from club_envs.members_only.belief_agent import BeliefAgent
from club_envs.members_only.belief_model import BeliefModel
from club_envs.members_only.observer import Observer
from club_envs.members_only.rules import Config
from club_envs.members_only.vector_belief import VectorBeliefPolicy
from club_envs.members_only.vector_engine import VectorGames
from club_envs.members_only.vector_observer import VectorObserver
from tests.differential import LONG, NO_JIT, passes_without_jit
from tests.members_only.helpers import random_decks, reference_game

GAMES = 300 if LONG else (2 if NO_JIT else 10)  # per table size


def opinionated_model(seed: int) -> BeliefModel:
    """A belief model whose predictions differ from the uniform prior, and by position."""
    model = BeliefModel.untrained((48,), seed=seed)
    rng = np.random.default_rng(seed)
    w, b = model.layers[-1]
    model.layers[-1] = (rng.normal(0.0, 0.3, w.shape).astype(np.float32),
                        rng.normal(0.0, 0.5, b.shape).astype(np.float32))
    return model


@pytest.mark.parametrize("num_players", [3, 4, 5])
def test_the_compiled_belief_decision_is_the_belief_agents_at_every_position(num_players):
    config = Config(num_players=num_players, max_heats=12)
    rng = np.random.default_rng(100 + num_players)
    decks = random_decks(rng, GAMES, config.max_heats)
    games = VectorGames(config, GAMES)
    games.reset(decks=decks)
    agent = BeliefAgent(opinionated_model(num_players))
    policy = VectorBeliefPolicy(agent)
    states = [reference_game(config, decks[g], 0) for g in range(GAMES)]
    observers = [Observer(config) for _ in range(num_players)]
    vector_observer = VectorObserver(config)
    explore = rng.random(GAMES) < 0.5  # half the games mix in random moves
    decisions = 0
    while not all(state.is_over for state in states):
        rows = np.array([g for g, state in enumerate(states) if not state.is_over], np.int64)
        seats = games.tables.current[rows].astype(np.int64)
        masks = games.legal_masks()[rows].copy()
        observations = vector_observer.observe_games(games, rows, seats)
        got = policy(observations, masks, GameRows(games, rows, seats))
        actions = np.zeros(GAMES, np.int64)
        for k, g in enumerate(rows.tolist()):
            state = states[g]
            seat = state.current_player
            assert seat == seats[k]
            view = state.player_view(seat)
            legal = state.legal_actions()
            expected = agent.act(Decision(seat, view, legal, lambda v=view, s=seat: observers[s].observe(v),
                                          state.legal_mask))
            assert got[k] == expected, f"game {g}, heat {state.heat}, seat {seat}: {got[k]} != {expected}"
            decisions += len(legal) > 1
            action = int(rng.choice(legal)) if explore[g] and rng.random() < 0.3 else int(expected)
            state.apply_action(action)
            actions[g] = action
        games.step(actions)
    assert games.is_over.all()
    assert decisions > 100 * GAMES
    assert policy.decisions >= decisions
    assert policy.unclear < 0.05 * decisions  # the reference agent settles the rare near-ties only


def test_the_same_decisions_with_the_jit_disabled():
    passes_without_jit(__file__, "test_the_compiled_belief_decision_is_the_belief_agents_at_every_position[4]")
