"""RLlib modules -> the project's policy files, so every tool plays them like any trained agent.

The actor of RLlib's default PPO module (``encoder.actor_encoder.net.mlp.*`` then the linear
``pi.net.mlp.0``) is the same network as the actor of an sb3-contrib ``MaskablePPO`` policy
(``mlp_extractor.policy_net.*`` then ``action_net``): an MLP of ``network.hidden`` with the
configured activation, and one linear layer to the logits; both mask the logits the same way. So
the tensors are renamed, not converted, and written with :func:`club_envs.agents.policy.save_policy`
(a weights-only file). ``club-envs evaluate``, ``league``, human play and
``club_envs.agents.load`` then read an RLlib-trained agent without Ray installed::

    club-envs export runs/<run>/checkpoints/rllib runs/<run>/latest
    club-envs evaluate members_only --players 4 --agents runs/<run>/latest,random,random,random
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from club_envs.training.games import policy_file
from club_envs.training.policy_meta import write_policy
from club_envs.training.settings import NetworkSettings, RllibConfig

ACTOR_PREFIX = "encoder.actor_encoder.net.mlp."
HEAD_PREFIX = "pi.net.mlp."
IGNORED = ("pi.log_std_clip_param_const",)  # a constant for continuous actions, unused here
# learner module -> the side name the run folder and the policy files use
SIDE_OF_MODULE = {"main": "player", "team": "team", "black_man": "black_man"}


def actor_weights(state: Mapping[str, Any]) -> dict[str, Any]:
    """The actor tensors of an RLlib PPO module state, under the sb3 names the policy files use.

    Raises ``ValueError`` for a module that is not the plain MLP actor (e.g. a hidden head layer or
    a shared actor-critic encoder), which the policy files cannot express.
    """
    import torch

    hidden = sorted({int(k[len(ACTOR_PREFIX):].split(".")[0]) for k in state if k.startswith(ACTOR_PREFIX)})
    heads = sorted({int(k[len(HEAD_PREFIX):].split(".")[0]) for k in state if k.startswith(HEAD_PREFIX)})
    if not hidden or heads != [0]:
        raise ValueError(
            "this RLlib module is not a plain MLP actor with a linear logits head "
            f"(actor layers {hidden}, head layers {heads}); train with head_fcnet_hiddens=[] and "
            "vf_share_layers=False, as club_envs.training.rllib_backend does"
        )
    weights: dict[str, Any] = {}
    for key, value in state.items():
        tensor = torch.as_tensor(np.asarray(value, dtype=np.float32))
        if key.startswith(ACTOR_PREFIX):
            weights["mlp_extractor.policy_net." + key[len(ACTOR_PREFIX):]] = tensor
        elif key.startswith(HEAD_PREFIX):
            weights["action_net." + key[len(HEAD_PREFIX) + 2:]] = tensor
    return weights


def policy_file_name(game: str, module_id: str) -> str:
    """``policy.pt`` for Members Only, ``team.pt`` / ``black_man.pt`` for Arkham (as the registry reads)."""
    return policy_file(game, SIDE_OF_MODULE[module_id])


def export_state(game: str, network: NetworkSettings, module_id: str, state: Mapping[str, Any], path: Path,
                 steps: int) -> Path:
    """One RLlib module's state as a policy file, with the meta the stable-baselines3 backend writes (plus the backend)."""
    return write_policy(path, actor_weights(state), game, SIDE_OF_MODULE[module_id], network, steps, backend="rllib")


def export_algorithm(algo: Any, settings: RllibConfig, out_dir: Path, steps: int) -> dict[str, Path]:
    """Write every learning module of a live ``Algorithm`` into ``out_dir``; side -> policy file."""
    from club_envs.training.rllib_backend.league import learner_modules

    game = settings.game.name
    paths = {}
    for module_id in learner_modules(game):
        state = algo.learner_group.get_state(components=f"learner/rl_module/{module_id}", inference_only=True)
        state = state["learner"]["rl_module"][module_id]
        path = Path(out_dir) / policy_file_name(game, module_id)
        paths[SIDE_OF_MODULE[module_id]] = export_state(game, settings.network, module_id, state, path, steps)
    return paths


def export_checkpoint(checkpoint: Path, out_dir: Path) -> list[Path]:
    """Write every learning module of an RLlib checkpoint (an ``Algorithm.save_to_path`` folder).

    The game and the network are read from the checkpoint itself (which learners it holds, and
    each module's model config), so any checkpoint of this backend exports, inside a run folder
    or not.
    """
    from ray.rllib.core.rl_module.rl_module import RLModule

    from club_envs.training.rllib_backend.league import LEARNERS
    from club_envs.training.rllib_backend.league_file import read_league_state

    checkpoint = Path(checkpoint)
    modules_dir = checkpoint / "learner_group" / "learner" / "rl_module"
    if not modules_dir.is_dir():
        raise FileNotFoundError(f"{checkpoint} is not an RLlib checkpoint (no learner_group/learner/rl_module)")
    held = {p.name for p in modules_dir.iterdir() if p.is_dir()}
    game = next((g for g, learners in LEARNERS.items() if set(learners) <= held), None)
    if game is None:
        raise ValueError(f"{checkpoint} holds modules {', '.join(sorted(held))}, none of this project's learners "
                         f"({'; '.join(', '.join(m) for m in LEARNERS.values())})")
    steps = read_league_state(checkpoint).get("env_steps", 0)
    paths = []
    for module_id in LEARNERS[game]:
        module = RLModule.from_checkpoint(modules_dir / module_id)
        model = module.model_config if isinstance(module.model_config, dict) else vars(module.model_config)
        network = NetworkSettings(tuple(model["fcnet_hiddens"]), model["fcnet_activation"])
        state = module.get_state(inference_only=True)
        paths.append(export_state(game, network, module_id, state, Path(out_dir) / policy_file_name(game, module_id),
                                  steps))
    return paths
