"""The model card written by club_envs.training.ship: exploitability figures belong to the weights
they were measured against."""

import json
from pathlib import Path

import pytest

pytest.importorskip("yaml")

from club_envs.training.ship import render_card  # noqa: E402

RESULT = Path(__file__).parent / "data" / "exploit_result.json"


def _card(exploit):
    return {
        "name": "members_only", "game": "members_only", "side": "player", "roles": None, "file": "members_only.pt",
        "acting": "greedy", "obs_size": 10, "num_actions": 3, "network": {"hidden": [8], "activation": "tanh"},
        "policy_steps": 1000, "run_steps": {"player": 1000}, "training_seconds": 36.0, "cpus": 2,
        "stopped_early": False, "learning_curve": None, "command": "club-envs train members_only_4p",
        "config": {"budget": {"total_steps": 1000}}, "evaluations": [], "exploit": exploit, "notes": "",
    }


def test_card_renders_exploit_results_with_baseline_and_command():
    result = json.loads(RESULT.read_text())
    text = render_card(_card([result]))
    section = text.split("## Exploitability", 1)[1].split("## Training config", 1)[0]
    assert "`club-envs exploit members_only --game members_only --players 4 --steps 2048 --eval-games 40 --seed 3`" in section
    assert "| members_only | player | 2,048 | 0.100 [0.040, 0.230] (40 games) | 0.250 | -0.150 |" in section
    assert "| heuristic | player | 2,048 | 0.200 [0.100, 0.350] (40 games) | 0.250 | -0.050 |" in section
    assert "lower bound" in section


def test_card_without_exploit_results_says_they_were_not_measured():
    text = render_card(_card([]))
    section = text.split("## Exploitability", 1)[1].split("## Training config", 1)[0]
    assert "Not measured for these weights" in section
    assert "club-envs exploit members_only --game members_only" in section
    assert "responder wins" not in section
