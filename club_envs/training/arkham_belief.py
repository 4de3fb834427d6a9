"""Belief iteration for the Arkham team: learn, from finished games, to read the advisors' votes.

    club-envs train configs/arkham_team_belief.yaml      (the config's ``recipe`` picks this trainer)
    club-envs train --resume runs/arkham_team_belief-<stamp>
    python -m club_envs.training.arkham_belief --config configs/arkham_team_belief.yaml   (the same)

Why this recipe: the ``heuristic`` team decides everything from ``P(true book)``, which it reads
from the public votes with a hand-set vote model. The votes carry far more than that model
extracts, and the hidden truth (who is the Black Man, which book is true) is known once a game is
over, so the posterior can be learned by plain supervised learning. The agent
(:class:`~club_envs.arkham_decoders.belief_agent.BeliefAgent`) keeps the heuristic's rules on the
learned posterior (:class:`~club_envs.arkham_decoders.belief_model.BeliefModel`).

One generation:

1. **Play** ``selfplay.games`` games per table size: the current agent in every team seat, a Black
   Man from ``selfplay.opponents`` (cycled over the games). Generation 1 plays the untrained
   model, i.e. the heuristic team.
2. **Label** every team decision with a choice: the seat's inputs (built from its view only) and
   the true hypothesis (egocentric Black Man slot x true book) read from the finished game.
3. **Fit** the model (warm-started from the last generation) by cross-entropy on the examples of
   the last ``selfplay.window`` generations; a held-out share of the games (split by game)
   measures it against the hand-set belief (``progress.csv``, nats per decision).
4. **Evaluate** the team against each ``evaluation.opponents`` Black Man at every table size on a
   fixed seed series (``evaluations.csv`` in the common format, ``learning_curve.png``); the best
   generation by mean team win share is ``best/belief.npz``.

The run folder is resumable after any finished generation (``--resume``): ``config.yaml`` holds
the resolved config and ``state.json`` names the last generation; each generation's model and
examples are on disk. Same config and seed, same run.
"""

from __future__ import annotations

import shutil
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from club_envs.agents.base import Decision
from club_envs.arkham_decoders.belief_agent import BeliefAgent
from club_envs.arkham_decoders.belief_model import OUTPUT_SIZE, BeliefModel, advisor_slots, network_inputs
from club_envs.arkham_decoders.engine import State
from club_envs.arkham_decoders.match import agent_seeds
from club_envs.arkham_decoders.observer import Observer
from club_envs.arkham_decoders.rules import NUM_BOOKS, PLAYER_COUNTS, Config
from club_envs.training import config as configs
from club_envs.training import run_folder

RECIPE = "arkham_belief_iteration"
BOTS = ("heuristic", "random")  # the Black Men a config may name (the game's own bots)

