"""Every rule and ruling of docs/rules/members_only.md, from hand-set positions."""

from __future__ import annotations

import pytest

from club_envs.errors import ConfigError, IllegalActionError
from club_envs.members_only import actions as A
from club_envs.members_only.engine import (
    BET,
    DISCARD,
    REVEAL,
    State,
    bet_is_correct,
    category_count,
    chip_multiplier,
    final_score,
    game_is_over,
    refill_chips,
    settle_heat,
    waiting_no_cards,
    winners_of,
)
from club_envs.members_only.rules import (
    CATEGORIES,
    DEFAULT_REWARDS,
    DOUBLE,
    SINGLE,
    SPACES,
    Config,
    parse_card,
)
from tests.members_only.helpers import filler_hands, play_default, state_with

UMBRELLA, CROWN, TEACUP, BIG_BEN, HAT = range(5)


def spot(category: int, space: str) -> int:
    return category * 8 + SPACES.index(space)


def bet(category: int, space: str, chip: int = SINGLE) -> int:
    return A.encode_bet(category, SPACES.index(space), chip)


def last(state: State, kind: str) -> dict:
    return next(e for e in reversed(state.events) if e["type"] == kind)


# ----------------------------------------------------------------------------- settlement


def test_rulebook_settlement_example_double_on_3_or_less_scores_4_single_on_4_or_less_scores_1():
    board = [None] * 40
    board[spot(UMBRELLA, "<=3")] = (0, DOUBLE, False)
    board[spot(UMBRELLA, "<=4")] = (1, SINGLE, False)
    board[spot(UMBRELLA, "<=2")] = (2, SINGLE, False)
    board[spot(UMBRELLA, ">=5")] = (2, DOUBLE, False)
    tracks = [(0,) * 5] * 3
    chips = [(4, 0), (3, 1), (3, 0)]
    settled = settle_heat(board, [3, 0, 0, 0, 0], DEFAULT_REWARDS, tracks, chips)
    by_space = {c["space"]: c for c in settled}
    assert by_space["<=3"]["correct"] and by_space["<=3"]["points"] == 4
    assert by_space["<=4"]["correct"] and by_space["<=4"]["points"] == 1
    assert not by_space["<=2"]["correct"] and by_space["<=2"]["points"] == 0
    assert not by_space[">=5"]["correct"]
    assert tracks[0][UMBRELLA] == 4 and tracks[1][UMBRELLA] == 1 and tracks[2] == (0,) * 5
    # Correct chips come back; every other umbrella chip is lost.
    assert chips == [(4, 1), (4, 1), (3, 0)]


def test_rulebook_settlement_example_played_through_the_engine():
    hands = filler_hands(4, {0: "umbrella*3 big_ben*6"})
    state = state_with(4, hands, heats=2)
    bets = {
        (1, 2, 0): bet(UMBRELLA, "<=3", DOUBLE),
        (1, 2, 1): bet(UMBRELLA, "<=4"),
        (1, 2, 2): bet(UMBRELLA, ">=5"),
        (1, 2, 3): bet(UMBRELLA, "<=2"),
    }
    play_default(state, until=lambda s: s.heat == 2, bets=bets)
    settle = last(state, "settle")
    assert settle["counts"]["umbrella"] == 3
    points = {(c["seat"], c["space"]): (c["correct"], c["points"]) for c in settle["chips"]}
    assert points == {(0, "<=3"): (True, 4), (1, "<=4"): (True, 1), (2, ">=5"): (False, 0), (3, "<=2"): (False, 0)}
    assert settle["tracks"][0][UMBRELLA] == 4 and settle["tracks"][1][UMBRELLA] == 1


@pytest.mark.parametrize(
    "space, count, correct",
    [("<=1", 1, True), ("<=1", 2, False), ("<=4", 4, True), ("<=4", 5, False),
     (">=5", 5, True), (">=5", 4, False), (">=8", 8, True), (">=8", 11, True), (">=8", 7, False), ("<=1", 0, True)],
)
def test_k_or_less_is_correct_at_or_below_k_and_k_or_more_at_or_above_k(space, count, correct):
    assert bet_is_correct(SPACES.index(space), count) is correct


