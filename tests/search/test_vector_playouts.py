"""Paired search on the batched engine (Members Only): reference positions loaded into the batched
engine play on exactly as on the reference, the batched play-outs value positions as the reference
play-outs do, and ``ismcts:engine=...`` is a checked option."""

from __future__ import annotations

import numpy as np
import pytest

import club_envs.arkham_decoders as ARKHAM
import club_envs.members_only as MO
from club_envs.agents.base import Decision
from club_envs.agents.registry import load
from club_envs.members_only.bots import HeuristicAgent
from club_envs.members_only.engine import DISCARD, State
from club_envs.members_only.observer import Observer
from club_envs.members_only.rules import Config
from club_envs.members_only.sampler import sample_world
from club_envs.members_only.search import batched_playouts, position_values, search_game
from club_envs.members_only.vector_engine import VectorGames, apply_action
from club_envs.members_only.vector_observer import VectorObserver
from club_envs.members_only.vector_positions import load_states
from club_envs.members_only.vector_views import view_of
from tests.differential import passes_without_jit
from club_envs.members_only.vector_heuristic import UNCLEAR, Scratch, heuristic_action

CONFIGS = {
    "3p": Config(num_players=3),
    "4p": Config(num_players=4),
    "5p": Config(num_players=5),
    "4p-variant": Config(num_players=4, rewards=(7, 0, 2, 1, 1, 2, 0, 9), max_heats=3),
}


def positions(config: Config, count: int, seed: int) -> list[State]:
    """Games played with random legal moves to a random point, heat 1 to the end; every third one
    moved on to a picked first card of a reveal, every third to the end-of-heat discards."""
    rng = np.random.default_rng(seed)
    out = []
    for k in range(count):
        state = State(config, seed=seed * 1000 + k)
        wanted = [lambda s: True, lambda s: s.pending_reveal is not None, lambda s: s.phase == DISCARD][k % 3]
        steps = int(rng.integers(0, 260))
        while not state.is_over and (steps > 0 or not wanted(state)):
            legal = state.legal_actions()
            state.apply_action(legal[int(rng.integers(len(legal)))])
            steps -= 1
        out.append(state)
    return out


def check_same(games: VectorGames, g: int, state: State, observer: VectorObserver, where: str) -> None:
    t = games.tables
    assert t.current[g] == (-1 if state.current_player is None else state.current_player), where
    assert (t.heat[g], t.round[g], t.phase[g], bool(games.is_over[g])) == (state.heat, state.round, state.phase,
                                                                             state.is_over), where
    assert (np.flatnonzero(games.legal_masks()[g]) == state.legal_actions()).all(), where
    for seat in range(state.num_players):
        seats = np.full(games.num_games, seat)
        batched = observer.observe(games, seats)[g]
        reference = Observer(state.config).observe(state.player_view(seat))
        assert batched.tobytes() == reference.tobytes(), f"{where}, seat {seat}"
        if not state.is_over:
            assert view_of(games, g, seat) == state.player_view(seat), f"{where}, seat {seat}'s view"


@pytest.mark.parametrize("name", CONFIGS)
def test_loaded_positions_play_on_like_the_reference(name):
    """Every loaded position shows every seat the reference's observation and legal actions, and
    the same random moves played on both engines keep them equal to the end of the heat (or game)."""
    config = CONFIGS[name]
    states = positions(config, 24, seed=len(name) + config.num_players)
    games = VectorGames(config, len(states), seed=0)
    load_states(games, states)
    observer = VectorObserver(config)
    rng = np.random.default_rng(1)
    for g, state in enumerate(states):
        check_same(games, g, state, observer, f"{name} position {g}")
    phases = {s.phase for s in states}
    assert len(phases) >= 3, "the positions should cover betting, reveals and discards"
    for g, state in enumerate(states):
        heat, step = state.heat, 0
        while not state.is_over and state.heat == heat:
            legal = state.legal_actions()
            action = legal[int(rng.integers(len(legal)))]
            apply_action(games.tables, games.rules, g, action)
            state.apply_action(action)
            step += 1
            if state.heat == heat or state.is_over:
                check_same(games, g, state, observer, f"{name} position {g}, step {step}")
        assert (games.tables.tracks[g] == np.array(state.tracks)).all()
        assert (games.tables.chips[g] == np.array(state.chips)).all()
        assert games.is_over[g] == state.is_over


def test_loading_refuses_what_the_tables_cannot_play():
    games = VectorGames(Config(num_players=4), 2, seed=0)
    with pytest.raises(ValueError, match="tables play"):
        load_states(games, [State(Config(num_players=3), seed=1)])
    with pytest.raises(ValueError, match="rows must lie in 0..1"):
        load_states(games, [State(Config(num_players=4), seed=1)], rows=[2])
    forfeited = State(Config(num_players=4), seed=1)
    forfeited.forfeit(0)
    with pytest.raises(ValueError, match="illegal_action"):
        load_states(games, [forfeited])


def reference_value(world: State, action: int, view, bot: HeuristicAgent) -> np.ndarray | None:
    """The reference play-out's value, or None if the bot met a near-tie on the way (two options
    within ~1e-15, which compiled arithmetic may order the other way: vector_heuristic)."""
    state = world.clone()
    state.apply_action(action)
    games, scratch = VectorGames(state.config, 1, seed=0), Scratch()
    cost = np.array(bot.chip_cost, dtype=np.float64)
    while not state.is_over and state.heat == view.heat:
        load_states(games, [state])
        if heuristic_action(games.tables, games.rules, 0, cost, bot.rival_weight, *scratch.arrays()) == UNCLEAR:
            return None
        seat = state.current_player
        v = state.player_view(seat)
        state.apply_action(bot.act(Decision(seat, v, state.legal_actions(), lambda: None, state.legal_mask)))
    return position_values(state)


