"""Bad input anywhere gets one clear line naming the file, the problem and what is allowed.

Each test is one of the ways a careless or hostile user broke a loader or a command before these
checks existed; the fuzz suite (``tests/fuzz``) covers the space between them.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch

from club_envs import records
from club_envs.agents.policy import PolicyFileError, load_policy_file, save_policy
from club_envs.agents.registry import load as load_agent
from club_envs.cli import main
from club_envs.games import load_game
from club_envs.limits import count_nodes, nesting_depth, read_yaml
from club_envs.training import config as configs

ROOT = Path(__file__).resolve().parents[1]


def one_error_line(capsys, command: str) -> str:
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    assert err[0].startswith(f"club-envs {command}: error: ")
    return err[0]


# ----------------------------------------------------------------------------------------- records

@pytest.mark.parametrize("content, problem", [
    ("[" * 200_000 + "]" * 200_000, "nests deeper than 32 levels"),
    ('{"seed": ' + "9" * 5000 + "}", "an integer of thousands of digits"),
    ('{"seed": NaN}', "NaN is not a JSON number"),
    ('{"seed": 1e999}', "out of range"),
    ("{not json", "not a JSON record"),
])
def test_a_hostile_record_file_is_one_record_error_naming_it(tmp_path, content, problem):
    path = tmp_path / "hostile.json"
    path.write_text(content)
    with pytest.raises(records.RecordError, match=problem) as caught:
        records.load(path)
    assert str(caught.value).startswith(str(path)) and "\n" not in str(caught.value)


def test_a_folder_a_missing_file_and_a_device_are_record_errors(tmp_path):
    for path, problem in ((tmp_path, "is a folder"), (tmp_path / "nope.json", "no such record file"),
                          (Path("/dev/zero"), "not a regular file")):
        with pytest.raises(records.RecordError, match=problem):
            records.load(path)


def test_a_record_larger_than_the_limit_is_refused_before_it_is_read(tmp_path, monkeypatch):
    monkeypatch.setattr(records, "MAX_BYTES", 1024)
    path = tmp_path / "large.json"
    path.write_text(json.dumps({"padding": "x" * 2000}))
    with pytest.raises(records.RecordError, match="larger than 1 KiB"):
        records.load(path)


def test_numbers_outside_the_schema_ranges_are_refused(tmp_path):
    from club_envs.members_only.match import play_match
    from club_envs.members_only.rules import Config
    from club_envs.members_only.bots import make_agent

    config = Config(num_players=3, max_heats=1)
    record = play_match(config, [make_agent("random", config, seed=s) for s in range(3)], seed=1)
    for field, value, where in (("seed", 2**128, "seed"), ("seed", -1, "seed"),
                                ("config", {**record["config"], "max_heats": 2**63}, "config/max_heats")):
        bad = {**record, field: value}
        with pytest.raises(records.RecordError, match=where):
            records.validate(bad)


def test_game_options_stop_where_records_do_so_every_game_can_be_saved():
    from club_envs.arkham_decoders import bots as ak_bots
    from club_envs.arkham_decoders.match import play_match as ak_match
    from club_envs.arkham_decoders.rules import MAX_INSANITY_PENALTY
    from club_envs.arkham_decoders.rules import Config as AkConfig
    from club_envs.errors import ConfigError
    from club_envs.members_only import bots as mo_bots
    from club_envs.members_only.match import play_match as mo_match
    from club_envs.members_only.rules import MAX_RECORD_INT
    from club_envs.members_only.rules import Config as MoConfig

    with pytest.raises(ConfigError, match=r"max_heats=9223372036854775808 is not allowed; expected a whole number 1\.\."):
        MoConfig(max_heats=2**63)
    with pytest.raises(ConfigError, match=r"rewards\['<=1'\]=9223372036854775808: expected a whole number 0\.\."):
        MoConfig(rewards=[2**63] + [1] * 7)
    with pytest.raises(ConfigError, match=r"insanity_penalty=1152921504606846977 is not allowed"):
        AkConfig(insanity_penalty=MAX_INSANITY_PENALTY + 1)
    # at the largest values allowed, the games' records still validate
    config = MoConfig(num_players=3, rewards=[MAX_RECORD_INT] * 8, max_heats=MAX_RECORD_INT)
    records.validate(mo_match(config, [mo_bots.make_agent("random", config, seed=s) for s in range(3)], seed=2))
    for seed in range(6):
        config = AkConfig(num_players=6, insanity_penalty=MAX_INSANITY_PENALTY)
        record = ak_match(config, [ak_bots.make_agent("random", config, seed=s) for s in range(6)], seed=seed)
        records.validate(record)
        if min(record["result"]["scores"]) < -MAX_INSANITY_PENALTY:  # a penalty was taken: the hard case
            break
    else:
        pytest.fail("no seeded game took the insanity penalty")


def test_report_names_a_bad_file_skips_it_and_goes_on(tmp_path, capsys):
    from club_envs.members_only.match import play_match
    from club_envs.members_only.rules import Config
    from club_envs.members_only.bots import make_agent

    config = Config(num_players=3, max_heats=1)
    record = play_match(config, [make_agent("random", config, seed=s) for s in range(3)], seed=1)
    record["seats"][0]["controller"] = "human"
    records.save(record, tmp_path / "records" / "good.json")
    (tmp_path / "records" / "deep.json").write_text("[" * 100_000 + "]" * 100_000)
    (tmp_path / "records" / "folder.json").mkdir()
    status = main(["report", str(tmp_path / "records"), str(tmp_path / "missing"), "--no-chart",
                   "--csv", str(tmp_path / "r.csv")])
    out = capsys.readouterr().out
    assert status == 0
    assert "1 finished human games read from 2 files" in out
    assert "unreadable: " + str(tmp_path / "records" / "deep.json") in out
    assert "unreadable: " + str(tmp_path / "missing") + ": no such record file or folder" in out


# ----------------------------------------------------------------------------------------- configs

BOMB = """game:
  name: members_only
  num_players: 4
  options:
    a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]
    b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]
    c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]
    d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]
    e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d]
    f: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e]
    g: &g [*f, *f, *f, *f, *f, *f, *f, *f, *f]
    h: &h [*g, *g, *g, *g, *g, *g, *g, *g, *g]
