"""The shared core of terminal and browser play: seating, checked moves, what the person is told,
and the records of human games."""

from __future__ import annotations

import pytest

from club_envs import records
from club_envs.members_only.engine import DISCARD
from club_envs.play.members_only import card_text
from club_envs.play.human_game import HumanGame, IllegalMove, NotYourTurn
from tests.play.conftest import play_out


def test_person_takes_the_seat_asked_for_and_agents_fill_the_others():
    g = HumanGame.create("members_only", num_players=4, seat=2, opponents="random,heuristic,random", seed=1)
    assert g.human_seat == 2
    assert g.agent_names == {0: "random", 1: "heuristic", 3: "random"}


@pytest.mark.parametrize("role", ["leader", "member", "investigator", "black_man"])
def test_arkham_role_seats_the_person_where_that_role_was_dealt(role):
    for seed in range(3):
        g = HumanGame.create("arkham_decoders", num_players=5, role=role, opponents="random", seed=seed)
        assert g.human_role == role
        assert g.state.role_of(g.human_seat) == role


def test_random_role_is_repeatable_with_the_seed():
    a = HumanGame.create("arkham_decoders", num_players=6, role="random", opponents="random", seed=11)
    b = HumanGame.create("arkham_decoders", num_players=6, role="random", opponents="random", seed=11)
    assert a.human_seat == b.human_seat


def test_per_role_opponents_give_each_role_its_agent():
    g = HumanGame.create(
        "arkham_decoders", num_players=5, role="leader", seed=3,
        opponents="member=heuristic,investigator=random,black_man=random",
    )
    for seat, name in g.agent_names.items():
        expected = {"member": "heuristic", "investigator": "random", "black_man": "random"}[g.state.role_of(seat)]
        assert name == expected


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"num_players": 6}, "takes 3, 4, 5 players"),
        ({"num_players": 4, "seat": 4}, "expected 0..3"),
        ({"num_players": 4, "opponents": "random,random"}, "3 other seats"),
        ({"num_players": 4, "opponents": "nobody"}, "unknown agent 'nobody'"),
        ({"num_players": 4, "role": "leader"}, "has no roles"),
        ({"num_players": 4, "seed": -1}, "seed -1"),
    ],
)
def test_bad_options_are_refused_with_the_allowed_values(kwargs, message):
    with pytest.raises(ValueError, match=message):
        HumanGame.create("members_only", **kwargs)


def test_arkham_per_role_opponents_must_name_every_other_role():
    with pytest.raises(ValueError, match="no agent for role"):
        HumanGame.create("arkham_decoders", num_players=5, role="leader", opponents="member=random", seed=0)


def test_an_illegal_move_is_refused_and_changes_nothing():
    g = HumanGame.create("members_only", num_players=4, seat=0, opponents="random", seed=2)
    g.advance()
    before = (g.step, len(g.state.events), g.view())
    illegal = next(a for a in range(101) if a not in {m.action for m in g.moves()})
    with pytest.raises(IllegalMove, match="not legal"):
        g.play(illegal)
    with pytest.raises(IllegalMove, match="not a legal move"):
        g.parse_move("discard hat")  # a discard in the betting phase
    with pytest.raises(IllegalMove, match="cannot read"):
        g.parse_move("fold")
    assert (g.step, len(g.state.events), g.view()) == before


def test_moves_are_offered_with_short_codes_and_typed_text_is_understood():
    g = HumanGame.create("members_only", num_players=4, seat=0, opponents="random", seed=2)
    g.advance()
    moves = g.moves()
    assert [m.code for m in moves] == [str(i) for i in range(1, len(moves) + 1)]
    assert g.parse_move("1") == moves[0].action
    assert g.parse_move("no bet") == 80
    assert g.parse_move("bet crown >=6 double") == next(m.action for m in moves if m.label.startswith("double chip on crown >=6"))


def test_the_person_cannot_move_for_an_agent():
    g = HumanGame.create("members_only", num_players=4, seat=3, opponents="random", seed=2)
    assert g.state.current_player == 0
    with pytest.raises(NotYourTurn):
        g.play(80)


def test_agents_move_one_frame_each_until_the_person_must_move():
    g = HumanGame.create("members_only", num_players=4, seat=2, opponents="random", seed=4)
    frames = g.advance()
    assert [f.seat for f in frames] == [0, 1]
    assert g.human_to_move
    assert all(f.view.seat == 2 for f in frames)


