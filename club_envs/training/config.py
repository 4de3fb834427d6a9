"""Training configs: a YAML file, checked against a JSON Schema before anything else happens.

A config names the game and its rule options, the algorithm and its hyper-parameters, the network,
the parallel environments, the self-play scheme, an optional warm start by imitating a bot,
evaluation, checkpoints, the budget and the seed.
Every section has defaults (``DEFAULTS``); a file only states what it changes. An unknown key, a
wrong type or an impossible value stops the run with one message naming the key and what is
allowed, e.g. ``game.num_players: 7 is not allowed; allowed values: 3, 4, 5``.

This module is the one loader of every config: the PPO self-play configs (either backend) and the
belief-iteration recipes (a ``recipe`` key) are read and checked here once, against their JSON
Schemas (the source of every error message and of the generated config reference), and come out
as the frozen dataclasses of :mod:`club_envs.training.settings`. :func:`config_class` is the one
place that tells the recipes and backends apart; each class names the module that trains it.
"""

from __future__ import annotations

import copy
import json
import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import jsonschema
import yaml

from club_envs import limits
from club_envs.agents.features import names as feature_names
from club_envs.agents.features import get as get_features
from club_envs.agents.registry import SHIPPED, shipped_names
from club_envs.arkham_decoders import styles as arkham_styles
from club_envs.evaluation_pools import holdout_names_in, is_holdout
from club_envs.games import get_spec, specs
from club_envs.members_only import styles as members_only_styles
from club_envs.limits import brief, count_nodes, one_line
from club_envs.training.rllib_backend.options import BACKENDS, LOCAL, RLLIB_DEFAULTS, RLLIB_SCHEMA
from club_envs.training.settings import (CRITICS, ENGINES, SELF, AlgorithmSettings, ArkhamBeliefConfig, BeliefConfig, EnvSettings,
                                         EvaluationSettings, ExploitSettings, GameSettings, NetworkSettings,
                                         PretrainSettings, RllibConfig, RllibSettings, SelfPlayConfig, StartAnchorSettings,
                                         SelfPlaySettings, TableDmcConfig, TablePpoConfig, TablePpoSettings,
                                         LeagueSettings, DmcSettings, ExploiterSettings, AnchorSettings,
                                         ImitationSettings, START_FROM_POLICY, TrainingConfig, teacher_of,
                                         WARM_STARTS)
from club_envs.training.torch_mlp import PRECISIONS

SCHEMES = ("latest", "uniform", "recent", "loss")

# ``evaluation.watch``: agents played at every evaluation for the curve alone (names checked per game
# by :func:`check_watch`, once the game is known).
WATCH_SCHEMA = {"type": "array", "items": {"type": "string"}, "uniqueItems": True}


# The games of the registry, asked each time, so that a game registered after this module was
# imported can be trained too: their table sizes, the sides a config trains, and the built-in bots
# a config may name as opponents (``heuristic`` first).
def games_table() -> dict[str, tuple[int, ...]]:
    return {spec.name: spec.player_counts for spec in specs()}


def sides_table() -> dict[str, tuple[str, ...]]:
    return {spec.name: spec.side_names for spec in specs()}


def bots_table() -> dict[str, tuple[str, ...]]:
    """The bots a training config may seat, per game: the game's bots but the held-out ones."""
    return {spec.name: tuple(sorted((b for b in spec.bots if not is_holdout(b)), key=lambda b: b != "heuristic"))
            for spec in specs()}


def _teachers(imitate: Any) -> str | dict[str, str]:
    return imitate if isinstance(imitate, str) else dict(imitate)


def check_imitated(config: dict, source: str, sides: list[str]) -> None:
    """``pretrain.imitate`` names, for every side that imitates (``sides``), a bot of the game or a
    shipped agent that plays every role of that side: a team belief agent can teach the team, not
    the Black Man. A mapping names sides of the game only."""
    from club_envs.agents.registry import SHIPPED
    from club_envs.agents.registry import load as load_agent

    game_name, imitate = config["game"]["name"], config["pretrain"]["imitate"]
    bots, spec = bots_table()[game_name], get_spec(game_name)
    if isinstance(imitate, Mapping):
        for side in imitate:
            if side not in spec.side_names:
                raise ConfigFileError(f"{source}: pretrain.imitate: {side!r} is not a side of {game_name}; "
                                      f"allowed values: {', '.join(spec.side_names)}")
    shipped = [n for n, (record_name, _) in SHIPPED.items() if record_name == spec.record_name]
    for side in (s for s in spec.sides if s.name in sides):
        name = teacher_of(imitate, side.name)
        key = "pretrain.imitate" + ("" if isinstance(imitate, str) else f".{side.name}")
        if name in bots:
            continue
        if name not in shipped:
            raise ConfigFileError(f"{source}: {key}: {name!r} is neither a bot of {game_name} nor an agent "
                                  f"shipped for it; allowed values: {', '.join([*bots, *shipped])}")
        plays = getattr(load_agent(name), "by_role", None)
        missing = [r for r in side.roles or () if plays is not None and r not in plays]
        if missing:
            raise ConfigFileError(f"{source}: {key}: {name!r} does not play {', '.join(missing)} (side "
                                  f"{side.name} imitates it); name a teacher per side, start that side with "
                                  f"pretrain.from_policy, or imitate a bot: {', '.join(bots)}")


def bot_names() -> tuple[str, ...]:
    return tuple(dict.fromkeys(b for bots in bots_table().values() for b in bots))


_TABLES = {"GAMES": games_table, "SIDES": sides_table, "GAME_BOTS": bots_table, "BOT_NAMES": bot_names}

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
        "update_threads": 1,
        "critic": "observation",
        "overlap": False,
        "precision": "float32",
    },
    "network": {"hidden": [128, 128], "activation": "tanh", "features": "none"},
    "envs": {"n_envs": 4, "subprocess": False, "batched": True, "workers": 1, "engine": "auto"},
    "selfplay": {
        "scheme": "recent",
        "snapshot_every": 50_000,
        "pool_size": 8,
        "bots": ["heuristic", "random"],
        "bot_share": 0.3,
        "phase_steps": 50_000,
    },
    "pretrain": {"games": 0, "imitate": "heuristic", "epochs": 5, "learning_rate": 1.0e-3, "critic_steps": 0,
                 "from_policy": {}, "batch_size": 512, "lr_decay": 1.0, "validation_share": 0.0},
    "anchor": {"coef": 0.0, "anneal_steps": 0, "sides": []},
    "evaluation": {"every": 50_000, "games": 200, "opponents": ["heuristic"], "greedy": True, "watch": []},
    "checkpoint": {"every": 50_000},
    "budget": {"total_steps": 1_000_000},
    "seed": 0,
}