def test_single_chip_on_risk_marker_scores_double():
    assert chip_multiplier(SINGLE, risk=True) == 2
    tracks, chips = [(0,) * 5], [(3, 1)]
    board = [None] * 40
    board[spot(CROWN, ">=6")] = (0, SINGLE, True)
    settle_heat(board, [0, 6, 0, 0, 0], DEFAULT_REWARDS, tracks, chips)
    assert tracks[0][CROWN] == 2 * 2


def test_double_chip_scores_double():
    assert chip_multiplier(DOUBLE, risk=False) == 2
    assert chip_multiplier(SINGLE, risk=False) == 1


def test_double_chip_on_risk_marker_scores_triple():
    assert chip_multiplier(DOUBLE, risk=True) == 3
    tracks, chips = [(0,) * 5], [(4, 0)]
    board = [None] * 40
    board[spot(HAT, ">=7")] = (0, DOUBLE, True)
    settled = settle_heat(board, [0, 0, 0, 0, 9], DEFAULT_REWARDS, tracks, chips)
    assert tracks[0][HAT] == 3 * 3 and settled[0]["points"] == 9
    assert chips[0] == (4, 1)


def test_track_is_capped_at_10_and_points_beyond_are_lost():
    tracks, chips = [(8, 0, 0, 0, 0)], [(3, 1)]
    board = [None] * 40
    board[spot(UMBRELLA, "<=1")] = (0, SINGLE, False)  # 5 points, only 2 fit
    settled = settle_heat(board, [1, 0, 0, 0, 0], DEFAULT_REWARDS, tracks, chips)
    assert tracks[0][UMBRELLA] == 10
    assert settled[0]["points"] == 2


def test_reward_table_is_a_configuration_value():
    config = Config(rewards={"<=1": 9, "<=2": 3, "<=3": 2, "<=4": 1, ">=5": 1, ">=6": 2, ">=7": 3, ">=8": 4})
    tracks, chips = [(0,) * 5], [(3, 1)]
    board = [None] * 40
    board[spot(TEACUP, "<=1")] = (0, SINGLE, False)
    settle_heat(board, [0, 0, 1, 0, 0], config.rewards, tracks, chips)
    assert tracks[0][TEACUP] == 9
    assert config.to_record()["rewards"]["<=1"] == 9


def test_default_rewards_are_the_printed_board():
    """Ruling R1: the rulebook's text fixes only two rewards; the default is the printed board."""
    printed = {"<=1": 5, "<=2": 3, "<=3": 2, "<=4": 1, ">=5": 1, ">=6": 2, ">=7": 3, ">=8": 5}
    assert Config().to_record()["rewards"] == printed
    for category in range(5):  # the same board in every category
        for space, reward in printed.items():
            counts = [0] * 5
            counts[category] = int(space[2:])  # exactly k cards: correct for "k or less" and "k or more"
            board = [None] * 40
            board[spot(category, space)] = (0, SINGLE, False)
            tracks, chips = [(0,) * 5], [(3, 1)]
            settled = settle_heat(board, counts, Config().rewards, tracks, chips)
            assert settled[0]["correct"] and settled[0]["points"] == reward, (category, space)


# ----------------------------------------------------------------------------- NO! cards


def test_no_card_cancels_one_normal_card_of_its_category():
    display = [0] * 10
    display[parse_card("crown")] = 4
    display[parse_card("crown-no")] = 1
    assert category_count(display, CROWN) == 3
    display[parse_card("crown-no")] = 2
    assert category_count(display, CROWN) == 2


