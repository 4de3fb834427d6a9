"""The warm start: the learner imitates a bot's recorded decisions before self-play."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from sb3_contrib import MaskablePPO

from club_envs.training import config as configs
from club_envs.training import games
from club_envs.training.settings import SelfPlayConfig
from club_envs.training.pretrain import collect, imitate


def arkham_cfg(n_games: int) -> SelfPlayConfig:
    return configs.from_mapping({"game": {"name": "arkham_decoders", "num_players": [5]},
                             "network": {"hidden": [64]},
                             "pretrain": {"games": n_games, "epochs": 8, "learning_rate": 3e-3}})


def test_collected_decisions_are_legal_and_only_from_the_sides_roles():
    cfg = arkham_cfg(10)
    obs, masks, actions, outcomes, _ = collect(cfg.game, "black_man", cfg.pretrain.imitate, cfg.network.features, 6, seed=1)
    assert len(obs) == len(masks) == len(actions) == len(outcomes) > 10
    assert masks[np.arange(len(actions)), actions].all()  # the bot only ever took legal actions
    assert set(np.unique(outcomes)) <= {-1.0, 1.0}
    # the Black Man only votes: agree (25) or oppose (26)
    assert set(np.unique(actions)) <= {25, 26}


def test_a_shipped_agent_is_imitated_on_its_sides_seats_and_the_heuristic_plays_the_rest(monkeypatch):
    """``pretrain.imitate: arkham_team_belief`` records the team's decisions as that agent takes them
    (it plays the team's seats; the heuristic Black Man the other), the same deals as the heuristic's
    games, and departs from the heuristic team somewhere; a teacher may be named per side (the
    others imitate the heuristic); a config naming an agent that cannot play an imitating side, a
    side the game does not have, or no agent at all, is refused with the allowed values."""
    from club_envs.agents import registry
    from club_envs.training import pretrain

    cfg = arkham_cfg(10)
    loaded = []
    real = registry.load

    def spy(name, **kwargs):
        loaded.append(name)
        return real(name, **kwargs)

    monkeypatch.setattr(registry, "load", spy)
    taught = collect(cfg.game, "team", "arkham_team_belief", cfg.network.features, 6, seed=1)
    assert set(loaded) == {"arkham_team_belief", pretrain.OTHER_SIDE}
    assert loaded.count(pretrain.OTHER_SIDE) == 6  # one Black Man a game
    plain = collect(cfg.game, "team", "heuristic", cfg.network.features, 6, seed=1)
    masks, actions = taught[1], taught[2]
    assert masks[np.arange(len(actions)), actions].all()
    first = min(len(actions), len(plain[2]))
    assert np.array_equal(taught[0][0], plain[0][0])  # the same first deal
    assert not np.array_equal(actions[:first], plain[2][:first])  # the belief team decides otherwise somewhere
    base = {"game": {"name": "arkham_decoders", "num_players": [5]}, "network": {"hidden": [8]}}
    ok = configs.from_mapping({**base, "pretrain": {"games": 4, "imitate": "arkham_team_belief",
                                                    "from_policy": {"black_man": "arkham_neural_black_man"}}})
    assert ok.pretrain.imitate == "arkham_team_belief"
    per_side = configs.from_mapping({**base, "pretrain": {"games": 4, "imitate": {"team": "arkham_team_belief"}}})
    assert (per_side.pretrain.teacher("team"), per_side.pretrain.teacher("black_man")) == ("arkham_team_belief", "heuristic")
    assert ok.pretrain.teacher("team") == "arkham_team_belief"
    for pretrain_section, message in (
            ({"games": 4, "imitate": "arkham_team_belief"}, "'arkham_team_belief' does not play black_man"),
            ({"games": 4, "imitate": {"black_man": "arkham_team_belief"}},
             r"pretrain.imitate.black_man: 'arkham_team_belief' does not play black_man"),
            ({"games": 4, "imitate": {"dealer": "heuristic"}}, "'dealer' is not a side of arkham_decoders; "
                                                               "allowed values: team, black_man"),
            ({"games": 4, "imitate": "nobody"}, "neither a bot of arkham_decoders nor an agent shipped for it; "
                                                "allowed values: heuristic, random")):
        with pytest.raises(configs.ConfigFileError, match=message):
            configs.from_mapping({**base, "pretrain": pretrain_section})


def test_imitation_makes_the_learner_agree_with_the_bot():
    torch.manual_seed(0)
    cfg = arkham_cfg(20)
    env = games.make_view(cfg.game, 5, "leader")
    model = MaskablePPO("MlpPolicy", env, device="cpu", seed=0,
                        policy_kwargs={"net_arch": {"pi": [64], "vf": [64]}})
    obs, masks, actions, _, _ = collect(cfg.game, "team", cfg.pretrain.imitate, cfg.network.features, 8, seed=9)  # held-out games
    def agreement():
        with torch.no_grad():
            dist = model.policy.get_distribution(torch.as_tensor(obs), action_masks=masks)
            return float((dist.distribution.probs.argmax(dim=1).numpy() == actions).mean())
    before = agreement()
    figures = imitate(model, cfg.game, "team", cfg.pretrain, cfg.network.features, seed=2, log=lambda message: None)
    assert figures["pretrain/agreement"] > 0.6
    assert agreement() > before + 0.1


def test_critic_warm_up_changes_only_the_critic(tmp_path):
    """After imitation the actor is frozen while the critic learns the configured returns."""
    from club_envs.training.pretrain import warm_up_critic
    from club_envs.training.selfplay import SnapshotPool
    from club_envs.training.train import make_selfplay_env
    from stable_baselines3.common.vec_env import DummyVecEnv

    cfg = configs.from_mapping({"game": {"name": "members_only", "num_players": 4}, "network": {"hidden": [32]},
                            "algorithm": {"n_steps": 64, "batch_size": 64, "n_epochs": 2},
                            "selfplay": {"bots": ["random"], "bot_share": 1.0},
                            "pretrain": {"games": 2, "critic_steps": 128}})
    SnapshotPool(tmp_path / "pool" / "player", "recent", ["random"], 1.0, 2).write()
    venv = DummyVecEnv([lambda: make_selfplay_env(cfg, "player", str(tmp_path), 0)])
    model = MaskablePPO("MlpPolicy", venv, device="cpu", seed=0, n_steps=64, batch_size=64, n_epochs=2,
                        policy_kwargs={"net_arch": {"pi": [32], "vf": [32]}})
    before = {k: v.clone() for k, v in model.policy.state_dict().items()}
    warm_up_critic(model, 128, log=lambda _: None)
    after = model.policy.state_dict()
    actor = [k for k in before if k.startswith(("mlp_extractor.policy_net.", "action_net."))]
    critic = [k for k in before if k.startswith(("mlp_extractor.value_net.", "value_net."))]
    assert actor and critic
    assert all(torch.equal(before[k], after[k]) for k in actor)
    assert any(not torch.equal(before[k], after[k]) for k in critic)
    assert all(p.requires_grad for p in model.policy.parameters())  # unfrozen for PPO afterwards
    assert model.num_timesteps >= 128


def test_validation_keeps_whole_games_out_and_reports_agreement_on_them():
    """``pretrain.validation_share`` holds out that share of the games (all their decisions, drawn
    the same way for the same seed), the fit never sees them, and the figures say how often the
    copy agrees with the teacher there."""
    from club_envs.training.pretrain import split_games

    cfg = configs.from_mapping({"game": {"name": "arkham_decoders", "num_players": [5]}, "network": {"hidden": [64]},
                                "pretrain": {"games": 10, "epochs": 3, "learning_rate": 3e-3,
                                             "validation_share": 0.3, "batch_size": 256}})
    decisions = collect(cfg.game, "team", cfg.pretrain.imitate, cfg.network.features, 10, seed=4)
    fit, held = split_games(decisions, 0.3, seed=4)
    assert set(np.unique(held.games)) & set(np.unique(fit.games)) == set()
    assert len(np.unique(held.games)) == 3 and len(fit.actions) + len(held.actions) == len(decisions.actions)
    assert np.array_equal(split_games(decisions, 0.3, seed=4)[1].games, held.games)
    assert split_games(decisions, 0.0, seed=4) == (decisions, None)
    torch.manual_seed(0)
    env = games.make_view(cfg.game, 5, "leader")
    model = MaskablePPO("MlpPolicy", env, device="cpu", seed=0, policy_kwargs={"net_arch": {"pi": [64], "vf": [64]}})
    lines = []
    figures = imitate(model, cfg.game, "team", cfg.pretrain, cfg.network.features, seed=4, log=lines.append)
    assert 0.5 < figures["pretrain/validation_agreement"] <= 1.0
    assert figures["pretrain/validation_cross_entropy"] > 0
    assert any("kept out of the fit" in line for line in lines)
    assert sum("on the games kept out" in line for line in lines) == 3


def test_learning_rate_decays_by_epoch():
    """With ``lr_decay`` near 0 the second epoch barely moves the weights: the first epoch's lr is
    ``learning_rate``, the k-th ``learning_rate * lr_decay ** k``."""
    def fitted(epochs: int) -> dict:
        cfg = configs.from_mapping({"game": {"name": "arkham_decoders", "num_players": [5]}, "network": {"hidden": [32]},
                                    "pretrain": {"games": 3, "epochs": epochs, "lr_decay": 1e-9}})
        torch.manual_seed(0)
        env = games.make_view(cfg.game, 5, "leader")
        model = MaskablePPO("MlpPolicy", env, device="cpu", seed=0, policy_kwargs={"net_arch": {"pi": [32], "vf": [32]}})
        imitate(model, cfg.game, "team", cfg.pretrain, cfg.network.features, seed=5, log=lambda _: None)
        return {k: v.clone() for k, v in model.policy.state_dict().items()}

    one, two = fitted(1), fitted(2)
    assert all(torch.allclose(one[k], two[k], atol=1e-5) for k in one)
    with pytest.raises(configs.ConfigFileError, match="lr_decay"):
        configs.from_mapping({"game": {"name": "arkham_decoders", "num_players": [5]}, "pretrain": {"lr_decay": 0}})
    with pytest.raises(configs.ConfigFileError, match="validation_share"):
        configs.from_mapping({"game": {"name": "arkham_decoders", "num_players": [5]},
                              "pretrain": {"validation_share": 1.0}})


def test_a_budget_the_critic_warm_up_spends_leaves_the_imitated_copy_evaluated_and_exported(tmp_path, monkeypatch):
    """An imitation-only run (``budget.total_steps`` no more than the warm-up): latest/ and best/
    hold the imitated actor unchanged (the warm-up freezes it), evaluated once, with a checkpoint;
    the run's wall time counts the imitation."""
    import json
    import time

    import yaml

    from club_envs.agents.policy import load_policy_file
    from club_envs.training import train as trainer

    cfg = {"game": {"name": "members_only", "num_players": [4]}, "network": {"hidden": [16]},
           "algorithm": {"n_steps": 32, "batch_size": 64},
           "envs": {"n_envs": 2}, "selfplay": {"snapshot_every": 1000},
           "pretrain": {"games": 3, "critic_steps": 64, "validation_share": 0.34},
           "evaluation": {"every": 1000, "games": 8}, "checkpoint": {"every": 1000},
           "budget": {"total_steps": 64}, "seed": 3}
    path = tmp_path / "copy.yaml"
    path.write_text(yaml.safe_dump(cfg))
    real_imitate = trainer.imitate

    def slow_imitate(*args, **kwargs):  # an imitation that takes a known while
        time.sleep(0.5)
        return real_imitate(*args, **kwargs)

    monkeypatch.setattr(trainer, "imitate", slow_imitate)
    run_dir = trainer.run(path, runs_dir=tmp_path / "runs", progress=False)
    copy, _ = load_policy_file(run_dir / "latest" / "policy.pt")
    start, _ = load_policy_file(run_dir / "pool" / "player" / "snap-000000000.pt")
    for (wa, ba), (wb, bb) in zip(copy.layers, start.layers):
        assert (wa == wb).all() and (ba == bb).all()
    assert (run_dir / "best" / "policy.pt").exists()
    assert len((run_dir / "evaluations.csv").read_text().splitlines()) > 1
    assert list((run_dir / "checkpoints").glob("player-*.zip"))
    state = json.loads((run_dir / "state.json").read_text())
    assert state["steps"] == {"player": 64}
    assert state["imitation_only"] is True  # what a model card made from this run reads
    assert state["seconds"] >= 0.5 and json.loads((run_dir / "summary.json").read_text())["seconds"] >= 0.5
