"""The self-play pool: sampling schemes, pruning, and environments that read it from files."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from club_envs.agents.policy import PolicyAgent, save_policy
from club_envs.training.selfplay import RECENT_DECAY, PoolReader, SnapshotPool

OBS, ACTIONS = 6, 3


def write_policy(path, seed=0):
    g = torch.Generator().manual_seed(seed)
    weights = {
        "mlp_extractor.policy_net.0.weight": torch.randn(8, OBS, generator=g),
        "mlp_extractor.policy_net.0.bias": torch.zeros(8),
        "action_net.weight": torch.randn(ACTIONS, 8, generator=g),
        "action_net.bias": torch.zeros(ACTIONS),
    }
    return save_policy(path, weights, {"game": "test", "side": "player", "obs_size": OBS, "num_actions": ACTIONS,
                                       "hidden": [8], "activation": "tanh", "steps": seed})


def pool_with(tmp_path, scheme, snapshots=3, bots=("random",), bot_share=0.25, size=10):
    pool = SnapshotPool(tmp_path, scheme, bots, bot_share, size)
    for k in range(snapshots):
        pool.add_snapshot(100 * k, lambda p, k=k: write_policy(p, k))
    return pool


def snapshot_probs(pool):
    probs = pool.probabilities()
    return [probs[s["id"]] for s in pool.snapshots()]


def test_latest_draws_only_the_newest_snapshot(tmp_path):
    pool = pool_with(tmp_path, "latest")
    assert snapshot_probs(pool) == pytest.approx([0, 0, 0.75])
    assert pool.probabilities()["bot:random"] == pytest.approx(0.25)


def test_uniform_draws_every_snapshot_alike(tmp_path):
    assert snapshot_probs(pool_with(tmp_path, "uniform")) == pytest.approx([0.25, 0.25, 0.25])


def test_recent_weights_newer_snapshots_geometrically(tmp_path):
    p = snapshot_probs(pool_with(tmp_path, "recent"))
    assert p[1] / p[2] == pytest.approx(RECENT_DECAY) and p[0] / p[1] == pytest.approx(RECENT_DECAY)
    assert sum(p) == pytest.approx(0.75)


def test_loss_weighting_favours_snapshots_the_learner_still_loses_to(tmp_path):
    pool = pool_with(tmp_path, "loss")
    beaten, tough = pool.snapshots()[0]["id"], pool.snapshots()[1]["id"]
    for _ in range(20):
        pool.record([beaten], 1.0)
        pool.record([tough], 0.0)
    probs = pool.probabilities()
    assert probs[tough] > probs[pool.snapshots()[2]["id"]] > probs[beaten]


def test_pool_keeps_only_the_newest_snapshots_and_deletes_the_rest(tmp_path):
    pool = pool_with(tmp_path, "uniform", snapshots=5, size=2)
    assert [s["step"] for s in pool.snapshots()] == [300, 400]
    assert sorted(p.name for p in tmp_path.glob("snap-*.pt")) == ["snap-000000300.pt", "snap-000000400.pt"]


def test_without_snapshots_the_bots_take_every_draw(tmp_path):
    pool = SnapshotPool(tmp_path, "recent", ["random", "heuristic"], 0.1, 4)
    assert pool.probabilities() == {"bot:random": 0.5, "bot:heuristic": 0.5}


def test_environment_side_reader_draws_by_the_written_probabilities_and_loads_weights(tmp_path):
    pool = pool_with(tmp_path, "latest", bot_share=0.5)
    pool.write()
    reader = PoolReader(tmp_path, np.random.default_rng(0))
    draws = [reader.sample() for _ in range(400)]
    ids = [i for i, _ in draws]
    assert set(ids) == {"bot:random", pool.snapshots()[-1]["id"]}
    assert 0.4 < ids.count("bot:random") / 400 < 0.6
    agent = next(a for i, a in draws if i != "bot:random")
    assert isinstance(agent, PolicyAgent) and agent.net.obs_size == OBS


def test_reader_skips_a_corrupt_snapshot_and_says_so(tmp_path, capsys):
    pool = pool_with(tmp_path, "latest", bot_share=0.0, bots=())
    pool.write()
    newest = pool.snapshots()[-1]
    (tmp_path / newest["path"]).write_bytes(b"garbage")
    reader = PoolReader(tmp_path, np.random.default_rng(0))
    oid, agent = reader.sample()
    assert oid == "bot:random" and agent == "random"  # nothing else had probability: the fallback
    assert f"snapshot {newest['id']} cannot be loaded, skipped" in capsys.readouterr().err


def test_reader_picks_up_a_rewritten_pool(tmp_path):
    pool = pool_with(tmp_path, "latest", snapshots=1, bot_share=0.0, bots=())
    pool.write()
    reader = PoolReader(tmp_path, np.random.default_rng(0))
    assert reader.sample()[0] == "snap-000000000.pt"
    import os
    import time

    pool.add_snapshot(500, lambda p: write_policy(p, 5))
    later = time.time() + 5  # make sure the file's mtime moves even on a coarse clock
    os.utime(pool.path, (later, later))
    assert reader.sample()[0] == "snap-000000500.pt"