SCHEMA: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "required": ["recipe"],
    "properties": {
        "recipe": {"enum": [RECIPE]},
        "game": {"type": "object", "additionalProperties": False, "properties": {
            "name": {"enum": ["arkham_decoders"]},
            "num_players": {"anyOf": [{"enum": list(PLAYER_COUNTS)},
                                      {"type": "array", "minItems": 1, "uniqueItems": True,
                                       "items": {"enum": list(PLAYER_COUNTS)}}]},
        }},
        "selfplay": {"type": "object", "additionalProperties": False, "properties": {
            "generations": {"type": "integer", "minimum": 1, "maximum": 1000},
            "games": {"type": "integer", "minimum": 1, "maximum": 1_000_000},
            "window": {"type": "integer", "minimum": 1, "maximum": 100},
            "opponents": {"type": "array", "minItems": 1, "items": {"enum": list(BOTS)}},
        }},
        "model": {"type": "object", "additionalProperties": False, "properties": {
            "hidden": {"type": "array", "minItems": 1, "maxItems": 6,
                       "items": {"type": "integer", "minimum": 1, "maximum": 4096}},
        }},
        "training": {"type": "object", "additionalProperties": False, "properties": {
            "learning_rate": {"type": "number", "exclusiveMinimum": 0, "maximum": 1},
            "batch_size": {"type": "integer", "minimum": 1, "maximum": 1_000_000},
            "epochs": {"type": "integer", "minimum": 1, "maximum": 1000},
            "validation_share": {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1},
        }},
        "evaluation": {"type": "object", "additionalProperties": False, "properties": {
            "games": {"type": "integer", "minimum": 0, "maximum": 1_000_000},
            "opponents": {"type": "array", "minItems": 1, "items": {"enum": list(BOTS)}},
            "seed": {"type": "integer", "minimum": 0, "maximum": 2**31 - 1},
        }},
        "seed": {"type": "integer", "minimum": 0, "maximum": 2**31 - 1},
    },
}
DEFAULTS: dict[str, Any] = {
    "game": {"name": "arkham_decoders", "num_players": list(PLAYER_COUNTS)},
    "selfplay": {"generations": 3, "games": 1500, "window": 2, "opponents": ["heuristic"]},
    "model": {"hidden": [128, 128]},
    "training": {"learning_rate": 1.0e-3, "batch_size": 1024, "epochs": 6, "validation_share": 0.2},
    "evaluation": {"games": 300, "opponents": ["heuristic"], "seed": 18},
    "seed": 0,
}
EVALUATION_COLUMNS = ["total_step", "side", "side_step", "opponent", "players", "games", "win_share", "ci_lo", "ci_hi"]


@dataclass(frozen=True)
class ArkhamBeliefConfig:
    """A checked Arkham belief-iteration config (see :data:`SCHEMA`; every key has a default)."""

    num_players: tuple[int, ...]
    generations: int
    games: int
    window: int
    opponents: tuple[str, ...]
    hidden: tuple[int, ...]
    learning_rate: float
    batch_size: int
    epochs: int
    validation_share: float
    eval_games: int
    eval_opponents: tuple[str, ...]
    eval_seed: int
    seed: int
    raw: Mapping[str, Any]  # the resolved config, as written to the run folder

    @classmethod
    def from_mapping(cls, raw: Any, source: str = "config") -> ArkhamBeliefConfig:
        cfg = configs.checked(raw, SCHEMA, DEFAULTS, source)
        sp, tr, ev = cfg["selfplay"], cfg["training"], cfg["evaluation"]
        players = cfg["game"]["num_players"]
        players = (players,) if isinstance(players, int) else tuple(players)
        return cls(players, sp["generations"], sp["games"], sp["window"], tuple(sp["opponents"]),
                   tuple(cfg["model"]["hidden"]), float(tr["learning_rate"]), tr["batch_size"], tr["epochs"],
                   float(tr["validation_share"]), ev["games"], tuple(ev["opponents"]), ev["seed"], cfg["seed"], cfg)

    @classmethod
    def load(cls, path: str | Path) -> ArkhamBeliefConfig:
        return cls.from_mapping(configs.read_yaml(path), source=str(path))


BLACK_MAN = "black_man"


def play_game(config: Config, team: BeliefAgent, black_man: Any, seed: int) -> tuple[list[np.ndarray], list, list[int], bool]:
    """One game: the observations, views and true hypotheses of every team decision with a choice,
    and whether the team won."""
    state = State(config, seed=seed)
    n = state.num_players
    agents = [black_man if seat == state.black_man_seat else team for seat in range(n)]
    for seat, (agent, agent_seed) in enumerate(zip(agents, agent_seeds(seed, n))):
        agent.reset(seat, agent_seed)
    observer = Observer(config)
    observations, views, labels = [], [], []
    while not state.is_terminal:
        seat = state.current_player
        view = state.player_view(seat)
        legal = state.legal_actions()
        observation = observer.observe(view)
        if seat != state.black_man_seat and len(legal) > 1:
            observations.append(observation)
            views.append(view)
            slot = advisor_slots(view).index(view.advisors.index(state.black_man_seat))
            labels.append(slot * NUM_BOOKS + state.true_book)
        action = agents[seat].act(Decision(seat, view, legal, lambda o=observation: o, state.legal_mask))
        state.apply_action(int(action))
    return observations, views, labels, state.result["winner"] == "team"


