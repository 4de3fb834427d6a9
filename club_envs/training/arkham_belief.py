"""Belief iteration for Arkham: the team learns to read the advisors' votes, and (with
``selfplay.opponents: [self]``) the Black Man learns which vote wins, both from finished games.

    club-envs train configs/arkham_team_belief.yaml      (the config's ``recipe`` picks this trainer)
    club-envs train --resume runs/arkham_team_belief-<stamp>

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

**Self-play of both sides** (``self`` among ``selfplay.opponents``): the Black Man of those games
is the run's own :class:`~club_envs.arkham_decoders.vote_value.BlackManAgent`, which takes the vote
its learned value model rates higher, and a random vote in a ``black_man.exploration`` share of
votes (every vote while it has never been fitted: the first generation's Black Man votes at
random). Each of his votes is labelled with whether he won, and a fresh value model is fitted on
the votes of the last ``black_man.window`` generations (``selfplay.window`` unless set) by
logistic regression on the chosen vote's output (Monte Carlo policy
iteration); it is evaluated against each ``evaluation.opponents`` team (``side`` ``black_man`` in
``evaluations.csv``, ``black_man_progress.csv``) and the best by mean win share is
``best/black_man.npz``. A wide window makes both sides answer the mixture of the other side's
past generations rather than its latest (fictitious play): with a window of 2 the two sides chase
each other and the win shares swing by 0.4 from one generation to the next. A wide
``black_man.window`` alone lets the Black Man answer every past team (the first generation's is
the heuristic team) while the team keeps reading only his latest generations: a Black Man fitted
on his own latest games learns the tells of the one team he met.

**Where the games are played** (``selfplay.engine``): ``auto`` (the default) and ``vector`` play
every game of a table size at once on the batched engine
(:mod:`club_envs.training.arkham_belief_vector`: the team's decisions batched, the heuristic Black
Man compiled, the learned one batched, the other bots by their reference code on views built from
the arrays) and evaluate there against the bots it plays itself; ``reference`` plays one game
after another on the reference engine (:func:`play_game`). Game ``g`` of a generation has its own
seed (:func:`game_seed`): each engine deals it its own way, and the same deal gives the same game
and the same examples on both. A run keeps the engine it started with (``state.json``); a run
folder from before this setting goes on on the reference engine.

The run folder is resumable after any finished generation (``--resume``): ``config.yaml`` holds
the resolved config and ``state.json`` names the last generation and the engine; each generation's
model and examples are on disk. Same config and seed, same run.
"""

from __future__ import annotations

import shutil
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from threadpoolctl import threadpool_limits

from club_envs.agents.base import Decision
from club_envs.arkham_decoders.belief_agent import BeliefAgent
from club_envs.arkham_decoders.belief_model import INPUT_SIZE, OUTPUT_SIZE, BeliefModel, advisor_slots, network_inputs
from club_envs.arkham_decoders.engine import State
from club_envs.arkham_decoders.match import agent_seeds
from club_envs.arkham_decoders.observer import Observer
from club_envs.arkham_decoders.rules import NUM_BOOKS, ROLES, Config
from club_envs.arkham_decoders.vector_belief import BatchedBeliefAgent, BatchedBlackManAgent
from club_envs.arkham_decoders.vote_value import INPUT_SIZE as VOTE_INPUT_SIZE
from club_envs.arkham_decoders.vote_value import VOTES, BlackManAgent, VoteValueModel
from club_envs.arkham_decoders.vote_value import network_inputs as vote_inputs
from club_envs.training import launch, run_folder
from club_envs.training.arkham_belief_vector import play_table
from club_envs.training.engines import REFERENCE, VECTOR
from club_envs.training.progress import Reporter
from club_envs.training.settings import SELF, ArkhamBeliefConfig
from club_envs.training.torch_mlp import announce_precision, forward_in, to_layers, to_torch
from club_envs.vector_evaluation import available, policy_win_share

