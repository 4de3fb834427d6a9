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

import copy
import os
import re
import warnings
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

import club_envs.agents.features as features
from club_envs.agents.base import Decision, Thought, explain
from club_envs.agents.batched import masked_choice

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
        """Logits of one observation ``(obs_size,)`` or of a batch ``(B, obs_size)``."""
        x = np.asarray(observation, dtype=np.float32)
        if x.ndim == 2:
            for weight, bias in self.layers[:-1]:
                x = self._act(x @ weight.T + bias)
            weight, bias = self.layers[-1]
            return x @ weight.T + bias
        x = x.reshape(-1)
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


# A policy file is a few hundred KB to a few MB; the largest network a config allows (4 hidden
# layers of 4096) is about 200 MB.
MAX_FILE_BYTES = 256 * 2**20
ACTOR_WEIGHT_PREFIXES = ("mlp_extractor.policy_net.", "action_net.")
_ALLOWED = "one written by club-envs training (torch.save of tensors and plain data only)"


def load_policy_file(path: str | os.PathLike, game: Any = None) -> tuple[MaskedMLP, dict[str, Any]]:
    """Read a policy file with ``weights_only=True`` and check it before anything plays it.

    Checked: the file (a readable regular file of at most :data:`MAX_FILE_BYTES`), that it holds
    only plain data (a pickled Python object is refused unread: no code in it runs), the format,
    the shapes of the layers (each layer's inputs are the previous layer's outputs, every number
    finite) and the metadata (observation size, action count, activation, features). With
    ``game`` (a game package, :func:`club_envs.games.load_game`) it is also checked against the
    game: the file's game, its roles, and the observation size and action count the game gives.
    Every failure is one :class:`PolicyFileError` line naming the file, the problem and what is allowed.

    A file read before and unchanged since (the same size, modification time and inode) is not
    read again: its checked network is shared (acting never changes it), so a server dealing a
    game against a shipped agent does not load the weights anew for every game.
    """
    path = Path(path)
    try:
        st = path.stat()
        key = (str(path.resolve()), st.st_ino, st.st_size, st.st_mtime_ns)
    except OSError:
        key = None
    loaded = _READ.get(key) if key is not None else None
    if loaded is None:
        loaded = _read_policy_file(path)
        if key is not None:
            while len(_READ) >= _READ_KEPT:
                _READ.pop(next(iter(_READ)), None)
            _READ[key] = loaded
    net, meta = loaded[0], copy.deepcopy(loaded[1])
    if game is not None:
        check_policy_for_game(path, net, meta, game)
    return net, meta


_READ: dict[tuple[str, int, int, int], tuple[MaskedMLP, dict[str, Any]]] = {}  # policy files read, by identity
_READ_KEPT = 32


def _read_policy_file(path: Path) -> tuple[MaskedMLP, dict[str, Any]]:
    """The network and metadata of a policy file, checked on their own (not against a game)."""
    import io

    import torch

    from club_envs.limits import one_line, read_bytes

    path = Path(path)
    data = read_bytes(path, MAX_FILE_BYTES, "policy file", PolicyFileError)
    try:
        with warnings.catch_warnings():  # torch warns about pickle protocols; the answer is below
            warnings.simplefilter("ignore")
            blob = torch.load(io.BytesIO(data), map_location="cpu", weights_only=True)
    except Exception as exc:  # noqa: BLE001 -- any failure to read is the same answer for the user
        raise PolicyFileError(f"{path}: {_torch_problem(exc)}; a policy file is {_ALLOWED}") from None
    if not isinstance(blob, dict) or not isinstance(blob.get("meta"), dict) \
            or blob["meta"].get("format") != POLICY_FORMAT:
        raise PolicyFileError(f"{path}: not a {POLICY_FORMAT} file; a policy file is {_ALLOWED}")
    meta, weights = blob["meta"], blob.get("weights")
    if meta.get("version") not in (None, POLICY_VERSION):
        raise PolicyFileError(f"{path}: policy format version {meta.get('version')!r} is not supported; "
                              f"this club-envs reads version {POLICY_VERSION}")
    net = _network(path, weights, meta)
    _check_meta(path, net, meta)
    return net, meta


def _torch_problem(exc: Exception) -> str:
    """What went wrong in ``torch.load``, in one line and without torch's advice to load the file
    unsafely (``weights_only=False`` would run code from the file: never the answer here)."""
    from club_envs.limits import one_line

    text = str(exc)
    if "Unsupported global" in text:
        found = re.search(r"GLOBAL ([\w.]+)", text)
        what = f" ({found.group(1)})" if found else ""
        return f"holds pickled Python objects{what}, not only weights, and was not loaded (no code in it ran)"
    if "WeightsUnpickler error:" in text:
        detail = text.split("WeightsUnpickler error:", 1)[1].strip().split("\n")[0]
        return f"not a policy file (corrupt or not written by torch.save: {one_line(detail, 80)})"
    if isinstance(exc, EOFError) or not text:
        return "not a policy file (the file is empty or cut short)"
    return f"not a policy file (corrupt or cut short: {one_line(text.split('. ')[0], 100)})"


