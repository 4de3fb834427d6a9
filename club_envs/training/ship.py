"""Model cards: a trained policy shipped inside the package with its card, and the card kept up to date.

    club-envs ship RUN_DIR --side player --name members_only --eval results/*.json
    club-envs card members_only_belief runs/exploit-.../result.json --wall "3.1 h"

:func:`ship` copies ``RUN_DIR/best/<side>.pt`` (``policy.pt`` for Members Only; ``latest/`` with
``taken="latest"``: the run's last policy, when a rule fixed in advance rather than the run's own
evaluation picks the point to ship) to
``club_envs/agents/shipped/<name>.pt`` and writes ``<name>.json`` (the card's data) and
``<name>.md`` (the card for people): the resolved training config, the command, training time and
steps, and the evaluation figures read from ``club-envs evaluate --json`` files. A belief-iteration
run (:mod:`club_envs.training.belief`, or :mod:`club_envs.training.arkham_belief` for the Arkham
team; its ``best/belief.npz``) ships as ``<name>.npz`` the same way. :func:`record_in_card` puts a
later ``club-envs exploit`` result in a shipped agent's card. Both render the card with
:func:`render_card`, the one place a card's text comes from, so every card re-renders from its
``.json`` byte for byte.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import yaml

from club_envs.agents.policy import load_policy_file, save_policy
from club_envs.agents.registry import SHIPPED_DIR
from club_envs.games import get_spec
from club_envs.training.curves import plot as plot_curve


TAKEN = ("best", "latest")


def ship(run_dir: Path, side: str, name: str, evaluations: Sequence[Path] = (), command: str | None = None,
         greedy: bool = False, notes: str = "", exploit: Sequence[Path] = (), taken: str = "best",
         temper: float | None = None) -> list[Path]:
    """Ship ``run_dir``'s best policy (or belief model) as ``name`` with its model card; the files
    written for the agent to load (the weights, and a self-play Arkham run's Black Man beside them).
    ``evaluations`` are ``club-envs evaluate --json`` files, ``exploit`` ``club-envs exploit``
    results against these weights; ``command`` is the training command the card quotes (default:
    from the config name); a ``greedy`` agent takes its most probable action by default. ``taken``
    is ``best`` (the policy the run's evaluation kept) or ``latest`` (its last policy: the run's own
    evaluation did not choose it, so figures measured on it are not selected by the run). ``temper``
    (belief runs only) scales the learned belief's logits before shipping
    (:meth:`club_envs.agents.belief_file.BeliefMLP.tempered`); the card records the factor."""
    run_dir = Path(run_dir)
    if taken not in TAKEN:
        raise ValueError(f"ship: taken must be one of {', '.join(TAKEN)}, not {taken!r}")
    if (run_dir / "best" / "belief.npz").is_file():
        if taken != "best":
            raise ValueError(f"ship: {run_dir} is a belief run; it ships its best/ model only (--policy best)")
        return ship_belief(run_dir, name, evaluations, command, notes, exploit, temper, side)
    if temper is not None:
        raise ValueError(f"ship: --temper scales a learned belief; {run_dir} is a policy run (no best/belief.npz)")

    src = run_dir / taken / ("policy.pt" if side == "player" else f"{side}.pt")
    if not src.is_file():
        sides = sorted(p.stem for p in (run_dir / taken).glob("*.pt")) if (run_dir / taken).is_dir() else []
        raise ValueError(f"ship: {run_dir} has no {taken}/{src.name}; "
                         + (f"its {taken}/ policies are for: {', '.join(sides)}" if sides else f"it has no {taken}/ folder"))
    net, meta = load_policy_file(src)  # refuse to ship what cannot be read back
    SHIPPED_DIR.mkdir(parents=True, exist_ok=True)
    import torch

    blob = torch.load(src, map_location="cpu", weights_only=True)
    meta = {**blob["meta"], "deterministic": greedy, "name": name}
    save_policy(SHIPPED_DIR / f"{name}.pt", blob["weights"], {k: v for k, v in meta.items() if k not in ("format", "version")})

    config = yaml.safe_load((run_dir / "config.yaml").read_text())
    summary = json.loads((run_dir / "summary.json").read_text()) if (run_dir / "summary.json").exists() else {}
    state = json.loads((run_dir / "state.json").read_text())
    config_name = run_dir.name.rsplit("-", 2)[0]
    command = command or f"club-envs train configs/{config_name}.yaml"
    evaluated, exploited = _read_all(evaluations), _read_exploits(exploit)
    curve = None
    if (run_dir / "evaluations.csv").is_file():  # the learning curve, beside the card
        curve = plot_curve(run_dir, SHIPPED_DIR / f"{name}_curve.png", title=name).name
    card = {
        "name": name, "game": meta["game"], "side": meta["side"], "roles": meta.get("roles"),
        "file": f"{name}.pt", "acting": "greedy (most probable legal action)" if greedy else
        "sampled from the masked action distribution", "obs_size": net.obs_size, "num_actions": net.num_actions,
        "network": {"hidden": meta["hidden"], "activation": meta["activation"]},
        "policy_steps": meta["steps"], "taken": taken, "run_steps": state["steps"], "imitated": state.get("imitated"),
        "imitation_only": bool(state.get("imitation_only")),
        "training_seconds": summary.get("seconds") or state.get("seconds"), "cpus": os.cpu_count(), "stopped_early": state_steps_short(state, config),
        "learning_curve": curve, "command": command, "config": config,
        "time_split": summary.get("time_split"), "evaluations": evaluated, "exploit": exploited, "notes": notes,
    }
    _write_card(SHIPPED_DIR, name, card)
    return [SHIPPED_DIR / f"{name}.pt"]


def ship_belief(run_dir: Path, name: str, evaluations: Sequence[Path] = (), command: str | None = None,
                notes: str = "", exploit: Sequence[Path] = (), temper: float | None = None,
                side: str | None = None) -> list[Path]:
    """Ship a belief-iteration run's best model: Members Only (:mod:`club_envs.training.belief`) or
    the Arkham team (:mod:`club_envs.training.arkham_belief`), as the belief file's meta names;
    with ``temper``, its logits scaled by that factor (a self-play run's Black Man is unchanged).
    An Arkham run that learned a Black Man too (``best/black_man.npz``) ships both sides with
    ``side`` ``both`` (or ``None``), its team belief alone with ``team``."""
    from club_envs.agents.belief_file import file_game
    from club_envs.arkham_decoders import belief_model as arkham_belief_model
    from club_envs.members_only import belief_model as members_only_belief_model

    source = run_dir / "best" / "belief.npz"
    arkham = file_game(source) == arkham_belief_model.GAME_NAME  # an unreadable file: its loader says why
    module = arkham_belief_model if arkham else members_only_belief_model
    model = module.BeliefModel.load(source)  # refuse to ship what cannot be read back
    if temper is not None:
        model = model.tempered(temper)
    sides = ("both", "team") if arkham else ("player",)
    if side is not None and side not in sides:
        raise ValueError(f"ship: {'an Arkham' if arkham else 'a Members Only'} belief run ships side "
                         f"{' or '.join(sides)}, not {side!r}")
    if side == "both" and not (run_dir / "best" / "black_man.npz").is_file():
        raise ValueError(f"ship: {run_dir} learned no Black Man (no best/black_man.npz); ship its team with --side team")
    black_man = None
    if arkham and side != "team" and (run_dir / "best" / "black_man.npz").is_file():  # both sides
        from club_envs.arkham_decoders.vote_value import VoteValueModel

        black_man = VoteValueModel.load(run_dir / "best" / "black_man.npz")
    SHIPPED_DIR.mkdir(parents=True, exist_ok=True)
    model.save(SHIPPED_DIR / f"{name}.npz", {"name": name})
    if black_man is not None:
        black_man.save(SHIPPED_DIR / f"{name}_black_man.npz", {"name": name})
    config = yaml.safe_load((run_dir / "config.yaml").read_text())
    state = json.loads((run_dir / "state.json").read_text())
    config_name = run_dir.name.rsplit("-", 2)[0]
    curve = plot_curve(run_dir, SHIPPED_DIR / f"{name}_curve.png", title=name).name
    card = {
        "name": name, "kind": "belief", "game": "arkham_decoders" if arkham else "members_only",
        "side": ("both" if black_man is not None else "team") if arkham else "player",
        "roles": (["leader", "member", "investigator"] + (["black_man"] if black_man is not None else [])) if arkham else None,
        "file": f"{name}.npz", "acting": "deterministic (the heuristic's decision rule on the learned belief)",
        "black_man": None if black_man is None else {
            "file": f"{name}_black_man.npz", "generation": black_man.meta.get("generation"),
            "votes": black_man.meta.get("votes"), "obs_size": black_man.INPUT_SIZE,
            "hidden": [int(w.shape[0]) for w, _ in black_man.layers[:-1]],
            "acting": "deterministic (the vote with the higher learned chance of winning; oppose on a tie)"},
        "obs_size": module.INPUT_SIZE, "num_actions": module.OUTPUT_SIZE,
        "network": {"hidden": [int(w.shape[0]) for w, _ in model.layers[:-1]], "activation": "relu"},
        "generation": model.meta.get("generation"), "generations_run": state["generation"],
        "decisions": model.meta.get("decisions"), "run_decisions": state["decisions"],
        "training_seconds": state.get("seconds"), "cpus": os.cpu_count(),
        "stopped_early": state["generation"] < config["selfplay"]["generations"],
        "learning_curve": curve, "command": command or f"club-envs train configs/{config_name}.yaml",
        "config": config, "evaluations": _read_all(evaluations), "exploit": _read_exploits(exploit), "notes": notes,
    }
    if temper is not None:  # cards of untempered models keep their keys (and their text) unchanged
        card["tempered"] = model.meta["tempered"]
    _write_card(SHIPPED_DIR, name, card)
    return [SHIPPED_DIR / f"{name}.npz"] + ([SHIPPED_DIR / f"{name}_black_man.npz"] if black_man is not None else [])


def record_in_card(result: dict[str, Any], name: str, wall: str | None = None, note: str = "",
                   shipped_dir: Path | None = None) -> Path:
    """Put ``result`` in the shipped agent ``name``'s card (``<name>.json`` "exploit" list) and
    re-render ``<name>.md``. A result with the same settings replaces the older one; ``wall`` (the
    run's wall time) and ``note`` (how to read it) are shown with the table."""
    folder = Path(shipped_dir or SHIPPED_DIR)
    path = folder / f"{name}.json"
    if not path.is_file():
        raise FileNotFoundError(f"no model card {path}")
    card = json.loads(path.read_text())
    entry = _exploit_entry(result)
    if wall:
        entry["wall"] = wall
    if note:
        entry["note"] = note
    card["exploit"] = [run for run in card.get("exploit", []) if run["settings"] != result["settings"]] + [entry]
    _write_card(folder, name, card)
    return path


def _exploit_entry(result: dict[str, Any]) -> dict[str, Any]:
    """An exploit result as a card keeps it: without its run folder, a path on the machine that ran
    it (the card travels with the wheel; the settings and figures say what was measured)."""
    return {key: value for key, value in result.items() if key != "run_dir"}


def _read_exploits(paths: Sequence[Path]) -> list[dict[str, Any]]:
    """``club-envs exploit`` result files as a card keeps them (:func:`_exploit_entry`)."""
    return [_exploit_entry(result) for result in _read_all(paths)]


def _read_all(paths: Sequence[Path]) -> list:
    return [json.loads(Path(f).read_text()) for f in paths]


def _write_card(folder: Path, name: str, card: dict) -> None:
    """``<name>.json`` (the card's data) and ``<name>.md`` rendered from it."""
    (folder / f"{name}.json").write_text(json.dumps(card, indent=1))
    (folder / f"{name}.md").write_text(render_card(card))


def _belief_recipe(config: dict) -> str:
    """How a belief run's training games were seated: self-play, or with bots in a share of the seats."""
    selfplay = config.get("selfplay", {})
    if not selfplay.get("opponents") or not selfplay.get("opponent_share"):
        return "belief iteration, self-play"
    return (f"belief iteration; {selfplay['opponent_share']:.0%} of the training seats taken by "
            f"{', '.join(selfplay['opponents'])}, the rest self-play")


def _arkham_team_recipe(config: dict) -> str:
    """Whom an Arkham team belief run seated as the Black Man: one bot, or several cycled over the games."""
    opponents = config.get("selfplay", {}).get("opponents") or ["heuristic"]
    if len(opponents) == 1:
        return f"belief iteration against the {opponents[0]} Black Man"
    named = ["the run's own learned Black Man (`self`, refitted every generation)" if o == "self" else f"`{o}`"
             for o in opponents]
    return "belief iteration against Black Men cycled over the games: " + ", ".join(named)


def _ppo_recipe(config: dict, imitation_only: bool = False) -> str:
    """How a policy's run learned, in the card's words (``imitation_only``: the run's state.json says
    the critic warm-up spent its budget, so the policy is the imitated copy itself)."""
    if config.get("recipe") == "table_ppo":
        return "PPO on every seat of the table, club_envs/training/table_ppo.py"
    if config.get("recipe") == "table_dmc":
        return "Monte-Carlo Q learning with action features on every seat of the table, club_envs/training/table_dmc.py"
    pretrain = config.get("pretrain") or {}
    teacher = pretrain.get("imitate", "heuristic")
    teachers = teacher if isinstance(teacher, str) else ", ".join(f"{k}: {v}" for k, v in teacher.items())
    if imitation_only:
        return (f"imitation of {teachers} only, {pretrain['games']:,} games: the critic warm-up spent the budget, "
                "so no PPO update moved the actor")
    parts = ["MaskablePPO, self-play"]
    selfplay = config.get("selfplay") or {}
    if selfplay.get("bots") and selfplay.get("bot_share"):
        parts[0] += (f" against its snapshots and, in {selfplay['bot_share']:.0%} of the draws, "
                     f"{', '.join(selfplay['bots'])}")
    starts = pretrain.get("from_policy") or {}
    if starts:
        parts.append("started from " + ", ".join(f"{policy} ({side})" for side, policy in starts.items()))
    if pretrain.get("games"):
        parts.append(f"{'the other sides ' if starts else ''}started as an imitation of {teachers} "
                     f"({pretrain['games']:,} games)")
    pull = config.get("anchor") or {}
    if pull.get("coef") and pull.get("sides"):
        parts.append(f"a KL pull towards the start ({', '.join(pull['sides'])}; weight {pull['coef']:g}"
                     + (f", falling to 0 over {pull['anneal_steps']:,} of its steps" if pull.get("anneal_steps") else "") + ")")
    return "; ".join(parts)


def state_steps_short(state: dict, config: dict) -> bool:
    """Did the run stop before its budget (a stop, a kill, the end of the time available)?"""
    return sum(state.get("steps", {}).values()) < config.get("budget", {}).get("total_steps", 0)


_STOPPED_GENERATION = " (stopped before its last generation; `--resume` continues it)"
_ARKHAM_POSTERIOR = "a posterior over (which advisor is the Black Man) x (which book is true) from the seat's view"


def _mlp(inputs: int, hidden: list[int], outputs: int, activation: str = "relu") -> str:
    return f"MLP {inputs} -> {' -> '.join(map(str, hidden))} -> {outputs} ({activation})"


def _belief_file(card: dict) -> str:
    return (f"`{card['file']}` (numpy archive, read with `allow_pickle=False`): a belief model, "
            + _mlp(card["obs_size"], card["network"]["hidden"], card["num_actions"]))


def _wall_time(card: dict, stopped: str) -> str:
    """The card's training wall time and CPUs, with ``stopped`` appended for a run cut short."""
    if card["training_seconds"] is None:
        return "training wall time not recorded" + (stopped if card.get("stopped_early") else "")
    hours = card["training_seconds"] / 3600
    return (f"training wall time {hours:.2f} h on {card.get('cpus') or 2} CPU cores shared with other work"
            + (stopped if card.get("stopped_early") else ""))


_TAKEN_TEXT = {"best": " (the run's best by its training evaluation)",
               "latest": " (the run's last policy; the run's own evaluation did not choose it)"}


def render_card(card: dict) -> str:
    """The model card: its title, the facts of its kind of agent, then the sections all cards share."""
    facts = _card_facts(card)
    if card.get("tempered") is not None:  # before the last fact, how to load it
        facts.insert(len(facts) - 1, f"- tempered: the learned logits scaled by {card['tempered']:g} before they refine "
                     f"the hand-set prior (`club-envs ship --temper {card['tempered']:g}`): posterior = prior x "
                     f"exp({card['tempered']:g} x logits)")
    return "\n".join([f"# Model card: `{card['name']}`", "", *facts, ""] + _card_body(card))


def _card_facts(card: dict) -> list[str]:
    """The bullet list under a card's title: game and side, file, training, acting, loading."""
    by_role = card.get("kind") == "belief" and bool(get_spec(card["game"]).roles)  # the Arkham team's belief
    if by_role and card.get("black_man"):
        bm = card["black_man"]
        return [
            "- game: arkham_decoders; sides: both (the team's roles leader, member, investigator, and the Black Man; "
            "4-6 players), learned by self-play: no scripted bot at any training table",
            f"- team file: {_belief_file(card)}, {_ARKHAM_POSTERIOR}; the team roles play the `heuristic` team's "
            "rules on that belief",
            f"- Black Man file: `{bm['file']}`: a vote-value model, {_mlp(bm['obs_size'], bm['hidden'], 2)}, his "
            f"chance of winning after agree and after oppose; {bm['acting']}",
            f"- trained with: `{card['command']}` (self-play belief iteration, club_envs/training/arkham_belief.py); "
            f"team model of generation {card['generation']}, Black Man of generation {bm['generation']}, of "
            f"{card['generations_run']} run; the run played {card['run_decisions']:,} team decisions; "
            + _wall_time(card, _STOPPED_GENERATION),
            f"- load: `club_envs.agents.load({card['name']!r})` (every role)",
        ]
    if by_role:
        learned = (f"learned from {card['decisions']:,} team decisions of its games" if card.get("decisions")
                   else f"the run's generations played {card['run_decisions']:,} team decisions in all")
        return [
            "- game: arkham_decoders; side: team (roles: leader, member, investigator; 4-6 players); the Black Man "
            "is not covered: pair it with `heuristic` or `arkham_black_man`",
            f"- file: {_belief_file(card)}, {_ARKHAM_POSTERIOR}; the agent plays every team role with the "
            "`heuristic` team's rules on that belief",
            f"- trained with: `{card['command']}` ({_arkham_team_recipe(card['config'])}; "
            f"club_envs/training/arkham_belief.py); model of generation {card['generation']} of "
            f"{card['generations_run']} run, {learned}; " + _wall_time(card, _STOPPED_GENERATION),
            f"- acting: {card['acting']}",
            f"- load: `club_envs.agents.load({card['name']!r})`",
        ]
    if card.get("kind") == "belief":
        return [
            "- game: members_only; side: player (any seat, 3-5 players)",
            f"- file: {_belief_file(card)}, predicting per category what the other players will still add to the "
            "display; the agent decides with the `heuristic` bot's expected-value rule on that belief",
            f"- trained with: `{card['command']}` ({_belief_recipe(card['config'])}; club_envs/training/belief.py); "
            f"model of generation {card['generation']} of {card['generations_run']} run, learned from "
            f"{card['decisions']:,} decisions of its games; " + _wall_time(card, _STOPPED_GENERATION),
            f"- acting: {card['acting']}",
            f"- load: `club_envs.agents.load({card['name']!r})`",
        ]
    return [
        f"- game: {card['game']}; side: {card['side']}" + (f" (roles: {', '.join(card['roles'])})" if card["roles"] else ""),
        f"- file: `{card['file']}` (torch state dict, read with `weights_only=True`); network: "
        f"{_mlp(card['obs_size'], card['network']['hidden'], card['num_actions'], card['network']['activation'])}, "
        "masked softmax over legal actions",
        f"- trained with: `{card['command']}` ({_ppo_recipe(card['config'], card.get('imitation_only', False))}); policy taken at {card['policy_steps']:,} "
        f"of its side's steps{_TAKEN_TEXT.get(card.get('taken'), '')}; run steps: {', '.join(f'{k} {v:,}' for k, v in card['run_steps'].items())}"
        + (f" after {card['imitated']:,} decisions of imitation (not counted in the steps)" if card.get("imitated")
           else "") + "; "
        + _wall_time(card, f" (stopped before its budget of {card['config']['budget']['total_steps']:,} steps; "
                           "`--resume` continues it)" if card.get("stopped_early") else ""),
        f"- acting: {card['acting']} (override with the `:greedy` / `:sample` suffix)",
        f"- load: `club_envs.agents.load({card['name']!r})`",
    ]


def _card_body(card: dict) -> list[str]:
    """The sections every card shares: curve, evaluations, notes, exploitability, config."""
    lines: list[str] = []
    if card.get("learning_curve"):
        lines += ["## Learning curve", "", f"![learning curve]({card['learning_curve']})", "",
                  "Greedy evaluation games on a fixed seed series during training (95% Wilson intervals).", ""]
    lines += ["## Evaluation", ""]
    if not card["evaluations"]:
        lines += ["(none recorded)", ""]
    for ev in card["evaluations"]:
        if "pool" in ev:
            lines += _pool_table(ev)
            continue
        lines.append(f"`club-envs evaluate {ev['game']} --players {ev['players']} --agents {ev['agents_arg']} "
                     f"--games {ev['games']} --seed {ev['seed']}" + (f" --engine {ev['engine']}" if "engine" in ev else "")
                     + "`")
        lines.append("")
        lines.append("| agent | role | seats | win share | 95% interval | mean score |")
        lines.append("|---|---|---|---|---|---|")
        for row in ev["agents"] + ev.get("roles", []):
            lo, hi = row["win_share_95ci"]
            lines.append(f"| {row['agent']} | {row['role'] or 'all'} | {row['seats']} | {row['win_share']:.3f} | "
                         f"[{lo:.3f}, {hi:.3f}] | {row['mean_score']:.2f} |")
        lines.append("")
    if card["notes"]:
        lines += ["## Notes", "", card["notes"], ""]
    lines += render_exploitability(card)
    lines += ["## Training config (resolved)", "", "```yaml", yaml.safe_dump(card["config"], sort_keys=False).rstrip(), "```", ""]
    return lines


def _pool_table(ev: dict) -> list[str]:
    """A ``club-envs evaluate --pool`` result: the agent against each member, per side, beside the
    baseline in the same seats on the same deals with the paired interval of the gain."""
    rows = ev["rows"]
    games = ev.get("games", rows[0]["games"] if rows else 0)
    command = (f"club-envs evaluate {ev['game']} --players {ev['players']} --agents {ev['agent']} --pool {ev['pool']}"
               + (f" --members {','.join(ev['members'])}" if ev.get("members") else "")
               + (f" --baseline {ev['baseline']}" if ev.get("baseline") else "")
               + f" --games {games} --seed {ev['seed']}" + (f" --engine {ev['engine']}" if ev.get("engine") else ""))
    lines = [f"`{command}`", ""]
    if ev.get("baseline"):
        lines += [f"| opponent | side | games | win share | 95% interval | {ev['baseline']} (same seats, same deals) "
                  "| gain | paired 95% |", "|---|---|---|---|---|---|---|---|"]
    else:
        lines += ["| opponent | side | games | win share | 95% interval |", "|---|---|---|---|---|"]
    for row in rows:
        lo, hi = row["win_share_95ci"]
        line = (f"| {row['opponent']} | {row['side'] or 'any seat'} | {row['games']} | {row['win_share']:.3f} | "
                f"[{lo:.3f}, {hi:.3f}] |")
        if ev.get("baseline"):
            paired = row.get("gain_95ci")
            line += (f" {row['baseline_win_share']:.3f} | {row['gain']:+.3f} | "
                     + (f"[{paired[0]:+.3f}, {paired[1]:+.3f}] |" if paired else "- |"))
        lines.append(line)
    return lines + [""]


def render_exploitability(card: dict) -> list[str]:
    """The card's exploitability section from ``club-envs exploit`` results. Figures belong to the
    weights they were measured against: new weights shipped without them say so instead of
    keeping an older agent's figures. A warm-started run (``--warm-start``) also shows the
    responder right after imitation and what PPO added to it; a run may carry its ``wall`` time
    and a ``note`` (how to read it)."""
    lines = ["## Exploitability", ""]
    if not card.get("exploit"):
        return lines + ["Not measured for these weights: `club-envs exploit "
                        f"{card['name']} --game {card['game']} --players N` trains a best responder "
                        "against them (docs/search.md).", ""]
    lines += ["A best responder learned by MaskablePPO against this agent; a responder trained for a "
              "short budget gives only a **lower bound** on how exploitable an agent is.", ""]
    for run in card["exploit"]:
        s = run["settings"]
        warm = f" --warm-start {s['warm_start'] or 'none'}" if "warm_start" in s else ""
        lines += [f"`club-envs exploit {s['agent']} --game {s['game']} --players {s['players']} "
                  f"--steps {s['steps']} --eval-games {s['eval_games']} --seed {s['seed']}{warm}`", ""]
        if s.get("warm_start"):
            lines += [f"The responder first imitated `{s['warm_start']}` on its own seat or side (agreeing with "
                      "it on the share of decisions shown), then learned by PPO; *after imitation* is its win "
                      "share before PPO, *PPO gain* what PPO added to it.", ""]
        if run.get("wall"):
            lines += [f"Wall time: {run['wall']}.", ""]
        imitated = any("imitated" in r for r in run["results"])
        lines += ["| frozen agent | responder side | responder steps | responder wins [95% interval] | parity | gain |"
                  + (" after imitation [95% interval] (agreement) | PPO gain |" if imitated else ""),
                  "|---|---|---|---|---|---|" + ("---|---|" if imitated else "")]
        for r in run["results"]:
            rows = [r] + ([r["baseline"]] if r.get("baseline") else [])
            for row in rows:
                lo, hi = row["win_share_95ci"]
                line = (f"| {row['target']} | {r['side']} | {r['steps']:,} | {row['win_share']:.3f} "
                        f"[{lo:.3f}, {hi:.3f}] ({r['games']} games) | {row['parity']:.3f} | "
                        f"{row['gain_over_parity']:+.3f} |")
                if "imitated" in row:
                    im = row["imitated"]
                    line += (f" {im['win_share']:.3f} [{im['win_share_95ci'][0]:.3f}, {im['win_share_95ci'][1]:.3f}] "
                             f"({im['agreement']:.1%}) | {row['gain_over_imitation']:+.3f} |")
                lines.append(line)
        lines.append("")
        if run.get("note"):
            lines += [run["note"], ""]
    return lines