"""


@pytest.mark.parametrize("text, problem", [
    ("game: " + "[" * 5000 + "]" * 5000, "nests deeper than 16 levels"),
    (BOMB, "more than 10000 values once its aliases are expanded"),
    ("game: {name: members_only, num_players: 4}\nseed: " + str(10**71), r"seed: 1000.*allowed values: 0\.\.2147483647"),
    ("game: {name: members_only, num_players: 4}\nseed: " + "9" * 5000, "a number of thousands of digits"),
    ("game: {name: members_only, num_players: 4}\nalgorithm: {ent_coef: .inf}", "numbers must be finite"),
    ("game: {name: members_only, num_players: 4}\nyes: 1", "key True is not text.*quote the key"),
    ("game: !!python/object/apply:os.system [echo]", "not valid YAML .*constructor"),
    ("game: {name: members_only, num_players: 4}\n---\nseed: 1", "more than one YAML document"),
    ("game: {name: members_only\n  num_players: [4\n", r"not valid YAML .*line 2"),
    ("game: {name: members_only, num_players: 4}\nseed: 1\nseed: 2\n",
     r"not valid YAML \(duplicate key 'seed' \(first at line 2\) at line 3"),
    ("game: {name: members_only, num_players: 4, num_players: 5}\n", "duplicate key 'num_players'"),
])
def test_a_hostile_config_is_one_short_config_file_error(tmp_path, text, problem):
    path = tmp_path / "bad.yaml"
    path.write_text(text)
    with pytest.raises(configs.ConfigFileError, match=problem) as caught:
        configs.load(path)
    message = str(caught.value)
    assert message.startswith(str(path)) and "\n" not in message and len(message) < 400


def test_count_and_depth_stop_early_on_shared_structures():
    shared: list = [0] * 10
    for _ in range(30):  # 10**30 values when written out; a few hundred objects in memory
        shared = [shared] * 10
    assert count_nodes(shared, 1000) == 1001
    assert nesting_depth(shared, 5) == 6


def test_train_refuses_a_huge_seed_before_creating_a_run_folder(tmp_path, capsys):
    text = "game: {name: members_only, num_players: 4}\nbudget: {total_steps: 64}\n" + f"seed: {10**71}\n"
    (tmp_path / "big_seed.yaml").write_text(text)
    status = main(["train", str(tmp_path / "big_seed.yaml"), "--runs-dir", str(tmp_path / "runs"), "--no-progress"])
    assert status == 2
    assert "seed" in one_error_line(capsys, "train")
    assert not (tmp_path / "runs").exists()


def test_the_largest_seed_a_config_allows_is_accepted():
    cfg = configs.validate({"game": {"name": "members_only", "num_players": 4}, "seed": configs.MAX_SEED})
    assert cfg["seed"] == 2**31 - 1


# ----------------------------------------------------------------------------------------- policies

def tiny_policy(path: Path, obs: int = 510, actions: int = 101, **meta) -> Path:
    g = torch.Generator().manual_seed(0)
    weights = {"mlp_extractor.policy_net.0.weight": torch.randn(8, obs, generator=g),
               "mlp_extractor.policy_net.0.bias": torch.zeros(8),
               "action_net.weight": torch.randn(actions, 8, generator=g), "action_net.bias": torch.zeros(actions)}
    return save_policy(path, weights, {"obs_size": obs, "num_actions": actions, **meta})


def test_a_pickled_policy_is_refused_in_one_line_without_torchs_advice(tmp_path):
    path = tmp_path / "pickled.pt"
    torch.save({"meta": {"format": "club-envs-policy"}, "weights": {}, "payload": tmp_path}, path)
    with pytest.raises(PolicyFileError) as caught:
        load_policy_file(path)
    message = str(caught.value)
    assert "holds pickled Python objects" in message and "no code in it ran" in message
    assert "\n" not in message and "weights_only" not in message


def test_a_policy_with_the_wrong_action_count_is_refused_at_load_time(tmp_path, capsys):
    path = tiny_policy(tmp_path / "five.pt", actions=5, game="members_only")
    with pytest.raises(PolicyFileError, match="chooses among 5 actions, members_only has 101"):
        load_agent(str(path), game=load_game("members_only"))
    status = main(["simulate", "members_only", "--players", "4", "--games", "2", "--agents", str(path),
                   "--no-progress", "--out", str(tmp_path / "out")])
    assert status == 2 and "101" in one_error_line(capsys, "simulate")
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("meta, game_name, problem", [
    ({"game": "arkham_decoders"}, "members_only", "a policy for 'arkham_decoders', not for members_only"),
    ({"game": "members_only", "roles": ["goalkeeper"]}, "members_only", "role 'goalkeeper' is not a members_only role"),
    ({"game": "members_only", "activation": "sigmoid"}, "members_only", "activation 'sigmoid' is not allowed"),
    ({"game": "members_only", "features": "telepathy"}, "members_only", "features 'telepathy' is not allowed"),
])
def test_a_policy_is_checked_against_the_game_it_is_loaded_for(tmp_path, meta, game_name, problem):
    path = tiny_policy(tmp_path / "policy.pt", **meta)
    with pytest.raises(PolicyFileError, match=problem):
        load_agent(str(path), game=load_game(game_name))


def test_the_observation_size_of_a_policy_with_features_is_the_raw_observation(tmp_path):
    from club_envs.agents import features

    spec = features.get("members_only_heuristic")
    good = tiny_policy(tmp_path / "good.pt", obs=spec.obs_size + spec.extra, game="members_only",
                       features="members_only_heuristic")
    load_agent(str(good), game=load_game("members_only"))  # the raw observation fits the game
    with pytest.raises(PolicyFileError, match="features 'members_only_heuristic' give"):
        tiny_policy(tmp_path / "bad.pt", obs=spec.obs_size, game="members_only", features="members_only_heuristic")
        load_policy_file(tmp_path / "bad.pt")


def test_a_policy_with_nan_weights_is_refused(tmp_path):
    path = tiny_policy(tmp_path / "nan.pt")
    blob = torch.load(path, weights_only=True)
    blob["weights"]["action_net.bias"][3] = float("nan")
    torch.save(blob, path)
    with pytest.raises(PolicyFileError, match="NaN or infinite"):
        load_policy_file(path)


# ----------------------------------------------------------------------------------------- commands

def test_simulate_out_naming_an_existing_file_is_one_line_and_status_2(tmp_path, capsys):
    target = tmp_path / "results.txt"
    target.write_text("keep me\n")
    status = main(["simulate", "members_only", "--players", "4", "--games", "2", "--out", str(target), "--no-progress"])
    assert status == 2
    line = one_error_line(capsys, "simulate")
    assert f"--out {target}: is a file; give a folder" in line
    assert target.read_text() == "keep me\n"


@pytest.mark.parametrize("argv, problem", [
    (["simulate", "members_only", "--players", "4", "--seed", "-3"], "--seed -3 is not allowed; allowed values: 0..4294967295"),
    (["simulate", "members_only", "--players", "x"], "invalid int value"),
    (["evaluate", "members_only", "--players", "4", "--agents", "random", "--json", "/"], "--json /: is a folder"),
    (["league", "members_only", "--players", "4", "--agents", "random,heuristic", "--games", "0"], "--games 0"),
    (["play", "members_only", "--players", "4", "--delay", "nan"], "--delay nan is not allowed"),
    (["train", "/nonexistent/config.yaml"], "no such config file"),
    (["report", "/nonexistent/records"], "no such record file or folder"),
])
def test_bad_options_are_one_line_and_status_2(capsys, argv, problem):
    try:
        status = main(argv)
    except SystemExit as exc:  # argparse
        status = exc.code
    assert status == 2
    assert problem in one_error_line(capsys, argv[0])


def test_resume_with_a_damaged_state_file_is_one_line_and_changes_nothing(tmp_path, capsys):
    run = tmp_path / "run"
    run.mkdir()
    (run / "config.yaml").write_text("game: {name: members_only, num_players: 4}\n")
    (run / "state.json").write_text("{" * 100_000)
    before = sorted((p.name, p.stat().st_mtime_ns) for p in run.iterdir())
    assert main(["train", "--resume", str(run), "--quiet"]) == 2
    assert "state.json: not a run state file" in one_error_line(capsys, "train")
    assert sorted((p.name, p.stat().st_mtime_ns) for p in run.iterdir()) == before


@pytest.mark.parametrize("content, problem", [
    ("[" * 100_000, "pool.json: not a self-play pool file (it nests deeper"),
    ("[1, 2", "pool.json: not a self-play pool file (Expecting"),
    ('{"members": [{"id": "x", "kind": "snapshot", "path": "../../secret.pt", "games": 0, "learner_wins": 0}]}',
     "pool.json: not a self-play pool file; it holds"),
    ('{"members": [{"id": "bot:random", "kind": "bot", "name": "random", "games": "3", "learner_wins": 0}]}',
     "pool.json: not a self-play pool file; it holds"),
    ('{"members": {"id": 1}}', "pool.json: not a self-play pool file; it holds"),
])
def test_resume_with_a_damaged_pool_file_is_one_line(tmp_path, capsys, content, problem):
    run = tmp_path / "run"
    (run / "pool" / "player").mkdir(parents=True)
    (run / "config.yaml").write_text("game: {name: members_only, num_players: 4}\n")
    (run / "pool" / "player" / "pool.json").write_text(content)
    assert main(["train", "--resume", str(run), "--quiet"]) == 2
    assert problem in one_error_line(capsys, "train")


def test_a_study_file_alias_bomb_is_one_study_file_error(tmp_path):
    from club_envs.study.plan import StudyFileError, load

    path = tmp_path / "study.yaml"
    path.write_text(BOMB.replace("game:\n  name: members_only\n  num_players: 4\n  options:\n", "conditions:\n"))
    with pytest.raises(StudyFileError, match="study.yaml: (holds more than|uses more than)"):
        load(path)


def test_a_study_file_naming_a_key_twice_is_refused_and_yaml_merges_still_work(tmp_path):
    from club_envs.study.plan import StudyFileError, load

    condition = "{name: mo, game: members_only, players: 3, opponents: random}"
    path = tmp_path / "study.yaml"
    path.write_text(f"name: a\nparticipants: 2\nconditions: [{condition}]\nparticipants: 3\n")
    with pytest.raises(StudyFileError, match="duplicate key 'participants' \\(first at line 2\\) at line 4"):
        load(path)
    # a merge key repeats no key, and a key after it overrides the merged one, as YAML says
    path.write_text("base: &b {game: members_only, players: 3}\nmine: {<<: *b, players: 4}\n")
    assert read_yaml(path, StudyFileError, "study file")["mine"] == {"game": "members_only", "players": 4}


@pytest.mark.parametrize("argv", [
    ["evaluate", "arkham", "--players", "5", "--agents", "arkham_black_man", "--games", "2", "--no-progress"],
    ["simulate", "arkham", "--players", "5", "--games", "2", "--no-progress",
     "--agents", "leader=arkham_team,member=arkham_team,investigator=heuristic,black_man=arkham_team"],
    ["league", "arkham", "--players", "5", "--agents", "arkham_team,heuristic", "--games", "1", "--no-progress"],
])
def test_an_agent_for_one_side_given_a_role_it_cannot_play_is_refused_before_the_first_game(capsys, argv):
    assert main(argv) == 2
    assert "plays only" in one_error_line(capsys, argv[0])
