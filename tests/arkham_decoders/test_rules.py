"""One test (or more) per rule and ruling of docs/rules/arkham_decoders_club.md, from hand-set deals."""

from __future__ import annotations

from collections import Counter

import pytest

from club_envs.arkham_decoders import actions as A
from club_envs.arkham_decoders.engine import CHOOSE, END, PROPOSAL, VOTE, State
from club_envs.arkham_decoders.rules import BOOKS, Config, card_name
from club_envs.errors import ConfigError, IllegalActionError

from .helpers import ROLES_4, ROLES_5, c, events_of, make_state, play_round, reveal, reveal_any, vote

# ----------------------------------------------------------------------------- setup


@pytest.mark.parametrize("n, members, hand", [(4, 1, 3), (5, 2, 2), (6, 3, 2)])
def test_role_cards_and_hand_size_by_player_count(n, members, hand):
    state = State(Config(num_players=n), seed=n)
    assert Counter(state.roles) == {"advisor": 2, "leader": 1, "member": members}
    assert state.hand_size == hand
    for seat in range(n):
        assert len(state.hands[seat]) == (0 if state.roles[seat] == "advisor" else hand)
    assert len(state.deck) == 24 - hand * (n - 2)


def test_roles_are_dealt_at_random_unless_fixed():
    dealt = {State(Config(num_players=5), seed=s).roles for s in range(30)}
    assert len(dealt) > 5
    fixed = {State(Config(num_players=5, roles=ROLES_5), seed=s).roles for s in range(10)}
    assert fixed == {ROLES_5}


def test_advisors_get_one_identity_and_grimoire_each_and_black_man_book_is_true():
    for seed in range(20):
        state = State(Config(num_players=6), seed=seed)
        advisors = [s for s in range(6) if state.roles[s] == "advisor"]
        assert sorted(state.identities) == advisors
        assert sorted(state.identities.values()) == ["black_man", "investigator"]
        assert state.true_book == state.grimoires[state.black_man_seat]
        assert sorted(list(state.grimoires.values()) + state.unowned) == [0, 1, 2, 3]


def test_config_rejects_bad_options_naming_allowed_values():
    with pytest.raises(ConfigError, match="4, 5, 6"):
        Config(num_players=3)
    with pytest.raises(ConfigError, match="advisor, leader, member"):
        Config(num_players=4, roles=("advisor", "advisor", "leader", "king"))
    with pytest.raises(ConfigError, match="exactly 2 advisor"):
        Config(num_players=4, roles=("advisor", "leader", "leader", "member"))
    with pytest.raises(ConfigError, match=r"whole number 0\.\.1152921504606846976"):
        Config(num_players=4, insanity_penalty=-1)


def test_record_config_holds_num_players_hand_size_insanity_penalty():
    config = Config(num_players=4)
    assert config.to_record()["num_players"] == 4
    assert config.to_record()["hand_size"] == 3
    assert config.to_record()["insanity_penalty"] == 3
    assert Config.from_record(config.to_record()) == config


# -------------------------------------------------------------------------- proposal


def test_leader_reveals_first_and_may_never_pass():
    state = make_state()
    assert state.current_player == 0 and state.phase == PROPOSAL
    assert A.PASS not in state.legal_actions()
    with pytest.raises(IllegalActionError, match="not legal"):
        state.apply_action(A.PASS)
    assert state.current_player == 0 and state.events[-1]["type"] == "setup"  # unchanged


def test_turn_goes_clockwise_skipping_advisors_and_members_may_pass():
    state = make_state()
    reveal(state, "eibon:-1")
    assert state.current_player == 1 and A.PASS in state.legal_actions()
    state.apply_action(A.PASS)
    assert state.current_player == 3  # seat 2 is an advisor
    state.apply_action(A.PASS)
    assert state.current_player == 0  # round the table again, back to the leader
    assert [e["seat"] for e in events_of(state, "pass")] == [1, 3]


def test_a_player_may_reveal_several_of_the_three_cards():
    state = make_state(hands={0: ["eibon:-1", "cthaat:-1"]}, deck_top=["necronomicon:-1", "necronomicon:-2"])
    reveal(state, "eibon:-1")
    state.apply_action(A.PASS)
    state.apply_action(A.PASS)
    reveal(state, "cthaat:-1")
    state.apply_action(A.PASS)
    state.apply_action(A.PASS)
    reveal(state, "necronomicon:-1")  # drawn after the first reveal
    assert state.phase == VOTE
    assert [s for s, _ in state.table] == [0, 0, 0]