def play_generation(model: BeliefModel, cfg: ArkhamBeliefConfig, generation: int) -> dict[str, np.ndarray]:
    """Step 1-2: the labelled examples of one generation's games (inputs, prior, label, game)."""
    from club_envs.agents.registry import load as load_agent
    from club_envs.games import load_game

    game = load_game("arkham_decoders")
    team = BeliefAgent(model, name="belief")
    xs, priors, labels, games = [], [], [], []
    game_id = 0
    for n in cfg.num_players:
        config = Config(num_players=n)
        opponents = [load_agent(name, game=game, config=config, seed=cfg.seed) for name in cfg.opponents]
        for g in range(cfg.games):
            seed = (cfg.seed * 1_000_003 + generation) * 10_000_019 + n * 1_000_000 + g
            obs, views, ys, _ = play_game(config, team, opponents[g % len(opponents)], seed)
            if ys:
                x, p = network_inputs(np.stack(obs), views)
                xs.append(x)
                priors.append(p)
                labels.extend(ys)
                games.extend([game_id] * len(ys))
            game_id += 1
    return {"x": np.concatenate(xs), "prior": np.concatenate(priors), "label": np.array(labels, dtype=np.int64),
            "game": np.array(games, dtype=np.int64)}


def fit(model: BeliefModel, data: dict[str, np.ndarray], cfg: ArkhamBeliefConfig, generation: int) -> tuple[BeliefModel, dict[str, float]]:
    """Step 3: cross-entropy on the examples, warm-started from ``model``; held-out nats per decision
    of the hand-set belief and of the fitted model (joint over the 8 hypotheses, and of the true book)."""
    import torch

    torch.set_num_threads(1)
    torch.manual_seed(cfg.seed + generation)
    rng = np.random.default_rng(cfg.seed + generation)
    held_out = rng.random(int(data["game"].max()) + 1) < cfg.validation_share
    if not held_out.any() and len(held_out) > 1:  # a tiny run: still measure the fit on one game
        held_out[-1] = True
    val = held_out[data["game"]]
    train_rows, val_rows = np.flatnonzero(~val), np.flatnonzero(val)
    x = torch.from_numpy(data["x"])
    prior = torch.from_numpy(data["prior"])
    y = torch.from_numpy(data["label"])
    log_prior = torch.log(torch.clamp(prior, min=1e-300))  # float64: as exact as the product in combine
    allowed = prior > 0
    layers = []
    for i, (w, b) in enumerate(model.layers):
        lin = torch.nn.Linear(w.shape[1], w.shape[0])
        lin.weight.data = torch.from_numpy(w.copy())
        lin.bias.data = torch.from_numpy(b.copy())
        layers += [lin] if i == len(model.layers) - 1 else [lin, torch.nn.ReLU()]
    net = torch.nn.Sequential(*layers)
    opt = torch.optim.Adam(net.parameters(), lr=cfg.learning_rate, weight_decay=1e-5)

    def log_posterior(rows) -> torch.Tensor:
        z = torch.where(allowed[rows], log_prior[rows] + net(x[rows]).double(), torch.full((len(rows), OUTPUT_SIZE), -1e300,
                                                                                           dtype=torch.float64))
        return torch.log_softmax(z, dim=-1)

    def held_out_nats() -> tuple[float, float]:
        if not len(val_rows):
            return float("nan"), float("nan")
        with torch.no_grad():
            lp = torch.cat([log_posterior(val_rows[i:i + 8192]) for i in range(0, len(val_rows), 8192)])
        yv = y[val_rows]
        joint = -lp[torch.arange(len(yv)), yv].mean().item()
        book = lp.exp().view(-1, 2, NUM_BOOKS).sum(1)[torch.arange(len(yv)), yv % NUM_BOOKS]
        return joint, -torch.log(torch.clamp(book, min=1e-12)).mean().item()

    pv, yv = data["prior"][val_rows], data["label"][val_rows]
    prior_joint = float(-np.log(np.maximum(pv[np.arange(len(yv)), yv], 1e-12)).mean()) if len(yv) else float("nan")
    prior_book = (float(-np.log(np.maximum(pv.reshape(-1, 2, NUM_BOOKS).sum(1)[np.arange(len(yv)), yv % NUM_BOOKS], 1e-12)).mean())
                  if len(yv) else float("nan"))
    best = (*held_out_nats(), [(m.weight.detach().numpy().copy(), m.bias.detach().numpy().copy()) for m in net if isinstance(m, torch.nn.Linear)])
    for _ in range(cfg.epochs):
        order = rng.permutation(train_rows)
        for i in range(0, len(order), cfg.batch_size):
            rows = order[i:i + cfg.batch_size]
            loss = torch.nn.functional.nll_loss(log_posterior(rows), y[rows])
            opt.zero_grad()
            loss.backward()
            opt.step()
        joint, book = held_out_nats()
        if not len(val_rows) or joint < best[0]:  # nothing held out: the last epoch
            best = (joint, book, [(m.weight.detach().numpy().copy(), m.bias.detach().numpy().copy()) for m in net if isinstance(m, torch.nn.Linear)])
    fitted = BeliefModel(best[2], model.meta)
    return fitted, {"examples": len(train_rows), "held_out": len(val_rows), "prior_joint": prior_joint,
                    "prior_book": prior_book, "model_joint": best[0], "model_book": best[1]}


