"""Records (schema, save/load, replay, tampering) and the simulate CLI with per-role agents."""

from __future__ import annotations

import copy
import json

import pytest

from club_envs import records
from club_envs.arkham_decoders import (
    PLAYER_COUNTS,
    RECORD_NAME,
    ROLES,
    Config,
    make_agent,
    outcomes,
    play_match,
    replay,
)
from club_envs.cli import main
from club_envs.games import load_game
from club_envs.records import RecordError


def _heuristic_game(n=5, seed=7):
    config = Config(num_players=n)
    return play_match(config, lambda seat, role: make_agent("heuristic", config), seed=seed)


def test_package_exports_the_game_contract():
    game = load_game("arkham_decoders")
    assert game.RECORD_NAME == RECORD_NAME == "arkham_decoders_club"
    assert PLAYER_COUNTS == (4, 5, 6)
    assert ROLES == ("leader", "member", "investigator", "black_man")
    with pytest.raises(ValueError, match="random, heuristic"):
        make_agent("genius", Config())


@pytest.mark.parametrize("n", [4, 5, 6])
def test_play_match_record_validates_and_replays(n, tmp_path):
    record = _heuristic_game(n, seed=n)
    path = records.save(record, tmp_path / "game.json")
    loaded = records.load(path)
    assert loaded == json.loads(json.dumps(record))
    assert records.replay(loaded) == record["result"]
    assert loaded["config"]["num_players"] == n and "hand_size" in loaded["config"]


def test_same_seed_same_record():
    assert _heuristic_game(seed=3) == _heuristic_game(seed=3)
    assert _heuristic_game(seed=3)["events"] != _heuristic_game(seed=4)["events"]


def test_play_match_callable_gets_resolved_roles():
    config = Config(num_players=6)
    seen = {}

    def lineup(seat, role):
        seen[seat] = role
        return make_agent("random", config)

    record = play_match(config, lineup, seed=1)
    assert sorted(seen.values()) == sorted(["leader", "member", "member", "member", "investigator", "black_man"])
    assert [row.role for row in outcomes(record)] == [seen[s] for s in range(6)]


def test_outcomes_give_the_whole_winning_side_a_win():
    record = _heuristic_game(seed=5)
    rows = outcomes(record)
    bm = next(r for r in rows if r.role == "black_man")
    team = [r for r in rows if r.role != "black_man"]
    team_won = record["result"]["winner"] == "team"
    assert bm.win == (0.0 if team_won else 1.0)
    assert all(r.win == (1.0 if team_won else 0.0) for r in team)
    assert bm.score == -record["result"]["total"]


def test_tampered_records_fail_replay_naming_the_event():
    record = _heuristic_game(seed=9)
    draw = next(i for i, e in enumerate(record["events"]) if e["type"] == "draw")
    bad = copy.deepcopy(record)
    bad["events"][draw]["cards"] = ["eibon:-10"] if bad["events"][draw]["cards"] != ["eibon:-10"] else ["cthaat:-10"]
    with pytest.raises(RecordError, match=f"event {draw}"):
        replay(bad)
    bad = copy.deepcopy(record)
    bad["result"]["total"] += 1
    with pytest.raises(RecordError, match="result"):
        replay(bad)
    bad = copy.deepcopy(record)
    bad["events"][0]["deck"] = bad["events"][0]["deck"][1:]
    with pytest.raises(RecordError, match="24 chapter cards"):
        replay(bad)


def test_schema_rejects_a_bad_card_and_missing_keys():
    record = _heuristic_game(seed=2)
    bad = copy.deepcopy(record)
    reveal = next(i for i, e in enumerate(bad["events"]) if e["type"] == "reveal")
    bad["events"][reveal]["card"] = "eibon:-4"
    with pytest.raises(RecordError, match=f"events/{reveal}/card"):
        records.validate(bad)
    bad = copy.deepcopy(record)
    del bad["config"]["insanity_penalty"]
    with pytest.raises(RecordError, match="insanity_penalty"):
        records.validate(bad)


