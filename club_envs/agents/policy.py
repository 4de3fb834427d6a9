"""Trained policies as agents: a small masked MLP read from a weights-only file.

A policy file (``*.pt``) is a plain dictionary saved with :func:`torch.save` and read back with
``torch.load(..., weights_only=True)``, so loading a file can never run code hidden in it:

``meta``
    ``{"format": "club-envs-policy", "version": 1, "game": ..., "side": ..., "obs_size": int,
    "num_actions": int, "hidden": [int, ...], "activation": "tanh" | "relu", "features": name, ...}``
    (``features``, optional: extra inputs computed from the observation, :mod:`club_envs.agents.features`)
``weights``
    the actor half of an sb3-contrib ``MaskableActorCriticPolicy``: the hidden layers of
    ``mlp_extractor.policy_net`` and ``action_net``, as tensors.

Acting runs in numpy (a few small matrix products), which is several times faster than a torch
call per decision for networks this size and keeps torch out of the inner loop of opponents that
play inside training environments; torch is needed only to read the file.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from club_envs.agents import features
from club_envs.agents.base import Decision

POLICY_FORMAT = "club-envs-policy"
POLICY_VERSION = 1
_ACTIVATIONS = {
    "tanh": np.tanh,
    "relu": lambda x: np.maximum(x, 0.0),
}


class PolicyFileError(ValueError):
    """A policy file that cannot be read or does not hold a club-envs policy."""


class MaskedMLP:
    """The actor of a trained policy: observation -> hidden layers -> logits over every action."""

    def __init__(self, layers: list[tuple[np.ndarray, np.ndarray]], activation: str) -> None:
        if activation not in _ACTIVATIONS:
            raise PolicyFileError(f"unknown activation {activation!r}; expected one of {', '.join(_ACTIVATIONS)}")
        self.layers = layers
        self.activation = activation
        self._act = _ACTIVATIONS[activation]
        self.obs_size = layers[0][0].shape[1]
        self.num_actions = layers[-1][0].shape[0]

    def logits(self, observation: np.ndarray) -> np.ndarray:
        x = np.asarray(observation, dtype=np.float32).reshape(-1)
        for weight, bias in self.layers[:-1]:
            x = self._act(weight @ x + bias)
        weight, bias = self.layers[-1]
        return weight @ x + bias

    def masked_probabilities(self, observation: np.ndarray, mask: np.ndarray) -> np.ndarray:
        logits = self.logits(observation).astype(np.float64)
        legal = np.asarray(mask, dtype=bool)
        logits[~legal] = -np.inf
        logits -= logits[legal].max()
        probs = np.exp(logits)
        return probs / probs.sum()


def actor_weights_from_sb3(policy: Any) -> dict[str, Any]:
    """The actor tensors of an sb3 ``ActorCriticPolicy`` (``mlp_extractor.policy_net`` + ``action_net``)."""
    state = policy.state_dict()
    keep = [k for k in state if k.startswith("mlp_extractor.policy_net.") or k.startswith("action_net.")]
    return {k: state[k].detach().cpu().clone() for k in keep}


def save_policy(path: str | os.PathLike, weights: Mapping[str, Any], meta: Mapping[str, Any]) -> Path:
    """Write a policy file atomically (a reader never sees half a file)."""
    import torch

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    full_meta = {"format": POLICY_FORMAT, "version": POLICY_VERSION, **dict(meta)}
    tmp = path.with_name(path.name + ".tmp")
    torch.save({"meta": full_meta, "weights": dict(weights)}, tmp)
    os.replace(tmp, path)
    return path


def load_policy_file(path: str | os.PathLike) -> tuple[MaskedMLP, dict[str, Any]]:
    """Read a policy file with ``weights_only=True``; raise :class:`PolicyFileError` if it is not one."""
    import torch

    path = Path(path)
    try:
        blob = torch.load(path, map_location="cpu", weights_only=True)
    except FileNotFoundError:
        raise
    except Exception as exc:  # truncated, corrupt or not a weights-only file
        raise PolicyFileError(f"cannot read policy file {path}: {exc.__class__.__name__}: {exc}") from None
    if not isinstance(blob, dict) or not isinstance(blob.get("meta"), dict) or blob["meta"].get("format") != POLICY_FORMAT:
        raise PolicyFileError(f"{path} is not a {POLICY_FORMAT} file")
    meta, weights = blob["meta"], blob.get("weights", {})
    try:
        hidden = sorted(
            {int(k.split(".")[2]) for k in weights if k.startswith("mlp_extractor.policy_net.")}
        )
        layers = [
            (
                weights[f"mlp_extractor.policy_net.{i}.weight"].numpy().astype(np.float32),
                weights[f"mlp_extractor.policy_net.{i}.bias"].numpy().astype(np.float32),
            )
            for i in hidden
        ]
        layers.append((weights["action_net.weight"].numpy().astype(np.float32), weights["action_net.bias"].numpy().astype(np.float32)))
        net = MaskedMLP(layers, meta.get("activation", "tanh"))
    except (KeyError, AttributeError, IndexError, ValueError) as exc:
        raise PolicyFileError(f"{path} holds incomplete policy weights ({exc})") from None
    if "obs_size" in meta and net.obs_size != meta["obs_size"]:
        raise PolicyFileError(f"{path}: weights take {net.obs_size} inputs but meta says {meta['obs_size']}")
    try:
        extra = features.get(meta.get("features"))
    except ValueError as exc:
        raise PolicyFileError(f"{path}: {exc}") from None
    if extra is not None and net.obs_size != extra.obs_size + extra.extra:
        raise PolicyFileError(f"{path}: weights take {net.obs_size} inputs but features {meta['features']!r} "
                              f"give {extra.obs_size + extra.extra}")
    return net, meta


class PolicyAgent:
    """Plays from ``decision.observation`` and ``decision.action_mask`` with a trained network.

    ``deterministic=True`` always takes the most probable legal action; otherwise the action is
    sampled from the masked distribution with the seed given to :meth:`reset`, so a seeded game
    stays repeatable.
    """

    def __init__(self, net: MaskedMLP, name: str = "policy", deterministic: bool = False, seed: int | None = None,
                 meta: Mapping[str, Any] | None = None) -> None:
        self.net = net
        self.name = name
        self.deterministic = deterministic
        self.meta = dict(meta or {})
        self.features = features.get(self.meta.get("features"))
        self.input_size = net.obs_size if self.features is None else self.features.obs_size
        self._rng = np.random.default_rng(seed)

    @classmethod
    def from_file(cls, path: str | os.PathLike, name: str | None = None, deterministic: bool | None = None,
                  seed: int | None = None) -> PolicyAgent:
        """``deterministic=None`` takes the file's own default (``meta["deterministic"]``, else sampling)."""
        net, meta = load_policy_file(path)
        if deterministic is None:
            deterministic = bool(meta.get("deterministic", False))
        return cls(net, name=name or Path(path).stem, deterministic=deterministic, seed=seed, meta=meta)

    def reset(self, seat: int, seed: int | None = None) -> None:
        if seed is not None:
            self._rng = np.random.default_rng(seed)

    def act(self, decision: Decision) -> int:
        observation = decision.observation
        if observation.shape[-1] != self.input_size:
            raise PolicyFileError(
                f"policy {self.name!r} takes observations of size {self.input_size}, "
                f"the game gives {observation.shape[-1]} (another game or rule set?)"
            )
        if self.features is not None:
            observation = self.features.transform(observation, decision.view, decision.action_mask)
        probs = self.net.masked_probabilities(observation, decision.action_mask)
        if self.deterministic:
            return int(np.argmax(probs))
        return int(self._rng.choice(len(probs), p=probs))