EVALUATION_COLUMNS = ["total_step", "side", "side_step", "opponent", "players", "games", "win_share", "ci_lo", "ci_hi"]
BLACK_MAN = "black_man"
BLACK_MAN_FILE = "black_man.npz"  # the learned Black Man of a generation (and of best/)
SERIES_PART = 20  # evaluation games played between two moves of the bar


@dataclass
class GameExamples:
    """What one game teaches: every team decision with a choice (observation, view, true
    hypothesis), every Black Man vote with a choice (observation, view, vote index in
    :data:`~club_envs.arkham_decoders.vote_value.VOTES`), and who won."""

    observations: list[np.ndarray]
    views: list
    labels: list[int]
    bm_observations: list[np.ndarray]
    bm_views: list
    bm_votes: list[int]
    team_won: bool


def play_game(config: Config, team: BeliefAgent, black_man: Any, seed: int, state: State | None = None) -> GameExamples:
    """One game, with its examples for both sides: the deal of ``seed`` or, given, ``state`` (a
    game not yet begun, e.g. a batched game's deal set up on this engine); the Black Man's random
    numbers come from ``seed`` either way."""
    state = State(config, seed=seed) if state is None else state
    n = state.num_players
    agents = [black_man if seat == state.black_man_seat else team for seat in range(n)]
    for seat, (agent, agent_seed) in enumerate(zip(agents, agent_seeds(seed, n))):
        agent.reset(seat, agent_seed)
    observer = Observer(config)
    out = GameExamples([], [], [], [], [], [], False)
    while not state.is_terminal:
        seat = state.current_player
        view = state.player_view(seat)
        legal = state.legal_actions()
        observation = observer.observe(view)
        choice = len(legal) > 1
        if seat != state.black_man_seat and choice:
            out.observations.append(observation)
            out.views.append(view)
            slot = advisor_slots(view).index(view.advisors.index(state.black_man_seat))
            out.labels.append(slot * NUM_BOOKS + state.true_book)
        action = int(agents[seat].act(Decision(seat, view, legal, lambda o=observation: o, state.legal_mask)))
        if seat == state.black_man_seat and choice and action in VOTES:
            out.bm_observations.append(observation)
            out.bm_views.append(view)
            out.bm_votes.append(VOTES.index(action))
        state.apply_action(action)
    out.team_won = state.result["winner"] == "team"
    return out


def game_seed(settings: ArkhamBeliefConfig, generation: int, num_players: int, game: int) -> int:
    """The seed of game ``game`` of a generation at a table size: its deal (on either engine, each
    its own way) and its Black Man's random numbers."""
    return (settings.seed * 1_000_003 + generation) * 10_000_019 + num_players * 1_000_000 + game


def play_generation(model: BeliefModel, settings: ArkhamBeliefConfig, generation: int,
                    black_man: VoteValueModel | None = None, report: Reporter | None = None,
                    engine: str = REFERENCE) -> dict[str, np.ndarray]:
    """Step 1-2: the labelled examples of one generation's games, played on ``engine``: the team's
    (inputs, prior, label, game) and, when the run learns its Black Man (``black_man`` is his
    current model), the learned Black Man's votes (``bm_x``, ``bm_vote``, ``bm_won``, ``bm_game``).
    Inputs are stored as float16 (0/1 flags and small scaled counts) to keep a wide window in memory."""
    phase = (report or Reporter.quiet()).phase(f"generation {generation}/{settings.generations}: self-play",
                                               settings.games * len(settings.num_players))
    # the first generation plays the untrained Black Man: every vote at random
    exploration = settings.bm_exploration if generation > 1 else 1.0
    black_men = [settings.opponents[g % len(settings.opponents)] for g in range(settings.games)]
    tables = []
    for n in settings.num_players:
        config = Config(num_players=n)
        seeds = [game_seed(settings, generation, n, g) for g in range(settings.games)]
        if engine == VECTOR:
            with threadpool_limits(1, user_api="blas"):  # small products: one thread, the other core for others
                table, _ = play_table(config, model, black_men, seeds, black_man, exploration, settings.seed, phase)
        else:
            table = reference_table(config, model, black_men, seeds, black_man, exploration, settings.seed, phase)
        tables.append(table)
    data = merge_tables(tables, settings.games, settings.learns_black_man)
    votes = len(data.get("bm_vote", ()))
    phase.close(note=f"{len(data['label']):,} team decisions" + (f", {votes:,} Black Man votes" if votes else ""))
    return data


