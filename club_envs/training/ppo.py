"""The one place a MaskablePPO learner is built and exported, for self-play, throughput and exploit runs.

The actor and the critic are separate MLPs of ``network.hidden`` with ``network.activation``; the
exported policy file holds the actor only (:mod:`club_envs.training.policy_meta`). With
``algorithm.critic: privileged`` the critic also reads the hidden state the environments append to
the inputs, which the actor never sees (:mod:`club_envs.training.privileged`). With
``algorithm.overlap`` the learner plays its next rollout while it updates
(:mod:`club_envs.training.overlap`); its checkpoints load into either class.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sb3_contrib import MaskablePPO

from club_envs.agents.policy import actor_weights_from_sb3
from club_envs.training.anchor import AnchoredPolicy, AnchoredPrivilegedPolicy
from club_envs.training.overlap import OverlappedMaskablePPO
from club_envs.training.policy_meta import write_policy
from club_envs.training.privileged import PrivilegedCriticPolicy, actor_size
from club_envs.training.settings import AlgorithmSettings, NetworkSettings
from club_envs.training.torch_mlp import activation_class, announce_precision, run_in


def learner_class(algorithm: AlgorithmSettings) -> type[MaskablePPO]:
    """The learner's class: MaskablePPO, or its overlapped loop (``algorithm.overlap``)."""
    return OverlappedMaskablePPO if algorithm.overlap else MaskablePPO


def in_precision(model: MaskablePPO, precision: str) -> MaskablePPO:
    """The learner's actor and critic MLPs computing in ``algorithm.precision`` (the features, the
    action and value heads and every weight stay float32; nothing saved changes)."""
    announce_precision("algorithm.precision", precision)
    for net in (model.policy.mlp_extractor.policy_net, model.policy.mlp_extractor.value_net):
        run_in(net, precision)
    return model


def load_learner(algorithm: AlgorithmSettings, checkpoint: Path, venv: Any) -> MaskablePPO:
    """A learner from its checkpoint, in the config's class and precision."""
    return in_precision(learner_class(algorithm).load(checkpoint, env=venv, device="cpu"), algorithm.precision)


def new_learner(venv: Any, algorithm: AlgorithmSettings, network: NetworkSettings, seed: int,
                anchored: bool = False) -> MaskablePPO:
    """A fresh learner on ``venv`` with the config's PPO hyper-parameters and network, on the CPU;
    ``anchored``: its policy can be pulled towards a start policy (:mod:`club_envs.training.anchor`)."""
    policy: Any = AnchoredPolicy if anchored else "MlpPolicy"
    extra: dict[str, Any] = {}
    if algorithm.critic == "privileged":  # venv's rows end with the hidden state, for the critic only
        policy = AnchoredPrivilegedPolicy if anchored else PrivilegedCriticPolicy
        extra = {"actor_size": actor_size(venv)}
    return in_precision(learner_class(algorithm)(
        policy, venv, seed=seed, device="cpu", verbose=0,
        learning_rate=algorithm.learning_rate, n_steps=algorithm.n_steps, batch_size=algorithm.batch_size,
        n_epochs=algorithm.n_epochs, gamma=algorithm.gamma, gae_lambda=algorithm.gae_lambda,
        clip_range=algorithm.clip_range, ent_coef=algorithm.ent_coef, vf_coef=algorithm.vf_coef,
        max_grad_norm=algorithm.max_grad_norm,
        policy_kwargs={"net_arch": {"pi": list(network.hidden), "vf": list(network.hidden)},
                       "activation_fn": activation_class(network.activation), **extra},
    ), algorithm.precision)


def export(model: MaskablePPO, game: str, side: str, network: NetworkSettings, path: Path, steps: int,
           **extra: Any) -> Path:
    """The learner's actor as a weights-only policy file (what snapshots and shipped agents are)."""
    return write_policy(path, actor_weights_from_sb3(model.policy), game, side, network, steps, **extra)