def test_no_card_before_any_normal_card_waits_and_cancels_the_next_one():
    hands = filler_hands(4, {0: "umbrella-no hat*8", 1: "umbrella big_ben*8", 3: "umbrella teacup*8"})
    state = state_with(4, hands, heats=2)
    reveals = {0: [parse_card("umbrella-no")]}
    play_default(state, until=lambda s: s.round == 2 and s.current_player == 1, reveals=reveals)
    assert category_count(state.display, UMBRELLA) == 0
    assert waiting_no_cards(state.display, UMBRELLA) == 1  # waits: nothing to cancel yet
    play_default(state, until=lambda s: s.round == 2 and s.current_player == 2)
    # Seat 1's umbrella and the waiting NO! leave as a pair: count 0 and nothing waiting.
    assert category_count(state.display, UMBRELLA) == 0
    assert waiting_no_cards(state.display, UMBRELLA) == 0
    play_default(state, until=lambda s: s.round == 3)
    assert category_count(state.display, UMBRELLA) == 1  # seat 3's umbrella counts
    play_default(state, until=lambda s: s.heat == 2)
    assert last(state, "settle")["counts"]["umbrella"] == 1


def test_no_card_of_another_category_cancels_nothing():
    display = [0] * 10
    display[parse_card("hat")] = 2
    display[parse_card("crown-no")] = 2
    assert category_count(display, HAT) == 2
    assert category_count(display, CROWN) == 0 and waiting_no_cards(display, CROWN) == 2


# ----------------------------------------------------------------------------- heat structure


@pytest.mark.parametrize("num_players, hand, out_of_play", [(3, 11, 30), (4, 9, 27), (5, 7, 28)])
def test_heat_start_deals_by_player_count_two_face_up_rest_out_of_play(num_players, hand, out_of_play):
    state = State(Config(num_players=num_players), seed=3)
    start = state.events[0]
    assert [len(h) for h in start["hands"]] == [hand] * num_players
    assert len(start["face_up"]) == 2
    assert len(start["out_of_play"]) == out_of_play
    assert num_players * hand + 2 + out_of_play == 65


@pytest.mark.parametrize("num_players, revealing_rounds", [(3, 4), (4, 3), (5, 2)])
def test_heat_length_ends_when_every_player_holds_three_cards(num_players, revealing_rounds):
    state = State(Config(num_players=num_players), seed=1)
    play_default(state, until=lambda s: s.phase == DISCARD)
    reveals = [e for e in state.events if e["type"] == "reveal"]
    assert len(reveals) == num_players * revealing_rounds
    assert {e["round"] for e in reveals} == set(range(2, 2 + revealing_rounds))
    assert all(sum(h) == 3 for h in state.hands)
    assert state.legal_actions() and all(A.is_discard(a) for a in state.legal_actions())


def test_first_round_bets_go_on_the_risk_marker_and_nobody_reveals():
    state = State(Config(num_players=4), seed=2)
    bets = {(1, 1, 0): bet(CROWN, ">=6"), (1, 1, 2): bet(HAT, "<=2", DOUBLE)}
    play_default(state, until=lambda s: s.round == 2, bets=bets)
    first_round = [e for e in state.events if e.get("round") == 1]
    assert [e["type"] for e in first_round] == ["bet", "no_bet", "bet", "no_bet"]
    assert all(e["risk"] for e in first_round if e["type"] == "bet")
    assert all(sum(h) == 9 for h in state.hands)  # no cards revealed
    assert state.phase == BET and state.current_player == 0


def test_risk_marker_can_only_be_used_in_the_first_round():
    state = State(Config(num_players=4), seed=2)
    play_default(state, until=lambda s: s.round == 2, bets={})
    state.apply_action(bet(CROWN, ">=6"))
    assert last(state, "bet")["risk"] is False
    assert state.board[spot(CROWN, ">=6")] == (0, SINGLE, False)


