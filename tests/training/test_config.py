"""Training configs are checked against the schema before any training starts."""

from __future__ import annotations

from pathlib import Path

import pytest

from club_envs.training import config as configs
from club_envs.training.config import ConfigFileError
from club_envs.training.settings import (AlgorithmSettings, EnvSettings, EvaluationSettings, PretrainSettings,
                                         RllibConfig, RllibSettings, SelfPlayConfig, SelfPlaySettings,
                                         StartAnchorSettings)

CONFIGS = sorted(Path(__file__).resolve().parents[2].joinpath("configs").glob("*.yaml"))


def minimal(**sections):
    cfg = {"game": {"name": "members_only", "num_players": 4}}
    cfg.update(sections)
    return cfg


@pytest.mark.parametrize("path", CONFIGS, ids=lambda p: p.name)
def test_every_shipped_config_is_valid(path):
    settings = configs.load(path)
    cfg = settings.raw
    players = cfg["game"]["num_players"]
    assert set([players] if isinstance(players, int) else players) <= set(configs.GAMES[cfg["game"]["name"]])
    if "recipe" in cfg:  # belief iteration and table PPO: their own trainers and schemas
        assert (cfg["recipe"], cfg["game"]["name"]) in {("belief_iteration", "members_only"),
                                                        ("arkham_belief_iteration", "arkham_decoders"),
                                                        ("table_ppo", "members_only"), ("table_dmc", "members_only")}
        assert settings.RECIPE == cfg["recipe"]
    else:
        assert cfg["algorithm"]["name"] == settings.algorithm.name == "MaskablePPO"
        assert settings.game.num_players == tuple(cfg["game"]["num_players"])
        assert isinstance(settings, RllibConfig) == (cfg.get("backend") == "rllib")


def test_the_typed_sections_name_every_key_of_the_schema():
    from dataclasses import fields

    for section, cls in (("algorithm", AlgorithmSettings), ("envs", EnvSettings), ("selfplay", SelfPlaySettings),
                         ("pretrain", PretrainSettings), ("evaluation", EvaluationSettings), ("rllib", RllibSettings),
                         ("anchor", StartAnchorSettings)):
        assert [f.name for f in fields(cls)] == list(configs.SCHEMA["properties"][section]["properties"]), section


def test_a_config_is_typed_once_and_keeps_the_resolved_mapping_it_was_built_from():
    settings = configs.from_mapping(minimal(seed=3, selfplay={"bots": ["random"]}))
    assert isinstance(settings, SelfPlayConfig) and not isinstance(settings, RllibConfig)
    assert settings.game.num_players == (4,) and settings.selfplay.bots == ("random",) and settings.seed == 3
    assert settings.algorithm.learning_rate == configs.DEFAULTS["algorithm"]["learning_rate"]
    assert settings.raw == configs.validate(minimal(seed=3, selfplay={"bots": ["random"]}))
    rllib = configs.from_mapping(minimal(backend="rllib"))
    assert isinstance(rllib, RllibConfig) and rllib.rllib.address == "local" and rllib.unused == ()


def test_a_recipe_config_is_checked_by_its_own_schema():
    with pytest.raises(ConfigFileError, match=r"x\.yaml: recipe: 'ppo' is not allowed; "
                                              r"allowed values: belief_iteration, arkham_belief_iteration, table_ppo, table_dmc$"):
        configs.validate({"recipe": "ppo"}, "x.yaml")
    for recipe in ("belief_iteration", "arkham_belief_iteration"):
        with pytest.raises(ConfigFileError, match=r"x\.yaml: unknown key 'algorithm'; allowed keys: "):
            configs.validate({"recipe": recipe, "algorithm": {}}, "x.yaml")
    assert configs.validate({"recipe": "arkham_belief_iteration"})["game"] == {"name": "arkham_decoders",
                                                                             "num_players": [4, 5, 6]}


def test_defaults_fill_what_a_config_leaves_out():
    cfg = configs.validate(minimal())
    assert cfg["game"]["num_players"] == [4]
    assert cfg["selfplay"]["scheme"] == configs.DEFAULTS["selfplay"]["scheme"]
    assert cfg["algorithm"]["learning_rate"] == configs.DEFAULTS["algorithm"]["learning_rate"]


def test_seven_players_for_members_only_names_the_key_and_allowed_counts():
    with pytest.raises(ConfigFileError, match=r"game\.num_players: 7 is not allowed; allowed values: 3, 4, 5"):
        configs.validate({"game": {"name": "members_only", "num_players": 7}})


def test_three_players_for_arkham_names_its_own_allowed_counts():
    with pytest.raises(ConfigFileError, match=r"game\.num_players\[0\]: 3 is not allowed; allowed values: 4, 5, 6"):
        configs.validate({"game": {"name": "arkham_decoders", "num_players": [3, 5]}})


def test_unknown_key_lists_the_allowed_keys():
    with pytest.raises(ConfigFileError, match=r"algorithm: unknown key 'lr'; allowed keys: batch_size, .*learning_rate"):
        configs.validate(minimal(algorithm={"lr": 0.1}))


def test_unknown_top_level_section_lists_the_sections():
    with pytest.raises(ConfigFileError, match=r"unknown key 'optimiser'; allowed keys: algorithm, anchor, backend, budget"):
        configs.validate(minimal(optimiser={}))