def test_reveal_refills_to_hand_size_three_with_four_players():
    state = make_state(ROLES_4, hands={1: ["eibon:-1", "eibon:-2", "eibon:-3"]}, deck_top=["cthaat:-10"])
    assert state.hand_size == 3
    reveal(state, "eibon:-1")
    assert sorted(state.hands[1]) == sorted([c("eibon:-2"), c("eibon:-3"), c("cthaat:-10")])
    assert state.events[-1] == {"type": "draw", "seat": 1, "cards": ["cthaat:-10"]}


def test_reveal_refills_to_hand_size_two_with_five_players():
    state = make_state(hands={0: ["eibon:-1", "eibon:-2"]}, deck_top=["cthaat:-7"])
    reveal(state, "eibon:-1")
    assert sorted(state.hands[0]) == [c("eibon:-2"), c("cthaat:-7")]
    assert len(state.deck) == 17


def test_third_face_up_card_starts_the_vote_with_first_advisor_clockwise_from_leader():
    state = make_state()
    for _ in range(3):
        state.apply_action(state.legal_actions()[0])
    assert state.phase == VOTE and state.current_player == 2
    assert state.legal_actions() == [A.AGREE, A.OPPOSE]
    state.apply_action(A.AGREE)
    assert state.phase == VOTE and state.current_player == 4


# ----------------------------------------------------------------------------- votes


def _three_up(state: State, cards: list[str]) -> None:
    for card in cards:
        reveal(state, card)


def _deal_for_three(cards):
    """Seats 0, 1, 3 hold the three cards to show first."""
    return {0: [cards[0]], 1: [cards[1]], 3: [cards[2]]}


def test_two_agree_decode_all_three_before_who_revealed_them():
    cards = ["eibon:-3", "cthaat:-1", "necronomicon:-5"]
    state = make_state(hands=_deal_for_three(cards))
    _three_up(state, cards)
    vote(state, "agree", "agree")
    assert state.decoded[0] == [c("eibon:-3")] and state.decoded[1] == [c("cthaat:-1")]
    assert state.decoded[3] == [c("necronomicon:-5")]
    assert state.discard == [] and state.table == ()
    assert events_of(state, "decode")[-1] == {
        "type": "decode",
        "chooser": None,
        "decoded": [{"seat": 0, "card": "eibon:-3"}, {"seat": 1, "card": "cthaat:-1"}, {"seat": 3, "card": "necronomicon:-5"}],
        "discarded": [],
    }
    assert state.phase == PROPOSAL and state.current_player == 0


def test_two_oppose_discard_all_three():
    cards = ["eibon:-3", "cthaat:-1", "necronomicon:-5"]
    state = make_state(hands=_deal_for_three(cards))
    _three_up(state, cards)
    vote(state, "oppose", "oppose")
    assert all(d == [] for d in state.decoded)
    assert sorted(state.discard) == sorted(c(x) for x in cards)
    assert events_of(state, "decode")[-1]["discarded"] == cards


@pytest.mark.parametrize("first, second", [("agree", "oppose"), ("oppose", "agree")])
def test_split_vote_lets_the_leader_decode_exactly_one(first, second):
    cards = ["eibon:-3", "cthaat:-1", "necronomicon:-5"]
    state = make_state(hands=_deal_for_three(cards))
    _three_up(state, cards)
    vote(state, first, second)
    assert state.phase == CHOOSE and state.current_player == 0
    assert state.legal_actions() == [A.DECODE, A.DECODE + 1, A.DECODE + 2]
    state.apply_action(A.DECODE + 1)
    assert state.decoded[1] == [c("cthaat:-1")]
    assert sorted(state.discard) == sorted([c("eibon:-3"), c("necronomicon:-5")])
    assert events_of(state, "decode")[-1]["chooser"] == 0


def test_split_vote_skips_face_up_grimoire_cards_in_a_hand_set_position():
    state = make_state()
    state.face_up_books = (BOOKS.index("necronomicon"),)  # as if one reshuffle turned it over
    cards = [card_name(state.hands[s][0]) for s in (0, 1, 3)]
    state.hands[1][0] = c("necronomicon:-1")  # seat 1 holds a card of the face-up grimoire
    state._hand_views[1] = tuple(sorted(state.hands[1]))
    reveal(state, cards[0])
    reveal(state, "necronomicon:-1")
    reveal(state, cards[2])
    vote(state, "oppose", "agree")
    assert state.phase == CHOOSE
    assert state.legal_actions() == [A.DECODE + 0, A.DECODE + 2]
    with pytest.raises(IllegalActionError):
        state.apply_action(A.DECODE + 1)


