"""Learners that start as a trained policy: ``pretrain.from_policy`` and the exploit command's copy.

A self-play config may start a side's learner from a policy instead of from scratch or from an
imitation of a bot -- a shipped agent fine-tuned against a new population, a run's exported
``best/<side>.pt`` trained on with other settings::

    pretrain:
      from_policy: {team: arkham_neural_team, black_man: arkham_neural_black_man}
      critic_steps: 16384      # the critic is not in a policy file: fitted first, actor frozen

The actor's weights are copied into the new learner; the critic (a policy file holds none) is
fitted on the training games before PPO starts (``pretrain.critic_steps``). The policy must be of
the config's network: the same hidden layers, activation and extra inputs -- checked before a run
folder is made, with the difference named.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from club_envs.agents.policy import ACTOR_WEIGHT_PREFIXES, PolicyFileError, load_policy_file
from club_envs.agents.registry import SHIPPED, SHIPPED_DIR
from club_envs.games import get_spec
from club_envs.training.games import side_roles


def start_file(game: str, side: str, name: str) -> Path:
    """The policy file ``name`` stands for on ``side`` of ``game``: a shipped agent whose roles of that
    side share one network file, or a path to a policy file."""
    if name in SHIPPED:
        game_name, files = SHIPPED[name]
        if get_spec(game_name).name != get_spec(game).name:
            raise ValueError(f"pretrain.from_policy.{side}: {name!r} plays {game_name}, not {game}")
        roles = side_roles(game, side) or ["*"]  # a game without roles: one file for every seat
        chosen = {files.get(role, files.get("*")) for role in roles}
        if None in chosen or len(chosen) != 1:
            raise ValueError(f"pretrain.from_policy.{side}: the shipped agent {name!r} has no single network for "
                             f"the {side} side (roles {', '.join(roles)})")
        path = SHIPPED_DIR / chosen.pop()
        if path.suffix != ".pt":
            raise ValueError(f"pretrain.from_policy.{side}: the shipped agent {name!r} is not a policy network (its "
                             f"file {path.name} is a belief model, played by a hand-written rule); a learner can start "
                             "from a shipped network or a policy file")
        if not path.is_file():
            raise ValueError(f"pretrain.from_policy.{side}: the shipped agent {name!r} is not installed ({path.name})")
        return path
    path = Path(name)
    if not path.is_file():
        raise ValueError(f"pretrain.from_policy.{side}: {name!r} is neither a shipped agent of {game} "
                         f"({', '.join(n for n, (g, _) in SHIPPED.items() if get_spec(g).name == get_spec(game).name)}) "
                         "nor a policy file")
    return path


def check_fits(path: Path, game: str, side: str, network: Any) -> dict[str, Any]:
    """The policy file's meta, if it is a ``game`` policy for ``side`` with the config's
    ``network`` (hidden layers, activation, extra inputs); else a ValueError naming the difference."""
    try:
        _, meta = load_policy_file(path)
    except (PolicyFileError, OSError) as exc:
        raise ValueError(f"pretrain.from_policy.{side}: {exc}") from exc
    wanted = {"game": get_spec(game).name, "side": side, "hidden": list(network.hidden),
              "activation": network.activation, "features": network.features}
    found = {"game": get_spec(meta.get("game", "")).name if meta.get("game") else None, "side": meta.get("side"),
             "hidden": list(meta.get("hidden", [])), "activation": meta.get("activation"),
             "features": meta.get("features", "none")}
    differ = [f"{key} {found[key]!r} (the config: {wanted[key]!r})" for key in wanted if found[key] != wanted[key]]
    if differ:
        raise ValueError(f"pretrain.from_policy.{side}: {path} does not fit this config's learner: " + "; ".join(differ))
    return meta


def copy_actor(model: Any, path: Path, what: str) -> None:
    """The learner's actor (``mlp_extractor.policy_net`` and ``action_net``) becomes the policy
    file's; the rest of the learner (its critic) is left as it is. ``what`` names the learner in
    the error when the shapes differ."""
    import torch

    load_policy_file(path)  # checked before it is read: plain data, shapes, finite numbers
    weights = torch.load(path, map_location="cpu", weights_only=True)["weights"]
    state = model.policy.state_dict()
    missing = [k for k in state if k.startswith(ACTOR_WEIGHT_PREFIXES) and k not in weights]
    wrong = [k for k, v in weights.items() if k not in state or tuple(state[k].shape) != tuple(v.shape)]
    if missing or wrong:
        raise ValueError(f"{path} does not fit {what} (missing {missing[:3]}, unmatched {wrong[:3]})")
    model.policy.load_state_dict(weights, strict=False)