class RoleDispatchAgent:
    """One agent that plays whichever role it is dealt, by asking a role-specific agent.

    Used for games with hidden roles (Arkham Decoders Club): the team policy plays leader, member
    and Investigator; the Black Man policy plays the Black Man. The role is read from the view.
    """

    def __init__(self, by_role: Mapping[str, Any], name: str = "policy") -> None:
        self.by_role = dict(by_role)
        self.name = name
        self._seat = 0
        self._seed: int | None = None

    def reset(self, seat: int, seed: int | None = None) -> None:
        self._seat, self._seed = seat, seed
        for agent in {id(a): a for a in self.by_role.values()}.values():
            agent.reset(seat, seed)

    def act(self, decision: Decision) -> int:
        role = view_role(decision.view)
        if role not in self.by_role:
            raise ValueError(f"agent {self.name!r} has no policy for role {role!r}; it plays {', '.join(self.by_role)}")
        return self.by_role[role].act(decision)


def view_role(view: Any) -> str:
    """The role of the seat a view belongs to, advisors resolved to their secret identity
    (``leader``, ``member``, ``investigator``, ``black_man``)."""
    identity = getattr(view, "identity", None)
    if identity is not None:
        return str(identity)
    roles = getattr(view, "roles", None)
    if roles is None:
        raise ValueError("this game's view carries no role")
    return str(roles[view.seat])