# Upper bounds keep a typo (or ``10**71``) from passing the schema and failing hours later; each
# is far above any useful value. Seeds fit every generator they reach (numpy, torch, Ray) with room
# for the per-side and per-worker offsets added to them.
MAX_STEPS = 10**12
MAX_GAMES = 10**7
MAX_SEED = 2**31 - 1
_POSITIVE_INT = {"type": "integer", "minimum": 1, "maximum": MAX_STEPS}
_PROBABILITY = {"type": "number", "minimum": 0, "maximum": 1}
# Limits on the file itself, checked before it is turned into Python objects: a config is a few
# hundred bytes nesting 3-4 levels deep with about a hundred values.
MAX_FILE_BYTES = 2**20
MAX_DEPTH = 16
MAX_VALUES = 10_000


def section(properties: dict[str, Any], required: tuple[str, ...] = ()) -> dict[str, Any]:
    """A config section of a schema: these keys only (an unknown key is an error)."""
    return {"type": "object", "properties": properties, "additionalProperties": False, "required": list(required)}


def table_sizes_schema(counts: Sequence[int]) -> dict[str, Any]:
    """``game.num_players`` of any training config: one of ``counts``, or a list of distinct ones."""
    allowed = list(counts)
    return {"anyOf": [{"enum": allowed}, {"type": "array", "items": {"enum": allowed}, "minItems": 1, "uniqueItems": True}]}


def table_sizes(value: int | Sequence[int]) -> tuple[int, ...]:
    """A checked ``game.num_players`` as a tuple of player counts."""
    return (value,) if isinstance(value, int) else tuple(value)


# The hidden layers of a learned model's MLP (the belief recipes' models)
HIDDEN_LAYERS_SCHEMA: dict[str, Any] = {"type": "array", "minItems": 1, "maxItems": 6,
                                        "items": {"type": "integer", "minimum": 1, "maximum": 4096}}
SEED_SCHEMA: dict[str, Any] = {"type": "integer", "minimum": 0, "maximum": MAX_SEED}
# What both belief recipes' schemas share: the generation loop, and a fit by minibatches.
GENERATIONS_PROPERTIES: dict[str, Any] = {
    "generations": {"type": "integer", "minimum": 1, "maximum": 1000},
    "games": {"type": "integer", "minimum": 1, "maximum": 1_000_000},
    "window": {"type": "integer", "minimum": 1, "maximum": 100},
}
FIT_PROPERTIES: dict[str, Any] = {
    "learning_rate": {"type": "number", "exclusiveMinimum": 0, "maximum": 1},
    "batch_size": {"type": "integer", "minimum": 1, "maximum": 1_000_000},
    "epochs": {"type": "integer", "minimum": 1, "maximum": 1000},
}


def _players(game: str) -> dict[str, Any]:
    return {
        "if": {"properties": {"game": {"properties": {"name": {"const": game}}}}},
        "then": {"properties": {"game": {"properties": {"num_players": table_sizes_schema(get_spec(game).player_counts)}}}},
    }


