"""The KL pull towards the policy a side started as (``anchor``, :mod:`club_envs.training.anchor`)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import torch
import yaml

from club_envs.agents.policy import load_policy_file
from club_envs.training import anchor as anchors
from club_envs.training import config as configs
from club_envs.training import train as trainer


def tiny(coef: float, critic: str = "observation", total: int = 1536, **extra) -> dict:
    return {"game": {"name": "members_only", "num_players": [4]}, "network": {"hidden": [16]},
            "algorithm": {"n_steps": 64, "batch_size": 128, "n_epochs": 4, "learning_rate": 3e-3, "critic": critic,
                          "ent_coef": 0.01},
            "envs": {"n_envs": 4}, "selfplay": {"snapshot_every": 512, "pool_size": 2},
            "pretrain": {"games": 4, "critic_steps": 256}, "evaluation": {"every": 10**6, "games": 0},
            "checkpoint": {"every": 512}, "budget": {"total_steps": total}, "seed": 5,
            "anchor": {"coef": coef, **extra}}


def run(tmp_path: Path, name: str, cfg: dict) -> Path:
    path = tmp_path / f"{name}.yaml"
    path.write_text(yaml.safe_dump(cfg))
    return trainer.run(path, runs_dir=tmp_path / name, progress=False)


def sample_rows(n: int = 256) -> tuple[np.ndarray, np.ndarray]:
    """Observations and masks of a few games played by random seats (the anchor's inputs)."""
    from club_envs.members_only_v0 import env as make_env

    env = make_env(num_players=4)
    rng = np.random.default_rng(0)
    rows, masks = [], []
    env.reset(seed=11)
    while len(rows) < n:
        for agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            rows.append(obs["observation"])
            masks.append(obs["action_mask"].astype(bool))
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        env.reset(seed=11 + len(rows))
    return np.asarray(rows[:n], np.float32), np.asarray(masks[:n])


def mean_kl(a: Path, b: Path, rows: np.ndarray, masks: np.ndarray) -> float:
    net_a, _ = load_policy_file(a)
    net_b, _ = load_policy_file(b)
    p = np.stack([net_a.masked_probabilities(r, m) for r, m in zip(rows, masks)])
    q = np.stack([net_b.masked_probabilities(r, m) for r, m in zip(rows, masks)])
    legal = p > 0
    return float(np.where(legal, p * (np.log(np.where(legal, p, 1)) - np.log(np.where(legal, q, 1))), 0).sum(1).mean())


def test_the_pull_keeps_the_learner_near_its_start_and_resumes_towards_the_same_start(tmp_path):
    """Same run, same seed, pull on and off: the pulled learner ends nearer (in KL) to the policy it
    started as, which the run keeps in anchor/ (the pool may drop it); the KL and weight are logged;
    a resumed run pulls towards the same file; a run folder whose anchor is gone says so."""
    free = run(tmp_path, "free", tiny(0.0))
    pulled = run(tmp_path, "pulled", tiny(2.0))
    start = pulled / "anchor" / "policy.pt"
    assert start.exists() and not (free / "anchor").exists()
    assert not (pulled / "pool" / "player" / "snap-000000000.pt").exists()  # the pool dropped the start
    rows, masks = sample_rows()
    # both runs started from the same imitated policy (same seed, same imitation, same warm-up)
    kl_free = mean_kl(free / "latest" / "policy.pt", start, rows, masks)
    kl_pulled = mean_kl(pulled / "latest" / "policy.pt", start, rows, masks)
    assert kl_pulled < 0.5 * kl_free
    progress = (pulled / "logs" / "player" / "progress.csv").read_text().splitlines()
    header = progress[0].split(",")
    assert "train/anchor_kl" in header and "train/anchor_weight" in header
    before = start.read_bytes()
    cfg = yaml.safe_load((pulled / "config.yaml").read_text())
    cfg["budget"]["total_steps"] = 2048
    (pulled / "config.yaml").write_text(yaml.safe_dump(cfg))
    trainer.run(resume=pulled, progress=False)
    assert start.read_bytes() == before
    assert json.loads((pulled / "state.json").read_text())["steps"]["player"] >= 2048
    start.unlink()
    cfg["budget"]["total_steps"] = 2560
    (pulled / "config.yaml").write_text(yaml.safe_dump(cfg))
    with pytest.raises(FileNotFoundError, match="the anchor .* is missing"):
        trainer.run(resume=pulled, progress=False)


@pytest.mark.parametrize("critic", ["observation", "privileged"])
def test_the_loss_gains_exactly_weight_times_the_kl(tmp_path, critic):
    """evaluate_actions hands PPO ``entropy - weight / ent_coef * KL(policy || start)``; the KL is
    0 at the start, matches the one computed from the two policy files, and is only over legal
    actions; with the weight at 0 (annealed away) the entropy is untouched."""
    from club_envs.training.train import side_learner
    from club_envs.training.selfplay import SnapshotPool

    cfg = configs.from_mapping(tiny(0.5, critic=critic, anneal_steps=1000))
    pool = SnapshotPool(tmp_path / "pool" / "player", "recent", ["heuristic"], 0.3, 2)
    venv, model = side_learner(cfg, "player", 0, tmp_path, pool)
    policy = model.policy
    assert isinstance(policy, anchors._Pulled) and policy.anchor is not None
    start = tmp_path / "anchor" / "policy.pt"
    rows = venv.reset()
    masks = venv.action_masks()
    obs, acts = torch.as_tensor(rows), torch.as_tensor([int(np.flatnonzero(m)[0]) for m in masks])
    _, _, plain = super(anchors._Pulled, policy).evaluate_actions(obs, acts, action_masks=masks)
    _, _, pulled = policy.evaluate_actions(obs, acts, action_masks=masks)
    assert torch.allclose(plain, pulled, atol=1e-6)  # at the start, no pull
    with torch.no_grad():
        for p in policy.action_net.parameters():
            p.add_(torch.randn_like(p) * 0.5)
    _, _, plain = super(anchors._Pulled, policy).evaluate_actions(obs, acts, action_masks=masks)
    _, _, pulled = policy.evaluate_actions(obs, acts, action_masks=masks)
    anchor = policy.anchor
    kl = (plain - pulled).detach().numpy() * anchor.ent_coef / anchor.weight
    moved = tmp_path / "moved.pt"
    trainer.export_policy(model, cfg, "player", moved, 0)
    expected = [mean_kl(moved, start, rows[i:i + 1, :anchor.obs_size], masks[i:i + 1]) for i in range(len(rows))]
    assert np.allclose(kl, expected, atol=1e-4) and (kl > 0).all()
    anchor.set_step(500)
    assert anchor.weight == pytest.approx(0.25)
    anchor.set_step(1000)
    _, _, after = policy.evaluate_actions(obs, acts, action_masks=masks)
    assert torch.equal(after, plain)
    venv.close()


def test_the_config_names_what_an_anchor_needs():
    base = {"game": {"name": "arkham_decoders", "num_players": [5]}}
    assert configs.from_mapping({**base, "pretrain": {"games": 2}, "anchor": {"coef": 0.3}}).anchor.sides == \
        ("team", "black_man")
    assert not configs.from_mapping(base).anchor.pulls("team")
    for section, message in (
            ({"anchor": {"coef": 0.3}}, "'team' has no start to be pulled towards"),
            ({"pretrain": {"games": 2}, "anchor": {"coef": 0.3, "sides": ["dealer"]}},
             "'dealer' is not a side of arkham_decoders; allowed values: team, black_man"),
            ({"pretrain": {"games": 2}, "algorithm": {"ent_coef": 0.0}, "anchor": {"coef": 0.3}},
             "needs algorithm.ent_coef > 0"),
            ({"anchor": {"coef": -1}}, "anchor.coef"),
            ({"anchor": {"strength": 1}}, "strength")):
        with pytest.raises(configs.ConfigFileError, match=message):
            configs.from_mapping({**base, **section})
    pulled = configs.from_mapping({**base, "pretrain": {"from_policy": {"team": "arkham_neural_team"}, "critic_steps": 8},
                                   "anchor": {"coef": 0.3, "sides": ["team"]}})
    assert pulled.anchor.pulls("team") and not pulled.anchor.pulls("black_man")
