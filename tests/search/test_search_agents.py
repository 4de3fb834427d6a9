"""``ismcts`` as an agent name in both games: built by the registry, seated by lineups, repeatable,
and deciding from its seat's view alone."""

from __future__ import annotations

import json
from importlib import import_module

import numpy as np
import pytest

from club_envs.agents.base import Decision
from club_envs.agents.lineup import Lineup
from club_envs.agents.registry import is_known, load
from club_envs.cli import main
from club_envs.games import load_game
from club_envs.search.ismcts import ISMCTSAgent

MO = load_game("members_only")
ARKHAM = load_game("arkham_decoders")


@pytest.mark.parametrize("game", [MO, ARKHAM])
def test_the_registry_builds_ismcts_with_options(game):
    agent = load("ismcts:iters=8:rollout=random", game=game, config=game.Config(), seed=1)
    assert isinstance(agent, ISMCTSAgent)
    assert agent.options.iters == 8 and agent.name == "ismcts:iters=8:rollout=random"
    assert load("ismcts", game=game).name == "ismcts"
    assert is_known("ismcts:iters=3", game)


def test_bad_ismcts_names_are_refused_with_a_reason():
    with pytest.raises(ValueError, match="say which game"):
        load("ismcts")
    with pytest.raises(ValueError, match="cannot itself be ismcts"):
        load("ismcts:rollout=ismcts", game=MO)
    with pytest.raises(ValueError, match="width applies to members_only"):
        load("ismcts:width=3", game=ARKHAM)
    with pytest.raises(ValueError, match="rollout='nobody'.*unknown agent"):
        load("ismcts:rollout=nobody", game=MO)
    with pytest.raises(ValueError, match="unknown ismcts option"):
        load("ismcts:speed=9", game=ARKHAM)
    with pytest.raises(ValueError, match="ismcts"):
        load("nobody", game=MO)


def test_lineups_seat_ismcts_with_options():
    seats = Lineup.parse("ismcts:iters=8:c=1,heuristic,heuristic", MO, 3)
    assert seats.per_seat == ("ismcts:iters=8:c=1", "heuristic", "heuristic")
    roles = Lineup.parse("leader=ismcts:iters=8,member=heuristic,investigator=ismcts:iters=8,black_man=random",
                         ARKHAM, 5)
    assert roles.per_role["leader"] == "ismcts:iters=8" and roles.per_role["black_man"] == "random"


def _mo_game(seed: int) -> dict:
    config = MO.Config(num_players=3, max_heats=2)
    agents = [load("ismcts:iters=6", game=MO, config=config, seed=7), load("heuristic", game=MO, config=config),
              load("random", game=MO, config=config)]
    return MO.play_match(config, agents, seed=seed)


def test_a_members_only_game_with_ismcts_is_repeatable():
    first, second = _mo_game(11), _mo_game(11)
    assert first["result"]["reason"] in ("tracks", "max_heats")
    assert json.dumps(first) == json.dumps(second)
    assert first["seats"][0]["controller"] == "ismcts:iters=6"


def _arkham_game(seed: int) -> dict:
    config = ARKHAM.Config(num_players=5)

    def seat(s: int, role: str):
        name = "ismcts:iters=6:rollout=random" if role in ("leader", "black_man") else "heuristic"
        return load(name, game=ARKHAM, config=config, seed=s)

    return ARKHAM.play_match(config, seat, seed=seed, illegal="raise")


def test_an_arkham_game_with_ismcts_is_repeatable():
    first, second = _arkham_game(5), _arkham_game(5)
    assert first["result"]["reason"] in ("reshuffle", "no_deck")
    assert json.dumps(first) == json.dumps(second)


@pytest.mark.parametrize("game, players, steps", [(MO, 4, 30), (MO, 4, 90), (ARKHAM, 5, 10), (ARKHAM, 6, 25)])
def test_ismcts_decides_from_the_view_alone(game, players, steps):
    """Two games that differ only in what the seat cannot see get the same move."""
    config = game.Config(num_players=players)
    engine = import_module(game.__name__ + ".engine")
    sampler = import_module(game.__name__ + ".sampler")
    state = engine.State(config, seed=3)
    rng = np.random.default_rng(0)
    for _ in range(steps):
        legal = state.legal_actions()
        state.apply_action(legal[int(rng.integers(len(legal)))])
    seat = state.current_player
    view = state.player_view(seat)
    twin = sampler.sample_world(view, np.random.default_rng(1))
    assert twin.player_view(seat) == view
    moves = []
    for world in (state, twin):
        agent = load("ismcts:iters=24", game=game, config=config, seed=2)
        agent.reset(seat, 99)
        moves.append(agent.act(Decision(seat, world.player_view(seat), world.legal_actions(), lambda: None,
                                        world.legal_mask)))
    assert moves[0] == moves[1]
    assert moves[0] in state.legal_actions()


