"""Write the documentation's generated tables from the code they describe.

The pages under ``docs/`` include these files (``docs/_generated/*.md``) with
``--8<-- "docs/_generated/NAME.md"``, so a table that says what the code does is never typed by
hand: the observation layouts come from each game's ``Observer.describe_markdown()``, the action
lists from ``action_to_string``, the spaces from the environments themselves, the config reference
from the training config schema (``club_envs.training.config.SCHEMA`` and ``DEFAULTS``) and the command
reference from the ``club-envs`` argument parser.

    python docs/gen_pages.py           # rewrite every generated file
    python docs/gen_pages.py --check   # exit 1 naming each file that is out of date

The test suite runs the check (``tests/docs/test_generated_pages.py``), so a change to the code
that changes a table fails ``make test`` until the pages are regenerated.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "docs" / "_generated"
if str(ROOT) not in sys.path:  # run as a script from anywhere: the repository's packages first
    sys.path.insert(0, str(ROOT))

# What each training config key means. Types, allowed values and defaults are read from the
# schema; only the prose lives here, and a test fails when a schema key has no entry (or an entry
# names a key the schema no longer has).
CONFIG_MEANINGS: dict[str, str] = {
    "game.name": "the game to train",
    "game.num_players": "a player count or a list of them; with a list each episode draws one, so one policy "
    "learns every count (the observation has one size for every count)",
    "game.options": "options of the game's Gymnasium view, e.g. `reward_mode`, `heat_shaping` (Members Only), "
    "`insanity_penalty` (Arkham); checked by building the environment before training starts",
    "algorithm.name": "sb3-contrib's PPO with invalid-action masking",
    "algorithm.learning_rate": "Adam step size",
    "algorithm.n_steps": "steps per environment in one rollout (stable-baselines3 backend)",
    "algorithm.batch_size": "PPO minibatch; at most `n_steps` × `envs.n_envs` (RLlib: at most `rllib.train_batch_size`)",
    "algorithm.n_epochs": "passes over each rollout",
    "algorithm.gamma": "discount factor",
    "algorithm.gae_lambda": "GAE λ",
    "algorithm.clip_range": "PPO clipping ε",
    "algorithm.ent_coef": "entropy bonus weight",
    "algorithm.vf_coef": "value-loss weight",
    "algorithm.max_grad_norm": "gradient-norm clip",
    "algorithm.update_threads": "torch threads during PPO's updates (stable-baselines3 backend; rollouts keep one): "
    "2 makes the updates about 1.6x faster on an otherwise idle 2-core machine; keep 1 on a machine busy with "
    "other work. Runs repeat exactly with the same value; another value changes the weights' last bits",
    "algorithm.critic": "what the critic reads: `observation` (the seat's inputs, like the actor) or `privileged` "
    "(those and the hidden state: every hand, the Black Man, the true grimoire; training only, the actor and the "
    "exported policy never see it). stable-baselines3 backend; with `pretrain.games` it needs "
    "`pretrain.critic_steps` (the critic learns on the training games after the actor's imitation)",
    "algorithm.overlap": "play the next rollout while the update runs in a second thread (the rollout one update "
    "behind the learner; stable-baselines3 backend, `update_threads: 1`): about 1.5x the learner steps on a 2-core "
    "machine with a free core; runs repeat; checkpoints resume with either value",
    "algorithm.precision": "the actor's and critic's hidden layers' arithmetic: `bfloat16` runs their matrix products "
    "under CPU autocast (weights, heads, checkpoints and exported policies stay float32; stable-baselines3 backend): "
    "2.5x the update's ceiling for a 256 x 256 network on a CPU with AMX or AVX512-BF16 instructions, slower than "
    "float32 on one without; runs repeat; checkpoints resume with either value",
    "network.hidden": "layer sizes of the actor's MLP and of the critic's (separate networks)",
    "network.activation": "activation between the layers",
    "network.features": "extra policy inputs computed from the seat's own observation (e.g. each Members Only "
    "bet's chance of being right); `none` feeds the raw observation. The exported policy file names them, "
    "so every player of the agent computes the same inputs",
    "envs.n_envs": "parallel environments per learner",
    "envs.subprocess": "`true` runs each environment in its own process (`SubprocVecEnv`)",
    "envs.batched": "`true`: the games of a side stepped together (in this process, or split over `workers`), "
    "the opponents' decisions answered by one "
    "batched forward pass per frozen policy (same results, faster); `false`: one game after another "
    "(`DummyVecEnv`); ignored with `subprocess: true`",
    "envs.workers": "with `batched: true`: the games split over this many worker processes, each batching "
    "its share (`WorkerVecEnv`); 2 uses both cores of a 2-core machine for the games. The same config "
    "repeats exactly; with another worker count an opponent's sampled move may rarely differ (the last bits "
    "of batched logits)",
    "envs.engine": "which engine plays the training games: `auto` -- the batched engine (all games in arrays, "
    "compiled; [Engines](training.md#engines)) when it can play everything the config asks for, else the one-game "
    "environments, the run saying which and why; `vector` -- the batched engine or a config error naming what it "
    "cannot play; `reference` -- the one-game environments (`batched`, `workers`, `subprocess` apply there). "
    "A run keeps the engine it started with",
    "selfplay.scheme": "how opponents are drawn from the snapshots: `latest`, `uniform`, `recent`, `loss` "
    "(see [Self-play](training.md#self-play))",
    "selfplay.snapshot_every": "steps between frozen copies of the learner",
    "selfplay.pool_size": "snapshots kept (the newest)",
    "selfplay.bots": "baseline bots in the opponent pool",
    "selfplay.bot_share": "the bots' joint share of the opponent draws",
    "selfplay.phase_steps": "Arkham: steps one side learns before the other side's turn",
    "pretrain.games": "warm start: bot games to imitate before self-play (0: no warm start)",
    "pretrain.imitate": "whose decisions are imitated: a bot of the game, or a shipped agent that plays the imitating sides' roles (the other side's seats are then the heuristic); or a mapping side -> such a name (sides not named imitate the heuristic)",
    "pretrain.epochs": "passes over the imitation data",
    "pretrain.learning_rate": "step size of the imitation fit",
    "pretrain.critic_steps": "after the warm start, environment steps in which PPO trains the critic alone "
    "(the actor frozen) on the imitated policy's own returns, so the first updates do not undo the imitation; "
    "0: off (the imitation fit then also fits the critic to the bot games' outcomes)",
    "pretrain.batch_size": "minibatch of the imitation fit",
    "pretrain.lr_decay": "the imitation fit's learning rate is multiplied by this after every epoch (1: constant)",
    "pretrain.validation_share": "share of the imitation games (whole games) kept out of the fit; after every epoch the "
    "copy's agreement with the teacher on them is logged (`pretrain/validation_agreement`); 0: none",
    "pretrain.from_policy": "side -> a shipped network agent or a policy file the side's learner starts as (its actor "
    "copied; the config's network must match it; `critic_steps` fits the critic first; the other sides imitate "
    "when `pretrain.games` > 0); empty: none",
    "anchor.coef": "weight of KL(policy || start) in the PPO loss, the start being the policy the side began self-play as "
    "(the imitated copy or `pretrain.from_policy`; kept in the run's `anchor/`); it rides on the entropy term, so "
    "`algorithm.ent_coef` must be > 0; 0: off ([Training](training.md#a-pull-towards-the-start-anchor))",
    "anchor.anneal_steps": "the weight falls linearly to 0 over these many of the side's steps; 0: it stays `coef`",
    "anchor.sides": "the sides pulled (each needs a start: imitation or `pretrain.from_policy`); empty: every side",
    "evaluation.every": "steps between evaluations, at every configured player count; the best is exported to `best/`",
    "evaluation.games": "games per evaluation and opponent (0: no evaluation)",
    "evaluation.opponents": "bots the learner is evaluated against",
    "evaluation.greedy": "the learner plays its most probable action during evaluation",
    "evaluation.watch": "agents also played at every evaluation, for the learning curve only (`evaluations.csv`, "
    "`club-envs curves`): the best policy is picked by `opponents` alone, so held-out bots and shipped agents of the "
    "game may be watched (in Arkham, agents that play the other side of every side: bots, `arkham_selfplay`, "
    "`arkham_neural`, ...); empty: none",
    "checkpoint.every": "steps between checkpoints",
    "budget.total_steps": "environment steps of all sides together",
    "seed": "seeds torch, numpy, the environments and the pool draws",
    "backend": "`sb3` (stable-baselines3 / sb3-contrib) or `rllib` (Ray RLlib, see [Ray RLlib](rllib.md))",
    "rllib.address": "`local`: start Ray on this machine; otherwise a running cluster's head, `HOST:6379`, "
    "or `auto` on one of its nodes",
    "rllib.num_cpus": "CPUs a local Ray may use (ignored when joining a cluster)",
    "rllib.num_env_runners": "environment runners (Ray actors, one CPU each); `0` samples in the driver; "
    "locally at most `num_cpus`",
    "rllib.num_envs_per_env_runner": "games each runner plays at once; their decisions go through the network as one batch",
    "rllib.rollout_fragment_length": "steps per game a runner hands in at a time (`auto`: "
    "`train_batch_size / (runners × games per runner)`)",
    "rllib.train_batch_size": "environment steps per PPO update",
    "rllib.self_play_share": "chance that an opponent seat is played by the learner itself rather than a snapshot",
}


def _code(value: Any) -> str:
    if value is None:
        return "`null`"
    if isinstance(value, bool):
        return f"`{str(value).lower()}`"
    if isinstance(value, float):
        return f"`{value:g}`"
    if isinstance(value, (list, tuple)):
        return "`[" + ", ".join(str(v) for v in value) + "]`"
    if isinstance(value, Mapping):
        return "`{}`" if not value else f"`{dict(value)}`"
    return f"`{value}`"


def _bounds(node: Mapping[str, Any]) -> str:
    parts = []
    if "minimum" in node:
        parts.append(f"≥ {node['minimum']}")
    if "exclusiveMinimum" in node:
        parts.append(f"> {node['exclusiveMinimum']}")
    if "maximum" in node:
        parts.append(f"≤ {node['maximum']}")
    return ", ".join(parts)


def _allowed(node: Mapping[str, Any]) -> str:
    """What a schema node accepts, in words."""
    if "enum" in node:
        return ", ".join(_code(v) for v in node["enum"])
    kind = node.get("type")
    if kind == ["integer", "string"] and node.get("pattern") == "^auto$":
        return f"integer {_bounds(node)} or `auto`"
    if kind == "array":
        items = node.get("items", {})
        inner = ", ".join(_code(v) for v in items["enum"]) if "enum" in items else _allowed(items)
        size = ""
        if "minItems" in node and "maxItems" in node:
            size = f", {node['minItems']} to {node['maxItems']} of them"
        elif node.get("minItems"):
            size = f", at least {node['minItems']}"
        return f"list of {inner}{size}"
    if kind == "object":
        return "mapping"
    if isinstance(kind, list) and "null" in kind and len(kind) == 2:  # a value or nothing
        (other,) = [k for k in kind if k != "null"]
        return f"{_allowed({**node, 'type': other})} or `null`"
    if kind in ("integer", "number"):
        bounds = _bounds(node)
        return f"{kind} {bounds}".strip() if bounds else kind
    if kind == "string":
        return "text"
    if kind == "boolean":
        return "`true`, `false`"
    return "see meaning"


def _leaves(schema: Mapping[str, Any], prefix: str = "") -> list[tuple[str, Mapping[str, Any]]]:
    out: list[tuple[str, Mapping[str, Any]]] = []
    for name, node in schema.get("properties", {}).items():
        key = f"{prefix}{name}"
        if node.get("type") == "object" and "properties" in node:
            out.extend(_leaves(node, key + "."))
        else:
            out.append((key, node))
    return out


def config_keys() -> list[tuple[str, Mapping[str, Any]]]:
    """Every key of the training config schema, dotted, in schema order."""
    from club_envs.training.config import SCHEMA

    return _leaves(SCHEMA)


def _default(key: str) -> str:
    from club_envs.training.config import DEFAULTS, SCHEMA
    from club_envs.training.rllib_backend.options import BACKENDS, RLLIB_DEFAULTS

    section, _, name = key.partition(".")
    if name and name in SCHEMA["properties"][section].get("required", ()):
        return "(required)"
    if key == "backend":
        return _code(BACKENDS[0])
    if key.startswith("rllib."):
        return _code(RLLIB_DEFAULTS[key.split(".", 1)[1]])
    value: Any = DEFAULTS
    for part in key.split("."):
        value = value[part]
    return _code(value)


# The ``table_ppo`` recipe's keys (club_envs.training.config.TABLE_PPO_SCHEMA), as for the self-play keys.
TABLE_PPO_MEANINGS: dict[str, str] = {
    "recipe": "`table_ppo`: this recipe",
    "game.name": "the game (one with a batched multi-agent engine)",
    "game.num_players": "a player count or a list of them; the games are split over the sizes",
    "game.options": "rules and reward options of the batched game (`reward_mode`, `heat_shaping`, `max_heats`, ...)",
    "ppo.games": "games stepped together (split over the table sizes)",
    "ppo.steps": "moves of every game per rollout; the learner's decisions among them are the samples",
    "ppo.learning_rate": "Adam step size",
    "ppo.epochs": "passes over each rollout",
    "ppo.minibatch": "decisions per gradient step",
    "ppo.gamma": "discount per own decision",
    "ppo.gae_lambda": "GAE λ along each seat's chain of decisions",
    "ppo.clip": "PPO clipping ε",
    "ppo.entropy": "entropy bonus weight",
    "ppo.value_coef": "value-loss weight",
    "ppo.max_grad_norm": "gradient-norm clip",
    "ppo.critic": "`observation` or `privileged` (the critic also reads every hand, discard and the cards out of play)",
    "ppo.threads": "torch threads (rollout and update)",
    "network.hidden": "layer sizes of the actor's MLP and of the critic's",
    "network.activation": "activation between the layers",
    "network.features": "the actor's extra inputs, computed from the seat's view on the batched engine",
    "league.share": "share of games in which the learner holds one seat and league members the others "
    "(the rest: the learner in every seat)",
    "league.snapshot_every": "learner decisions between frozen snapshots",
    "league.pool_size": "snapshots kept (the newest); drawn as the stable-baselines3 trainer's `loss` scheme draws",
    "league.bots": "bots among the league's members (played in compiled code)",
    "league.bot_share": "the bots' joint share of the league's draws",
    "anchor.bot": "whose choices the anchor pulls towards: `heuristic` (the exact bot), `belief` (the heuristic's "
    "rule on the frozen belief model the `members_only_belief_inputs` read) or `none`",
    "anchor.coef": "weight of the cross-entropy to the anchor bot's choice at the start",
    "ppo.overlap": "play the next rollout while the update runs, in a second thread (one update of lag, as "
                   "asynchronous PPO has): an iteration then takes about the longer of the two instead of their sum",
    "ppo.precision": "the hidden layers' arithmetic: `bfloat16` runs their matrix products under CPU autocast "
                     "(weights, optimiser, logits, values and exported policies stay float32): 1.5x the learner "
                     "decisions per second of a 256-wide network on a CPU with AMX or AVX512-BF16 instructions, "
                     "slower than float32 on one without (a warning says so)",
    "ppo.learning_rate_final": "`null`: Adam's step size stays `ppo.learning_rate`; a number: it moves linearly "
                               "from `ppo.learning_rate` at the first learner decision to this at "
                               "`budget.total_steps` (by decisions done, so a resumed run goes on along the line)",
    "anchor.anneal_steps": "learner decisions over which that weight falls linearly to 0 (0: it stays)",
    "imitation.decisions": "decisions of a warm start before PPO in which the learner's seats play `anchor.bot`'s "
                           "choices and the actor is fitted to them, the critic to their returns (0: none); counted "
                           "apart from `budget.total_steps`",
    "imitation.epochs": "passes over each imitation rollout",
    "imitation.learning_rate": "Adam's step size during the imitation (PPO's `ppo.learning_rate` after it)",
    "evaluation.every": "learner decisions between evaluations (on the batched engine); the best goes to `best/`",
    "evaluation.games": "games per evaluation, opponent and table size (0: none)",
    "evaluation.opponents": "bots the policy is evaluated against",
    "evaluation.greedy": "the policy plays its most probable action in evaluation",
    "evaluation.watch": "agents also played at every evaluation, for the learning curve only (`evaluations.csv`, "
                        "`club-envs curves`): held-out bots and the game's shipped agents allowed, since `best/` is "
                        "picked by `opponents` alone; on the batched engine wherever it seats them (the belief "
                        "agents, policies); empty: none",
    "exploiters.every": "learner decisions between two exploiters joining the league (0: none): each a best "
                        "responder trained against the policy as it is then",
    "exploiters.steps": "each exploiter's training steps (the `club-envs exploit` trainer, on the batched engine)",
    "exploiters.warm_start": "the bot an exploiter imitates before its training (`none`: from scratch; `policy`: "
                             "a copy of the policy it hunts)",
    "checkpoint.every": "learner decisions between checkpoints",
    "budget.total_steps": "learner decisions to train for",
    "seed": "seeds torch, numpy, the tables and the league draws",
}


# The ``table_dmc`` recipe's own keys; the keys it shares with ``table_ppo`` mean what they mean there.
TABLE_DMC_MEANINGS: dict[str, str] = {
    **{k: v for k, v in TABLE_PPO_MEANINGS.items() if not k.startswith(("ppo.", "anchor.", "imitation."))},
    **{f"dmc.{k}": TABLE_PPO_MEANINGS[f"ppo.{k}"] for k in ("games", "learning_rate", "max_grad_norm", "threads")},
    "recipe": "`table_dmc`: this recipe",
    "dmc.steps": "moves of every game between two updates; the update fits the decisions whose games ended",
    "dmc.epochs": "passes over the decisions whose games ended since the last update",
    "dmc.minibatch": "decisions per gradient step",
    "dmc.overlap": "play on while the update runs, in a second thread (one update of lag)",
    "dmc.epsilon": "share of the learner's decisions played uniformly among the legal actions (the rest: highest Q)",
    "dmc.temperature": "the exported policy's logits are Q divided by it (snapshots sample from them; greedy "
                       "play takes the highest Q whatever it is)",
    "dmc.action_hidden": "width of the action tower's hidden layer (over the action features)",
    "network.hidden": "layer sizes of the state tower (the exported policy's body)",
}


def table_reference(schema: Mapping[str, Any], defaults: Mapping[str, Any], meanings: Mapping[str, str]) -> str:
    """The table of every key of a table recipe (``table_ppo``, ``table_dmc``)."""
    rows = ["| key | default | allowed | meaning |", "|---|---|---|---|"]
    for key, node in _leaves(schema):
        value: Any = defaults
        for part in key.split("."):
            value = value.get(part, "(required)") if isinstance(value, dict) else value
        default = "(required)" if key == "recipe" else _code(value)
        rows.append(f"| `{key}` | {default} | {_allowed(node)} | {meanings.get(key, '')} |")
    return "\n".join(rows)


def table_ppo_reference() -> str:
    """The table of every ``table_ppo`` config key."""
    from club_envs.training.config import TABLE_PPO_DEFAULTS, TABLE_PPO_SCHEMA

    return table_reference(TABLE_PPO_SCHEMA, TABLE_PPO_DEFAULTS, TABLE_PPO_MEANINGS)


def table_dmc_reference() -> str:
    """The table of every ``table_dmc`` config key."""
    from club_envs.training.config import TABLE_DMC_DEFAULTS, TABLE_DMC_SCHEMA

    return table_reference(TABLE_DMC_SCHEMA, TABLE_DMC_DEFAULTS, TABLE_DMC_MEANINGS)


def config_reference(prefix: str = "") -> str:
    """The table of every config key (or of those starting with ``prefix``)."""
    from club_envs.training.config import GAMES

    rows = ["| key | default | allowed | meaning |", "|---|---|---|---|"]
    for key, node in config_keys():
        if not key.startswith(prefix):
            continue
        allowed = _allowed(node)
        if key == "game.num_players":
            allowed = "; ".join(f"{game}: " + ", ".join(map(str, counts)) for game, counts in GAMES.items()) + \
                " (or a list of them)"
        meaning = CONFIG_MEANINGS.get(key, "")
        rows.append(f"| `{key}` | {_default(key)} | {allowed} | {meaning} |")
    return "\n".join(rows)


def _observation_table(game: str) -> str:
    if game == "members_only":
        from club_envs.members_only.observer import Observer
    else:
        from club_envs.arkham_decoders.observer import Observer
    return Observer.describe_markdown()


def _action_list(game: str) -> str:
    if game == "members_only":
        from club_envs.members_only.actions import NUM_ACTIONS, action_to_string
    else:
        from club_envs.arkham_decoders.actions import NUM_ACTIONS, action_to_string
    rows = ["| id | action | id | action | id | action |", "|---|---|---|---|---|---|"]
    per_column = -(-NUM_ACTIONS // 3)
    for r in range(per_column):
        cells = []
        for c in range(3):
            a = c * per_column + r
            cells += [str(a), f"`{action_to_string(a)}`"] if a < NUM_ACTIONS else ["", ""]
        rows.append("| " + " | ".join(cells) + " |")
    return "\n".join(rows)


def _spaces(game: str) -> str:
    """The environments' identities and spaces, read from live instances."""
    import gymnasium

    import club_envs  # noqa: F401  (registers the environments)
    from club_envs import arkham_decoders_v0, members_only_v0

    module, aec_id, gym_id, counts = {
        "members_only": (members_only_v0, "club_envs/members_only-v0", "club_envs/MembersOnly-v0", (3, 4, 5)),
        "arkham_decoders": (arkham_decoders_v0, "club_envs/arkham_decoders-v0", "club_envs/ArkhamDecoders-v0", (4, 5, 6)),
    }[game]
    sizes = set()
    for n in counts:
        env = module.env(num_players=n)
        env.reset(seed=0)
        agent = env.possible_agents[0]
        sizes.add((env.observation_space(agent)["observation"].shape, env.action_space(agent).n,
                   env.unwrapped.state().shape))
        meta = env.metadata
        env.close()
    assert len(sizes) == 1, f"{game}: spaces differ between player counts: {sizes}"
    (obs_shape, n_actions, state_shape), = sizes
    gym_env = gymnasium.make(gym_id)
    gym_obs = gym_env.observation_space
    gym_env.close()
    rows = [
        "| | |", "|---|---|",
        f"| PettingZoo AEC | `{module.__name__}.env(num_players=...)`, `pettingzoo.make(\"aec\", \"{aec_id}\")` |",
        f"| Gymnasium | `gymnasium.make(\"{gym_id}\")` |",
        f"| environment name | `{meta['name']}` |",
        f"| players | {', '.join(map(str, counts))} (agents `player_0` ... `player_{counts[-1] - 1}`) |",
        f"| observation (AEC) | `Dict(observation=Box(0, 1, {obs_shape}, float32), action_mask=Box(0, 1, ({n_actions},), int8))` |",
        f"| observation (Gymnasium) | `Box(0, 1, {gym_obs.shape}, float32)`; the mask is `action_masks()` and `info[\"action_mask\"]` |",
        f"| action space | `Discrete({n_actions})` |",
        f"| global state | `env.unwrapped.state()`: `float32{list(state_shape)}` |",
        f"| render modes | {', '.join(_code(m) for m in meta['render_modes'])} |",
        "| same spaces for every player count | yes (per-seat parts are padded) |",
    ]
    return "\n".join(rows)


