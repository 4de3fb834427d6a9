"""The privileged critic: an asymmetric actor-critic for MaskablePPO (``algorithm.critic: privileged``).

In a game of hidden hands the return of a decision depends mostly on what the seat cannot see; a
critic that reads the seat's observation only can explain little of it, so the advantages PPO
computes from it are mostly noise. During training nothing forbids the critic to look: here it
reads the seat's inputs *and* the hidden part of the game's global state (every hand, the Black
Man, the true grimoire...; the Gymnasium views' ``privileged_state()``), while the actor reads the
seat's inputs alone, as PerfectDou's "perfect-training-imperfect-execution" does.

The environments append the hidden state to every input row (``SelfPlayVecEnv(privileged=True)``,
:class:`~club_envs.training.selfplay.PrivilegedObservation`); :class:`PrivilegedCriticPolicy` cuts
the row in two inside its MLP extractor: the actor's MLP sees the first ``actor_size`` columns
(exactly the observation-only learner's inputs), the critic's MLP the whole row. The actor's
layers keep their names and shapes, so the exported policy file is the same kind of file as an
observation-only run's and plays without any state (:func:`club_envs.training.ppo.export`).
"""

from __future__ import annotations

from typing import Any

import torch
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3.common.torch_layers import MlpExtractor


class SplitMlpExtractor(MlpExtractor):
    """An :class:`MlpExtractor` whose policy net reads the first ``actor_size`` features only and
    whose value net reads them all."""

    def __init__(self, actor_size: int, feature_dim: int, net_arch: Any, activation_fn: type[torch.nn.Module],
                 device: torch.device | str = "auto") -> None:
        if not 0 < actor_size <= feature_dim:
            raise ValueError(f"actor_size={actor_size}: expected 1..{feature_dim} (the inputs the actor reads)")
        super().__init__(feature_dim, net_arch, activation_fn, device)
        self.actor_size = actor_size
        self.policy_net = MlpExtractor(actor_size, net_arch, activation_fn, device).policy_net

    def forward_actor(self, features: torch.Tensor) -> torch.Tensor:
        return self.policy_net(features[..., : self.actor_size])


class PrivilegedCriticPolicy(MaskableActorCriticPolicy):
    """MaskablePPO's policy with a critic that also reads the hidden state at the end of each input
    row; the actor (and so every action distribution) depends on the first ``actor_size`` inputs only."""

    def __init__(self, *args: Any, actor_size: int, **kwargs: Any) -> None:
        self.actor_size = int(actor_size)
        super().__init__(*args, **kwargs)

    def _build_mlp_extractor(self) -> None:
        self.mlp_extractor = SplitMlpExtractor(self.actor_size, self.features_dim, self.net_arch, self.activation_fn,
                                               self.device)

    def _get_constructor_parameters(self) -> dict[str, Any]:
        return {**super()._get_constructor_parameters(), "actor_size": self.actor_size}


def actor_size(venv: Any) -> int:
    """How many leading inputs of ``venv``'s rows are the learner's own (the rest is the hidden state)."""
    return int(venv.observation_space.shape[0]) - int(venv.get_attr("privileged_size", [0])[0])


__all__ = ["PrivilegedCriticPolicy", "SplitMlpExtractor", "actor_size"]