def evaluate(model: BeliefModel, cfg: ArkhamBeliefConfig) -> list[dict[str, Any]]:
    """Step 4: the team's win share (and its 95% Wilson interval) against each evaluation Black Man
    at every table size, on the fixed seed series ``evaluation.seed``: the same deals every generation."""
    from club_envs.evaluation import play_series
    from club_envs.stats import wilson_interval
    from club_envs.games import load_game

    game = load_game("arkham_decoders")
    rows = []
    if cfg.eval_games <= 0:
        return rows
    for n in cfg.num_players:
        config = Config(num_players=n)
        for opponent in cfg.eval_opponents:
            def make(name: str, seed: int | None) -> Any:
                if name == "__belief__":
                    return BeliefAgent(model, name="belief")
                from club_envs.agents.registry import load as load_agent

                return load_agent(name, game=game, config=config, seed=seed)

            roles = {"leader": "__belief__", "member": "__belief__", "investigator": "__belief__", BLACK_MAN: opponent}
            result = play_series(game, config, role_agents=roles, games=cfg.eval_games, seed=cfg.eval_seed, make=make,
                                 keep_records=True)
            wins = sum(rec["result"]["winner"] == "team" for rec in result.records)
            lo, hi = wilson_interval(wins, cfg.eval_games)
            rows.append({"players": n, "opponent": opponent, "games": cfg.eval_games, "win_share": wins / cfg.eval_games,
                         "ci_lo": lo, "ci_hi": hi})
    return rows


