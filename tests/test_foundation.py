"""The game-independent pieces: intervals, --agents parsing, game names, record files, the CLI."""

from __future__ import annotations

import json
import types

import pytest

from club_envs import records
from club_envs.agents.base import CallableAgent, Decision, RandomAgent, as_agent
from club_envs.agents.lineup import Lineup
from club_envs.cli import main
from club_envs.games import canonical_name
from club_envs.stats import wilson_interval

import numpy as np


def test_wilson_interval_matches_published_value():
    # 50 successes in 100 trials: the Wilson 95% interval is [0.4038, 0.5962].
    lo, hi = wilson_interval(50, 100)
    assert lo == pytest.approx(0.4038, abs=1e-4)
    assert hi == pytest.approx(0.5962, abs=1e-4)


def test_wilson_interval_stays_inside_unit_range_at_extremes():
    assert wilson_interval(0, 10)[0] == 0.0
    assert wilson_interval(10, 10)[1] == pytest.approx(1.0)
    assert wilson_interval(0, 10)[1] > 0.0


_ROLE_GAME = types.SimpleNamespace(RECORD_NAME="rolegame", ROLES=("leader", "member"))
_PLAIN_GAME = types.SimpleNamespace(RECORD_NAME="plain", ROLES=())


def test_lineup_single_name_fills_every_seat():
    assert Lineup.parse("random", _PLAIN_GAME, 4).per_seat == ("random",) * 4


def test_lineup_one_name_per_seat():
    assert Lineup.parse("a, b,c", _PLAIN_GAME, 3).per_seat == ("a", "b", "c")


def test_lineup_wrong_count_names_both_numbers():
    with pytest.raises(ValueError, match="lists 2 agents for 4 players"):
        Lineup.parse("a,b", _PLAIN_GAME, 4)


def test_lineup_per_role_requires_every_role():
    with pytest.raises(ValueError, match="no agent for role.*member"):
        Lineup.parse("leader=heuristic", _ROLE_GAME, 4)
    lineup = Lineup.parse("leader=heuristic,member=random", _ROLE_GAME, 4)
    assert dict(lineup.per_role) == {"leader": "heuristic", "member": "random"}


def test_lineup_unknown_role_lists_roles():
    with pytest.raises(ValueError, match="expected one of leader, member"):
        Lineup.parse("boss=random,member=random", _ROLE_GAME, 4)


def test_lineup_roles_rejected_for_game_without_roles():
    with pytest.raises(ValueError, match="has no roles"):
        Lineup.parse("leader=random", _PLAIN_GAME, 4)


def test_canonical_name_accepts_aliases_and_lists_names():
    assert canonical_name("arkham_decoders") == "arkham_decoders_club"
    assert canonical_name("Members_Only") == "members_only"
    with pytest.raises(ValueError, match="expected one of"):
        canonical_name("chess")


def test_load_corrupt_record_names_the_file(tmp_path):
    bad = tmp_path / "broken.json"
    bad.write_text("{not json")
    with pytest.raises(records.RecordError, match="broken.json: not a JSON record"):
        records.load(bad)


def test_record_of_unknown_game_is_rejected(tmp_path):
    path = tmp_path / "other.json"
    path.write_text(json.dumps({"format": "club-envs-record", "format_version": 1, "game": "chess"}))
    with pytest.raises(records.RecordError, match="'game' must be one of"):
        records.load(path)


def test_record_with_wrong_format_is_rejected():
    with pytest.raises(records.RecordError, match="'format' must be"):
        records.validate({"format": "something-else"})


def _decision(legal):
    mask = np.zeros(5, dtype=np.int8)
    mask[list(legal)] = 1
    return Decision(0, None, legal, lambda: np.zeros(3, dtype=np.float32), lambda: mask)


def test_a_decision_from_a_mask_reads_its_legal_actions_off_it_and_builds_the_observation_lazily():
    mask = np.array([False, True, False, True, True])
    built = []
    decision = Decision.from_mask(2, "view", mask, lambda: built.append(1) or np.ones(3, dtype=np.float32))
    assert decision.seat == 2 and decision.view == "view" and decision.legal_actions == [1, 3, 4]
    assert decision.action_mask is mask and not built, "the mask as given; no observation built yet"
    assert decision.observation.tolist() == [1.0, 1.0, 1.0] and decision.observation is decision.observation
    assert built == [1]


def test_random_agent_plays_only_legal_actions_and_is_seeded():
    a, b = RandomAgent(), RandomAgent()
    a.reset(0, seed=3)
    b.reset(0, seed=3)
    picks_a = [a.act(_decision([1, 3, 4])) for _ in range(50)]
    picks_b = [b.act(_decision([1, 3, 4])) for _ in range(50)]
    assert set(picks_a) <= {1, 3, 4} and len(set(picks_a)) == 3
    assert picks_a == picks_b


def test_callable_policy_receives_pettingzoo_style_dict():
    seen = {}

    def policy(obs):
        seen.update(obs)
        return int(np.flatnonzero(obs["action_mask"])[-1])

    agent = as_agent(policy)
    assert isinstance(agent, CallableAgent)
    assert agent.act(_decision([0, 2])) == 2
    assert set(seen) == {"observation", "action_mask"}


def test_as_agent_rejects_non_policies():
    with pytest.raises(TypeError, match="is not a policy"):
        as_agent(42)


def test_cli_unknown_game_exits_2_with_message(capsys):
    assert main(["simulate", "chess", "--players", "4"]) == 2
    assert "unknown game 'chess'" in capsys.readouterr().err


def test_check_choice_names_option_value_and_allowed_values():
    from club_envs.errors import ConfigError, check_choice

    check_choice("render_mode", None, (None, "ansi", "human"))
    with pytest.raises(ConfigError, match=r"render_mode='rgb' is not allowed; expected one of None, ansi, human"):
        check_choice("render_mode", "rgb", (None, "ansi", "human"))
