"""A pull towards the policy a side started as (the ``anchor`` section of a stable-baselines3 config).

PPO from a good warm start (an imitated agent, a shipped policy) gains against the opponents it
trains with and can lose what made the start good elsewhere: measured on Arkham, a network team
distilled from ``arkham_team_belief`` held against every held-out Black Man, and after 1M steps of
PPO it gained +0.22 against the heuristic Black Man but fell below the heuristic team against two
Black Men it never met. A KL pull towards an anchor policy (piKL, magnetic mirror descent) keeps the
learner near the start while the advantages say little and lets it move where they say much.

With ``anchor.coef`` > 0 every PPO minibatch adds ``weight * KL(policy || start)`` to the loss, the
KL over the legal actions of each decision. The start is the side's policy when self-play began:
the imitated copy (``pretrain.games``) or the policy it started as (``pretrain.from_policy``),
written to ``anchor/<side>.pt`` in the run folder so a resumed run pulls towards the same policy.
The weight is ``coef`` at the side's step 0 and falls linearly to 0 over ``anneal_steps`` of the
side's steps (0: it stays ``coef``).

stable-baselines3's loss has no slot for an extra term, and its ``train`` is not to be copied: the
pull enters through the entropy the policy's ``evaluate_actions`` returns to it, which ``train``
weighs by ``ent_coef`` (``entropy - weight / ent_coef * KL``: the loss gains exactly
``weight * KL``). So the pull needs ``algorithm.ent_coef`` > 0 (the config says so), and the logged
``train/entropy_loss`` includes it; ``train/anchor_kl`` and ``train/anchor_weight`` are logged apart.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import torch
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3.common.callbacks import BaseCallback

from club_envs.agents.policy import load_policy_file
from club_envs.training.privileged import PrivilegedCriticPolicy
from club_envs.training.torch_mlp import to_torch

MASKED = -1e8  # the logit stable-baselines3's masked distribution gives an illegal action


class StartAnchor:
    """The frozen start policy (from its policy file) and the pull's current weight."""

    def __init__(self, path: Path, coef: float, anneal_steps: int, ent_coef: float) -> None:
        if ent_coef <= 0:
            raise ValueError(f"the anchor's pull rides on the entropy term: ent_coef {ent_coef} must be > 0")
        net, _ = load_policy_file(path)
        self.net = to_torch(net.layers, net.activation).requires_grad_(False)
        self.obs_size = net.obs_size
        self.path, self.coef, self.anneal_steps, self.ent_coef = Path(path), coef, anneal_steps, ent_coef
        self.weight = coef
        self.kls: list[float] = []

    def set_step(self, step: int) -> None:
        """The weight at the side's ``step``: ``coef``, falling linearly to 0 over ``anneal_steps``."""
        fall = max(0.0, 1.0 - step / self.anneal_steps) if self.anneal_steps > 0 else 1.0
        self.weight = self.coef * fall

    def kl(self, distribution: torch.distributions.Categorical, obs: torch.Tensor, masks: Any) -> torch.Tensor:
        """KL(policy || start) per row, over each row's legal actions (an illegal action has
        probability 0 under both, so it adds nothing)."""
        with torch.no_grad():
            start = self.net(obs[..., : self.obs_size])
            if masks is not None:
                legal = torch.as_tensor(masks, device=start.device).reshape(start.shape).bool()
                start = start.masked_fill(~legal, MASKED)
            log_start = torch.log_softmax(start, dim=-1)
        log_policy = torch.log_softmax(distribution.logits, dim=-1)
        kl = (distribution.probs * (log_policy - log_start)).sum(-1)
        self.kls.append(float(kl.detach().mean()))
        return kl


class _Pulled:
    """``evaluate_actions`` with the anchor's pull folded into the entropy (module docstring).
    ``anchor`` is attached after the policy is built or loaded; it is not a module, so it is
    neither trained nor saved with the policy."""

    anchor: StartAnchor | None = None

    def evaluate_actions(self, obs: torch.Tensor, actions: torch.Tensor, action_masks: Any = None):
        values, log_prob, entropy = super().evaluate_actions(obs, actions, action_masks=action_masks)  # type: ignore[misc]
        anchor = self.anchor
        if anchor is None or anchor.weight <= 0 or not torch.is_grad_enabled():
            return values, log_prob, entropy
        # the masked distribution of this very minibatch, which evaluate_actions just built
        distribution = self.action_dist.distribution  # type: ignore[attr-defined]
        kl = anchor.kl(distribution, obs, action_masks)
        return values, log_prob, entropy - (anchor.weight / anchor.ent_coef) * kl


class AnchoredPolicy(_Pulled, MaskableActorCriticPolicy):
    """MaskablePPO's policy, pulled towards its anchor."""


class AnchoredPrivilegedPolicy(_Pulled, PrivilegedCriticPolicy):
    """The privileged-critic policy (:mod:`club_envs.training.privileged`), pulled towards its anchor."""


class AnchorCallback(BaseCallback):
    """Before each update: the weight for the learner's step; after it, the mean KL of the update
    logged (``train/anchor_kl``) with the weight (``train/anchor_weight``)."""

    def __init__(self, anchor: StartAnchor) -> None:
        super().__init__()
        self.anchor = anchor

    def _on_rollout_start(self) -> None:
        if self.anchor.kls:  # the update that ran since the last rollout
            self.logger.record("train/anchor_kl", float(np.mean(self.anchor.kls)))
            self.anchor.kls.clear()
        self.logger.record("train/anchor_weight", self.anchor.weight)

    def _on_rollout_end(self) -> None:
        self.anchor.set_step(int(self.model.num_timesteps))

    def _on_step(self) -> bool:
        return True


def attach(model: Any, anchor: StartAnchor) -> None:
    """Give ``model``'s learning policy the anchor, its weight set for the model's step."""
    if not isinstance(model.policy, _Pulled):
        raise TypeError(f"{type(model.policy).__name__} cannot be pulled: built without anchor.coef > 0")
    model.policy.anchor = anchor
    anchor.set_step(int(model.num_timesteps))


__all__ = ["AnchorCallback", "AnchoredPolicy", "AnchoredPrivilegedPolicy", "StartAnchor", "attach"]
