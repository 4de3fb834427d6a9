"""The game specs and their registry: every layer asks them, so their facts must match the games."""

from __future__ import annotations

import gymnasium
import pettingzoo
import pytest

import club_envs  # noqa: F401  -- registers the environments
from club_envs import games
from club_envs.agents import features
from club_envs.game_spec import REQUIRED_HOOKS, GameSpec, Side

SPECS = {s.name: s for s in games.specs()}


def test_the_registry_holds_both_games_under_their_canonical_names():
    assert list(SPECS) == ["members_only", "arkham_decoders"]
    assert games.game_names() == ["arkham_decoders_club", "members_only"]


@pytest.mark.parametrize("spelling, name", [("members_only", "members_only"), ("Members-Only", "members_only"),
                                            ("arkham_decoders", "arkham_decoders"),
                                            ("arkham_decoders_club", "arkham_decoders"), (" ARKHAM ", "arkham_decoders")])
def test_every_accepted_spelling_finds_one_spec(spelling, name):
    assert games.get_spec(spelling) is SPECS[name]
    assert games.canonical_name(spelling) == SPECS[name].record_name
    assert games.load_game(spelling) is SPECS[name].module


def test_an_unknown_game_names_the_accepted_ones():
    with pytest.raises(ValueError, match=r"unknown game 'chess'; expected one of .*arkham_decoders_club.*members_only"):
        games.get_spec("chess")


@pytest.mark.parametrize("name", SPECS)
def test_spec_facts_agree_with_the_game_package(name):
    spec = SPECS[name]
    package = spec.module
    assert games.spec_of(package) is spec
    assert spec.record_name == package.RECORD_NAME
    assert spec.player_counts == tuple(package.PLAYER_COUNTS)
    assert spec.roles == tuple(package.ROLES)
    assert spec.bots == tuple(package.AGENT_NAMES)
    assert spec.hook("config") is package.Config
    for hook in ("make_agent", "play_match", "replay", "outcomes"):
        assert spec.hook(hook) is getattr(package, hook)
    assert spec.config(num_players=spec.default_players).num_players == spec.default_players


@pytest.mark.parametrize("name", SPECS)
def test_every_hook_resolves(name):
    spec = SPECS[name]
    assert set(REQUIRED_HOOKS) <= set(spec.hooks)
    for hook in spec.hooks:
        assert spec.hook(hook) is not None, hook
    observer = spec.hook("observer")(spec.config())
    assert observer.size > 0 and spec.hook("actions").NUM_ACTIONS > 0


@pytest.mark.parametrize("name", SPECS)
def test_environment_ids_are_registered_and_built_by_the_hooks(name):
    spec = SPECS[name]
    assert gymnasium.registry[spec.gym_id].entry_point.endswith(spec.hook("gym_env").__name__)
    assert spec.aec_id in pettingzoo.aec_registry
    env = spec.hook("aec_env")(num_players=spec.default_players)
    env.reset(seed=0)
    assert len(env.possible_agents) == spec.default_players
    env.close()


@pytest.mark.parametrize("name", SPECS)
def test_sides_cover_every_role_once(name):
    spec = SPECS[name]
    played = [r for side in spec.sides for r in side.roles or ()]
    assert sorted(played) == sorted(spec.roles)
    assert {side.opponents for side in spec.sides} <= set(spec.side_names)
    assert len({side.policy_file for side in spec.sides}) == len(spec.sides)
    for role in spec.roles or (None,):
        assert role is None or role in spec.side_of_role(role).roles


def test_role_seating_splits_the_roles_between_the_evaluated_side_and_its_opponents():
    arkham = SPECS["arkham_decoders"]
    assert arkham.role_seating("black_man") == {"leader": "opponent", "member": "opponent",
                                                "investigator": "opponent", "black_man": "learner"}
    assert arkham.opponent_roles("black_man") == ("leader", "member", "investigator")
    assert arkham.opponent_roles("team") == ("black_man",)
    assert SPECS["members_only"].role_seating("player") is None
    assert SPECS["members_only"].opponent_roles("player") is None
    for spec in SPECS.values():
        for side in spec.side_names:
            seating = spec.role_seating(side) or {}
            assert sorted(r for r, who in seating.items() if who == "learner") == sorted(spec.side(side).roles or ())


def test_an_unknown_side_names_the_sides():
    with pytest.raises(ValueError, match="arkham_decoders has no side 'player'; expected one of team, black_man"):
        SPECS["arkham_decoders"].side("player")


def test_win_sharing_is_the_games_own_rule():
    assert SPECS["members_only"].shared_wins and not SPECS["arkham_decoders"].shared_wins


def test_feature_names_come_from_the_specs():
    assert features.NAMES == ("none", "arkham_belief_inputs", "arkham_heuristic", "members_only_belief_inputs",
                              "members_only_beliefs", "members_only_heuristic")
    for spec in SPECS.values():
        for name in spec.feature_names:
            assert features.get(name).game == spec.name


def test_a_missing_hook_is_refused():
    with pytest.raises(ValueError, match="lacks the hooks"):
        GameSpec(name="x", record_name="x", title="X", package="x", player_counts=(2,), default_players=2, roles=(),
                 sides=(Side("player", None, "player", "policy.pt"),), bots=("random",), gym_id="x", aec_id="x",
                 shared_wins=True, hooks={"config": ".rules:Config"})


def test_a_name_taken_by_another_game_is_refused():
    spec = SPECS["members_only"]
    hooks = dict(spec.hooks)
    other = GameSpec(name="members_only_copy", record_name="members_only_copy", title="Copy", package=spec.package,
                     player_counts=spec.player_counts, default_players=spec.default_players, roles=(),
                     sides=spec.sides, bots=spec.bots, gym_id="x", aec_id="x", shared_wins=True, hooks=hooks,
                     aliases=("arkham",))
    with pytest.raises(ValueError, match="'arkham' of 'members_only_copy' is already taken by 'arkham_decoders'"):
        games.register(other)
    assert "members_only_copy" not in {s.name for s in games.specs()}