def _network(path: Path, weights: Any, meta: Mapping[str, Any]) -> MaskedMLP:
    """The layers in ``weights``, checked for names, shapes, types and finiteness."""
    import torch

    from club_envs.limits import brief

    if not isinstance(weights, dict) or not weights:
        raise PolicyFileError(f"{path}: 'weights' is missing or empty; it maps layer names to tensors")
    hidden: set[int] = set()
    for key, value in weights.items():
        if not isinstance(key, str) or not key.startswith(ACTOR_WEIGHT_PREFIXES):
            raise PolicyFileError(f"{path}: unexpected weight {brief(key)}; allowed names: "
                                  "mlp_extractor.policy_net.<i>.weight/.bias, action_net.weight/.bias")
        if not isinstance(value, torch.Tensor) or not value.dtype.is_floating_point:
            raise PolicyFileError(f"{path}: weight {key!r} is not a floating-point tensor")
        if key.startswith("mlp_extractor.policy_net."):
            index, _, part = key[len("mlp_extractor.policy_net."):].partition(".")
            if not index.isdigit() or len(index) > 3 or part not in ("weight", "bias"):
                raise PolicyFileError(f"{path}: unexpected weight {brief(key)}; allowed names: "
                                      "mlp_extractor.policy_net.<i>.weight/.bias, action_net.weight/.bias")
            hidden.add(int(index))
        elif key not in ("action_net.weight", "action_net.bias"):
            raise PolicyFileError(f"{path}: unexpected weight {brief(key)}; allowed names: "
                                  "mlp_extractor.policy_net.<i>.weight/.bias, action_net.weight/.bias")
    names = [(f"mlp_extractor.policy_net.{i}.weight", f"mlp_extractor.policy_net.{i}.bias") for i in sorted(hidden)]
    names.append(("action_net.weight", "action_net.bias"))
    layers = []
    inputs = None
    for weight_name, bias_name in names:
        if weight_name not in weights or bias_name not in weights:
            missing = weight_name if weight_name not in weights else bias_name
            raise PolicyFileError(f"{path}: holds incomplete policy weights (no {missing!r})")
        weight, bias = weights[weight_name], weights[bias_name]
        if weight.dim() != 2 or bias.dim() != 1 or bias.shape[0] != weight.shape[0] or 0 in weight.shape:
            raise PolicyFileError(f"{path}: layer {weight_name.rsplit('.', 1)[0]!r} has shapes {tuple(weight.shape)} "
                                  f"and {tuple(bias.shape)}; expected (outputs, inputs) and (outputs,)")
        if inputs is not None and weight.shape[1] != inputs:
            raise PolicyFileError(f"{path}: layer {weight_name.rsplit('.', 1)[0]!r} takes {weight.shape[1]} inputs "
                                  f"but the layer before gives {inputs}")
        if not (torch.isfinite(weight).all() and torch.isfinite(bias).all()):
            raise PolicyFileError(f"{path}: layer {weight_name.rsplit('.', 1)[0]!r} holds NaN or infinite numbers")
        inputs = weight.shape[0]
        layers.append((weight.detach().numpy().astype(np.float32), bias.detach().numpy().astype(np.float32)))
    activation = meta.get("activation", "tanh")
    if activation not in _ACTIVATIONS:
        raise PolicyFileError(f"{path}: activation {brief(activation)} is not allowed; allowed values: "
                              f"{', '.join(_ACTIVATIONS)}")
    return MaskedMLP(layers, activation)