def _cli_reference() -> str:
    """Every ``club-envs`` command with its options, from the parser itself."""
    from club_envs.cli import build_parser

    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))  # noqa: SLF001
    helps = {choice.dest: choice.help for choice in sub._choices_actions}  # noqa: SLF001
    out: list[str] = []
    for name, command in sub.choices.items():
        out.append(f"### `club-envs {name}`\n")
        if helps.get(name):
            out.append(f"{helps[name][0].upper()}{helps[name][1:]}.\n")
        out.append("| argument | meaning |")
        out.append("|---|---|")
        for action in command._actions:  # noqa: SLF001
            if isinstance(action, argparse._HelpAction):  # noqa: SLF001
                continue
            if action.option_strings:
                flag = ", ".join(action.option_strings)
                if action.nargs != 0:
                    flag += " " + (action.metavar or action.dest.upper())
            else:
                flag = action.metavar or action.dest.upper()
                if action.nargs == "?":
                    flag = f"[{flag}]"
                elif action.nargs in ("*", "+"):
                    flag = f"{flag} ..."
            text = (action.help or "").replace("|", "\\|").replace("\n", " ").replace("<", "&lt;").replace(">", "&gt;")
            if action.choices and "{" not in text and not isinstance(action.choices, range):
                text += f" (one of: {', '.join(map(str, action.choices))})"
            out.append(f"| `{flag}` | {text} |")
        out.append("")
    return "\n".join(out).rstrip() + "\n"


