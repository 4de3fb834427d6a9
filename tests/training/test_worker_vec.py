"""Games split over worker processes play exactly the games of one process, and fail clearly."""

from __future__ import annotations

import functools

import numpy as np
import pytest
import yaml

from club_envs.training import config as configs
from club_envs.training import examples
from club_envs.training.selfplay_vec import SelfPlayVecEnv
from club_envs.training.train import make_selfplay_game
from club_envs.training.worker_vec import WorkerError, WorkerVecEnv

from tests.training.test_selfplay_vec import config_with_pool, rollout, same
from tests.training.test_train import assert_repeats_and_resumes


@pytest.mark.parametrize("game,features", [("members_only", "members_only_heuristic"),
                                           ("arkham_decoders", "arkham_heuristic")])
def test_games_in_workers_equal_the_games_of_one_process(tmp_path, game, features):
    cfg = config_with_pool(tmp_path, game, features=features, bots=("heuristic", "random"))
    side = configs.SIDES[game][0]
    fns = [functools.partial(make_selfplay_game, cfg, side, str(tmp_path), s) for s in (31, 32, 33, 34, 35)]
    one = SelfPlayVecEnv(fns, features=features)
    split = WorkerVecEnv(fns, features=features, workers=2)
    assert split.observation_space == one.observation_space and split.action_space == one.action_space
    a, b = rollout(one, 250, 7), rollout(split, 250, 7)
    same(a, b)
    assert sum(int(x[2].sum()) for x in b[1:]) > 0  # games ended and restarted within the rollout


def test_attribute_and_method_calls_reach_the_right_games(tmp_path):
    cfg = config_with_pool(tmp_path, "members_only")
    fns = [functools.partial(make_selfplay_game, cfg, "player", str(tmp_path), s) for s in (1, 2, 3, 4, 5)]
    one, split = SelfPlayVecEnv(fns), WorkerVecEnv(fns, workers=3)
    try:
        one.seed(40), split.seed(40)
        one.reset(), split.reset()
        assert [i.keys() for i in split.reset_infos] == [i.keys() for i in one.reset_infos]
        np.testing.assert_array_equal(split.action_masks(), one.action_masks())
        for indices in (None, [4, 0, 2], 3):
            assert ([v.seat for v in split.env_method("learner_view", indices=indices)]
                    == [v.seat for v in one.env_method("learner_view", indices=indices)])
            masks = split.env_method("action_masks", indices=indices)
            np.testing.assert_array_equal(np.stack(masks), np.stack(one.env_method("action_masks", indices=indices)))
        split.set_attr("marker", "x", indices=[1, 4])
        assert split.get_attr("marker", indices=[1, 4]) == ["x", "x"]
        assert split.has_attr("action_masks") and not split.has_attr("no_such_attribute")
    finally:
        one.close(), split.close()


def _broken_game():
    raise ValueError("this game cannot be built")


def test_a_worker_that_cannot_build_its_games_names_the_cause(tmp_path):
    cfg = config_with_pool(tmp_path, "members_only")
    fns = [functools.partial(make_selfplay_game, cfg, "player", str(tmp_path), 1), _broken_game]
    with pytest.raises(WorkerError, match="game worker 1 failed(.|\n)*this game cannot be built"):
        WorkerVecEnv(fns, workers=2)


def test_an_error_inside_a_worker_stops_the_workers_and_names_it(tmp_path):
    cfg = config_with_pool(tmp_path, "members_only")
    fns = [functools.partial(make_selfplay_game, cfg, "player", str(tmp_path), s) for s in (1, 2)]
    split = WorkerVecEnv(fns, workers=2)
    split.reset()
    processes = list(split._processes)
    with pytest.raises(WorkerError, match="no_such_method"):
        split.env_method("no_such_method")
    assert split.closed
    for p in processes:
        p.join(timeout=10)
        assert not p.is_alive()


def test_worker_counts_are_checked(tmp_path):
    cfg = config_with_pool(tmp_path, "members_only")
    fns = [functools.partial(make_selfplay_game, cfg, "player", str(tmp_path), 1)]
    with pytest.raises(ValueError, match=r"workers=2: expected 1\.\.1"):
        WorkerVecEnv(fns, workers=2)
    with pytest.raises(configs.ConfigFileError, match=r"envs\.workers: 5 is more than envs\.n_envs \(4\); allowed values: 1\.\.4"):
        configs.validate({"game": {"name": "members_only", "num_players": 4}, "envs": {"n_envs": 4, "workers": 5}})
    with pytest.raises(configs.ConfigFileError, match=r"envs\.workers: 2 needs batched environments"):
        configs.validate({"game": {"name": "members_only", "num_players": 4}, "envs": {"n_envs": 4, "workers": 2, "subprocess": True}})
    with pytest.raises(configs.ConfigFileError, match=r"envs\.workers"):
        configs.validate({"game": {"name": "members_only", "num_players": 4}, "envs": {"workers": 0}})


def test_training_with_workers_runs_resumes_and_repeats(tmp_path):
    cfg = yaml.safe_load(examples.path_of("members_only_smoke").read_text())
    cfg["envs"] = {"n_envs": 4, "workers": 2}
    cfg["budget"]["total_steps"] = 384
    assert_repeats_and_resumes(tmp_path, cfg, 640)


def test_a_worker_killed_from_outside_is_reported(tmp_path):
    cfg = config_with_pool(tmp_path, "members_only")
    fns = [functools.partial(make_selfplay_game, cfg, "player", str(tmp_path), s) for s in (1, 2)]
    split = WorkerVecEnv(fns, workers=2)
    split.reset()
    split._processes[1].kill()
    split._processes[1].join(timeout=10)
    with pytest.raises(WorkerError, match="game worker 1 stopped unexpectedly"):
        split.step(np.stack(split.env_method("action_masks")).argmax(axis=1))
    assert split.closed