def test_split_vote_with_no_eligible_card_decodes_none():
    state = make_state(hands={0: ["necronomicon:-1"], 1: ["nameless_cults:-2"], 3: ["necronomicon:-3"]})
    state.face_up_books = (BOOKS.index("necronomicon"), BOOKS.index("nameless_cults"))
    for card in ["necronomicon:-1", "nameless_cults:-2", "necronomicon:-3"]:
        reveal(state, card)
    vote(state, "agree", "oppose")
    assert state.phase == PROPOSAL
    assert all(d == [] for d in state.decoded)
    assert events_of(state, "decode")[-1]["chooser"] is None
    assert events_of(state, "decode")[-1]["decoded"] == []
    assert len(events_of(state, "decode")[-1]["discarded"]) == 3


def test_two_agree_decode_cards_of_a_face_up_grimoire_as_usual():
    state = make_state(hands={0: ["necronomicon:-1"], 1: ["nameless_cults:-2"], 3: ["eibon:-3"]})
    state.face_up_books = (BOOKS.index("necronomicon"),)
    for card in ["necronomicon:-1", "nameless_cults:-2", "eibon:-3"]:
        reveal(state, card)
    vote(state, "agree", "agree")
    assert state.decoded[0] == [c("necronomicon:-1")]


def test_votes_become_public_only_when_both_are_cast():
    state = make_state()
    for _ in range(3):
        state.apply_action(state.legal_actions()[0])
    state.apply_action(A.AGREE)
    second = state.player_view(4)
    assert second.my_vote is None and second.votes == ()
    assert state.player_view(0).votes == ()
    assert state.player_view(2).my_vote == 1  # the first advisor knows its own pending vote
    state.apply_action(A.OPPOSE)
    public = state.player_view(0).votes
    assert len(public) == 1 and public[0].votes == (1, 0)


# ----------------------------------------------------------------- fourth card peek


def test_fourth_decoded_card_lets_its_owner_see_the_identities_once():
    state = make_state(ROLES_4, hands={1: ["cthaat:-1", "cthaat:-2", "cthaat:-3"], 3: ["cthaat:-5", "cthaat:-7", "cthaat:-10"]})
    leader = 1
    assert state.player_view(leader).black_man is None
    for _ in range(2):  # two rounds of two agrees: the leader decodes 2 + 2 (4 players, 1 member)
        state.apply_action(A.REVEAL + state.hands[leader][0])
        state.apply_action(A.PASS)  # the member passes
        state.apply_action(A.REVEAL + state.hands[leader][0])
        state.apply_action(A.REVEAL + state.hands[3][0])
        vote(state, "agree", "agree")
    assert len(state.decoded[leader]) == 4
    assert events_of(state, "peek") == [{"type": "peek", "seat": leader}]
    assert state.player_view(leader).black_man == state.black_man_seat
    assert state.player_view(leader).peeked
    assert state.player_view(3).black_man is None  # only the owner sees
    play_round(state, "agree", "agree")
    assert events_of(state, "peek").count({"type": "peek", "seat": leader}) == 1


# ------------------------------------------------------------------ reshuffle and end


def test_empty_deck_reshuffles_the_discard_pile_and_flips_an_unowned_grimoire():
    state = make_state()
    while state.reshuffles == 0:
        discard_before = sorted(state.discard)
        play_round(state)
    event = events_of(state, "reshuffle")[0]
    assert event["number"] == 1
    assert event["flipped"] in ("necronomicon", "nameless_cults")
    assert sorted(event["deck"]) == sorted(card_name(x) for x in discard_before)
    assert state.face_up_books == (BOOKS.index(event["flipped"]),)
    # the draw that needed the card took the new deck's top card
    draw = state.events[state.events.index(event) + 1]
    assert draw["type"] == "draw" and draw["cards"] == [event["deck"][0]]


def test_second_reshuffle_flips_the_other_unowned_grimoire():
    state = make_state()
    while state.reshuffles < 2 and not state.is_terminal:
        play_round(state)
    flipped = [e["flipped"] for e in events_of(state, "reshuffle")]
    assert sorted(flipped) == ["nameless_cults", "necronomicon"]