def _features() -> str:
    """The named policy inputs a config's ``network.features`` may choose."""
    from club_envs.agents import features

    rows = ["| `network.features` | game | inputs added to the observation |", "|---|---|---|",
            "| `none` | both | 0 (the raw observation) |"]
    for name in features.NAMES[1:]:
        f = features.get(name)
        rows.append(f"| `{name}` | {f.game} | {f.extra} (observation of {f.obs_size}) |")
    return "\n".join(rows)


def _agent_names() -> str:
    """The names every command and ``club_envs.agents.load`` accept, per game."""
    from club_envs.agents import registry
    from club_envs.games import load_game

    search = getattr(registry, "SEARCH_BOT", None)
    rows = ["| game | built-in bots | search agent | shipped trained agents |", "|---|---|---|---|"]
    for game, record_name in (("members_only", "members_only"), ("arkham_decoders", "arkham_decoders_club")):
        bots = ", ".join(f"`{b}`" for b in load_game(game).AGENT_NAMES)
        shipped = ", ".join(f"`{name}`" for name, (g, _) in registry.SHIPPED.items() if g == record_name)
        searcher = f"`{search}` (options after colons, see [Search](search.md))" if search else "none"
        rows.append(f"| {game} | {bots} | {searcher} | {shipped} |")
    return "\n".join(rows)


