"""The learned models' MLPs (and a policy file's actor) as torch modules, to fit or read them, and back.

Belief and vote-value models (:class:`club_envs.agents.belief_file.BeliefMLP`) are numpy layers at
play time, so playing needs no torch; only the trainers fit them, through these two conversions.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def activation_class(name: str):
    """The torch module class of an activation name (``relu`` or ``tanh``): the one table every
    trainer builds its MLPs with, so a policy file's ``activation`` means the same everywhere."""
    import torch

    return {"relu": torch.nn.ReLU, "tanh": torch.nn.Tanh}[name]


def to_torch(layers: Sequence[tuple[np.ndarray, np.ndarray]], activation: str = "relu"):
    """A ``torch.nn.Sequential`` of the layers (``activation`` between them -- ``relu`` or ``tanh``,
    as the belief models and the policy files use --, none after the last), weights copied."""
    import torch

    act = activation_class(activation)
    modules = []
    for i, (w, b) in enumerate(layers):
        linear = torch.nn.Linear(w.shape[1], w.shape[0])
        with torch.no_grad():
            linear.weight.copy_(torch.from_numpy(np.asarray(w)))
            linear.bias.copy_(torch.from_numpy(np.asarray(b)))
        modules.append(linear)
        if i < len(layers) - 1:
            modules.append(act())
    return torch.nn.Sequential(*modules)


def to_layers(net) -> list[tuple[np.ndarray, np.ndarray]]:
    """The linear layers of :func:`to_torch`'s module as numpy ``(weights, bias)`` copies."""
    import torch

    return [(m.weight.detach().numpy().copy(), m.bias.detach().numpy().copy()) for m in net if isinstance(m, torch.nn.Linear)]