def reference_table(config: Config, model: BeliefModel, black_men: Sequence[str], seeds: Sequence[int],
                    black_man: VoteValueModel | None, exploration: float, bot_seed: int, phase: Any = None,
                    states: Sequence[State] | None = None) -> dict[str, np.ndarray]:
    """The games of ``seeds`` at one table size on the reference engine, one after another, game
    ``g`` against the Black Man ``black_men[g]`` (``self``: the learned ``black_man`` exploring that
    share of his votes) -- the deal of ``seeds[g]``, or ``states[g]`` when given -- in the form of
    :func:`~club_envs.training.arkham_belief_vector.play_table`'s examples."""
    from club_envs.agents.registry import load as load_agent
    from club_envs.games import load_game

    game = load_game("arkham_decoders")
    team = BeliefAgent(model, name="belief")
    opponents = {name: BlackManAgent(black_man, name=SELF, exploration=exploration) if name == SELF
                 else load_agent(name, game=game, config=config, seed=bot_seed) for name in dict.fromkeys(black_men)}
    xs, priors, labels, games = [], [], [], []
    bm_xs, bm_votes, bm_won, bm_games = [], [], [], []
    for g, seed in enumerate(seeds):
        opponent = opponents[black_men[g]]
        played = play_game(config, team, opponent, seed, state=None if states is None else states[g])
        if played.labels:
            x, p = network_inputs(np.stack(played.observations), played.views)
            xs.append(x.astype(np.float16))
            priors.append(p)
            labels.extend(played.labels)
            games.extend([g] * len(played.labels))
        if isinstance(opponent, BlackManAgent) and played.bm_votes:
            bm_xs.append(vote_inputs(np.stack(played.bm_observations), played.bm_views).astype(np.float16))
            bm_votes.extend(played.bm_votes)
            bm_won.extend([not played.team_won] * len(played.bm_votes))
            bm_games.extend([g] * len(played.bm_votes))
        if phase is not None:
            phase.update()
    return {"x": _stack(xs, (0, INPUT_SIZE), np.float16), "prior": _stack(priors, (0, OUTPUT_SIZE), np.float64),
            "label": np.array(labels, np.int64), "game": np.array(games, np.int64),
            "bm_x": _stack(bm_xs, (0, VOTE_INPUT_SIZE), np.float16), "bm_vote": np.array(bm_votes, np.int64),
            "bm_won": np.array(bm_won, np.bool_), "bm_game": np.array(bm_games, np.int64)}


def _stack(chunks: list[np.ndarray], empty: tuple[int, ...], dtype: type) -> np.ndarray:
    return np.concatenate(chunks) if chunks else np.zeros(empty, dtype)


def merge_tables(tables: Sequence[dict[str, np.ndarray]], games: int, learns_black_man: bool) -> dict[str, np.ndarray]:
    """One generation's examples from its tables' (``games`` games each, numbered table after
    table): the team's, and the learned Black Man's when the run learns him."""
    data = {"x": np.concatenate([t["x"] for t in tables]), "prior": np.concatenate([t["prior"] for t in tables]),
            "label": np.concatenate([t["label"] for t in tables]).astype(np.int64),
            "game": np.concatenate([t["game"] + k * games for k, t in enumerate(tables)]).astype(np.int64)}
    if learns_black_man:
        data.update({"bm_x": np.concatenate([t["bm_x"] for t in tables]).astype(np.float16),
                     "bm_vote": np.concatenate([t["bm_vote"] for t in tables]).astype(np.int64),
                     "bm_won": np.concatenate([t["bm_won"] for t in tables]).astype(np.float32),
                     "bm_game": np.concatenate([t["bm_game"] + k * games for k, t in enumerate(tables)]).astype(np.int64)})
    return data