# What each extra of pyproject.toml is for; the packages are read from pyproject.toml itself.
EXTRA_USES: dict[str, str] = {
    "": "the environments, records, `simulate` and `evaluate` with the bots",
    "train": "self-play training, reading trained agents' policy files, `league` ratings",
    "play": "the terminal and browser game, studies, `report`",
    "dev": "the test suite, the sdist and wheel",
    "bench": "the peer environments of the benchmark",
    "rllib": "the [Ray RLlib](rllib.md) backend",
    "docs": "this site (`make docs`)",
    "all": "every extra above: what `make` installs",
}


def _requirement_name(requirement: str) -> str:
    return re.split(r"[<>=!~;\s]", requirement, maxsplit=1)[0]


def extras() -> dict[str, list[str]]:
    """Extra name (``""``: the base install) -> the packages it adds, from pyproject.toml."""
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    out = {"": [_requirement_name(r) for r in project["dependencies"]]}
    for name, requirements in project["optional-dependencies"].items():
        out[name] = list(dict.fromkeys(_requirement_name(r) for r in requirements))
    return out


def _extras_table() -> str:
    rows = ["| extra | what it adds | for |", "|---|---|---|"]
    for name, packages in extras().items():
        label = f"`{name}`" if name else "(none)"
        added = ", ".join(f"`{p}`" for p in packages)
        rows.append(f"| {label} | {added} | {EXTRA_USES.get(name, '')} |")
    return "\n".join(rows)


