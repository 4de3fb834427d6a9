"""The one writer of exported policy files' ``meta``, for every trainer that exports an actor.

Snapshots, ``best/`` and ``latest/`` of a stable-baselines3 run, an RLlib run's exports and an
exploit responder are all read by :func:`club_envs.agents.policy.load_policy_file`, which needs the
same keys from each: the game and side, the roles the side plays, the network's sizes and
activation, the steps learned, and the extra inputs (``features``) when there are any.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from club_envs.agents.policy import save_policy
from club_envs.training.games import side_roles
from club_envs.training.settings import NetworkSettings

FIRST_LAYER = "mlp_extractor.policy_net."
LOGITS = "action_net.weight"


def policy_meta(game: str, side: str, weights: Mapping[str, Any], network: NetworkSettings, steps: int,
                **extra: Any) -> dict[str, Any]:
    """The ``meta`` of a policy file of ``side`` holding the actor ``weights`` (sb3 names)."""
    first = min(k for k in weights if k.startswith(FIRST_LAYER) and k.endswith(".weight"))
    meta = {
        "game": game, "side": side, "roles": side_roles(game, side),
        "obs_size": int(weights[first].shape[1]), "num_actions": int(weights[LOGITS].shape[0]),
        "hidden": list(network.hidden), "activation": network.activation, "steps": int(steps), **extra,
    }
    if network.features != "none":
        meta["features"] = network.features
    return meta


def write_policy(path: Path, weights: Mapping[str, Any], game: str, side: str, network: NetworkSettings, steps: int,
                 **extra: Any) -> Path:
    """A weights-only policy file of ``side``'s actor (``extra``: more meta keys, e.g. the backend)."""
    return save_policy(path, weights, policy_meta(game, side, weights, network, steps, **extra))