def test_evaluate_takes_ismcts_on_the_command_line(tmp_path, capsys):
    out = tmp_path / "summary.json"
    code = main(["evaluate", "members_only", "--players", "3", "--agents", "ismcts:iters=4,random,random",
                 "--games", "2", "--no-progress", "--json", str(out)])
    assert code == 0
    summary = json.loads(out.read_text())
    assert {a["agent"] for a in summary["agents"]} == {"ismcts:iters=4", "random"}
    assert main(["evaluate", "members_only", "--players", "3", "--agents", "ismcts:iters=0", "--games", "1"]) == 2
    assert "ismcts option 'iters=0'" in capsys.readouterr().err


def test_the_arkham_light_rollout_decides_as_the_heuristic():
    from club_envs.arkham_decoders.bots import HeuristicAgent
    from club_envs.arkham_decoders.engine import State
    from club_envs.arkham_decoders.search import LightRollout

    heuristic, light = HeuristicAgent(0), LightRollout(0)
    decisions = 0
    for players in (4, 5, 6):
        for seed in range(8):
            state = State(ARKHAM.Config(num_players=players), seed=seed)
            rng = np.random.default_rng(seed)
            while not state.is_over:
                seat = state.current_player
                decision = Decision(seat, state.player_view(seat), state.legal_actions(), lambda: None,
                                    state.legal_mask)
                action = heuristic.act(decision)
                assert light.act(decision) == action
                decisions += 1
                legal = state.legal_actions()
                state.apply_action(action if rng.random() < 0.7 else legal[int(rng.integers(len(legal)))])
    assert decisions > 500


def test_the_members_only_light_rollout_bets_and_discards_as_the_heuristic():
    from club_envs.members_only.engine import BET, DISCARD, REVEAL, State
    from club_envs.members_only.search import LightRollout

    heuristic, light = MO.HeuristicAgent(0), LightRollout(0)
    state = State(MO.Config(num_players=4), seed=4)
    phases = set()
    while not state.is_over and state.heat < 3:
        seat = state.current_player
        decision = Decision(seat, state.player_view(seat), state.legal_actions(), lambda: None, state.legal_mask)
        action = light.act(decision)
        assert action in decision.legal_actions
        if state.phase in (BET, DISCARD):
            assert action == heuristic.act(decision)
        phases.add(state.phase)
        state.apply_action(action)
    assert {BET, REVEAL, DISCARD} <= phases


def test_members_only_ismcts_searches_bets_by_paired_play_outs_and_plays_the_heuristics_cards():
    """Bets compared in the same sampled worlds; with the heuristic's estimates, reveals and
    discards are the heuristic's own choice (cards=1), so they need no play-outs."""
    from club_envs.members_only.bots import HeuristicAgent
    from club_envs.members_only.engine import BET, State

    config = MO.Config(num_players=4)
    agent = load("ismcts:paired=3:estimates=heuristic", game=MO, config=config, seed=2)
    heuristic = HeuristicAgent(seed=0)
    bots = [HeuristicAgent(seed=s) for s in range(4)]
    state = State(config, seed=4)
    seen = set()
    while not state.is_over and len(seen) < 3:
        seat = state.current_player
        view = state.player_view(seat)
        decision = Decision(seat, view, state.legal_actions(), lambda: None, state.legal_mask)
        if seat == 0 and len(decision.legal_actions) > 1:
            action = agent.act(decision)
            if view.phase == BET:
                assert {n for n, _ in agent.last_stats.values()} == {3}  # every bet played in 3 worlds
                assert len(agent.last_stats) <= 5  # 4 bets and "no bet"
            else:
                assert action == heuristic.act(decision)
            seen.add(view.phase)
        else:
            action = bots[seat].act(decision)
        state.apply_action(action)
    assert len(seen) == 3  # a bet, a reveal and a discard were checked