PAGES: dict[str, Callable[[], str]] = {
    "members_only_spaces.md": lambda: _spaces("members_only"),
    "members_only_observation.md": lambda: _observation_table("members_only"),
    "members_only_actions.md": lambda: _action_list("members_only"),
    "arkham_decoders_spaces.md": lambda: _spaces("arkham_decoders"),
    "arkham_decoders_observation.md": lambda: _observation_table("arkham_decoders"),
    "arkham_decoders_actions.md": lambda: _action_list("arkham_decoders"),
    "config_reference.md": config_reference,
    "config_reference_rllib.md": lambda: config_reference("rllib."),
    "table_ppo_reference.md": table_ppo_reference,
    "table_dmc_reference.md": table_dmc_reference,
    "policy_features.md": _features,
    "cli_reference.md": _cli_reference,
    "extras.md": _extras_table,
    "agent_names.md": _agent_names,
}


def render() -> dict[str, str]:
    """File name -> the text it should hold (each ends with one newline)."""
    return {name: build().rstrip("\n") + "\n" for name, build in PAGES.items()}


def stale(pages: Mapping[str, str] | None = None) -> list[str]:
    """Generated files whose content differs from what the code gives now (or that are missing)."""
    pages = render() if pages is None else pages
    return [name for name, text in pages.items()
            if not (OUT / name).is_file() or (OUT / name).read_text(encoding="utf-8") != text]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only report out-of-date files (exit 1 if any)")
    args = parser.parse_args(argv)
    pages = render()
    outdated = stale(pages)
    if args.check:
        for name in outdated:
            print(f"docs/_generated/{name} is out of date: run python docs/gen_pages.py", file=sys.stderr)
        return 1 if outdated else 0
    OUT.mkdir(parents=True, exist_ok=True)
    for name in outdated:
        (OUT / name).write_text(pages[name], encoding="utf-8")
        print(f"wrote docs/_generated/{name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