def _check_meta(path: Path, net: MaskedMLP, meta: Mapping[str, Any]) -> None:
    """The metadata must describe the weights it comes with."""
    from club_envs.limits import brief

    for key, size in (("obs_size", net.obs_size), ("num_actions", net.num_actions)):
        if key in meta and (isinstance(meta[key], bool) or meta[key] != size):
            raise PolicyFileError(f"{path}: meta {key} is {brief(meta[key])} but the weights have {size}")
    if net.num_actions < 1:
        raise PolicyFileError(f"{path}: the network has no actions")
    try:
        extra = features.get(meta.get("features"))
    except (ValueError, TypeError):
        raise PolicyFileError(f"{path}: features {brief(meta.get('features'))} is not allowed; allowed values: "
                              f"{', '.join(features.NAMES)}") from None
    if extra is not None and net.obs_size != extra.obs_size + extra.extra:
        raise PolicyFileError(f"{path}: weights take {net.obs_size} inputs but features {meta['features']!r} "
                              f"give {extra.obs_size + extra.extra}")
    roles = meta.get("roles")
    if roles is not None and (not isinstance(roles, (list, tuple)) or not all(isinstance(r, str) for r in roles)):
        raise PolicyFileError(f"{path}: meta roles is {brief(roles)}; expected a list of role names or none")
    if "deterministic" in meta and not isinstance(meta["deterministic"], bool):
        raise PolicyFileError(f"{path}: meta deterministic is {brief(meta['deterministic'])}; expected true or false")


def game_sizes(game: Any) -> tuple[int, int]:
    """The observation size and the action count ``game`` (a game package) gives its agents."""
    from club_envs.games import spec_of

    spec = spec_of(game)
    return int(spec.hook("observer")(game.Config()).size), int(spec.hook("actions").NUM_ACTIONS)


def check_policy_for_game(path: str | os.PathLike, net: MaskedMLP, meta: Mapping[str, Any], game: Any) -> None:
    """Raise :class:`PolicyFileError` unless the policy in ``path`` can play ``game``."""
    from club_envs.games import canonical_name
    from club_envs.limits import brief

    name = meta.get("game")
    if name is not None:
        try:
            own = canonical_name(str(name))
        except ValueError:
            own = None
        if own != game.RECORD_NAME:
            raise PolicyFileError(f"{path}: a policy for {brief(name)}, not for {game.RECORD_NAME}; "
                                  f"use a {game.RECORD_NAME} policy")
    obs_size, num_actions = game_sizes(game)
    extra = features.get(meta.get("features"))
    takes = net.obs_size if extra is None else extra.obs_size
    if takes != obs_size:
        raise PolicyFileError(f"{path}: the policy takes observations of size {takes}, {game.RECORD_NAME} gives "
                              f"{obs_size}; use a policy trained for {game.RECORD_NAME}")
    if net.num_actions != num_actions:
        raise PolicyFileError(f"{path}: the policy chooses among {net.num_actions} actions, {game.RECORD_NAME} has "
                              f"{num_actions}; use a policy trained for {game.RECORD_NAME}")
    roles = meta.get("roles")
    if roles:
        unknown = [r for r in roles if r not in game.ROLES]
        if unknown:
            allowed = ", ".join(game.ROLES) or f"none ({game.RECORD_NAME} has no roles)"
            raise PolicyFileError(f"{path}: role {brief(unknown[0])} is not a {game.RECORD_NAME} role; "
                                  f"allowed values: {allowed}")


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
                  seed: int | None = None, game: Any = None) -> PolicyAgent:
        """``deterministic=None`` takes the file's own default (``meta["deterministic"]``, else sampling);
        with ``game`` the file is checked against that game as it loads."""
        net, meta = load_policy_file(path, game=game)
        if deterministic is None:
            deterministic = bool(meta.get("deterministic", False))
        return cls(net, name=name or Path(path).stem, deterministic=deterministic, seed=seed, meta=meta)

    def reset(self, seat: int, seed: int | None = None) -> None:
        if seed is not None:
            self._rng = np.random.default_rng(seed)

    def act(self, decision: Decision) -> int:
        probs = self.net.masked_probabilities(self.inputs(decision), decision.action_mask)
        return self.choose(probs)

    def explain(self, decision: Decision) -> list[Thought]:
        """The legal actions by the network's probability, most probable first."""
        probs = self.net.masked_probabilities(self.inputs(decision), decision.action_mask)
        legal = sorted((int(a) for a in decision.legal_actions), key=lambda a: (-probs[a], a))
        return [Thought(a, float(probs[a]), "probability") for a in legal]

    @property
    def batch_key(self) -> tuple:
        """Agents sharing one network object can be asked together (:func:`act_batch`)."""
        return ("policy", id(self.net))

    @staticmethod
    def act_batch(agents: Sequence[PolicyAgent], decisions: Sequence[Decision]) -> list[int]:
        return act_batch(agents, decisions)

    @property
    def prepare_key(self) -> Any:
        """What the extra inputs share with other agents (e.g. the Members Only heuristic's
        evaluation), done once per round for all of them (:meth:`prepare_batch`); None: nothing."""
        return None if self.features is None else self.features.prepare_key

    @staticmethod
    def prepare_batch(agents: Sequence[Any], decisions: Sequence[Decision]) -> None:
        agents[0].features.prepare([d.view for d in decisions], np.stack([d.action_mask for d in decisions]))

    def inputs(self, decision: Decision) -> np.ndarray:
        """What the network reads for ``decision``: the observation, plus the policy's extra inputs."""
        return self.batch_inputs([decision])[0]

    def batch_inputs(self, decisions: Sequence[Decision]) -> np.ndarray:
        """:meth:`inputs` of several decisions ``(B, net inputs)``, the extra inputs computed together."""
        observations = np.stack([d.observation for d in decisions])
        masks = np.stack([d.action_mask for d in decisions])
        if observations.shape[-1] != self.input_size:
            raise PolicyFileError(
                f"policy {self.name!r} takes observations of size {self.input_size}, "
                f"the game gives {observations.shape[-1]} (another game or rule set?)"
            )
        if masks.shape[-1] != self.net.num_actions:
            raise PolicyFileError(
                f"policy {self.name!r} chooses among {self.net.num_actions} actions, "
                f"the game has {masks.shape[-1]} (another game?)"
            )
        if self.features is not None:
            observations = self.features.transform_batch(observations, [d.view for d in decisions], masks)
        return observations

    def choose(self, probs: np.ndarray) -> int:
        if self.deterministic:
            return int(np.argmax(probs))
        # What ``self._rng.choice(len(probs), p=probs)`` draws (the same number from the same
        # generator state), without its argument checks: probs come from a softmax.
        cdf = np.cumsum(probs)
        cdf /= cdf[-1]
        return int(cdf.searchsorted(self._rng.random(), side="right"))