def test_env_records_validate_and_replay():
    import numpy as np

    from club_envs import arkham_decoders_v0

    env = arkham_decoders_v0.env(num_players=4)
    env.reset(seed=5)
    rng = np.random.default_rng(5)
    for agent in env.agent_iter():
        obs, _, terminated, truncated, _ = env.last()
        env.step(None if terminated or truncated else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    record = env.unwrapped.record()
    records.validate(record)
    assert replay(record) == record["result"]


def test_simulate_cli_with_one_agent_per_role(tmp_path, capsys):
    code = main(
        [
            "simulate", "arkham_decoders", "--players", "5", "--games", "6", "--seed", "1", "--no-progress",
            "--agents", "leader=heuristic,member=heuristic,investigator=heuristic,black_man=random",
            "--out", str(tmp_path),
        ]
    )
    assert code == 0
    files = sorted(tmp_path.glob("*.json"))
    assert len(files) == 6
    for path in files:
        record = records.load(path)
        by_role = {s["role"]: s["controller"] for s in record["seats"]}
        assert by_role["black_man"] == "random" and by_role["leader"] == "heuristic"
        assert records.replay(record) == record["result"]
    out = capsys.readouterr().out
    assert "random (black_man)" in out and "heuristic (investigator)" in out


def test_simulate_cli_per_seat_and_single_name(tmp_path):
    assert main(["simulate", "arkham", "--players", "4", "--games", "2", "--seed", "0", "--no-progress",
                 "--agents", "random,heuristic,random,heuristic"]) == 0
    assert main(["simulate", "arkham_decoders_club", "--players", "6", "--games", "2", "--no-progress",
                 "--agents", "heuristic"]) == 0


@pytest.mark.parametrize(
    "agents, players, message",
    [
        ("leader=heuristic,member=random,investigator=random,king=random", 5, "unknown role 'king'"),
        ("leader=heuristic,member=random", 5, "no agent for role"),
        ("random,random", 5, "2 agents for 5 players"),
        ("genius", 5, "unknown agent 'genius'"),
        ("random", 3, "takes 4, 5, 6 players"),
    ],
)
def test_simulate_cli_errors_are_one_clear_line(agents, players, message, capsys):
    code = main(["simulate", "arkham_decoders", "--players", str(players), "--games", "1", "--no-progress",
                 "--agents", agents])
    err = capsys.readouterr().err
    assert code == 2 and message in err and "Traceback" not in err


def _record_with_reshuffle():
    for seed in range(200):
        record = _heuristic_game(seed=seed)
        if any(e["type"] == "reshuffle" and e["flipped"] for e in record["events"]):
            return record
    raise AssertionError("no seed in 0..199 gave a game with a reshuffle")


def test_replay_rejects_a_reshuffle_that_flips_the_true_grimoire():
    record = _record_with_reshuffle()
    i = next(i for i, e in enumerate(record["events"]) if e["type"] == "reshuffle")
    bad = copy.deepcopy(record)
    bad["events"][i]["flipped"] = record["result"]["true_grimoire"]
    with pytest.raises(RecordError, match="must flip an unowned grimoire not yet face up"):
        replay(bad)
    bad["events"][i]["flipped"] = None
    with pytest.raises(RecordError, match="must flip an unowned grimoire"):
        replay(bad)


def test_replay_rejects_setup_roles_that_differ_from_configured_roles():
    config = Config(num_players=4, roles=("leader", "member", "advisor", "advisor"))
    record = play_match(config, lambda seat, role: make_agent("random", config, seed=seat), seed=3)
    assert replay(record) == record["result"]
    bad = copy.deepcopy(record)
    bad["events"][0]["roles"] = ["advisor", "advisor", "leader", "member"]
    with pytest.raises(RecordError, match="differ from the configured roles"):
        replay(bad)