def test_a_turn_is_at_most_one_chip_then_two_reveals():
    state = State(Config(num_players=4), seed=5)
    play_default(state, until=lambda s: s.round == 2)
    state.apply_action(bet(TEACUP, "<=4"))
    assert state.phase == REVEAL and all(A.is_reveal(a) for a in state.legal_actions())
    state.apply_action(state.legal_actions()[0])
    assert state.current_player == 0 and state.phase == REVEAL  # the second card
    state.apply_action(state.legal_actions()[0])
    assert state.current_player == 1 and state.phase == BET
    assert last(state, "reveal")["seat"] == 0 and len(last(state, "reveal")["cards"]) == 2


def test_chips_go_only_on_empty_spaces_and_only_chips_still_held():
    state = State(Config(num_players=4), seed=5)
    state.apply_action(bet(TEACUP, "<=4", DOUBLE))
    assert bet(TEACUP, "<=4") not in state.legal_actions()  # occupied, for every player
    with pytest.raises(IllegalActionError, match="legal actions"):
        state.apply_action(bet(TEACUP, "<=4"))
    play_default(state, until=lambda s: s.round == 2)
    legal = state.legal_actions()
    assert all(a % 2 == 0 for a in legal if A.is_bet(a))  # seat 0's double chip is on the board
    assert A.NO_BET in legal


def test_illegal_action_leaves_the_state_unchanged():
    state = State(Config(num_players=3), seed=5)
    before = state.record()
    with pytest.raises(IllegalActionError):
        state.apply_action(A.encode_reveal(0))  # no reveals in the first round
    assert state.record() == before


def test_end_of_heat_discard_never_reaches_the_display_and_the_kept_two_do():
    hands = filler_hands(4, {2: "crown*3 big_ben*6"})
    state = state_with(4, hands, heats=2)
    # Seat 2 shows big_ben first and keeps its three crowns to the end.
    play_default(state, until=lambda s: s.phase == DISCARD, reveals={2: [parse_card("big_ben")]})
    assert state.hands[2][CROWN] == 3 and state.display[CROWN] == 0
    play_default(state, until=lambda s: s.heat == 2, discards={2: parse_card("crown")})
    discard = next(e for e in state.events if e["type"] == "discard" and e["seat"] == 2)
    assert discard["card"] == "crown" and discard["kept"] == ["crown", "crown"]
    assert last(state, "settle")["counts"]["crown"] == 2


def test_discards_are_made_in_seat_order_and_hidden_from_the_others_until_all_are_made():
    state = State(Config(num_players=4), seed=9)
    play_default(state, until=lambda s: s.phase == DISCARD)
    view_before = state.player_view(1)
    state.apply_action(state.legal_actions()[0])  # seat 0 discards
    view_after = state.player_view(1)
    assert state.current_player == 1
    assert view_after.display == view_before.display
    assert view_after.hand_sizes == view_before.hand_sizes == (3, 3, 3, 3)
    assert view_after.revealed_by == view_before.revealed_by
    assert view_after.own_discard is None
    assert state.player_view(0).own_discard is not None  # private to seat 0


# ----------------------------------------------------------------------------- chips


def test_player_with_one_chip_or_none_gets_all_five_back():
    chips = [(1, 0), (0, 1), (0, 0), (2, 0), (1, 1), (4, 1)]
    assert refill_chips(chips) == [0, 1, 2]
    assert chips == [(4, 1), (4, 1), (4, 1), (2, 0), (1, 1), (4, 1)]


def test_lost_chips_stay_lost_unless_the_player_holds_one_or_none():
    hands = filler_hands(4, {0: "umbrella*3 big_ben*6"})
    state = state_with(4, hands, heats=2)
    bets = {
        # seat 0 loses four chips (umbrella ends at 3): it holds one and gets all five back
        (1, 1, 0): bet(UMBRELLA, ">=8"),
        (1, 2, 0): bet(UMBRELLA, ">=7"),
        (1, 3, 0): bet(UMBRELLA, ">=6"),
        (1, 4, 0): bet(UMBRELLA, ">=5", DOUBLE),
        # seat 1 loses two chips (no crown cards at all): it keeps its three singles
        (1, 1, 1): bet(CROWN, ">=8"),
        (1, 2, 1): bet(CROWN, ">=7", DOUBLE),
        # seat 2 wins its chip back
        (1, 2, 2): bet(CROWN, "<=1"),
    }
    play_default(state, until=lambda s: s.heat == 2, bets=bets)
    start = last(state, "heat_start")
    assert start["chips_refilled"] == [0]
    assert start["chips"][0] == {"single": 4, "double": 1}
    assert start["chips"][1] == {"single": 3, "double": 0}
    assert start["chips"][2] == {"single": 4, "double": 1}
    assert state.tracks[2][CROWN] == 5


