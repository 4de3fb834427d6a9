"""The viewer works on records from every source: ``simulate``, ``evaluate`` (and so training's
evaluations, which play through the same series), the PettingZoo and Gymnasium environments, the batched engines (``keep_records``), and
games against a person (play and studies); an agent it cannot load is said so, not guessed."""

from __future__ import annotations

import random

import pytest

from club_envs import records
from club_envs.cli import main
from club_envs.play.human_game import HumanGame
from club_envs.play.replay_view import Replay
from club_envs.web.viewer import step_body, templates
from tests.play.conftest import play_out

PAGES = templates()


def _check(rec: dict) -> Replay:
    replay = Replay.from_record(rec)
    assert replay.total > 0
    for view in (*map(str, range(replay.num_players)), "public", "all"):
        last = step_body(replay, replay.total, view, PAGES)
        assert last["final"]["finished"] and last["final"]["lines"]
    return replay


@pytest.mark.parametrize("command", ["simulate", "evaluate"])
@pytest.mark.parametrize("game, players", [("members_only", 3), ("arkham_decoders", 4)])
def test_records_of_simulate_and_evaluate(tmp_path, capsys, command, game, players):
    out = tmp_path / "out"
    args = ["--out", str(out)] if command == "simulate" else ["--records", str(out)]
    agents = ",".join((["random", "heuristic"] * players)[:players])
    assert main([command, game, "--players", str(players), "--games", "1", "--agents", agents,
                 "--seed", "4", "--no-progress", *args]) == 0
    capsys.readouterr()
    files = sorted(out.glob("*.json"))
    assert files
    replay = _check(records.load(files[0]))
    assert any(replay.thinking(n, "all") and replay.thinking(n, "all")["thoughts"] for n in range(1, 6))


@pytest.mark.parametrize("game", ["members_only", "arkham_decoders"])
def test_records_of_the_pettingzoo_and_gymnasium_environments(game):
    import gymnasium

    from club_envs.games import get_spec

    spec = get_spec(game)
    env = spec.hook("aec_env")(num_players=spec.player_counts[0])
    env.reset(seed=3)
    rng = random.Random(0)
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else rng.choice([i for i, m in enumerate(obs["action_mask"]) if m]))
    _check(env.unwrapped.record())

    genv = gymnasium.make(spec.gym_id, num_players=spec.player_counts[0])
    obs, info = genv.reset(seed=5)
    done = False
    while not done:
        legal = [i for i, m in enumerate(info["action_mask"]) if m]
        obs, _, term, trunc, info = genv.step(rng.choice(legal))
        done = term or trunc
    rec = genv.unwrapped.record()
    replay = _check(rec)
    learner = [s["seat"] for s in rec["seats"] if s["controller"] == "learner"][0]
    asked = [replay.thinking(n, "all") for n in range(1, replay.total + 1)]
    mine = [t for t in asked if t and t["seat"] == learner]
    assert mine and all("not a built-in or shipped agent" in t["problem"] for t in mine)


def test_records_of_a_person_show_what_the_shipped_agent_would_have_done():
    g = HumanGame.create("arkham_decoders", num_players=4, role="leader", opponents="heuristic", seed=8)
    play_out(g)
    replay = _check(g.record())
    seat = g.human_seat
    asked = [replay.thinking(n, str(seat)) for n in range(1, replay.total + 1)]
    mine = [t for t in asked if t]
    assert mine and all(t["person"] and t["agent"] == "arkham_decoders" and t["thoughts"] for t in mine)
    other = (seat + 1) % 4  # another seat's view explains its own decisions, never the person's
    for n in range(1, replay.total + 1):
        thinking = replay.thinking(n, str(other))
        assert thinking is None or thinking["seat"] == other


@pytest.mark.parametrize("game", ["members_only", "arkham_decoders"])
def test_records_of_the_batched_engines(tmp_path, game):
    """The vector environments' ``keep_records`` records (rebuilt on the reference engine, with the
    deal in place of a seed) step through the viewer like any other."""
    import gymnasium
    import numpy as np

    from club_envs.games import get_spec

    spec = get_spec(game)
    env = gymnasium.make_vec(spec.gym_id, num_envs=4, vectorization_mode="vector_entry_point",
                             num_players=spec.player_counts[0], keep_records=True)
    env.reset(seed=2)
    rng = np.random.default_rng(0)
    found = []
    for _ in range(5000):
        masks = env.action_masks()
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        _, _, _, _, info = env.step(actions)
        if "_record" in info and info["_record"].any():
            found.extend(info["record"][i] for i in np.flatnonzero(info["_record"]))
        if found:
            break
    env.close()
    assert found, "no game of the batched engine ended"
    path = records.save(found[0], tmp_path / "batched.json")  # as a user keeps it, then read as the viewer reads
    replay = _check(records.load(path))
    assert replay.num_players == spec.player_counts[0]
