"""The batched self-play vector environment plays exactly the games that one-by-one stepping plays."""

from __future__ import annotations

import functools

import numpy as np
import pytest
from sb3_contrib import MaskablePPO
from stable_baselines3.common.vec_env import DummyVecEnv

from club_envs.agents.policy import PolicyAgent, act_batch
from club_envs.training import config as configs
from club_envs.training import games
from club_envs.training.selfplay import SnapshotPool
from club_envs.training.selfplay_vec import SelfPlayVecEnv
from club_envs.training.settings import SelfPlayConfig
from club_envs.training.train import export_policy, make_selfplay_env, make_selfplay_game

GAMES = {
    "members_only": {"name": "members_only", "num_players": [3, 4, 5]},
    "arkham_decoders": {"name": "arkham_decoders", "num_players": [4, 5, 6]},
}


def config_with_pool(tmp_path, game: str, features: str = "none", bots=("random",)) -> SelfPlayConfig:
    cfg = configs.from_mapping({"game": GAMES[game], "network": {"hidden": [16], "features": features},
                            "selfplay": {"bots": list(bots), "bot_share": 0.3}})
    for s in configs.SIDES[game]:
        pool = SnapshotPool(tmp_path / "pool" / s, "uniform", list(cfg.selfplay.bots), 0.3, 4)
        env = make_selfplay_env(cfg, s, str(tmp_path), 0)
        for k in range(2):  # two different frozen policies per side
            model = MaskablePPO("MlpPolicy", env, device="cpu", seed=k, policy_kwargs={"net_arch": [16]})
            pool.add_snapshot(k, lambda p, m=model, s=s: export_policy(m, cfg, s, p, 0))
        env.close()
    return cfg


def rollout(venv, steps: int, seed: int) -> list:
    rng = np.random.default_rng(seed)
    venv.seed(seed)
    out = [venv.reset().copy()]
    for _ in range(steps):
        masks = np.stack(venv.env_method("action_masks"))
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        obs, rewards, dones, infos = venv.step(actions)
        out.append((obs.copy(), rewards.copy(), dones.copy(),
                    [i.get("selfplay", {}).get("win") for i in infos], [i.get("episode", {}).get("r") for i in infos]))
    venv.close()
    return out


def same(a, b) -> None:
    assert np.array_equal(a[0], b[0])
    for x, y in zip(a[1:], b[1:]):
        assert np.array_equal(x[0], y[0]) and np.array_equal(x[1], y[1]) and np.array_equal(x[2], y[2])
        assert x[3] == y[3] and x[4] == y[4]


@pytest.mark.parametrize("game", sorted(GAMES))
def test_batched_games_equal_games_stepped_one_by_one(tmp_path, game):
    cfg = config_with_pool(tmp_path, game)
    side = configs.SIDES[game][0]
    seeds = [11, 12, 13, 14]
    dummy = DummyVecEnv([functools.partial(make_selfplay_env, cfg, side, str(tmp_path), s) for s in seeds])
    batched = SelfPlayVecEnv([functools.partial(make_selfplay_game, cfg, side, str(tmp_path), s) for s in seeds])
    steps = 300
    a, b = rollout(dummy, steps, 5), rollout(batched, steps, 5)
    same(a, b)
    assert sum(int(x[2].sum()) for x in b[1:]) > 0  # games ended and restarted within the rollout


def test_batched_heuristic_opponents_play_the_games_of_bots_asked_one_by_one(tmp_path):
    """Exact heuristics (two tunings) are asked together per tuning; sampled ones together, each
    drawing from its own generator."""
    cfg = config_with_pool(tmp_path, "members_only", bots=("heuristic", "heuristic_bold", "heuristic_sampled"))
    seeds = [21, 22, 23, 24, 25]
    dummy = DummyVecEnv([functools.partial(make_selfplay_env, cfg, "player", str(tmp_path), s) for s in seeds])
    batched = SelfPlayVecEnv([functools.partial(make_selfplay_game, cfg, "player", str(tmp_path), s) for s in seeds])
    same(rollout(dummy, 200, 3), rollout(batched, 200, 3))


def test_batched_learner_inputs_include_the_policy_features(tmp_path):
    cfg = config_with_pool(tmp_path, "members_only", features="members_only_heuristic", bots=("heuristic",))
    seeds = [1, 2, 3]
    dummy = DummyVecEnv([functools.partial(make_selfplay_env, cfg, "player", str(tmp_path), s) for s in seeds])
    batched = SelfPlayVecEnv([functools.partial(make_selfplay_game, cfg, "player", str(tmp_path), s) for s in seeds],
                             features="members_only_heuristic")
    assert batched.observation_space.shape == dummy.observation_space.shape
    same(rollout(dummy, 120, 9), rollout(batched, 120, 9))


def test_one_evaluation_per_round_shared_by_bots_and_policies_plays_the_same_games(tmp_path):
    """Frozen policies reading the heuristic's evaluation and exact heuristic bots share one
    evaluation per round (``prepare_key``); the games are those of every agent asked alone."""
    cfg = config_with_pool(tmp_path, "members_only", features="members_only_heuristic",
                           bots=("heuristic", "heuristic_sampled"))
    seeds = [31, 32, 33, 34, 35, 36]
    dummy = DummyVecEnv([functools.partial(make_selfplay_env, cfg, "player", str(tmp_path), s) for s in seeds])
    batched = SelfPlayVecEnv([functools.partial(make_selfplay_game, cfg, "player", str(tmp_path), s) for s in seeds],
                             features="members_only_heuristic")
    same(rollout(dummy, 150, 4), rollout(batched, 150, 4))


def test_one_batched_forward_pass_equals_each_agent_acting_alone(tmp_path):
    cfg = config_with_pool(tmp_path, "members_only")
    path = sorted((tmp_path / "pool" / "player").glob("snap-*.pt"))[0]
    env = games.make_view(cfg.game, 4)
    decisions = []
    from club_envs.agents.base import Decision
    from club_envs.members_only.engine import State
    from club_envs.members_only.observer import Observer
    from club_envs.members_only.rules import Config

    state, observer = State(Config(num_players=4), seed=3), Observer(Config(num_players=4))
    rng = np.random.default_rng(0)
    while len(decisions) < 12:
        seat, view = state.current_player, state.player_view(state.current_player)
        decisions.append(Decision(seat, view, state.legal_actions(), lambda v=view: observer.observe(v), state.legal_mask))
        state.apply_action(int(rng.choice(state.legal_actions())))
    alone = [PolicyAgent.from_file(path, seed=k) for k in range(12)]
    together = [PolicyAgent.from_file(path, seed=k) for k in range(12)]
    net = together[0].net
    for agent in together:
        agent.net = net  # one network object, as the pool shares it
    assert [a.act(d) for a, d in zip(alone, decisions)] == act_batch(together, decisions)
    env.close()