# ----------------------------------------------------------------------------- the end


def test_game_ends_when_every_track_has_a_marker_at_5_or_more():
    assert game_is_over([(5, 0, 0, 0, 0), (0, 6, 7, 0, 10), (0, 0, 0, 5, 0)])
    assert not game_is_over([(5, 4, 0, 0, 0), (0, 0, 7, 0, 10), (0, 0, 0, 5, 0)])


def test_final_score_ignores_markers_at_1_to_4():
    assert final_score((4, 5, 10, 1, 3)) == 15
    assert final_score((4, 4, 4, 4, 4)) == 0


def test_game_end_after_settlement_with_scores_ignoring_1_to_4():
    hands = filler_hands(4, {0: "umbrella*3 big_ben*6"})
    state = state_with(4, hands, heats=2)
    state.tracks = [(0, 4, 0, 0, 0), (0, 5, 7, 3, 2), (0, 0, 0, 6, 0), (0, 0, 0, 0, 10)]
    play_default(state, bets={(1, 1, 0): bet(UMBRELLA, "<=3", DOUBLE)})  # risk: 2 x 3 = 6
    assert state.is_terminal and not state.is_truncated
    end = state.events[-1]
    assert end["type"] == "game_end" and end["reason"] == "tracks"
    assert end["scores"] == [6, 12, 6, 10]
    assert end["winners"] == [1]
    assert state.result == {"reason": "tracks", "scores": [6, 12, 6, 10], "winners": [1]}


def test_game_goes_on_while_a_category_has_no_marker_at_5():
    hands = filler_hands(4, {0: "umbrella*3 big_ben*6"})
    state = state_with(4, hands, heats=2)
    state.tracks = [(0, 4, 0, 0, 0), (0, 5, 7, 3, 2), (0, 0, 0, 6, 0), (0, 0, 0, 0, 10)]
    play_default(state, until=lambda s: s.heat == 2, bets={(1, 1, 0): bet(UMBRELLA, "<=3")})  # 2 x 2 = 4
    assert not state.is_over and state.tracks[0][UMBRELLA] == 4


def test_equal_scores_share_the_win():
    assert winners_of([10, 12, 12, 3]) == [1, 2]
    hands = filler_hands(3, {0: "umbrella*3 big_ben*8"})
    state = state_with(3, hands, heats=2)
    state.tracks = [(0, 0, 0, 0, 0), (0, 6, 0, 0, 0), (0, 0, 5, 5, 5)]
    play_default(state, bets={(1, 1, 0): bet(UMBRELLA, "<=3", DOUBLE)})  # 6 points
    assert state.result["scores"] == [6, 6, 15]
    assert state.result["winners"] == [2]
    state = state_with(3, hands, heats=2)
    state.tracks = [(0, 0, 0, 0, 0), (0, 5, 5, 0, 0), (0, 0, 0, 5, 5)]
    play_default(state, bets={(1, 1, 0): bet(UMBRELLA, "<=3", DOUBLE)})
    assert state.result["scores"] == [6, 10, 10]
    assert state.result["winners"] == [1, 2]


def test_start_player_is_seat_0_then_rotates_clockwise_each_heat():
    state = State(Config(num_players=3), seed=4)
    play_default(state, until=lambda s: s.heat == 5)
    starts = [e["start_player"] for e in state.events if e["type"] == "heat_start"]
    assert starts == [0, 1, 2, 0, 1]
    for i, event in enumerate(state.events):
        if event["type"] == "heat_start" and i + 1 < len(state.events):
            first_turn = state.events[i + 1]
            assert first_turn["round"] == 1 and first_turn["seat"] == event["start_player"]