def test_members_only_narration_hides_other_hands_and_simultaneous_discards():
    g = HumanGame.create("members_only", num_players=3, seat=2, opponents="heuristic", seed=5)
    lines = [line for f in g.history for line in f.lines]
    start = g.state.events[0]
    assert "Your hand: " in " ".join(lines)
    # Seats 0 and 1 discard before seat 2; their kept cards must not be told before seat 2 chooses.
    while True:
        new = [line for f in g.advance() for line in f.lines]
        lines += new
        if g.state.phase == DISCARD:
            break
        g.play(g.moves()[0].action)
    assert sum("discards a card face down" in line for line in new) == 2
    assert not any("go to the display" in line for line in new)
    after = [line for line in g.play(g.moves()[0].action).lines]
    assert any(line.startswith("You discard") for line in after)
    assert any(line.startswith("Cards kept go to the display") for line in after)
    other_hand = ", ".join(card_text(c) for c in start["hands"][0])
    assert other_hand not in " ".join(lines)


def test_arkham_narration_keeps_the_first_advice_hidden_until_the_person_votes():
    for seed in range(20):
        g = HumanGame.create("arkham_decoders", num_players=5, role="investigator", opponents="heuristic", seed=seed)
        frames = g.advance()
        if g.state.advisors[1] == g.human_seat:
            break
    else:
        pytest.fail("no deal put the person second to vote")
    first_vote = g.state.events[-1]
    assert first_vote["type"] == "vote" and first_vote["seat"] == g.state.advisors[0]
    told = [line.lower() for f in frames for line in f.lines]
    assert not any("agree" in line or "oppose" in line for line in told)
    assert g.view().my_vote is None
    after = " ".join(g.play(g.moves()[0].action).lines)
    assert "Advice revealed" in after


def test_arkham_member_is_not_told_identities_or_other_hands():
    g = HumanGame.create("arkham_decoders", num_players=5, role="member", opponents="heuristic", seed=8)
    setup = g.state.events[0]
    play_out(g, seed=1)
    assert not any(e["type"] == "peek" and e["seat"] == g.human_seat for e in g.state.events)
    told = " ".join(line for f in g.history for line in f.lines)
    assert "Black Man" not in told and "Investigator" not in told
    for seat, hand in setup["hands"].items():
        if int(seat) != g.human_seat:
            assert ", ".join(hand) not in told


@pytest.mark.parametrize("game, players", [("members_only", 4), ("arkham_decoders", 5)])
def test_a_finished_game_is_saved_naming_the_person_and_the_agents(game, players, records_dir):
    g = HumanGame.create(game, num_players=players, seat=1, opponents="heuristic", seed=3)
    play_out(g, seed=3)
    assert g.finished
    lines = g.result_lines()
    assert lines[-1] in ("You win!", "You lose.", "You share the win!")
    path = g.save(records_dir)
    record = records.load(path)
    assert record["human_seat"] == 1
    assert [s["controller"] for s in record["seats"]] == ["heuristic", "human"] + ["heuristic"] * (players - 2)
    assert record["result"] == g.state.result
    assert records.replay(record)["winners"] == g.state.result["winners"]


def test_quitting_saves_an_unfinished_record_without_a_result(records_dir):
    g = HumanGame.create("arkham_decoders", num_players=4, seat=0, opponents="random", seed=2)
    g.advance()
    g.play(g.moves()[0].action)
    g.quit()
    record = records.load(g.save(records_dir))
    assert "result" not in record
    assert record["abandoned"] is True
    assert record["seats"][0]["controller"] == "human"
    with pytest.raises(NotYourTurn):
        g.play(0)


def test_a_policy_file_plays_as_an_opponent(tmp_path):
    """A trained agent (here: a tiny policy file with random weights) takes a seat by its path."""
    import torch

    from club_envs.agents.policy import save_policy

    g = HumanGame.create("members_only", num_players=3, seat=0, opponents="random", seed=1)
    size = g._observe(g.view()).shape[0]
    gen = torch.Generator().manual_seed(0)
    weights = {
        "mlp_extractor.policy_net.0.weight": torch.randn(8, size, generator=gen),
        "mlp_extractor.policy_net.0.bias": torch.zeros(8),
        "action_net.weight": torch.randn(101, 8, generator=gen),
        "action_net.bias": torch.zeros(101),
    }
    path = save_policy(tmp_path / "tiny.pt", weights, {"game": "members_only", "obs_size": size, "num_actions": 101})
    g = HumanGame.create("members_only", num_players=3, seat=0, opponents=f"{path},heuristic", seed=1)
    assert g.agent_names == {1: str(path), 2: "heuristic"}
    play_out(g, seed=1)
    assert g.finished
    assert g.record()["seats"][1]["controller"] == str(path)