def test_game_ends_at_the_third_reshuffle_without_decoding_face_up_cards():
    state = make_state()
    while not state.is_terminal:
        play_round(state)
    end = state.events[-1]
    assert end["type"] == "game_end" and end["reason"] == "reshuffle"
    assert len(events_of(state, "reshuffle")) == 2
    assert state.table  # the unfinished proposal stays face up, undecoded
    assert state.phase == END and state.current_player is None and state.legal_actions() == []


def test_game_ends_when_no_new_deck_can_be_made():
    state = make_state()
    rounds = 0
    while not state.is_terminal:
        play_round(state, "agree", "agree")  # everything decoded: the discard pile stays empty
        rounds += 1
    assert state.events[-1]["reason"] == "no_deck"
    assert events_of(state, "reshuffle") == []
    assert rounds == 7  # 18 cards in the deck: 6 full rounds, the 7th draw finds nothing


def test_third_reshuffle_with_an_empty_discard_pile_ends_with_reason_reshuffle():
    """Ruling R7: both ends apply at once; the third reshuffle is the recorded reason."""
    state = make_state()
    while not state.is_terminal:
        while state.phase == PROPOSAL and not state.is_terminal:
            reveal_any(state)
        if not state.is_terminal:
            # Opposes feed the discard pile until the second reshuffle; from then on everything
            # is decoded, so the pile stays empty until the deck runs out for the third time.
            vote(state, *(["agree"] * 2 if state.reshuffles == 2 else ["oppose"] * 2))
    assert state.discard == [] and state.deck == []
    assert len(events_of(state, "reshuffle")) == 2
    assert state.events[-1]["type"] == "game_end" and state.events[-1]["reason"] == "reshuffle"


# ------------------------------------------------------------------------- scoring


def test_san_counts_true_cards_at_value_and_fake_cards_plus_one():
    state = make_state()
    state.decoded[0] = [c("eibon:-3"), c("cthaat:-10"), c("necronomicon:-7")]  # eibon is true
    state.decoded[1] = [c("eibon:-1")]
    state.decoded[3] = [c("nameless_cults:-5"), c("cthaat:-1")]
    san = state.score_san()
    assert san == {0: -3 + 1 + 1 - 2, 1: -1 - 2, 3: 2}  # 5 players: penalty 2 for 0 or less


@pytest.mark.parametrize("roles, penalty", [(ROLES_4, 3), (ROLES_5, 2), (("leader", "member", "advisor", "member", "advisor", "member"), 1)])
def test_insanity_penalty_by_player_count_hits_a_total_of_zero_or_less(roles, penalty):
    state = make_state(roles)
    proposers = sorted(state.proposers)
    state.decoded[proposers[0]] = [c("cthaat:-1")]  # +1: no penalty
    state.decoded[proposers[1]] = []  # 0: penalty
    san = state.score_san()
    assert san[proposers[0]] == 1
    assert san[proposers[1]] == -penalty


def test_insanity_penalty_zero_is_the_first_game_option():
    state = make_state(insanity_penalty=0)
    state.decoded[0] = [c("eibon:-5")]
    assert state.score_san() == {0: -5, 1: 0, 3: 0}
    assert state.config.to_record()["insanity_penalty"] == 0


def test_team_wins_at_total_one_and_black_man_at_total_zero():
    state = make_state(insanity_penalty=0)
    state.decoded[0] = [c("cthaat:-1")]
    state.end_game("reshuffle")
    assert state.result["total"] == 1 and state.result["winner"] == "team"
    assert state.returns() == [1.0, 1.0, -1.0, 1.0, 1.0]  # seat 2 is the Black Man

    state = make_state(insanity_penalty=0)
    state.decoded[0] = [c("cthaat:-1")]
    state.decoded[1] = [c("eibon:-1")]
    state.end_game("reshuffle")
    assert state.result["total"] == 0 and state.result["winner"] == "black_man"
    assert state.returns() == [-1.0, -1.0, 1.0, -1.0, -1.0]
    assert state.events[-1]["true_grimoire"] == "eibon"
    assert state.events[-1]["san"] == {"0": 1, "1": -1, "3": 0}


def test_forfeit_ends_the_game_with_illegal_action_and_the_offenders_side_loses():
    state = make_state()
    state.forfeit(0)
    assert state.result["reason"] == "illegal_action" and state.result["winner"] == "black_man"
    state = make_state()
    state.forfeit(2)  # the Black Man
    assert state.result["winner"] == "team"