def test_wrong_type_names_the_key_and_the_expected_type():
    with pytest.raises(ConfigFileError, match=r"envs\.subprocess: 'yes' has the wrong type; expected boolean"):
        configs.validate(minimal(envs={"subprocess": "yes"}))


def test_unknown_sampling_scheme_lists_the_schemes():
    with pytest.raises(ConfigFileError, match=r"selfplay\.scheme: 'best' is not allowed; allowed values: latest, uniform, recent, loss"):
        configs.validate(minimal(selfplay={"scheme": "best"}))


def test_batch_larger_than_a_rollout_is_refused():
    with pytest.raises(ConfigFileError, match=r"algorithm\.batch_size: 4096 is larger than one rollout"):
        configs.validate(minimal(algorithm={"n_steps": 64, "batch_size": 4096}, envs={"n_envs": 2}))


def test_missing_game_is_reported():
    with pytest.raises(ConfigFileError, match="'game' is a required property"):
        configs.validate({"seed": 1})


def test_bad_rule_option_stops_the_run_before_a_run_folder_exists(tmp_path):
    from club_envs.training.train import run

    path = tmp_path / "bad.yaml"
    path.write_text("game: {name: arkham_decoders, num_players: 5, options: {reward_mode: money}}\n")
    with pytest.raises(ConfigFileError, match=r"game\.options: .*reward_mode"):
        run(path, runs_dir=tmp_path / "runs", progress=False)
    assert not (tmp_path / "runs").exists()


def test_cli_reports_a_bad_config_in_one_line_and_exits_2(tmp_path, capsys):
    from club_envs.cli import main

    path = tmp_path / "bad.yaml"
    path.write_text("game: {name: members_only, num_players: 7}\n")
    assert main(["train", str(path), "--runs-dir", str(tmp_path / "runs")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "game.num_players: 7 is not allowed; allowed values: 3, 4, 5" in err
    assert not (tmp_path / "runs").exists()


def test_policy_features_of_another_game_are_refused_with_the_allowed_values():
    with pytest.raises(configs.ConfigFileError, match=r"network.features: 'members_only_heuristic' reads another game's observations; allowed values for arkham_decoders: none"):
        configs.validate({"game": {"name": "arkham_decoders", "num_players": 5}, "network": {"features": "members_only_heuristic"}})


def test_unknown_policy_features_list_the_known_ones():
    with pytest.raises(configs.ConfigFileError, match=r"network.features: 'magic' is not allowed; allowed values: none, .*members_only_beliefs"):
        configs.validate({"game": {"name": "members_only", "num_players": 4}, "network": {"features": "magic"}})


def test_a_bot_of_another_game_is_refused_as_an_opponent():
    with pytest.raises(configs.ConfigFileError, match=r"selfplay.bots: 'heuristic_sampled' is not a arkham_decoders bot; allowed values: heuristic, random"):
        configs.validate({"game": {"name": "arkham_decoders", "num_players": 5}, "selfplay": {"bots": ["heuristic_sampled"]}})


def test_features_are_refused_on_the_rllib_backend():
    with pytest.raises(configs.ConfigFileError, match="not available with backend: rllib"):
        configs.validate({"game": {"name": "members_only", "num_players": 4}, "backend": "rllib",
                          "network": {"features": "members_only_beliefs"}})


def test_held_out_and_shipped_agents_may_be_watched_but_never_judged():
    """``evaluation.watch`` takes the agents a run may not be judged against -- the held-out bots and
    the shipped agents -- because their rows never pick the best policy; as opponents they stay refused."""
    resolved = configs.from_mapping(minimal(evaluation={"watch": ["holdout_margin", "members_only_belief"]}))
    assert resolved.evaluation.watch == ("holdout_margin", "members_only_belief")
    assert configs.from_mapping(minimal()).evaluation.watch == ()
    with pytest.raises(ConfigFileError, match=r"evaluation.opponents: 'holdout_prover' belongs to the held-out"):
        configs.validate(minimal(evaluation={"opponents": ["holdout_prover"]}))
    with pytest.raises(ConfigFileError, match=r"selfplay.bots: 'holdout_prover' belongs to the held-out"):
        configs.validate(minimal(selfplay={"bots": ["holdout_prover"]}))


def test_a_watched_arkham_agent_must_play_the_other_side_of_every_evaluated_side():
    arkham = {"game": {"name": "arkham_decoders", "num_players": 5}}
    resolved = configs.from_mapping({**arkham, "evaluation": {"watch": ["arkham_selfplay", "holdout_counter"]}})
    assert resolved.evaluation.watch == ("arkham_selfplay", "holdout_counter")
    with pytest.raises(ConfigFileError, match=r"evaluation.watch: 'arkham_team' plays investigator, leader, member, not "
                                              r"black_man, which the team side's evaluations seat it as"):
        configs.validate({**arkham, "evaluation": {"watch": ["arkham_team"]}})
    with pytest.raises(ConfigFileError, match=r"evaluation.watch: 'members_only_belief' is not an agent a arkham_decoders "
                                              r"run can watch; allowed values: random, heuristic, .*holdout_counter, "
                                              r"arkham_team, .*arkham_neural$"):
        configs.validate({**arkham, "evaluation": {"watch": ["members_only_belief"]}})