def run(config_path: Path | None = None, resume: Path | None = None, runs_dir: Path = Path("runs"),
        progress: bool = True) -> Path:
    # --- configuration, checked before anything else -----------------------------------------
    run_dir, cfg, state = run_folder.open_run(config_path, resume, runs_dir, ArkhamBeliefConfig.load,
                                              lambda c: dict(c.raw))
    say = print if progress else (lambda *a, **k: None)
    done = int(state.get("generation", 0))
    if done:
        model = BeliefModel.load(run_dir / f"gen_{done:03d}" / "belief.npz")
        say(f"resumed {run_dir} after generation {done}")
    else:
        model = BeliefModel.untrained(cfg.hidden, seed=cfg.seed)
    best = state.get("best", {"generation": 0, "score": -1.0})
    decisions = int(state.get("decisions", 0))
    elapsed = float(state.get("seconds", 0.0))
    started = time.time()
    for generation in range(done + 1, cfg.generations + 1):
        gen_dir = run_dir / f"gen_{generation:03d}"
        gen_dir.mkdir(exist_ok=True)
        start = time.time()
        data = play_generation(model, cfg, generation)  # after a stop mid-generation: the same games again
        np.savez_compressed(gen_dir / "examples.npz", **data)
        decisions += len(data["label"])
        window = [run_dir / f"gen_{g:03d}" / "examples.npz" for g in range(max(1, generation - cfg.window + 1), generation)]
        merged = _merge([dict(np.load(p)) for p in window if p.is_file()] + [data])
        played = time.time() - start
        model, stats = fit(model, merged, cfg, generation)
        model.save(gen_dir / "belief.npz", {"generation": generation, "decisions": decisions,
                                           **{k: float(v) for k, v in stats.items()}})
        rows = evaluate(model, cfg)
        run_folder.append_csv(run_dir / "progress.csv", [[generation, stats["examples"], stats["held_out"], f"{stats['prior_joint']:.4f}",
                                                f"{stats['model_joint']:.4f}", f"{stats['prior_book']:.4f}", f"{stats['model_book']:.4f}",
                                                f"{played:.0f}", f"{time.time() - start:.0f}"]],
                    ["generation", "examples", "held_out", "prior_nats", "model_nats", "prior_book_nats", "model_book_nats",
                     "play_seconds", "seconds"])
        run_folder.append_csv(run_dir / "evaluations.csv",
                    [[decisions, "team", decisions, r["opponent"], r["players"], r["games"], r["win_share"], r["ci_lo"], r["ci_hi"]]
                     for r in rows], EVALUATION_COLUMNS)
        score = float(np.mean([r["win_share"] for r in rows])) if rows else 0.0
        if not rows or score > best["score"]:  # without evaluation games the latest generation is the best
            (run_dir / "best").mkdir(exist_ok=True)
            shutil.copyfile(gen_dir / "belief.npz", run_dir / "best" / "belief.npz")
            best = {"generation": generation, "score": score}
        elapsed += time.time() - start
        run_folder.save_state(run_dir, {"generation": generation, "decisions": decisions, "best": best, "seconds": elapsed})
        say(f"generation {generation}/{cfg.generations}: held-out nats {stats['prior_joint']:.3f} -> {stats['model_joint']:.3f} "
            f"(true book {stats['prior_book']:.3f} -> {stats['model_book']:.3f}); team win share "
            + ", ".join(f"{r['players']}p vs {r['opponent']} {r['win_share']:.3f}" for r in rows), flush=True)
    if (run_dir / "evaluations.csv").is_file() and len((run_dir / "evaluations.csv").read_text().splitlines()) > 1:
        try:
            from club_envs.training.curves import plot

            plot(run_dir, run_dir / "learning_curve.png", title="Arkham team belief iteration")
        except Exception as exc:  # noqa: BLE001 -- a missing plot must not fail a finished run
            print(f"learning curve not drawn: {type(exc).__name__}: {exc}", file=sys.stderr)
    say(f"run folder: {run_dir} (best generation {best['generation']}; {time.time() - started:.0f} s this time)")
    return run_dir


def _merge(parts: Sequence[dict[str, np.ndarray]]) -> dict[str, np.ndarray]:
    """The examples of several generations, with game ids kept apart."""
    out: dict[str, list] = {"x": [], "prior": [], "label": [], "game": []}
    offset = 0
    for part in parts:
        for key in ("x", "prior", "label"):
            out[key].append(part[key])
        out["game"].append(part["game"] + offset)
        offset += int(part["game"].max()) + 1
    return {k: np.concatenate(v) for k, v in out.items()}


def main(argv: list[str] | None = None) -> int:
    return run_folder.main(run, "python -m club_envs.training.arkham_belief", __doc__.splitlines()[0],
                           "YAML Arkham belief-iteration config, or the name of an example in configs/", argv)


if __name__ == "__main__":
    sys.exit(main())