def selfplay_schema() -> dict[str, Any]:
    """The schema of a self-play config, for the games registered now."""
    games, bots = list(games_table()), list(bot_names())
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "club-envs training config",
        **section(
            {
                "game": section(
                    {
                        "name": {"enum": games},
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
                "algorithm": section(
                    {
                        "name": {"enum": ["MaskablePPO"]},
                        "learning_rate": {"type": "number", "exclusiveMinimum": 0, "maximum": 1},
                        "n_steps": {"type": "integer", "minimum": 8, "maximum": 2**20},
                        "batch_size": {"type": "integer", "minimum": 2, "maximum": 2**26},
                        "n_epochs": {"type": "integer", "minimum": 1, "maximum": 1000},
                        "gamma": _PROBABILITY,
                        "gae_lambda": _PROBABILITY,
                        "clip_range": {"type": "number", "exclusiveMinimum": 0, "maximum": 1},
                        "ent_coef": {"type": "number", "minimum": 0, "maximum": 100},
                        "vf_coef": {"type": "number", "minimum": 0, "maximum": 100},
                        "max_grad_norm": {"type": "number", "exclusiveMinimum": 0, "maximum": 1e6},
                        "update_threads": {"type": "integer", "minimum": 1, "maximum": 16},
                        "critic": {"enum": list(CRITICS)},
                        "overlap": {"type": "boolean"},
                        "precision": {"enum": list(PRECISIONS)},
                    }
                ),
                "network": section(
                    {
                        "hidden": {"type": "array", "items": {"type": "integer", "minimum": 1, "maximum": 4096},
                                   "minItems": 1, "maxItems": 4},
                        "activation": {"enum": ["tanh", "relu"]},
                        "features": {"enum": list(feature_names())},
                    }
                ),
                "envs": section({"n_envs": {"type": "integer", "minimum": 1, "maximum": 256}, "subprocess": {"type": "boolean"},
                                  "batched": {"type": "boolean"}, "workers": {"type": "integer", "minimum": 1, "maximum": 16},
                                  "engine": {"enum": list(ENGINES)}}),
                "selfplay": section(
                    {
                        "scheme": {"enum": list(SCHEMES)},
                        "snapshot_every": _POSITIVE_INT,
                        "pool_size": {"type": "integer", "minimum": 1, "maximum": 1000},
                        "bots": {"type": "array", "items": {"enum": bots}, "uniqueItems": True},
                        "bot_share": _PROBABILITY,
                        "phase_steps": _POSITIVE_INT,
                    }
                ),
                "pretrain": section(
                    {
                        "games": {"type": "integer", "minimum": 0, "maximum": MAX_GAMES},
                        # a bot of the game, or a shipped agent that plays the imitating sides' roles;
                        # or side -> such a name (sides not named imitate the heuristic)
                        "imitate": {"anyOf": [{"type": "string", "minLength": 1, "maxLength": 1000},
                                              {"type": "object", "additionalProperties":
                                               {"type": "string", "minLength": 1, "maxLength": 1000}}]},
                        "epochs": {"type": "integer", "minimum": 1, "maximum": 1000},
                        "learning_rate": {"type": "number", "exclusiveMinimum": 0, "maximum": 1},
                        "critic_steps": {"type": "integer", "minimum": 0, "maximum": MAX_STEPS},
                        "batch_size": {"type": "integer", "minimum": 1, "maximum": 1_000_000},
                        "lr_decay": {"type": "number", "exclusiveMinimum": 0, "maximum": 1},
                        # games kept out of the fit (whole games: decisions of one game are alike)
                        "validation_share": {"type": "number", "minimum": 0, "exclusiveMaximum": 1},
                        # side -> a shipped agent or a policy file the side's learner starts as
                        "from_policy": {"type": "object",
                                        "additionalProperties": {"type": "string", "minLength": 1, "maxLength": 1000}},
                    }
                ),
                # a KL pull towards the policy each side started as (club_envs.training.anchor)
                "anchor": section(
                    {
                        "coef": {"type": "number", "minimum": 0, "maximum": 100},
                        "anneal_steps": {"type": "integer", "minimum": 0, "maximum": MAX_STEPS},
                        "sides": {"type": "array", "items": {"type": "string"}, "uniqueItems": True},
                    }
                ),
                "evaluation": section(
                    {
                        "every": _POSITIVE_INT,
                        "games": {"type": "integer", "minimum": 0, "maximum": MAX_GAMES},
                        "opponents": {"type": "array", "items": {"enum": bots}, "minItems": 1},
                        "greedy": {"type": "boolean"},
                        "watch": WATCH_SCHEMA,
                    }
                ),
                "checkpoint": section({"every": _POSITIVE_INT}),
                "budget": section({"total_steps": _POSITIVE_INT}),
                "seed": SEED_SCHEMA,
                "backend": {"enum": list(BACKENDS)},  # sb3 (default) or rllib: club_envs/training/rllib_backend
                "rllib": RLLIB_SCHEMA,
            },
            required=("game",),
        ),
        "allOf": [_players(game) for game in games],
    }

# --------------------------------------------------------------------------- the belief recipes
# Members Only belief iteration (club_envs.training.belief) and the Arkham team's (club_envs.training.arkham_belief)
BELIEF_BOTS = ("heuristic", "random", "heuristic_sampled", "heuristic_bold", *members_only_styles.NAMES)
BELIEF_SCHEMA: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "required": ["recipe"],
    "properties": {
        "recipe": {"enum": [BeliefConfig.RECIPE]},
        "game": section({
            "name": {"enum": ["members_only"]},
            "num_players": table_sizes_schema(get_spec("members_only").player_counts),
        }),
        "selfplay": section({
            **GENERATIONS_PROPERTIES,
            "opponents": {"type": "array", "items": {"enum": list(BELIEF_BOTS)}},
            "opponent_share": {"type": "number", "minimum": 0, "maximum": 1},
            "engine": {"enum": list(ENGINES)},
        }),
        "model": section({"hidden": HIDDEN_LAYERS_SCHEMA}),
        "training": section({
            **FIT_PROPERTIES,
            "lr_decay": {"type": "number", "exclusiveMinimum": 0, "maximum": 1},
            "validation_share": {"type": "number", "minimum": 0, "exclusiveMaximum": 1},
            "precision": {"enum": list(PRECISIONS)},
        }),
        "evaluation": section({
            "games": {"type": "integer", "minimum": 0, "maximum": 1_000_000},
            "opponents": {"type": "array", "items": {"enum": list(BELIEF_BOTS)}},
        }),
        "seed": SEED_SCHEMA,
    },
}
BELIEF_DEFAULTS: dict[str, Any] = {
    "game": {"name": "members_only", "num_players": [4]},
    "selfplay": {"generations": 5, "games": 1000, "window": 2, "opponents": [], "opponent_share": 0.0,
                 "engine": "auto"},
    "model": {"hidden": [256, 256]},
    "training": {"learning_rate": 1.0e-3, "batch_size": 512, "epochs": 4, "lr_decay": 0.5, "validation_share": 0.05,
                 "precision": "float32"},
    "evaluation": {"games": 300, "opponents": ["heuristic", "random"]},
    "seed": 0,
}
# the Black Men a config may name (the game's own bots but the held-out ones)
ARKHAM_BELIEF_BOTS = ("heuristic", "random", *arkham_styles.NAMES)
ARKHAM_BELIEF_SCHEMA: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "required": ["recipe"],
    "properties": {
        "recipe": {"enum": [ArkhamBeliefConfig.RECIPE]},
        "game": section({
            "name": {"enum": ["arkham_decoders"]},
            "num_players": table_sizes_schema(get_spec("arkham_decoders").player_counts),
        }),
        "selfplay": section({
            **GENERATIONS_PROPERTIES,
            "opponents": {"type": "array", "minItems": 1, "uniqueItems": True,
                          "items": {"enum": [*ARKHAM_BELIEF_BOTS, SELF]}},
            "engine": {"enum": list(ENGINES)},
        }),
        "black_man": section({
            "exploration": {"type": "number", "minimum": 0, "maximum": 1},
            "window": GENERATIONS_PROPERTIES["window"],  # absent: selfplay.window
            "hidden": HIDDEN_LAYERS_SCHEMA,
            **FIT_PROPERTIES,
        }),
        "model": section({"hidden": HIDDEN_LAYERS_SCHEMA}),
        "training": section({
            **FIT_PROPERTIES,
            "validation_share": {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1},
            "precision": {"enum": list(PRECISIONS)},  # both fits': the team's and the learned Black Man's
        }),
        "evaluation": section({
            "games": {"type": "integer", "minimum": 0, "maximum": 1_000_000},
            "opponents": {"type": "array", "minItems": 1, "items": {"enum": list(ARKHAM_BELIEF_BOTS)}},
            "seed": SEED_SCHEMA,
        }),
        "seed": SEED_SCHEMA,
    },
}
ARKHAM_BELIEF_DEFAULTS: dict[str, Any] = {
    "game": {"name": "arkham_decoders", "num_players": list(get_spec("arkham_decoders").player_counts)},
    "selfplay": {"generations": 3, "games": 1500, "window": 2, "opponents": ["heuristic"], "engine": "auto"},
    "black_man": {"exploration": 0.2, "hidden": [128, 128], "learning_rate": 1.0e-3, "batch_size": 512, "epochs": 6},
    "model": {"hidden": [128, 128]},
    "training": {"learning_rate": 1.0e-3, "batch_size": 1024, "epochs": 6, "validation_share": 0.2,
                 "precision": "float32"},
    "evaluation": {"games": 300, "opponents": ["heuristic"], "seed": 18},
    "seed": 0,
}