class BatchedPolicyAgent:
    """A trained policy as a batched opponent of the vector environments
    (:mod:`club_envs.agents.batched`): its extra inputs computed from the engine's arrays
    (:attr:`~club_envs.agents.features.Features.from_state`), one forward pass for all the rows of
    a call, each action the most probable (``deterministic``) or drawn from the masked softmax --
    as :class:`PolicyAgent` chooses -- with its own seeded generator."""

    reads_state = True

    def __init__(self, agent: PolicyAgent, seed: int | None = None) -> None:
        if agent.features is not None and agent.features.from_state is None:
            raise ValueError(f"policy {agent.name!r} reads features {agent.meta.get('features')!r}, which have no "
                             "batched-engine form; play it on the one-game environments")
        self.agent, self.name = agent, agent.name
        self._rng = np.random.default_rng(seed)

    def __call__(self, observations: np.ndarray, action_masks: np.ndarray, state: Any) -> np.ndarray:
        return self.choose(self.inputs(observations, action_masks, state), action_masks)

    @property
    def inputs_key(self) -> int:
        """Policies with equal keys read the same inputs, computed once for all their rows
        (:func:`club_envs.agents.batched.ask_groups`): those of one features object."""
        return id(self.agent.features)

    def inputs(self, observations: np.ndarray, action_masks: np.ndarray, state: Any) -> np.ndarray:
        """The network's inputs for these rows: the observations and the policy's extra inputs."""
        features = self.agent.features
        return observations if features is None else features.state_inputs(observations, action_masks, state)

    def choose(self, inputs: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        """One action per row from the network's inputs (:func:`masked_choice`)."""
        return masked_choice(self.agent.net.logits(inputs), action_masks, self.agent.deterministic, self._rng)


def act_batch(agents: Sequence[PolicyAgent], decisions: Sequence[Decision]) -> list[int]:
    """The actions of several agents that share one network (``agents[i]`` decides
    ``decisions[i]``), with one forward pass for all of them; each agent still chooses with its
    own random generator, so the result equals calling each agent's ``act`` in turn."""
    logits = agents[0].net.logits(agents[0].batch_inputs(decisions)).astype(np.float64)
    legal = np.stack([d.action_mask for d in decisions]).astype(bool)
    logits = np.where(legal, logits, -np.inf)
    probs = np.exp(logits - logits.max(axis=1, keepdims=True))  # row by row as masked_probabilities
    probs /= probs.sum(axis=1, keepdims=True)
    return [agent.choose(row) for agent, row in zip(agents, probs)]


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
        return self._for(decision).act(decision)

    def explain(self, decision: Decision) -> list[Thought]:
        return explain(self._for(decision), decision)

    def beliefs(self, decision: Decision) -> list[tuple[str, float]]:
        method = getattr(self._for(decision), "beliefs", None)
        return list(method(decision)) if callable(method) else []

    def _for(self, decision: Decision) -> Any:
        role = view_role(decision.view)
        if role not in self.by_role:
            raise ValueError(f"agent {self.name!r} has no policy for role {role!r}; it plays {', '.join(self.by_role)}")
        return self.by_role[role]


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
