"""Game records (schema, replay) and the ``club-envs simulate`` command for Members Only."""

from __future__ import annotations

import copy
import json

import pytest

from club_envs import records
from club_envs.cli import main
from club_envs.members_only import Config, make_agent, outcomes, play_match, replay
from club_envs.records import RecordError


def heuristic_game(seed=1, num_players=4):
    config = Config(num_players=num_players)
    agents = [make_agent("heuristic", config)] + [make_agent("random", config) for _ in range(num_players - 1)]
    return play_match(config, agents, seed=seed)


def test_record_has_the_required_shape_and_validates_against_the_shipped_schema():
    record = heuristic_game()
    records.validate(record)
    assert record["format"] == "club-envs-record" and record["game"] == "members_only"
    assert {"num_players", "rewards", "max_heats"} <= set(record["config"])
    kinds = {e["type"] for e in record["events"]}
    assert {"heat_start", "bet", "no_bet", "reveal", "discard", "settle", "game_end"} <= kinds
    assert [s["controller"] for s in record["seats"]] == ["heuristic", "random", "random", "random"]


def test_record_replays_to_the_same_result_after_a_json_round_trip(tmp_path):
    record = heuristic_game(seed=2)
    path = records.save(record, tmp_path / "g.json")
    loaded = records.load(path)
    assert replay(loaded) == record["result"]


def test_tampered_record_fails_replay_naming_the_event():
    record = heuristic_game(seed=3)
    bad = copy.deepcopy(record)
    settle = next(e for e in bad["events"] if e["type"] == "settle")
    settle["counts"]["umbrella"] += 1
    with pytest.raises(RecordError, match="differs"):
        replay(bad)
    bad = copy.deepcopy(record)
    bad["result"]["winners"] = [9]
    with pytest.raises(RecordError):
        records.validate(bad)


def test_record_with_an_impossible_action_fails_replay():
    record = heuristic_game(seed=4)
    bad = copy.deepcopy(record)
    reveal = next(e for e in bad["events"] if e["type"] == "reveal")
    reveal["cards"] = ["hat-no", "hat-no"] if reveal["cards"] != ["hat-no", "hat-no"] else ["crown-no", "crown-no"]
    with pytest.raises(RecordError):
        replay(bad)


def test_same_seed_same_agents_same_record():
    assert heuristic_game(seed=5) == heuristic_game(seed=5)
    assert heuristic_game(seed=5)["events"] != heuristic_game(seed=6)["events"]


def test_outcomes_give_win_shares_that_sum_to_one():
    rows = outcomes(heuristic_game(seed=7))
    assert sum(r.win for r in rows) == pytest.approx(1.0)
    assert [r.controller for r in rows] == ["heuristic", "random", "random", "random"]


def test_simulate_writes_one_valid_record_per_game_and_a_summary(tmp_path, capsys):
    out = tmp_path / "records"
    code = main(
        ["simulate", "members_only", "--players", "4", "--games", "5", "--agents", "random,heuristic,random,random",
         "--seed", "1", "--out", str(out), "--no-progress"]
    )
    assert code == 0
    files = sorted(out.glob("*.json"))
    assert len(files) == 5
    for path in files:
        record = records.load(path)
        assert replay(record) == record["result"]
    printed = capsys.readouterr().out
    assert "5 games" in printed and "heuristic" in printed and "win share" in printed
    first = json.loads(files[0].read_text())
    assert first["seed"] == 1


def test_simulate_same_seed_writes_the_same_records(tmp_path):
    for name in ("a", "b"):
        main(["simulate", "members_only", "--players", "3", "--games", "2", "--agents", "heuristic",
              "--seed", "9", "--out", str(tmp_path / name), "--no-progress"])
    for a, b in zip(sorted((tmp_path / "a").glob("*.json")), sorted((tmp_path / "b").glob("*.json"))):
        assert a.read_text() == b.read_text()


@pytest.mark.parametrize(
    "args, message",
    [
        (["--players", "6"], "members_only takes 3, 4, 5 players, not 6"),
        (["--players", "4", "--agents", "random,random"], "--agents lists 2 agents for 4 players"),
        (["--players", "4", "--agents", "genius"], "unknown agent 'genius'; expected one of random, heuristic"),
    ],
)
def test_simulate_rejects_bad_input_with_a_clear_message_and_exit_2(args, message, capsys, tmp_path):
    code = main(["simulate", "members_only", "--games", "1", "--no-progress", "--out", str(tmp_path), *args])
    assert code == 2
    assert message in capsys.readouterr().err
    assert not list(tmp_path.glob("*.json"))


def test_replay_rejects_a_deal_with_more_cards_of_a_category_than_exist():
    record = heuristic_game(seed=5, num_players=3)
    bad = copy.deepcopy(record)
    start = bad["events"][0]
    # Turn an out-of-play card into a 12th normal umbrella: the deck holds only 11.
    victim = next(i for i, c in enumerate(start["out_of_play"]) if c != "umbrella")
    start["out_of_play"][victim] = "umbrella"
    with pytest.raises(RecordError, match="65 cards"):
        replay(bad)


def test_replay_rejects_a_hand_of_the_wrong_size():
    record = heuristic_game(seed=6, num_players=3)
    bad = copy.deepcopy(record)
    start = bad["events"][0]
    start["out_of_play"].append(start["hands"][0].pop())
    with pytest.raises(RecordError, match="hands of 11 cards"):
        replay(bad)


def test_replay_rejects_a_first_heat_not_started_by_seat_0():
    record = heuristic_game(seed=7, num_players=3)
    bad = copy.deepcopy(record)
    bad["events"][0]["start_player"] = 2
    with pytest.raises(RecordError, match="started by seat 0"):
        replay(bad)


def test_simulate_seats_a_shipped_trained_agent(tmp_path, capsys):
    code = main(["simulate", "members_only", "--players", "3", "--games", "2", "--agents", "members_only,random,random",
                 "--seed", "4", "--out", str(tmp_path), "--no-progress"])
    assert code == 0
    written = sorted(tmp_path.glob("*.json"))
    assert len(written) == 2
    record = records.load(written[0])
    assert [s["controller"] for s in record["seats"]] == ["members_only", "random", "random"]
    assert records.replay(record) == record["result"]
