"""The learned models' MLPs (and a policy file's actor) as torch modules, to fit or read them, and back.

Belief and vote-value models (:class:`club_envs.agents.belief_file.BeliefMLP`) are numpy layers at
play time, so playing needs no torch; only the trainers fit them, through these two conversions.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Sequence

import numpy as np


def activation_class(name: str):
    """The torch module class of an activation name (``relu`` or ``tanh``): the one table every
    trainer builds its MLPs with, so a policy file's ``activation`` means the same everywhere."""
    import torch

    return {"relu": torch.nn.ReLU, "tanh": torch.nn.Tanh}[name]


# The arithmetic a trainer may run its hidden layers in. The weights, the optimiser's state and the
# last layer stay float32 either way (so do the files the trainers write); with ``bfloat16`` the hidden
# layers' matrix products run under CPU autocast, which oneDNN maps to the AMX / AVX512-BF16
# instructions of CPUs that have them: 2-2.6x faster products for a 256-wide layer.
PRECISIONS = ("float32", "bfloat16")


def hidden_arithmetic(precision: str):
    """A context that runs what it holds in ``precision``: autocast to bfloat16, or nothing changed."""
    import torch

    return torch.autocast("cpu", dtype=torch.bfloat16, enabled=precision == "bfloat16")


def precision_warning(key: str, precision: str) -> str | None:
    """The line a run prints when ``key`` asks for bfloat16 on a CPU without bfloat16 instructions
    (AVX512-BF16 or AMX), where it is slower than float32; ``None`` when there is nothing to say."""
    import torch

    if precision != "bfloat16" or torch.ops.mkldnn._is_mkldnn_bf16_supported():
        return None
    return (f"warning: {key}: bfloat16 on a CPU without bfloat16 instructions (AVX512-BF16 or AMX): it trains, "
            "but slower than float32")


def announce_precision(key: str, precision: str, say=None) -> None:
    """What a trainer tells its reader about ``key``: through ``say``, that the hidden layers run in
    ``precision`` (nothing for float32), and on stderr :func:`precision_warning`'s line, if any. One
    place, so every trainer says it alike."""
    if say is not None and precision != "float32":
        say(f"hidden layers in {precision} ({key})")
    if warning := precision_warning(key, precision):
        print(warning, file=sys.stderr)


def _hidden_in(precision: str, forward, x):
    """``forward(x)`` (hidden layers) in ``precision``, returned in float32 for the float32 layer after it."""
    with hidden_arithmetic(precision):
        out = forward(x)
    return out.float()


def forward_in(net, x, precision: str):
    """:func:`to_torch`'s module on ``x``, its hidden layers in ``precision``, its last layer in
    float32 (for ``float32`` exactly ``net(x)``)."""
    if precision == "float32":
        return net(x)
    return net[-1](_hidden_in(precision, net[:-1], x))


def _forward_in_precision(self, x):
    return _hidden_in(self.hidden_precision, functools.partial(type(self).forward, self), x)


def run_in(module, precision: str):
    """``module`` (hidden layers, e.g. stable-baselines3's ``mlp_extractor.policy_net``) set to
    compute in ``precision`` with a float32 output. Set on the instance, so its weights, their names,
    its ``state_dict`` and the checkpoints that hold it do not change; a deep copy keeps the setting
    (and binds it to the copy's own weights)."""
    if precision != "float32":
        import types

        module.hidden_precision = precision
        module.forward = types.MethodType(_forward_in_precision, module)
    return module


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
