"""Training configs: a YAML file, checked against a JSON Schema before anything else happens.

A config names the game and its rule options, the algorithm and its hyper-parameters, the network,
the parallel environments, the self-play scheme, an optional warm start by imitating a bot,
evaluation, checkpoints, the budget and the seed.
Every section has defaults (``DEFAULTS``); a file only states what it changes. An unknown key, a
wrong type or an impossible value stops the run with one message naming the key and what is
allowed, e.g. ``game.num_players: 7 is not allowed; allowed values: 3, 4, 5``.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import jsonschema
import yaml

from club_envs.agents.features import NAMES as FEATURE_NAMES
from club_envs.agents.features import get as get_features
from training.rllib_backend.options import BACKENDS, RLLIB_SCHEMA

GAMES = {"members_only": (3, 4, 5), "arkham_decoders": (4, 5, 6)}
SIDES = {"members_only": ("player",), "arkham_decoders": ("team", "black_man")}
SCHEMES = ("latest", "uniform", "recent", "loss")
# Built-in bots a config may name as opponents; ``heuristic_sampled`` exists for Members Only only.
GAME_BOTS = {"members_only": ("heuristic", "random", "heuristic_sampled"), "arkham_decoders": ("heuristic", "random")}
BOT_NAMES = tuple(dict.fromkeys(b for bots in GAME_BOTS.values() for b in bots))

DEFAULTS: dict[str, Any] = {
    "game": {"options": {}},
    "algorithm": {
        "name": "MaskablePPO",
        "learning_rate": 3.0e-4,
        "n_steps": 512,
        "batch_size": 256,
        "n_epochs": 4,
        "gamma": 0.99,
        "gae_lambda": 0.95,
        "clip_range": 0.2,
        "ent_coef": 0.01,
        "vf_coef": 0.5,
        "max_grad_norm": 0.5,
    },
    "network": {"hidden": [128, 128], "activation": "tanh", "features": "none"},
    "envs": {"n_envs": 4, "subprocess": False},
    "selfplay": {
        "scheme": "recent",
        "snapshot_every": 50_000,
        "pool_size": 8,
        "bots": ["heuristic", "random"],
        "bot_share": 0.3,
        "phase_steps": 50_000,
    },
    "pretrain": {"games": 0, "imitate": "heuristic", "epochs": 5, "learning_rate": 1.0e-3, "critic_steps": 0},
    "evaluation": {"every": 50_000, "games": 200, "opponents": ["heuristic"], "greedy": True},
    "checkpoint": {"every": 50_000},
    "budget": {"total_steps": 1_000_000},
    "seed": 0,
}

_POSITIVE_INT = {"type": "integer", "minimum": 1}
_PROBABILITY = {"type": "number", "minimum": 0, "maximum": 1}


def _section(properties: dict[str, Any], required: tuple[str, ...] = ()) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "additionalProperties": False, "required": list(required)}


def _players(game: str) -> dict[str, Any]:
    allowed = list(GAMES[game])
    return {
        "if": {"properties": {"game": {"properties": {"name": {"const": game}}}}},
        "then": {
            "properties": {
                "game": {
                    "properties": {
                        "num_players": {
                            "anyOf": [
                                {"enum": allowed},
                                {"type": "array", "items": {"enum": allowed}, "minItems": 1, "uniqueItems": True},
                            ]
                        }
                    }
                }
            }
        },
    }


SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "club-envs training config",
    **_section(
        {
            "game": _section(
                {
                    "name": {"enum": list(GAMES)},
                    "num_players": {
                        "anyOf": [
                            {"type": "integer"},
                            {"type": "array", "items": {"type": "integer"}, "minItems": 1},
                        ]
                    },
                    "options": {"type": "object"},
                },
                required=("name", "num_players"),
            ),
            "algorithm": _section(
                {
                    "name": {"enum": ["MaskablePPO"]},
                    "learning_rate": {"type": "number", "exclusiveMinimum": 0, "maximum": 1},
                    "n_steps": {"type": "integer", "minimum": 8},
                    "batch_size": {"type": "integer", "minimum": 2},
                    "n_epochs": _POSITIVE_INT,
                    "gamma": _PROBABILITY,
                    "gae_lambda": _PROBABILITY,
                    "clip_range": {"type": "number", "exclusiveMinimum": 0, "maximum": 1},
                    "ent_coef": {"type": "number", "minimum": 0},
                    "vf_coef": {"type": "number", "minimum": 0},
                    "max_grad_norm": {"type": "number", "exclusiveMinimum": 0},
                }
            ),
            "network": _section(
                {
                    "hidden": {"type": "array", "items": _POSITIVE_INT, "minItems": 1, "maxItems": 4},
                    "activation": {"enum": ["tanh", "relu"]},
                    "features": {"enum": list(FEATURE_NAMES)},
                }
            ),
            "envs": _section({"n_envs": {"type": "integer", "minimum": 1, "maximum": 64}, "subprocess": {"type": "boolean"}}),
            "selfplay": _section(
                {
                    "scheme": {"enum": list(SCHEMES)},
                    "snapshot_every": _POSITIVE_INT,
                    "pool_size": _POSITIVE_INT,
                    "bots": {"type": "array", "items": {"enum": list(BOT_NAMES)}, "uniqueItems": True},
                    "bot_share": _PROBABILITY,
                    "phase_steps": _POSITIVE_INT,
                }
            ),
            "pretrain": _section(
                {
                    "games": {"type": "integer", "minimum": 0},
                    "imitate": {"enum": ["heuristic", "random"]},
                    "epochs": _POSITIVE_INT,
                    "learning_rate": {"type": "number", "exclusiveMinimum": 0, "maximum": 1},
                    "critic_steps": {"type": "integer", "minimum": 0},
                }
            ),
            "evaluation": _section(
                {
                    "every": _POSITIVE_INT,
                    "games": {"type": "integer", "minimum": 0},
                    "opponents": {"type": "array", "items": {"enum": list(BOT_NAMES)}, "minItems": 1},
                    "greedy": {"type": "boolean"},
                }
            ),
            "checkpoint": _section({"every": _POSITIVE_INT}),
            "budget": _section({"total_steps": _POSITIVE_INT}),
            "seed": {"type": "integer", "minimum": 0},
            "backend": {"enum": list(BACKENDS)},  # sb3 (default) or rllib: training/rllib_backend
            "rllib": RLLIB_SCHEMA,
        },
        required=("game",),
    ),
    "allOf": [_players(game) for game in GAMES],
}


class ConfigFileError(ValueError):
    """A training config that cannot be used; the message names the key and what is allowed."""


def _merge(defaults: Mapping[str, Any], given: Mapping[str, Any]) -> dict[str, Any]:
    out = copy.deepcopy(dict(defaults))
    for key, value in given.items():
        if isinstance(value, Mapping) and isinstance(out.get(key), Mapping) and key != "options":
            out[key] = _merge(out[key], value)
        else:
            out[key] = copy.deepcopy(value)
    return out


def _describe(error: jsonschema.ValidationError) -> str:
    """One line: the dotted key, what was wrong, and what is allowed there."""
    path = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in error.absolute_path).lstrip(".")
    path = path or "(top level)"
    schema = error.schema if isinstance(error.schema, dict) else {}
    if error.validator == "additionalProperties":
        allowed = sorted(schema.get("properties", {}))
        unexpected = sorted(set(error.instance) - set(allowed))
        where = f"{path}: " if error.absolute_path else ""
        return f"{where}unknown key {', '.join(map(repr, unexpected))}; allowed keys: {', '.join(allowed)}"
    if error.validator == "required":
        return f"{path}: {error.message}"
    if error.validator == "enum":
        return f"{path}: {error.instance!r} is not allowed; allowed values: {', '.join(map(str, error.validator_value))}"
    if error.validator == "anyOf":
        enums = [alt.get("enum") or alt.get("items", {}).get("enum") for alt in error.validator_value]
        allowed = next((e for e in enums if e), None)
        if allowed:
            return (f"{path}: {error.instance!r} is not allowed; allowed values: {', '.join(map(str, allowed))} "
                    "(or a list of them)")
        return f"{path}: {error.instance!r} has the wrong type; expected an integer or a list of integers"
    if error.validator == "type":
        return f"{path}: {error.instance!r} has the wrong type; expected {error.validator_value}"
    return f"{path}: {error.message}"


def validate(raw: Any, source: str = "config") -> dict[str, Any]:
    """Check ``raw`` against :data:`SCHEMA`, fill in defaults and return the resolved config.

    Raises :class:`ConfigFileError` with a single line naming the key at fault.
    """
    if not isinstance(raw, Mapping):
        raise ConfigFileError(f"{source}: expected a mapping of sections ({', '.join(SCHEMA['properties'])})")
    validator = jsonschema.Draft202012Validator(SCHEMA)
    errors = sorted(validator.iter_errors(raw), key=lambda e: (len(list(e.absolute_path)), str(e.absolute_path)))
    if errors:
        best = jsonschema.exceptions.best_match(errors, key=jsonschema.exceptions.relevance)
        # an if/then wrapper hides the real failure: walk into its context
        while best.context:
            best = jsonschema.exceptions.best_match(best.context)
        raise ConfigFileError(f"{source}: {_describe(best)}")
    config = _merge(DEFAULTS, raw)
    _check_relations(config, source)
    return config


def _check_relations(config: dict[str, Any], source: str) -> None:
    """Rules a schema cannot express: sizes that must fit together."""
    algo, envs = config["algorithm"], config["envs"]
    rollout = algo["n_steps"] * envs["n_envs"]
    if config.get("backend", "sb3") == "sb3" and algo["batch_size"] > rollout:
        raise ConfigFileError(
            f"{source}: algorithm.batch_size: {algo['batch_size']} is larger than one rollout "
            f"(n_steps {algo['n_steps']} x n_envs {envs['n_envs']} = {rollout}); allowed values: 2..{rollout}"
        )
    allowed_bots = GAME_BOTS[config["game"]["name"]]
    for key, names in (("selfplay.bots", config["selfplay"]["bots"]), ("evaluation.opponents", config["evaluation"]["opponents"])):
        for name in names:
            if name not in allowed_bots:
                raise ConfigFileError(f"{source}: {key}: {name!r} is not a {config['game']['name']} bot; "
                                      f"allowed values: {', '.join(allowed_bots)}")
    feature_name = config["network"]["features"]
    if feature_name != "none" and get_features(feature_name).game != config["game"]["name"]:
        raise ConfigFileError(f"{source}: network.features: {feature_name!r} reads another game's observations; "
                              f"allowed values for {config['game']['name']}: "
                              + ", ".join(n for n in FEATURE_NAMES if n == "none" or get_features(n).game == config["game"]["name"]))
    if isinstance(config["game"]["num_players"], int):
        config["game"]["num_players"] = [config["game"]["num_players"]]


def load(path: str | Path) -> dict[str, Any]:
    """Read and validate a YAML config file."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"config file {path} does not exist")
    try:
        raw = yaml.safe_load(path.read_text())
    except yaml.YAMLError as exc:
        raise ConfigFileError(f"{path}: not valid YAML ({exc})") from None
    return validate(raw, source=str(path))


def dump(config: Mapping[str, Any]) -> str:
    return yaml.safe_dump(dict(config), sort_keys=False)