def test_random_start_player_option_draws_a_seeded_seat():
    starts = {State(Config(num_players=5, random_start_player=True), seed=s).start_player for s in range(40)}
    assert starts == {0, 1, 2, 3, 4}
    assert State(Config(num_players=5, random_start_player=True), seed=7).start_player == State(
        Config(num_players=5, random_start_player=True), seed=7
    ).start_player


def test_max_heats_ends_the_game_as_a_truncation():
    state = State(Config(num_players=4, max_heats=2), seed=0)
    play_default(state)  # nobody bets: no track ever moves
    assert state.heat == 2 and state.is_over
    assert state.is_truncated and not state.is_terminal
    assert state.result["reason"] == "max_heats"
    assert state.result["winners"] == [0, 1, 2, 3]


def test_forfeit_ends_the_game_naming_the_offender_and_every_other_seat_wins():
    """Ruling R7: an illegal action ends the game; the offender is named and the others share the win."""
    state = State(Config(num_players=4), seed=0)
    state.forfeit(2)
    assert state.is_over
    assert state.result["reason"] == "illegal_action" and state.result["offender"] == 2
    assert state.result["winners"] == [0, 1, 3]
    end = state.events[-1]
    assert end["type"] == "game_end" and end["offender"] == 2 and end["winners"] == [0, 1, 3]


# ----------------------------------------------------------------------------- options


@pytest.mark.parametrize(
    "kwargs, words",
    [
        ({"num_players": 6}, "num_players=6 is not supported; expected one of 3, 4, 5"),
        ({"num_players": 2}, "expected one of 3, 4, 5"),
        ({"max_heats": 0}, "max_heats=0"),
        ({"rewards": (1, 2, 3)}, "rewards needs 8 values"),
        ({"rewards": {"<=9": 1}}, "rewards must map every betting space"),
        ({"random_start_player": "yes"}, "expected True or False"),
    ],
)
def test_bad_options_raise_config_error_naming_the_allowed_values(kwargs, words):
    with pytest.raises(ConfigError, match=words.replace("(", r"\(").replace(")", r"\)")):
        Config(**kwargs)


def test_config_round_trips_through_its_record():
    config = Config(num_players=5, rewards=(5, 4, 3, 2, 1, 2, 3, 4), max_heats=12, random_start_player=True)
    record = config.to_record()
    assert record["num_players"] == 5 and record["max_heats"] == 12
    assert record["rewards"] == dict(zip(SPACES, (5, 4, 3, 2, 1, 2, 3, 4)))
    assert Config.from_record(record) == config


def test_action_strings_round_trip():
    for action in range(A.NUM_ACTIONS):
        assert A.parse_action(A.action_to_string(action)) == action
    assert A.action_to_string(bet(CROWN, ">=6", DOUBLE)) == "bet crown >=6 double"
    assert A.parse_action("bet hat <=2") == bet(HAT, "<=2")
    with pytest.raises(ValueError, match="not a betting space"):
        A.parse_action("bet hat >=9")
    assert CATEGORIES[HAT] == "hat"


def test_the_last_settle_is_the_last_settle_event_of_the_record():
    """``State.last_settle`` (read by the per-heat reward shaping) finds the event the record holds."""
    import numpy as np

    rng = np.random.default_rng(5)
    state = State(Config(num_players=4), seed=5)
    assert state.last_settle() is None
    seen = 0
    while not state.is_over:
        heat = state.heat
        state.apply_action(int(rng.choice(state.legal_actions())))
        if state.heat != heat or state.is_over:
            expected = next(e for e in reversed(list(state.events)) if e["type"] == "settle")
            assert state.last_settle() == expected
            seen += 1
    assert seen >= 2