# --------------------------------------------------------------------------- PPO on the batched engine
# club_envs.training.table_ppo: every seat of every game a decision of the learner or of its league
TABLE_PPO_GAMES = ("members_only",)  # the games with a batched multi-agent engine it trains on
TABLE_PPO_BOTS = ("random", "heuristic", "heuristic_bold")  # league bots played in compiled code
TABLE_PPO_ANCHORS = ("none", "heuristic", "belief")
TABLE_PPO_SCHEMA: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "required": ["recipe"],
    "properties": {
        "recipe": {"enum": ["table_ppo"]},
        "game": section({
            "name": {"enum": list(TABLE_PPO_GAMES)},
            "num_players": table_sizes_schema(get_spec("members_only").player_counts),
            "options": {"type": "object"},
        }),
        "ppo": section({
            "games": {"type": "integer", "minimum": 1, "maximum": 65_536},
            "steps": {"type": "integer", "minimum": 1, "maximum": 65_536},
            "learning_rate": {"type": "number", "exclusiveMinimum": 0, "maximum": 1},
            "learning_rate_final": {"type": ["number", "null"], "minimum": 0, "maximum": 1},
            "epochs": {"type": "integer", "minimum": 1, "maximum": 100},
            "minibatch": {"type": "integer", "minimum": 2, "maximum": 2**22},
            "gamma": _PROBABILITY,
            "gae_lambda": _PROBABILITY,
            "clip": {"type": "number", "exclusiveMinimum": 0, "maximum": 1},
            "entropy": {"type": "number", "minimum": 0, "maximum": 10},
            "value_coef": {"type": "number", "minimum": 0, "maximum": 100},
            "max_grad_norm": {"type": "number", "exclusiveMinimum": 0, "maximum": 1e6},
            "critic": {"enum": list(CRITICS)},
            "threads": {"type": "integer", "minimum": 1, "maximum": 16},
            "overlap": {"type": "boolean"},
            "precision": {"enum": list(PRECISIONS)},
        }),
        "network": section({
            "hidden": {"type": "array", "items": {"type": "integer", "minimum": 1, "maximum": 4096},
                       "minItems": 1, "maxItems": 4},
            "activation": {"enum": ["tanh", "relu"]},
            "features": {"enum": ["none", "members_only_beliefs", "members_only_heuristic",
                                  "members_only_belief_inputs"]},
        }),
        "league": section({
            "share": _PROBABILITY,
            "snapshot_every": _POSITIVE_INT,
            "pool_size": {"type": "integer", "minimum": 1, "maximum": 1000},
            "bots": {"type": "array", "items": {"enum": list(TABLE_PPO_BOTS)}, "uniqueItems": True},
            "bot_share": _PROBABILITY,
        }),
        "anchor": section({
            "bot": {"enum": list(TABLE_PPO_ANCHORS)},
            "coef": {"type": "number", "minimum": 0, "maximum": 100},
            "anneal_steps": {"type": "integer", "minimum": 0, "maximum": MAX_STEPS},
        }),
        "imitation": section({
            "decisions": {"type": "integer", "minimum": 0, "maximum": MAX_STEPS},
            "epochs": {"type": "integer", "minimum": 1, "maximum": 100},
            "learning_rate": {"type": "number", "exclusiveMinimum": 0, "maximum": 1},
        }),
        "evaluation": section({
            "every": _POSITIVE_INT,
            "games": {"type": "integer", "minimum": 0, "maximum": MAX_GAMES},
            "opponents": {"type": "array", "items": {"enum": ["random", "heuristic", "heuristic_bold",
                                                              "heuristic_sampled"]}, "minItems": 1},
            "greedy": {"type": "boolean"},
            "watch": WATCH_SCHEMA,
        }),
        "exploiters": section({
            "every": {"type": "integer", "minimum": 0, "maximum": MAX_STEPS},
            "steps": {"type": "integer", "minimum": 1, "maximum": MAX_STEPS},
            "warm_start": {"enum": ["none", *WARM_STARTS, START_FROM_POLICY]},  # the exploit command's, or the policy
        }),
        "checkpoint": section({"every": _POSITIVE_INT}),
        "budget": section({"total_steps": _POSITIVE_INT}),
        "seed": SEED_SCHEMA,
    },
}
TABLE_PPO_DEFAULTS: dict[str, Any] = {
    "game": {"name": "members_only", "num_players": [4], "options": {}},
    "ppo": {"games": 256, "steps": 64, "learning_rate": 2.5e-4, "epochs": 4, "minibatch": 4096, "gamma": 0.995,
            "gae_lambda": 0.95, "clip": 0.1, "entropy": 0.01, "value_coef": 0.5, "max_grad_norm": 0.5,
            "critic": "observation", "threads": 1, "overlap": False, "precision": "float32",
            "learning_rate_final": None},
    "network": {"hidden": [256, 256], "activation": "tanh", "features": "members_only_beliefs"},
    "league": {"share": 0.5, "snapshot_every": 1_000_000, "pool_size": 20, "bots": [], "bot_share": 0.0},
    "anchor": {"bot": "none", "coef": 0.0, "anneal_steps": 0},
    "imitation": {"decisions": 0, "epochs": 2, "learning_rate": 1.0e-3},
    "evaluation": {"every": 1_000_000, "games": 400, "opponents": ["heuristic", "random"], "greedy": True,
                   "watch": []},
    "exploiters": {"every": 0, "steps": 300_000, "warm_start": "heuristic"},
    "checkpoint": {"every": 500_000},
    "budget": {"total_steps": 10_000_000},
    "seed": 0,
}


# club_envs.training.table_dmc: the table_ppo schema, with the ``ppo`` section's loop settings and
# the Q learner's own in a ``dmc`` section, and no anchor or imitation (a Q learner has no policy to pull)
_DMC_SECTION = section({
    **{k: TABLE_PPO_SCHEMA["properties"]["ppo"]["properties"][k] for k in (
        "games", "steps", "learning_rate", "epochs", "minibatch", "max_grad_norm", "threads", "overlap")},
    "epsilon": _PROBABILITY,
    "temperature": {"type": "number", "exclusiveMinimum": 0, "maximum": 100},
    "action_hidden": {"type": "integer", "minimum": 1, "maximum": 4096},
})
TABLE_DMC_SCHEMA: dict[str, Any] = {**TABLE_PPO_SCHEMA, "properties": {
    "recipe": {"enum": ["table_dmc"]}, "game": TABLE_PPO_SCHEMA["properties"]["game"], "dmc": _DMC_SECTION,
    **{k: v for k, v in TABLE_PPO_SCHEMA["properties"].items() if k not in ("recipe", "game", "ppo", "anchor",
                                                                              "imitation")}}}