def fit_black_man(data: dict[str, np.ndarray], settings: ArkhamBeliefConfig, generation: int,
                  report: Reporter | None = None) -> tuple[VoteValueModel, dict[str, float]]:
    """Step 3 for the learned Black Man: a fresh value model fitted by logistic regression of
    "he won" on the output of the vote he took; held-out log-loss (nats per vote) of that model and
    of the constant win rate, split by game."""
    import torch

    torch.set_num_threads(1)
    torch.manual_seed(settings.seed + generation)
    rng = np.random.default_rng(settings.seed + generation)
    model = VoteValueModel.untrained(settings.bm_hidden, seed=settings.seed + generation)
    x, vote, won = torch.from_numpy(data["bm_x"]), torch.from_numpy(data["bm_vote"]), torch.from_numpy(data["bm_won"])
    held_out = rng.random(int(data["bm_game"].max()) + 1 if len(data["bm_game"]) else 1) < settings.validation_share
    val = held_out[data["bm_game"]]
    train_rows, val_rows = np.flatnonzero(~val), np.flatnonzero(val)
    net = to_torch(model.layers)
    opt = torch.optim.Adam(net.parameters(), lr=settings.bm_learning_rate, weight_decay=1e-5)

    def loss(rows) -> torch.Tensor:
        z = forward_in(net, x[rows].float(), settings.precision).gather(1, vote[rows, None])[:, 0]
        return torch.nn.functional.binary_cross_entropy_with_logits(z, won[rows])

    def held_out_nats() -> float:
        if not len(val_rows):
            return float("nan")
        with torch.no_grad():
            return float(loss(val_rows).item())

    base = float(won[train_rows].mean()) if len(train_rows) else 0.5
    yv = data["bm_won"][val_rows]
    clipped = min(max(base, 1e-6), 1 - 1e-6)
    constant = float(-(yv * np.log(clipped) + (1 - yv) * np.log(1 - clipped)).mean()) if len(yv) else float("nan")
    best = (held_out_nats(), to_layers(net))
    batches = -(-len(train_rows) // settings.bm_batch_size)
    phase = (report or Reporter.quiet()).phase(f"generation {generation}/{settings.generations}: Black Man fit",
                                               settings.bm_epochs * batches, unit="batch", units="batches")
    for epoch in range(settings.bm_epochs):
        order = rng.permutation(train_rows)
        for i in range(0, len(order), settings.bm_batch_size):
            rows = order[i:i + settings.bm_batch_size]
            step = loss(rows)
            opt.zero_grad()
            step.backward()
            opt.step()
            phase.update()
        nats = held_out_nats()
        phase.set_postfix({"epoch": f"{epoch + 1}/{settings.bm_epochs}", "held-out nats": f"{nats:.4f}"})
        if not len(val_rows) or nats < best[0]:
            best = (nats, to_layers(net))
    phase.close(note=f"{settings.bm_epochs} epochs over {len(train_rows):,} votes")
    agree_share = float((data["bm_vote"] == 0).mean()) if len(data["bm_vote"]) else float("nan")
    return VoteValueModel(best[1], {"hidden": list(settings.bm_hidden)}), {
        "fit_votes": len(train_rows), "held_out": len(val_rows), "agree_share": agree_share,
        "constant_nats": constant, "model_nats": best[0]}


def fit(model: BeliefModel, data: dict[str, np.ndarray], settings: ArkhamBeliefConfig, generation: int,
        report: Reporter | None = None) -> tuple[BeliefModel, dict[str, float]]:
    """Step 3: cross-entropy on the examples, warm-started from ``model``; held-out nats per decision
    of the hand-set belief and of the fitted model (joint over the 8 hypotheses, and of the true book)."""
    import torch

    torch.set_num_threads(1)
    torch.manual_seed(settings.seed + generation)
    rng = np.random.default_rng(settings.seed + generation)
    held_out = rng.random(int(data["game"].max()) + 1) < settings.validation_share
    if not held_out.any() and len(held_out) > 1:  # a tiny run: still measure the fit on one game
        held_out[-1] = True
    val = held_out[data["game"]]
    train_rows, val_rows = np.flatnonzero(~val), np.flatnonzero(val)
    x = torch.from_numpy(data["x"])
    prior = torch.from_numpy(data["prior"])
    y = torch.from_numpy(data["label"])
    log_prior = torch.log(torch.clamp(prior, min=1e-300))  # float64: as exact as the product in combine
    allowed = prior > 0
    net = to_torch(model.layers)
    opt = torch.optim.Adam(net.parameters(), lr=settings.learning_rate, weight_decay=1e-5)

    def log_posterior(rows) -> torch.Tensor:
        logits = forward_in(net, x[rows].float(), settings.precision)
        z = torch.where(allowed[rows], log_prior[rows] + logits.double(), torch.full((len(rows), OUTPUT_SIZE), -1e300,
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
    best = (*held_out_nats(), to_layers(net))
    batches = -(-len(train_rows) // settings.batch_size)
    phase = (report or Reporter.quiet()).phase(f"generation {generation}/{settings.generations}: team fit",
                                               settings.epochs * batches, unit="batch", units="batches")
    for epoch in range(settings.epochs):
        order = rng.permutation(train_rows)
        for i in range(0, len(order), settings.batch_size):
            rows = order[i:i + settings.batch_size]
            loss = torch.nn.functional.nll_loss(log_posterior(rows), y[rows])
            opt.zero_grad()
            loss.backward()
            opt.step()
            phase.update()
        joint, book = held_out_nats()
        phase.set_postfix({"epoch": f"{epoch + 1}/{settings.epochs}", "held-out nats": f"{joint:.4f}"})
        if not len(val_rows) or joint < best[0]:  # nothing held out: the last epoch
            best = (joint, book, to_layers(net))
    phase.close(note=f"{settings.epochs} epochs over {len(train_rows):,} decisions")
    fitted = BeliefModel(best[2], model.meta)
    return fitted, {"examples": len(train_rows), "held_out": len(val_rows), "prior_joint": prior_joint,
                    "prior_book": prior_book, "model_joint": best[0], "model_book": best[1]}


def evaluate(model: BeliefModel, settings: ArkhamBeliefConfig, black_man: VoteValueModel | None = None,
             report: Reporter | None = None, desc: str = "evaluation", engine: str = REFERENCE) -> list[dict[str, Any]]:
    """Step 4: win shares (and 95% Wilson intervals) on the fixed seed series ``evaluation.seed``
    (the same deals every generation) at every table size: the team against each evaluation
    Black Man and, given the learned ``black_man``, him against each evaluation team. On the
    batched ``engine``, a series against a bot it plays itself is played there
    (:func:`club_envs.vector_evaluation.policy_win_share`: its own deals for the seed, so the
    same win shares in expectation, not game by game); the others on the reference engine."""
    from club_envs.games import load_game
    from club_envs.stats import wilson_interval

    game = load_game("arkham_decoders")
    rows = []
    if settings.eval_games <= 0:
        return rows
    series = len(settings.num_players) * len(settings.eval_opponents) * (1 if black_man is None else 2)
    phase = (report or Reporter.quiet()).phase(desc, settings.eval_games * series)
    for n in settings.num_players:
        config = Config(num_players=n)
        for opponent in settings.eval_opponents:
            def make(name: str, seed: int | None) -> Any:
                if name == "__belief__":
                    return BeliefAgent(model, name="belief")
                if name == "__black_man__":
                    return BlackManAgent(black_man, name=SELF)
                from club_envs.agents.registry import load as load_agent

                return load_agent(name, game=game, config=config, seed=seed)

            sides = [("team", {"leader": "__belief__", "member": "__belief__", "investigator": "__belief__", BLACK_MAN: opponent})]
            if black_man is not None:
                sides.append((BLACK_MAN, {"leader": opponent, "member": opponent, "investigator": opponent,
                                          BLACK_MAN: "__black_man__"}))
            for side, roles in sides:
                if engine == VECTOR and available("arkham_decoders", opponent):
                    share, (lo, hi) = _vector_series(model, black_man, side, n, opponent, settings)
                    phase.update(settings.eval_games)
                else:
                    result = _series(game, config, roles, settings, make, phase)
                    wins = sum((rec["result"]["winner"] == "team") == (side == "team") for rec in result.records)
                    share, (lo, hi) = wins / settings.eval_games, wilson_interval(wins, settings.eval_games)
                rows.append({"side": side, "players": n, "opponent": opponent, "games": settings.eval_games,
                             "win_share": share, "ci_lo": lo, "ci_hi": hi})
                phase.set_postfix({f"{r['side']} {r['players']}p vs {r['opponent']}": f"{r['win_share']:.3f}" for r in rows})
    phase.close()
    return rows


def _vector_series(model: BeliefModel, black_man: VoteValueModel | None, side: str, num_players: int, opponent: str,
                   settings: ArkhamBeliefConfig) -> tuple[float, tuple[float, float]]:
    """One evaluation series on the batched engine: the team (every team seat the batched belief
    agent) against the Black Man ``opponent``, or the learned Black Man against ``opponent``'s team."""
    if side == "team":
        learner: Any = BatchedBeliefAgent(model, name="belief")
        role_side = {role: "opponent" if role == BLACK_MAN else "learner" for role in ROLES}
    else:
        learner = BatchedBlackManAgent(black_man, name=SELF)
        role_side = {role: "learner" if role == BLACK_MAN else "opponent" for role in ROLES}
    with threadpool_limits(1, user_api="blas"):
        return policy_win_share("arkham_decoders", num_players, learner, opponent, settings.eval_games,
                                settings.eval_seed, role_side=role_side)


def _series(game: Any, config: Config, roles: dict[str, str], settings: ArkhamBeliefConfig, make: Any, phase: Any) -> Any:
    """One evaluation series, played in parts of :data:`SERIES_PART` games so the bar moves; a
    series split into parts is the same games with the same result
    (:func:`club_envs.evaluation.play_series`)."""
    from club_envs.evaluation import merge, play_series

    parts = []
    for first in range(0, settings.eval_games, SERIES_PART):
        games = min(SERIES_PART, settings.eval_games - first)
        parts.append(play_series(game, config, role_agents=roles, games=games, seed=settings.eval_seed, make=make,
                                 keep_records=True, first_game=first))
        phase.update(games)
    return merge(parts)


def run(config_path: Path | None = None, resume: Path | None = None, runs_dir: Path = Path("runs"),
        progress: bool = True) -> Path:
    """A run from an Arkham belief-iteration config (``config_path``), or ``resume`` of its run folder."""
    return launch.run(config_path, resume, runs_dir, progress, kind=ArkhamBeliefConfig)


def resolve_engine(settings: ArkhamBeliefConfig, state: dict) -> tuple[str, str]:
    """``(engine, why)``: where a run of ``settings`` whose ``state.json`` holds ``state`` plays its
    games -- the engine it started with, the reference engine for a run folder from before
    ``selfplay.engine``, else the config's (``auto``: the batched engine, which plays every Black
    Man this recipe allows)."""
    if "engine" in state:
        return state["engine"], "the engine this run started with"
    if state.get("generation"):
        return REFERENCE, "a run folder from before selfplay.engine: the reference engine it started with"
    if settings.engine == REFERENCE:
        return REFERENCE, "selfplay.engine: reference"
    return VECTOR, (f"selfplay.engine: {settings.engine}; the heuristic Black Man compiled, the learned one batched, "
                    "other bots by their reference code on views from the arrays")


def train(settings: ArkhamBeliefConfig, run_dir: Path, state: dict, progress: bool | Reporter = True) -> Path:
    """Generations up to ``selfplay.generations`` in ``run_dir``, after the last one ``state`` names."""
    report = Reporter.of(progress)
    say = report.say
    done = int(state.get("generation", 0))
    engine, why = resolve_engine(settings, state)
    say(f"games on the {'batched' if engine == VECTOR else 'reference'} engine ({why})")
    announce_precision("training.precision", settings.precision, say)
    run_folder.save_state(run_dir, {**state, "engine": engine})  # a stop before the first generation keeps it too
    black_man = VoteValueModel.untrained(settings.bm_hidden, seed=settings.seed) if settings.learns_black_man else None
    if done:
        model = BeliefModel.load(run_dir / f"gen_{done:03d}" / "belief.npz")
        if black_man is not None:
            black_man = VoteValueModel.load(run_dir / f"gen_{done:03d}" / BLACK_MAN_FILE)
        say(f"resumed {run_dir} after generation {done}")
    else:
        model = BeliefModel.untrained(settings.hidden, seed=settings.seed)
    best = state.get("best", {"generation": 0, "score": -1.0})
    best_bm = state.get("best_black_man", {"generation": 0, "score": -1.0})
    decisions = int(state.get("decisions", 0))
    votes = int(state.get("black_man_votes", 0))
    elapsed = float(state.get("seconds", 0.0))
    started = time.time()
    for generation in range(done + 1, settings.generations + 1):
        gen_dir = run_dir / f"gen_{generation:03d}"
        gen_dir.mkdir(exist_ok=True)
        start = time.time()
        # --- 1-2. play and label (after a stop mid-generation: the same games again) ------------
        data = play_generation(model, settings, generation, black_man, report, engine)
        np.savez_compressed(gen_dir / "examples.npz", **data)
        decisions += len(data["label"])
        votes += len(data.get("bm_vote", ()))
        merged = _merge([dict(np.load(p)) for p in _window(run_dir, generation, settings.window)] + [data])
        bm_data = (merged if settings.bm_window == settings.window or black_man is None
                   else _merge([_votes(p) for p in _window(run_dir, generation, settings.bm_window)] + [_votes(data)]))
        del data
        played = time.time() - start
        # --- 3. fit both sides on their windows' examples -----------------------------------------
        model, stats = fit(model, merged, settings, generation, report)
        model.save(gen_dir / "belief.npz", {"generation": generation, "decisions": decisions,
                                           **{k: float(v) for k, v in stats.items()}})
        if black_man is not None:
            black_man, bm_stats = fit_black_man(bm_data, settings, generation, report)
            black_man.save(gen_dir / BLACK_MAN_FILE, {"generation": generation, "votes": votes,
                                                      **{k: float(v) for k, v in bm_stats.items()}})
            run_folder.append_csv(run_dir / "black_man_progress.csv",
                                  [[generation, bm_stats["fit_votes"], bm_stats["held_out"], f"{bm_stats['agree_share']:.4f}",
                                    f"{bm_stats['constant_nats']:.4f}", f"{bm_stats['model_nats']:.4f}"]],
                                  ["generation", "votes", "held_out", "agree_share", "constant_nats", "model_nats"])
        del merged, bm_data
        # --- 4. evaluate on the fixed seed series; keep each side's best ----------------------------
        try:
            rows = evaluate(model, settings, black_man, report,
                            desc=f"generation {generation}/{settings.generations}: evaluation", engine=engine)
        except Exception as exc:  # noqa: BLE001 -- one failed evaluation must not cost the run
            print(f"generation {generation}: evaluation failed ({type(exc).__name__}: {exc}); "
                  "the generation is kept, its best-model choice is skipped", file=sys.stderr)
            rows = None
        run_folder.append_csv(run_dir / "progress.csv", [[generation, stats["examples"], stats["held_out"], f"{stats['prior_joint']:.4f}",
                                                f"{stats['model_joint']:.4f}", f"{stats['prior_book']:.4f}", f"{stats['model_book']:.4f}",
                                                f"{played:.0f}", f"{time.time() - start:.0f}"]],
                    ["generation", "examples", "held_out", "prior_nats", "model_nats", "prior_book_nats", "model_book_nats",
                     "play_seconds", "seconds"])
        steps = {"team": decisions, BLACK_MAN: votes}
        run_folder.append_csv(run_dir / "evaluations.csv",
                    [[decisions + votes, r["side"], steps[r["side"]], r["opponent"], r["players"], r["games"], r["win_share"],
                      r["ci_lo"], r["ci_hi"]] for r in rows or []], EVALUATION_COLUMNS)
        (run_dir / "best").mkdir(exist_ok=True)
        if rows is not None:
            best = _keep_best(rows, "team", best, generation, gen_dir / "belief.npz", run_dir / "best" / "belief.npz")
            if black_man is not None:
                best_bm = _keep_best(rows, BLACK_MAN, best_bm, generation, gen_dir / BLACK_MAN_FILE,
                                     run_dir / "best" / BLACK_MAN_FILE)
        elapsed += time.time() - start
        run_folder.save_state(run_dir, {"generation": generation, "decisions": decisions, "black_man_votes": votes,
                                        "best": best, "best_black_man": best_bm, "seconds": elapsed, "engine": engine})
        say(f"generation {generation}/{settings.generations}: held-out nats {stats['prior_joint']:.3f} -> {stats['model_joint']:.3f} "
            f"(true book {stats['prior_book']:.3f} -> {stats['model_book']:.3f}); win share "
            + ", ".join(f"{r['side']} {r['players']}p vs {r['opponent']} {r['win_share']:.3f}" for r in rows or []))
    if (run_dir / "evaluations.csv").is_file() and len((run_dir / "evaluations.csv").read_text().splitlines()) > 1:
        try:
            from club_envs.training.curves import plot

            title = "Arkham self-play belief iteration" if settings.learns_black_man else "Arkham team belief iteration"
            plot(run_dir, run_dir / "learning_curve.png", title=title)
        except Exception as exc:  # noqa: BLE001 -- a missing plot must not fail a finished run
            print(f"learning curve not drawn: {type(exc).__name__}: {exc}", file=sys.stderr)
    say(f"run folder: {run_dir} (best generation {best['generation']}"
        + (f", best Black Man {best_bm['generation']}" if settings.learns_black_man else "")
        + f"; {time.time() - started:.0f} s this time)")
    return run_dir


def _keep_best(rows: list[dict[str, Any]], side: str, best: dict[str, Any], generation: int, source: Path,
               target: Path) -> dict[str, Any]:
    """``source`` becomes ``target`` when its mean win share on the evaluation series beats the
    best so far (without evaluation games: always, the latest generation is the best)."""
    mine = [r["win_share"] for r in rows if r["side"] == side]
    score = float(np.mean(mine)) if mine else 0.0
    if mine and score <= best["score"]:
        return best
    shutil.copyfile(source, target)
    return {"generation": generation, "score": score}


def _window(run_dir: Path, generation: int, width: int) -> list[Path]:
    """The example files of the ``width - 1`` generations before ``generation`` (those on disk)."""
    paths = [run_dir / f"gen_{g:03d}" / "examples.npz" for g in range(max(1, generation - width + 1), generation)]
    return [p for p in paths if p.is_file()]


def _votes(source: Path | dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """The learned Black Man's examples of one generation (and its game ids, which number the games
    for :func:`_merge`), without the team's: a wide ``black_man.window`` reads only these."""
    keys = ("game", "bm_x", "bm_vote", "bm_won", "bm_game")
    if isinstance(source, Path):
        with np.load(source) as part:
            return {key: part[key] for key in keys}
    return {key: source[key] for key in keys}


def _merge(parts: Sequence[dict[str, np.ndarray]]) -> dict[str, np.ndarray]:
    """The examples of several generations, with game ids kept apart."""
    out: dict[str, list] = {}
    offset = 0
    for part in parts:
        for key, value in part.items():
            out.setdefault(key, []).append(value + offset if key in ("game", "bm_game") else value)
        offset += int(part["game"].max()) + 1  # every game of a part has its id in "game" (bm_game is a subset)
    return {k: np.concatenate(v) for k, v in out.items()}
