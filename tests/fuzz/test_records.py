"""Fuzzing records: a damaged record file is refused with one RecordError line naming the file,
or it loads and replays (or is refused by the replay) -- never another exception -- and a report
over a folder holding it names the bad file, skips it and counts the rest."""

from __future__ import annotations

import functools
import json
import tempfile
from pathlib import Path

import jsonschema
import pytest
from hypothesis import given
from hypothesis import strategies as st

from club_envs import records
from club_envs.agents.registry import load as load_agent
from club_envs.games import load_game
from club_envs.report import summarise

from .mutations import damage_bytes, fuzz_settings, mutate


@functools.lru_cache(maxsize=None)
def valid_record(game_name: str) -> str:
    """A short real game as JSON text (a string, so no test can change the cached copy)."""
    game = load_game(game_name)
    config = game.Config(num_players=3, max_heats=2) if game_name == "members_only" else game.Config(num_players=4)
    agents = [load_agent("random", game=game, config=config, seed=s) for s in range(config.num_players)]
    record = game.play_match(config, agents, seed=5)
    record["seats"][1]["controller"] = "human"  # so the report counts it as a game against a person
    record["human_seat"] = 1
    return json.dumps(record)


def load_and_replay(path: Path) -> None:
    """The documented behaviour: RecordError naming the file, or a record that replays or is refused."""
    try:
        record = records.load(path)
    except records.RecordError as exc:
        message = str(exc)
        assert message.startswith(str(path)), message
        assert "\n" not in message and len(message) < 1000, message
        return
    try:
        records.replay(record)
    except records.RecordError as exc:
        assert "\n" not in str(exc) and len(str(exc)) <= 2000


@pytest.mark.parametrize("game_name", ["members_only", "arkham_decoders"])
@fuzz_settings(60)
@given(data=st.data())
def test_a_damaged_record_is_refused_or_replays(game_name, data):
    doc = mutate(data, json.loads(valid_record(game_name)))
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "game.json"
        path.write_text(json.dumps(doc))
        load_and_replay(path)


@pytest.mark.parametrize("game_name", ["members_only", "arkham_decoders"])
@fuzz_settings(40)
@given(data=st.data())
def test_a_record_file_with_damaged_bytes_is_refused_or_replays(game_name, data):
    blob = damage_bytes(data, valid_record(game_name).encode())
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "game.json"
        path.write_bytes(blob)
        load_and_replay(path)


@fuzz_settings(25)
@given(data=st.data())
def test_a_report_names_and_skips_a_bad_file_and_counts_the_good_one(data):
    bad = mutate(data, json.loads(valid_record("members_only")))
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "a_good.json").write_text(valid_record("arkham_decoders"))
        (Path(tmp) / "b_damaged.json").write_text(json.dumps(bad))
        report = summarise([tmp])
        assert report.files == 2
        assert report.human_games >= 1  # the good game is counted whatever happened to the other
        for problem in report.unreadable:
            assert "b_damaged.json" in problem and "\n" not in problem
        readable = report.human_games + report.unfinished + report.without_human
        assert readable + len(report.unreadable) == 2


@pytest.mark.parametrize("game_name", ["members_only", "arkham_decoders"])
@fuzz_settings(60)
@given(data=st.data())
def test_the_compiled_validator_agrees_with_jsonschema_on_damaged_records(game_name, data):
    """The fast check (jsonschema-rs) lets a record through only where jsonschema would: a damaged
    record it accepts would end a game with a record that no tool can read."""
    game = json.loads(valid_record(game_name))["game"]
    doc = mutate(data, json.loads(valid_record(game_name)))
    assert records._fast_validator(game) is not None, "jsonschema-rs is in the play extra the tests run with"
    reference = jsonschema.Draft202012Validator(records.schema_for(game)).is_valid(doc)
    assert records._valid_at_once(game, doc) == reference


@pytest.mark.parametrize("game_name", ["members_only", "arkham_decoders"])
def test_a_valid_record_is_passed_by_the_compiled_validator_alone(game_name, monkeypatch):
    record = json.loads(valid_record(game_name))

    def refuse(*args, **kwargs):
        raise AssertionError("a valid record went on to jsonschema")

    monkeypatch.setattr(records.jsonschema, "Draft202012Validator", refuse)
    records.validate(record)


@pytest.mark.parametrize("game_name", ["members_only", "arkham_decoders"])
def test_without_the_compiled_validator_records_get_the_same_verdicts_and_messages(game_name, monkeypatch):
    good = json.loads(valid_record(game_name))
    bad = json.loads(valid_record(game_name))
    bad["seats"][0]["seat"] = "first"
    with pytest.raises(records.RecordError) as with_fast:
        records.validate(bad)
    monkeypatch.setattr(records, "_fast_validator", lambda game: None)
    records.validate(good)
    with pytest.raises(records.RecordError) as without:
        records.validate(bad)
    assert str(without.value) == str(with_fast.value)
    assert "seats/0" in str(without.value)