TABLE_DMC_DEFAULTS: dict[str, Any] = {
    **{k: v for k, v in copy.deepcopy(TABLE_PPO_DEFAULTS).items() if k not in ("ppo", "anchor", "imitation")},
    "dmc": {"games": 256, "steps": 64, "learning_rate": 3.0e-4, "epochs": 2, "minibatch": 1024, "max_grad_norm": 40.0,
            "threads": 1, "overlap": False, "epsilon": 0.01, "temperature": 0.02, "action_hidden": 64},
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
    path = one_line(path or "(top level)", 120)
    schema = error.schema if isinstance(error.schema, dict) else {}
    if error.validator in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"):
        return f"{path}: {brief(error.instance)} is not allowed; allowed values: {_range_text(schema)}"
    if error.validator == "additionalProperties":
        allowed = sorted(schema.get("properties", {}))
        unexpected = sorted(map(str, set(error.instance) - set(allowed)))
        where = f"{path}: " if error.absolute_path else ""
        return one_line(f"{where}unknown key {', '.join(map(repr, unexpected))}; allowed keys: {', '.join(allowed)}")
    if error.validator == "required":
        return f"{path}: {error.message}"
    if error.validator == "enum":
        return f"{path}: {brief(error.instance)} is not allowed; allowed values: {', '.join(map(str, error.validator_value))}"
    if error.validator == "anyOf":
        enums = [alt.get("enum") or alt.get("items", {}).get("enum") for alt in error.validator_value]
        allowed = next((e for e in enums if e), None)
        if allowed:
            return (f"{path}: {brief(error.instance)} is not allowed; allowed values: {', '.join(map(str, allowed))} "
                    "(or a list of them)")
        return f"{path}: {brief(error.instance)} has the wrong type; expected an integer or a list of integers"
    if error.validator == "type":
        kinds = error.validator_value
        expected = " or ".join(kinds) if isinstance(kinds, list) else kinds
        return f"{path}: {brief(error.instance)} has the wrong type; expected {expected}"
    return f"{path}: {one_line(error.message)}"


def _range_text(schema: Mapping[str, Any]) -> str:
    """The allowed interval of a numeric schema, e.g. ``0..2147483647`` or ``> 0 and <= 1``."""
    low = schema.get("minimum", schema.get("exclusiveMinimum"))
    high = schema.get("maximum", schema.get("exclusiveMaximum"))
    if "minimum" in schema and "maximum" in schema and schema.get("type") == "integer":
        return f"{low}..{high}"
    parts = []
    if low is not None:
        parts.append(f"{'>' if 'exclusiveMinimum' in schema else '>='} {low}")
    if high is not None:
        parts.append(f"{'<' if 'exclusiveMaximum' in schema else '<='} {high}")
    text = " and ".join(parts) or "any number"
    return f"{text}, or null" if isinstance(schema.get("type"), list) and "null" in schema["type"] else text


def _check_plain_data(raw: Any, source: str) -> None:
    """What YAML allows but a config has no use for: keys that are not text, and ``.nan``/``.inf``.

    Checked before the schema so that every later message can quote keys and values safely.
    """
    stack: list[tuple[str, Any]] = [("", raw)]
    while stack:
        where, item = stack.pop()
        if isinstance(item, Mapping):
            for key, value in item.items():
                if not isinstance(key, str):
                    hint = " (YAML reads yes/no/on/off as true/false: quote the key)" if isinstance(key, bool) else ""
                    raise ConfigFileError(f"{source}: {where or '(top level)'}: key {brief(key)} is not text; "
                                          f"keys are names such as 'seed'{hint}")
                stack.append((f"{where}.{key}" if where else key, value))
        elif isinstance(item, (list, tuple)):
            stack.extend((f"{where}[{i}]", value) for i, value in enumerate(item))
        elif isinstance(item, float) and not math.isfinite(item):
            raise ConfigFileError(f"{one_line(f'{source}: {where}', 200)}: {item} is not allowed; numbers must be finite")


def validate(raw: Any, source: str = "config") -> dict[str, Any]:
    """Check ``raw`` (any recipe or backend) and return the resolved config: the mapping a run folder
    stores. Raises :class:`ConfigFileError` with a single line naming the key at fault."""
    return copy.deepcopy(dict(from_mapping(raw, source).raw))


def watch_names(game: str) -> tuple[str, ...]:
    """The agents a run of ``game`` may watch (``evaluation.watch``): every built-in bot, the held-out
    ones included, and the game's installed shipped agents; a search is too slow to play at every
    evaluation (``club-envs evaluate`` plays it)."""
    spec = get_spec(game)
    return (*spec.bots, *(name for name in shipped_names() if SHIPPED[name][0] == spec.record_name))


def check_watch(evaluation: Mapping[str, Any], game: str, source: str) -> None:
    """Each watched agent is one ``game`` has, is not also a judging opponent, and (in a game with
    roles) plays every role of the other side of each side the run evaluates."""
    allowed, spec = watch_names(game), get_spec(game)
    for name in evaluation["watch"]:
        if name in evaluation["opponents"]:
            raise ConfigFileError(f"{source}: evaluation.watch: {name!r} is already in evaluation.opponents, which "
                                  "pick the best policy; an agent is judged or watched, not both")
        if name not in allowed:
            raise ConfigFileError(f"{source}: evaluation.watch: {name!r} is not an agent a {game} run can watch; "
                                  f"allowed values: {', '.join(allowed)}")
        plays = set(SHIPPED[name][1]) if name in SHIPPED else {"*"}
        for side in spec.side_names:
            theirs = () if "*" in plays else spec.opponent_roles(side) or ()
            missing = [r for r in theirs if r not in plays]
            if missing:
                raise ConfigFileError(f"{source}: evaluation.watch: {name!r} plays {', '.join(sorted(plays))}, not "
                                      f"{', '.join(missing)}, which the {side} side's evaluations seat it as; "
                                      f"allowed values: an agent that plays {', '.join(missing)} (a bot, or a shipped "
                                      "agent of both sides)")


def _refuse_holdout(raw: Any, source: str) -> None:
    """No training config may seat a held-out bot anywhere (opponents, evaluation opponents that
    pick the best checkpoint, belief-data opponents): what it was kept out of must stay unseen."""
    found = [(key, name) for key, name in holdout_names_in(raw) if key != "evaluation.watch"]  # watched, never judged
    if found:
        key, name = found[0]
        raise ConfigFileError(f"{source}: {key}: {name!r} belongs to the held-out evaluation pool "
                              "(club_envs.evaluation_pools), which no training run may use; evaluate against it "
                              "with club-envs evaluate --pool holdout, and train against the style bots "
                              "(*_style_mix) or the other bots instead")


def checked(raw: Any, schema: Mapping[str, Any], defaults: Mapping[str, Any], source: str) -> dict[str, Any]:
    """``raw`` checked against ``schema`` (one :class:`ConfigFileError` line naming the key at
    fault) and merged over ``defaults``: what every trainer's config goes through."""
    if not isinstance(raw, Mapping):
        raise ConfigFileError(f"{source}: expected a mapping of sections ({', '.join(schema['properties'])})")
    if count_nodes(raw, MAX_VALUES) > MAX_VALUES:
        raise ConfigFileError(f"{source}: holds more than {MAX_VALUES} values once its aliases are expanded; "
                              "a config holds about a hundred")
    _check_plain_data(raw, source)
    _refuse_holdout(raw, source)
    validator = jsonschema.Draft202012Validator(schema)
    errors = sorted(validator.iter_errors(raw), key=lambda e: (len(list(e.absolute_path)), str(e.absolute_path)))
    if errors:
        best = jsonschema.exceptions.best_match(errors, key=jsonschema.exceptions.relevance)
        # an if/then wrapper hides the real failure: walk into its context
        while best.context:
            best = jsonschema.exceptions.best_match(best.context)
        raise ConfigFileError(f"{source}: {_describe(best)}")
    return _merge(defaults, raw)


def _check_relations(config: dict[str, Any], source: str) -> None:
    """Rules a schema cannot express: sizes that must fit together."""
    algo, envs = config["algorithm"], config["envs"]
    rollout = algo["n_steps"] * envs["n_envs"]
    if config.get("backend", "sb3") == "sb3" and algo["batch_size"] > rollout:
        raise ConfigFileError(
            f"{source}: algorithm.batch_size: {algo['batch_size']} is larger than one rollout "
            f"(n_steps {algo['n_steps']} x n_envs {envs['n_envs']} = {rollout}); allowed values: 2..{rollout}"
        )
    if config.get("backend", "sb3") == "rllib" and algo["update_threads"] != 1:
        raise ConfigFileError(f"{source}: algorithm.update_threads: {algo['update_threads']} belongs to the "
                              "stable-baselines3 backend (Ray sizes its own learner); allowed values with backend rllib: 1")
    if algo["overlap"] and config.get("backend", "sb3") == "rllib":
        raise ConfigFileError(f"{source}: algorithm.overlap: true belongs to the stable-baselines3 backend "
                              "(Ray runs its own collectors); allowed values with backend rllib: false")
    if algo["precision"] != "float32" and config.get("backend", "sb3") == "rllib":
        raise ConfigFileError(f"{source}: algorithm.precision: {algo['precision']!r} belongs to the stable-baselines3 "
                              "backend (Ray builds its own learner); allowed values with backend rllib: float32")
    if algo["overlap"] and algo["update_threads"] != 1:
        raise ConfigFileError(f"{source}: algorithm.update_threads: {algo['update_threads']} with algorithm.overlap: "
                              "the update runs on one thread beside the rollout (both cores are busy); "
                              "allowed values with overlap: 1")
    if algo["critic"] == "privileged" and config.get("backend", "sb3") == "rllib":
        raise ConfigFileError(f"{source}: algorithm.critic: 'privileged' belongs to the stable-baselines3 backend "
                              "(the RLlib modules read the observation only); allowed values with backend rllib: observation")
    if algo["critic"] == "privileged" and config["pretrain"]["games"] > 0 and config["pretrain"]["critic_steps"] == 0:
        raise ConfigFileError(f"{source}: pretrain.critic_steps: 0 leaves a privileged critic unfitted after imitation "
                              "(the bots' games carry no hidden state for it; the warm-up on the training games does); "
                              "allowed values with algorithm.critic: privileged and pretrain.games > 0: 1 or more")
    start, sides = config["pretrain"]["from_policy"], sides_table()[config["game"]["name"]]
    for side in start:
        if side not in sides:
            raise ConfigFileError(f"{source}: pretrain.from_policy: {side!r} is not a side of {config['game']['name']}; "
                                  f"allowed values: {', '.join(sides)}")
    if config["pretrain"]["games"] > 0 and set(start) == set(sides):
        raise ConfigFileError(f"{source}: pretrain.games: {config['pretrain']['games']} imitates for the sides not in "
                              "pretrain.from_policy, and every side starts from a policy; allowed values: 0")
    if start and algo["critic"] == "privileged" and config["pretrain"]["critic_steps"] == 0:
        raise ConfigFileError(f"{source}: pretrain.critic_steps: 0 leaves a privileged critic unfitted (a policy file "
                              "holds the actor only); allowed values with algorithm.critic: privileged and "
                              "pretrain.from_policy: 1 or more")
    check_anchor(config, source, sides, start)
    if envs["workers"] > envs["n_envs"]:
        raise ConfigFileError(f"{source}: envs.workers: {envs['workers']} is more than envs.n_envs "
                              f"({envs['n_envs']}); allowed values: 1..{envs['n_envs']}")
    if envs["workers"] > 1 and (envs["subprocess"] or not envs["batched"]):
        raise ConfigFileError(f"{source}: envs.workers: {envs['workers']} needs batched environments "
                              "(envs.batched: true, envs.subprocess: false); allowed values with these settings: 1")
    allowed_bots = bots_table()[config["game"]["name"]]
    if config["pretrain"]["games"] > 0:
        check_imitated(config, source, [side for side in sides if side not in start])
    for key, names in (("selfplay.bots", config["selfplay"]["bots"]), ("evaluation.opponents", config["evaluation"]["opponents"])):
        for name in names:
            if name not in allowed_bots:
                raise ConfigFileError(f"{source}: {key}: {name!r} is not a {config['game']['name']} bot; "
                                      f"allowed values: {', '.join(allowed_bots)}")
    check_watch(config["evaluation"], config["game"]["name"], source)
    feature_name = config["network"]["features"]
    if feature_name != "none" and get_features(feature_name).game != config["game"]["name"]:
        raise ConfigFileError(f"{source}: network.features: {feature_name!r} reads another game's observations; "
                              f"allowed values for {config['game']['name']}: "
                              + ", ".join(n for n in feature_names() if n == "none" or get_features(n).game == config["game"]["name"]))
    if feature_name != "none" and config.get("backend", "sb3") == "rllib":
        raise ConfigFileError(f"{source}: network.features: {feature_name!r} is not available with backend: rllib "
                              "(its modules read the observation only); allowed values: none")
    if isinstance(config["game"]["num_players"], int):
        config["game"]["num_players"] = [config["game"]["num_players"]]


def check_anchor(config: dict[str, Any], source: str, sides: Sequence[str], start: Mapping[str, str]) -> None:
    """``anchor``: its sides are the game's (empty: every side), each has a start to be pulled
    towards (imitation or ``pretrain.from_policy``), the pull has an entropy term to ride on, and
    the backend is stable-baselines3. Fills in the sides."""
    anchor, algo = config["anchor"], config["algorithm"]
    for side in anchor["sides"]:
        if side not in sides:
            raise ConfigFileError(f"{source}: anchor.sides: {side!r} is not a side of {config['game']['name']}; "
                                  f"allowed values: {', '.join(sides)}")
    if anchor["coef"] == 0:
        return
    if config.get("backend", "sb3") != "sb3":
        raise ConfigFileError(f"{source}: anchor.coef: {anchor['coef']} belongs to the stable-baselines3 backend; "
                              "allowed values with backend rllib: 0")
    if algo["ent_coef"] <= 0:
        raise ConfigFileError(f"{source}: anchor.coef: {anchor['coef']} needs algorithm.ent_coef > 0 (the pull enters "
                              "stable-baselines3's loss through its entropy term); allowed values with "
                              f"ent_coef {algo['ent_coef']}: 0")
    for side in anchor["sides"] or sides:
        if config["pretrain"]["games"] == 0 and side not in start:
            raise ConfigFileError(f"{source}: anchor.sides: {side!r} has no start to be pulled towards (pretrain.games 0 "
                                  "and not in pretrain.from_policy); allowed values: the sides that imitate or start "
                                  f"from a policy: {', '.join(start) or 'none'}")
    anchor["sides"] = list(anchor["sides"] or sides)


def read_yaml(path: str | Path) -> Any:
    """The YAML document in ``path`` as plain Python data, read within the file limits
    (:data:`MAX_FILE_BYTES`, :data:`MAX_DEPTH`, :data:`MAX_VALUES`; see :func:`club_envs.limits.read_yaml`).
    Every problem is one :class:`ConfigFileError` line naming the file."""
    return limits.read_yaml(path, ConfigFileError, "config file", max_bytes=MAX_FILE_BYTES, max_depth=MAX_DEPTH,
                            max_values=MAX_VALUES, typical="a config nests 3-4 levels deep with about a hundred values")


# --------------------------------------------------------------------------- the typed configs
def config_class(raw: Any, source: str = "config") -> type:
    """Which config (and so which trainer) ``raw`` is: a recipe's, or PPO self-play on the backend it names."""
    if not isinstance(raw, Mapping):
        raise ConfigFileError(f"{source}: expected a mapping of sections ({', '.join(selfplay_schema()['properties'])})")
    if "recipe" in raw:  # another trainer's config (belief iteration), checked by its recipe's own schema
        recipes = {cls.RECIPE: cls for cls in (BeliefConfig, ArkhamBeliefConfig, TablePpoConfig, TableDmcConfig)}
        recipe = raw["recipe"]
        if isinstance(recipe, str) and recipe in recipes:
            return recipes[recipe]
        _check_plain_data(raw, source)
        error = next(jsonschema.Draft202012Validator({"properties": {"recipe": {"enum": list(recipes)}}}).iter_errors(raw))
        raise ConfigFileError(f"{source}: {_describe(error)}")
    return RllibConfig if raw.get("backend") == "rllib" else SelfPlayConfig


def from_mapping(raw: Any, source: str = "config", kind: type | None = None) -> TrainingConfig:
    """``raw`` checked and typed: as :func:`config_class` says, or as ``kind`` (a trainer's own
    command line reads every config as its own kind)."""
    kind = kind or config_class(raw, source)
    if kind is BeliefConfig:
        return _belief(checked(raw, BELIEF_SCHEMA, BELIEF_DEFAULTS, source), source)
    if kind is ArkhamBeliefConfig:
        return _arkham_belief(checked(raw, ARKHAM_BELIEF_SCHEMA, ARKHAM_BELIEF_DEFAULTS, source))
    if kind is TablePpoConfig:
        return _table_ppo(checked(raw, TABLE_PPO_SCHEMA, TABLE_PPO_DEFAULTS, source), source)
    if kind is TableDmcConfig:
        return _table_dmc(checked(raw, TABLE_DMC_SCHEMA, TABLE_DMC_DEFAULTS, source), source)
    resolved = checked(raw, selfplay_schema(), DEFAULTS, source)
    _check_relations(resolved, source)
    if kind is RllibConfig:
        return _rllib(_resolve_rllib(resolved, raw, source))
    return SelfPlayConfig(**_selfplay_sections(resolved))


def load(path: str | Path, kind: type | None = None) -> TrainingConfig:
    """Read, check and type a YAML config file; every problem is one :class:`ConfigFileError` line."""
    return from_mapping(read_yaml(path), str(path), kind)


def dump(resolved: Mapping[str, Any]) -> str:
    """A resolved config as the YAML a run folder stores (``config.yaml``)."""
    return yaml.safe_dump(dict(resolved), sort_keys=False)


def _selfplay_sections(resolved: dict[str, Any]) -> dict[str, Any]:
    game, network, sp, ev = resolved["game"], resolved["network"], resolved["selfplay"], resolved["evaluation"]
    return {
        "game": GameSettings(game["name"], tuple(game["num_players"]), dict(game["options"])),
        "algorithm": AlgorithmSettings(**resolved["algorithm"]),
        "network": NetworkSettings(tuple(network["hidden"]), network["activation"], network["features"]),
        "envs": EnvSettings(**resolved["envs"]),
        "selfplay": SelfPlaySettings(**{**sp, "bots": tuple(sp["bots"])}),
        "pretrain": PretrainSettings(**{**resolved["pretrain"], "from_policy": dict(resolved["pretrain"]["from_policy"]),
                                        "imitate": _teachers(resolved["pretrain"]["imitate"])}),
        "evaluation": EvaluationSettings(**{**ev, "opponents": tuple(ev["opponents"]), "watch": tuple(ev["watch"])}),
        "checkpoint_every": resolved["checkpoint"]["every"],
        "total_steps": resolved["budget"]["total_steps"],
        "seed": resolved["seed"],
        "raw": resolved,
        "anchor": StartAnchorSettings(float(resolved["anchor"]["coef"]), resolved["anchor"]["anneal_steps"],
                                      tuple(resolved["anchor"]["sides"])),
    }


# settings of the stable-baselines3 backend that have no counterpart on RLlib (the ``rllib`` block
# says how to sample; the league is the learners' own snapshots; both Arkham sides learn at once)
SB3_ONLY = (("envs",), ("algorithm", "n_steps"), ("selfplay", "scheme"), ("selfplay", "bots"),
            ("selfplay", "bot_share"), ("selfplay", "phase_steps"), ("pretrain",), ("anchor",))


def unused_settings(resolved: Mapping[str, Any]) -> list[str]:
    """The dotted keys of a resolved config set to something else than their default that the
    RLlib backend ignores."""
    unused = []
    for path in SB3_ONLY:
        value, default = resolved, DEFAULTS
        for key in path:
            value = value.get(key) if isinstance(value, dict) else None
            default = default.get(key) if isinstance(default, dict) else None
        if value is not None and value != default:
            unused.append(".".join(path))
    return unused


def _resolve_rllib(resolved: dict[str, Any], raw: Mapping[str, Any], source: str) -> dict[str, Any]:
    """The ``rllib`` block (checked by the shared schema, which holds :data:`RLLIB_SCHEMA`) with
    its defaults filled in, and the sizes that must fit together."""
    resolved["backend"] = raw.get("backend", "sb3")
    resolved["rllib"] = {**RLLIB_DEFAULTS, **(raw.get("rllib") or {})}
    options, algo = resolved["rllib"], resolved["algorithm"]
    if algo["batch_size"] > options["train_batch_size"]:
        raise ConfigFileError(
            f"{source}: algorithm.batch_size: {algo['batch_size']} is larger than rllib.train_batch_size "
            f"{options['train_batch_size']}; allowed values: 2..{options['train_batch_size']}"
        )
    if options["address"] == LOCAL and options["num_env_runners"] > options["num_cpus"]:
        raise ConfigFileError(
            f"{source}: rllib.num_env_runners: {options['num_env_runners']} runners need one CPU each but "
            f"rllib.num_cpus is {options['num_cpus']}; allowed values: 0..{options['num_cpus']}"
        )
    return resolved


def _rllib(resolved: dict[str, Any]) -> RllibConfig:
    return RllibConfig(**_selfplay_sections(resolved), rllib=RllibSettings(**resolved["rllib"]),
                       unused=tuple(unused_settings(resolved)))


def _belief(resolved: dict[str, Any], source: str) -> BeliefConfig:
    sp, tr, ev = resolved["selfplay"], resolved["training"], resolved["evaluation"]
    if sp["opponent_share"] > 0 and not sp["opponents"]:
        raise ConfigFileError(f"{source}: selfplay.opponent_share: {sp['opponent_share']} needs "
                              f"selfplay.opponents; allowed values: {', '.join(BELIEF_BOTS)}")
    players = table_sizes(resolved["game"]["num_players"])
    return BeliefConfig(players, sp["generations"], sp["games"], sp["window"], tuple(sp["opponents"]),
                        float(sp["opponent_share"]), tuple(resolved["model"]["hidden"]), float(tr["learning_rate"]),
                        tr["batch_size"], tr["epochs"], float(tr["lr_decay"]), float(tr["validation_share"]),
                        ev["games"], tuple(ev["opponents"]), resolved["seed"], resolved, engine=sp["engine"],
                        precision=tr["precision"])


def _arkham_belief(resolved: dict[str, Any]) -> ArkhamBeliefConfig:
    sp, tr, ev, bm = resolved["selfplay"], resolved["training"], resolved["evaluation"], resolved["black_man"]
    players = table_sizes(resolved["game"]["num_players"])
    bm.setdefault("window", sp["window"])  # written to the run folder resolved, like every other setting
    return ArkhamBeliefConfig(players, sp["generations"], sp["games"], sp["window"], tuple(sp["opponents"]),
                              tuple(resolved["model"]["hidden"]), float(tr["learning_rate"]), tr["batch_size"],
                              tr["epochs"], float(tr["validation_share"]), ev["games"], tuple(ev["opponents"]),
                              ev["seed"], resolved["seed"], resolved, float(bm["exploration"]), tuple(bm["hidden"]),
                              float(bm["learning_rate"]), bm["batch_size"], bm["epochs"], sp["engine"],
                              bm["window"], tr["precision"])


def _table_sections(resolved: dict[str, Any], loop: str, source: str) -> dict[str, Any]:
    """The sections ``table_ppo`` and ``table_dmc`` share, checked and typed (``loop``: the section
    holding ``games``)."""
    game, net, league, ev, hunt = (resolved[k] for k in ("game", "network", "league", "evaluation", "exploiters"))
    check_watch(ev, game["name"], source)
    if league["bot_share"] > 0 and not league["bots"]:
        raise ConfigFileError(f"{source}: league.bot_share: {league['bot_share']} needs league.bots; allowed values: "
                              f"{', '.join(TABLE_PPO_BOTS)}")
    players = table_sizes(game["num_players"])
    games = resolved[loop]["games"]
    if games < len(players):
        raise ConfigFileError(f"{source}: {loop}.games: {games} cannot cover {len(players)} table sizes; "
                              f"allowed values: {len(players)} or more")
    resolved["game"]["num_players"] = list(players)
    return {"game": GameSettings(game["name"], players, dict(game["options"])),
            "network": NetworkSettings(tuple(net["hidden"]), net["activation"], net["features"]),
            "league": LeagueSettings(float(league["share"]), league["snapshot_every"], league["pool_size"],
                                     tuple(league["bots"]), float(league["bot_share"])),
            "evaluation": EvaluationSettings(ev["every"], ev["games"], tuple(ev["opponents"]), ev["greedy"],
                                             tuple(ev["watch"])),
            "exploiters": ExploiterSettings(hunt["every"], hunt["steps"],
                                            None if hunt["warm_start"] == "none" else hunt["warm_start"]),
            "checkpoint_every": resolved["checkpoint"]["every"], "total_steps": resolved["budget"]["total_steps"],
            "seed": resolved["seed"], "raw": resolved}


def _table_dmc(resolved: dict[str, Any], source: str) -> TableDmcConfig:
    return TableDmcConfig(dmc=DmcSettings(**resolved["dmc"]), **_table_sections(resolved, "dmc", source))


def _table_ppo(resolved: dict[str, Any], source: str) -> TablePpoConfig:
    ppo, anchor = resolved["ppo"], resolved["anchor"]
    if anchor["coef"] > 0 and anchor["bot"] == "none":
        raise ConfigFileError(f"{source}: anchor.coef: {anchor['coef']} needs anchor.bot; allowed values: heuristic, belief")
    imitation = resolved["imitation"]
    if imitation["decisions"] > 0 and anchor["bot"] == "none":
        raise ConfigFileError(f"{source}: imitation.decisions: {imitation['decisions']} imitates anchor.bot, which is "
                              f"none; allowed values: heuristic, belief")
    return TablePpoConfig(
        ppo=TablePpoSettings(**ppo),
        anchor=AnchorSettings(anchor["bot"], float(anchor["coef"]), anchor["anneal_steps"]),
        imitation=ImitationSettings(imitation["decisions"], imitation["epochs"], float(imitation["learning_rate"])),
        **_table_sections(resolved, "ppo", source))


# PPO defaults of a learner that has no config of its own (the exploit responder)
DEFAULT_ALGORITHM = AlgorithmSettings(**DEFAULTS["algorithm"])
DEFAULT_NETWORK = NetworkSettings(tuple(DEFAULTS["network"]["hidden"]), DEFAULTS["network"]["activation"])
DEFAULT_ENVS = EnvSettings(**DEFAULTS["envs"])


def read_exploit_settings(path: Path) -> ExploitSettings:
    """The settings an exploit run folder's ``exploit.json`` holds."""
    return ExploitSettings(**json.loads(Path(path).read_text()))


def __getattr__(name: str) -> Any:
    """``SCHEMA`` and the game tables, computed when asked (see :func:`selfplay_schema`)."""
    if name == "SCHEMA":
        return selfplay_schema()
    if name in _TABLES:
        return _TABLES[name]()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
