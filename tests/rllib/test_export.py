"""RLlib modules exported into the project's policy files play exactly as they did in RLlib."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from ray.rllib.core.rl_module.default_model_config import DefaultModelConfig
from ray.rllib.core.rl_module.rl_module import RLModuleSpec
from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule

from club_envs.agents.policy import PolicyAgent, load_policy_file
from club_envs.agents.registry import load as load_agent
from club_envs.training.rllib_backend.algorithm import model_config
from club_envs.training.rllib_backend.env_adapter import ClubMultiAgentEnv
from club_envs.training.rllib_backend.export import actor_weights, export_state
from club_envs.training.settings import NetworkSettings

NETWORK = NetworkSettings((24, 16), "relu")


def build_module(env: ClubMultiAgentEnv, config: DefaultModelConfig):
    agent = env.possible_agents[0]
    spec = RLModuleSpec(module_class=ActionMaskingTorchRLModule, observation_space=env.observation_spaces[agent],
                        action_space=env.action_spaces[agent], model_config=config)
    return spec.build()


def rllib_logits(module, obs: dict[str, np.ndarray]) -> np.ndarray:
    batch = {"obs": {k: torch.as_tensor(v[None]) for k, v in obs.items()}}
    with torch.no_grad():
        return module.forward_inference(batch)["action_dist_inputs"][0].numpy()


def test_exported_policy_gives_the_rllib_modules_logits_on_legal_actions(tmp_path):
    env = ClubMultiAgentEnv({"game": "arkham_decoders", "num_players": 5, "seed": 0})
    module = build_module(env, model_config(NETWORK))
    path = export_state("arkham_decoders", NETWORK, "team", module.get_state(inference_only=True), tmp_path / "team.pt", steps=7)
    net, meta = load_policy_file(path)
    assert meta["side"] == "team" and meta["backend"] == "rllib" and meta["steps"] == 7
    assert meta["roles"] == ["leader", "member", "investigator"]
    obs, _ = env.reset()
    for _ in range(20):
        ((agent, o),) = obs.items()
        legal = o["action_mask"] > 0
        theirs = rllib_logits(module, o)
        ours = net.logits(o["observations"])
        np.testing.assert_allclose(ours[legal], theirs[legal], rtol=1e-4, atol=1e-5)
        probs = net.masked_probabilities(o["observations"], o["action_mask"])
        assert probs[~legal].sum() == 0.0
        obs, *_ = env.step({agent: int(np.argmax(theirs))})
        if not obs or all(v["action_mask"].sum() == 0 for v in obs.values()):
            break


def test_exported_files_load_through_the_agent_registry_by_folder(tmp_path):
    env = ClubMultiAgentEnv({"game": "arkham_decoders", "num_players": 5, "seed": 1})
    for side in ("team", "black_man"):
        module = build_module(env, model_config(NETWORK))
        export_state("arkham_decoders", NETWORK, side, module.get_state(inference_only=True), tmp_path / f"{side}.pt", steps=0)
    agent = load_agent(str(tmp_path))
    assert set(agent.by_role) == {"leader", "member", "investigator", "black_man"}
    assert all(isinstance(a, PolicyAgent) for a in agent.by_role.values())


def test_a_module_with_a_hidden_head_layer_cannot_be_exported():
    env = ClubMultiAgentEnv({"game": "arkham_decoders", "num_players": 5, "seed": 2})
    module = build_module(env, DefaultModelConfig(fcnet_hiddens=[8], head_fcnet_hiddens=[8]))
    with pytest.raises(ValueError, match="linear logits head"):
        actor_weights(module.get_state(inference_only=True))