@pytest.mark.parametrize("players", [3, 4, 5])
def test_heuristic_playouts_value_positions_as_the_reference_does(players):
    """The ``heuristic`` rollout has no randomness: played out on the batched engine, every world and
    candidate ends where the reference's play-out with the exact heuristic bot ends, and is valued
    alike (the end of the heat: soft values of the tracks and chips; a finished game: win shares)
    -- unless the bot meets a near-tie on the way, where either choice is the rule's."""
    config = Config(num_players=players)
    game = search_game(config)
    playouts = batched_playouts(config, "heuristic")
    bot = HeuristicAgent(seed=0)
    rng = np.random.default_rng(players)
    checked = ties = 0
    for state in positions(config, 20, seed=40 + players):
        if state.is_over:
            continue
        view = state.player_view(state.current_player)
        worlds = [sample_world(view, rng) for _ in range(3)]
        actions = [int(a) for a in game.candidates(worlds[0])[0]]
        values = playouts(worlds, actions, [1, 2, 3], view)
        assert values.shape == (3, len(actions), players)
        for k, world in enumerate(worlds):
            for i, action in enumerate(actions):
                reference = reference_value(world, action, view, bot)
                if reference is None:
                    ties += 1
                    continue
                np.testing.assert_allclose(values[k, i], reference, rtol=1e-12)
                checked += 1
    assert checked >= 30 and ties <= checked // 2, (checked, ties)


def test_light_playouts_share_their_draws_between_candidates_and_repeat():
    """A world's candidates meet the same random draws (the seed is the world's): a candidate played
    twice gets the same value; the same call repeats exactly; and values are win shares or a
    distribution over the seats."""
    config = Config(num_players=4)
    state = positions(config, 1, seed=7)[0]
    while state.phase != 0 or len(state.legal_actions()) < 3:
        state.apply_action(state.legal_actions()[-1])
    view = state.player_view(state.current_player)
    rng = np.random.default_rng(0)
    worlds = [sample_world(view, rng) for _ in range(4)]
    action = state.legal_actions()[0]
    playouts = batched_playouts(config, "light")
    first = playouts(worlds, [action, action], [5, 6, 7, 8], view)
    np.testing.assert_array_equal(first[:, 0], first[:, 1])
    np.testing.assert_array_equal(first, playouts(worlds, [action, action], [5, 6, 7, 8], view))
    np.testing.assert_allclose(first.sum(axis=-1), 1.0)
    assert ((first >= 0) & (first <= 1)).all()


def play(agent, seed: int, decisions: int) -> list[int]:
    config = Config(num_players=4)
    state, observer, moves = State(config, seed=seed), Observer(config), []
    agent.reset(0, seed)
    while not state.is_over and len(moves) < decisions:
        seat = state.current_player
        view = state.player_view(seat)
        decision = Decision(seat, view, state.legal_actions(), lambda: observer.observe(view), state.legal_mask)
        moves.append(agent.act(decision))
        assert moves[-1] in decision.legal_actions
        state.apply_action(moves[-1])
    return moves


def test_the_default_search_plays_out_on_the_batched_engine_repeatably():
    """``ismcts`` uses the batched engine by default in Members Only; under one seed it repeats its
    moves; and it searches the same worlds and candidates as ``engine=reference``."""
    config = Config(num_players=4)
    fast = load("ismcts", game=MO, config=config, seed=3)
    assert fast.playouts is not None and fast.name == "ismcts"
    assert play(fast, 5, 40) == play(load("ismcts", game=MO, config=config, seed=3), 5, 40)
    slow = load("ismcts:engine=reference", game=MO, config=config, seed=3)
    assert slow.playouts is None and slow.name == "ismcts:engine=reference"
    state = State(config, seed=2)
    view = state.player_view(0)
    decision = Decision(0, view, state.legal_actions(), lambda: None, state.legal_mask)
    fast.reset(0, 9)
    slow.reset(0, 9)
    fast.act(decision)
    slow.act(decision)
    assert list(fast.last_stats) == list(slow.last_stats)
    assert [n for n, _ in fast.last_stats.values()] == [n for n, _ in slow.last_stats.values()]


def test_the_engine_option_is_checked():
    config = Config(num_players=4)
    with pytest.raises(ValueError, match="engine=vector\\|reference"):
        load("ismcts:engine=gpu", game=MO, config=config)
    with pytest.raises(ValueError, match="tree search runs on the reference engine"):
        load("ismcts:engine=vector:paired=0", game=MO, config=config)
    with pytest.raises(ValueError, match="rollout=light\\|heuristic\\|random"):
        load("ismcts:engine=vector:rollout=members_only", game=MO, config=config)
    assert load("ismcts:rollout=members_only", game=MO, config=config).playouts is None
    assert load("ismcts:paired=0", game=MO, config=config).playouts is None
    with pytest.raises(ValueError, match="has no play-outs on the batched engine; use engine=reference"):
        load("ismcts:engine=vector:paired=8", game=ARKHAM, config=ARKHAM.Config())
    assert load("ismcts", game=ARKHAM, config=ARKHAM.Config()).playouts is None
    with pytest.raises(ValueError, match="no batched play-outs"):
        batched_playouts(config, "members_only")


def test_the_playouts_are_the_same_without_jit():
    """The compiled play-outs run as plain Python with ``NUMBA_DISABLE_JIT=1`` and still match."""
    passes_without_jit(__file__, "test_heuristic_playouts_value_positions_as_the_reference_does[4]")
    passes_without_jit(__file__, "test_loaded_positions_play_on_like_the_reference[4p]")
