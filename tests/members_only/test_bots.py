"""The baseline bots: the heuristic's decision rules and that it beats random play."""

from __future__ import annotations

import pytest

from club_envs.agents.base import Decision
from club_envs.members_only import Config, make_agent, outcomes, play_match
from club_envs.members_only import actions as A
from club_envs.members_only.bots import HeuristicAgent
from club_envs.members_only.engine import DISCARD, REVEAL, State
from club_envs.members_only.rules import DOUBLE, SINGLE, SPACES, parse_card
from tests.members_only.helpers import filler_hands, play_default, state_with

CROWN, UMBRELLA = 1, 0


def decide(agent, state: State) -> int:
    seat = state.current_player
    return agent.act(Decision(seat, state.player_view(seat), state.legal_actions(), lambda: None, state.legal_mask))


def test_heuristic_bets_big_where_its_own_hand_makes_the_count_near_certain():
    hands = filler_hands(4, {0: "umbrella*9"}, face_up="hat hat")
    state = state_with(4, hands, face_up="hat hat")
    action = decide(HeuristicAgent(seed=0), state)
    # 5 points x 2 on the risk marker already reach the cap of 10, so the double chip would add
    # nothing but risk: the single chip goes on ">=8".
    assert action == A.encode_bet(UMBRELLA, SPACES.index(">=8"), SINGLE)


def test_heuristic_uses_the_double_chip_when_its_points_count():
    hands = filler_hands(4, {0: "umbrella*9"}, face_up="hat hat")
    state = state_with(4, hands, face_up="hat hat")
    play_default(state, until=lambda s: s.round == 2)  # no risk marker any more: double = 2 x 5
    assert decide(HeuristicAgent(seed=0), state) == A.encode_bet(UMBRELLA, SPACES.index(">=8"), DOUBLE)


def test_heuristic_does_not_bet_when_every_space_is_a_losing_proposition():
    config = Config(num_players=4, rewards=(0, 0, 0, 0, 0, 0, 0, 0))
    state = State(config, seed=0)
    assert decide(HeuristicAgent(seed=0), state) == A.NO_BET


def test_heuristic_reveals_the_card_that_does_not_hurt_its_bet():
    hands = filler_hands(4, {0: "crown big_ben*8"}, face_up="crown crown")
    state = state_with(4, hands, face_up="crown crown", heats=2)
    bets = {(1, 1, 0): A.encode_bet(CROWN, SPACES.index("<=2"), 0)}
    play_default(state, until=lambda s: s.round == 2 and s.current_player == 0 and s.phase == REVEAL, bets=bets)
    assert state.hands[0][CROWN] == 1
    assert decide(HeuristicAgent(seed=0), state) == A.encode_reveal(parse_card("big_ben"))


def test_heuristic_discards_the_card_that_would_break_its_bet():
    hands = filler_hands(4, {0: "crown big_ben*8"}, face_up="crown crown")
    state = state_with(4, hands, face_up="crown crown", heats=2)
    bets = {(1, 1, 0): A.encode_bet(CROWN, SPACES.index("<=2"), 0)}
    play_default(state, until=lambda s: s.phase == DISCARD, bets=bets, reveals={0: [parse_card("big_ben")]})
    assert state.current_player == 0 and state.hands[0][CROWN] == 1
    assert decide(HeuristicAgent(seed=0), state) == A.encode_discard(CROWN)


def test_heuristic_beats_three_random_players():
    config = Config(num_players=4)
    wins = 0.0
    games = 24
    for g in range(games):
        seat = g % 4
        agents = [make_agent("random", config) for _ in range(4)]
        agents[seat] = make_agent("heuristic", config)
        wins += outcomes(play_match(config, agents, seed=100 + g))[seat].win
    assert wins / games > 0.6  # parity is 0.25


def test_make_agent_names_the_known_agents():
    with pytest.raises(ValueError, match="expected one of random, heuristic"):
        make_agent("alphazero", Config())
    assert make_agent("heuristic", Config(), seed=1).name == "heuristic"
    assert make_agent("random", Config(), seed=1).name == "random"
