"""Belief iteration: Members Only agents that learn, from their own games, to read the other players.

    club-envs train configs/members_only_belief.yaml
    club-envs train --resume runs/members_only_belief-<stamp>
    club-envs train members_only_belief          (the same: the config's ``recipe`` picks this trainer)

Why this recipe: in Members Only the decision that matters is a bet on how many cards of a category
will be shown, and most of those cards sit in other players' hands. The ``heuristic`` bot treats
them as a uniform draw from the unseen cards; told the real hands, the same bot wins most games.
Players give their hands away -- they bet on what they hold and reveal first the cards that help
their own chips -- so a :class:`~club_envs.members_only.belief_model.BeliefModel` learns, by plain
supervised learning on finished games, the distribution of what the other players will still add
to each category given everything the seat has seen. The agent
(:class:`~club_envs.members_only.belief_agent.BeliefAgent`) decides with the heuristic's
expected-value rule on that belief.

One generation, top to bottom:

1. **Play.** ``selfplay.games`` games per table size with the current agent in every seat (pure
   self-play; ``selfplay.opponents`` may mix in bots at a share of the seats). Generation 1 plays
   the untrained model, whose belief is the uniform prior -- the heuristic's own decisions. The
   games run on the batched engine (:mod:`club_envs.training.belief_vector`: all the games of a
   table size together, the agent's decisions compiled after one forward pass per round) or on the
   reference engine (``selfplay.engine``, :func:`resolve_engine`); the examples of the same deals
   and decisions are the same on both.
2. **Label.** Every decision with a choice becomes one example: the seat's observation, and what
   the other players then really added to the display, per category (read from the finished game's
   hidden state -- the inputs are the observation alone).
3. **Fit.** The model (warm-started from the last generation) is trained by cross-entropy on the
   examples of the last ``selfplay.window`` generations; a held-out share measures it against the
   uniform prior (``progress.csv``: nats per category).
4. **Evaluate** on a fixed seed series against ``evaluation.opponents`` at every table size
   (``evaluations.csv``, the learning curve ``learning_curve.png``), on the run's engine; the best
   generation by its mean win share is copied to ``best/belief.npz``.

The run folder is resumable after any finished generation (``--resume``): ``state.json`` names
the last one and the engine the run plays on, and its model and data are on disk. Same config and
seed, same run.
"""

from __future__ import annotations

import functools
import os
import shutil
import sys
import time
from collections.abc import Generator, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from threadpoolctl import threadpool_limits

from club_envs.agents.base import Decision
from club_envs.members_only import actions as A
from club_envs.members_only.belief_agent import BeliefAgent
from club_envs.members_only.belief_model import GAME_NAME, PRIOR_SCALE, BeliefModel, clipped_log, prior_offsets
from club_envs.members_only.engine import DISCARD, State
from club_envs.members_only.match import agent_seeds
from club_envs.members_only.observer import Observer
from club_envs.members_only.roster import AGENT_NAMES, make_agent
from club_envs.members_only.rules import NUM_CATEGORIES, Config
from club_envs.members_only.vector_belief import VectorBeliefPolicy
from club_envs.training import launch, run_folder
from club_envs.training.belief_vector import table_examples
from club_envs.training.config import ConfigFileError
from club_envs.training.engines import REFERENCE, VECTOR
from club_envs.training.progress import Reporter
from club_envs.training.settings import BeliefConfig
from club_envs.training.torch_mlp import announce_precision, forward_in, to_layers, to_torch
from club_envs.vector_evaluation import available, policy_win_share

# Games played together on the reference engine (their decisions batched): large batches, small
# memory. The bars move by one such batch (on the batched engine: by the games of a table size): its
# games end at about the same time, so counting them one by one as they end would make the first
# short games look like the rate.
BATCH_GAMES = 256
PLAYABLE = AGENT_NAMES  # the bots the batched engine seats (compiled, or their reference code on the arrays)


# --------------------------------------------------------------------------- the engine

def engine_gaps(settings: BeliefConfig) -> list[str]:
    """What in ``settings`` the batched engine cannot play (empty: it plays every configured
    opponent of the training games)."""
    return [f"selfplay.opponents: {b!r} (the batched engine plays {', '.join(PLAYABLE)})"
            for b in settings.opponents if b not in PLAYABLE]


def resolve_engine(settings: BeliefConfig, state: dict, begun: bool) -> tuple[str, str]:
    """``(engine, why)``: where the games of a run are played -- the engine its ``state.json``
    names; the reference engine for a run folder from before ``selfplay.engine`` (``begun``: it
    holds a state, an evaluation or a generation's files, but names no engine); else as
    ``selfplay.engine`` asks, ``auto`` meaning the batched engine when it plays every configured
    opponent of the training games."""
    if "engine" in state:
        return state["engine"], "the engine this run started with"
    if begun:
        return REFERENCE, "a run folder from before selfplay.engine: the reference engine it started with"
    if settings.engine == REFERENCE:
        return REFERENCE, "selfplay.engine: reference"
    gaps = engine_gaps(settings)
    if not gaps:
        return VECTOR, "the batched engine plays every configured opponent"
    if settings.engine == VECTOR:
        raise ConfigFileError("selfplay.engine: vector cannot play " + "; ".join(gaps)
                              + "; allowed values for this config: auto, reference")
    return REFERENCE, "the batched engine cannot play " + "; ".join(gaps)


def check_before_run(settings: BeliefConfig, resuming: bool) -> None:
    """``selfplay.engine: vector``'s reach, before a run folder exists."""
    if not resuming:
        resolve_engine(settings, {}, begun=False)


# --------------------------------------------------------------------------- 1-2. play and label

def game_examples(config: Config, agents: Sequence[Any], seed: int, state: State | None = None) -> Generator:
    """One game on the reference engine as a step generator for
    :func:`club_envs.training.selfplay_vec.drive_all`: yields ``(agent, decision)`` for every move
    and returns ``(observations, targets)`` of the decisions that had a choice -- ``targets[i, c]``
    is the index (0..13) of "normal minus NO!" that the *other* players added to category ``c``
    after decision ``i``, up to the heat's end. ``seed`` deals the game and seeds the agents;
    ``state``, a game about to start, replaces its deal."""
    n = config.num_players
    for seat, (agent, agent_seed) in enumerate(zip(agents, agent_seeds(seed, n))):
        agent.reset(seat, agent_seed)
    state = State(config, seed=seed) if state is None else state
    observers = [Observer(config) for _ in range(n)]
    observations, shown, where = [], [], []  # where: (heat, seat, own discard already made)
    everything: dict[int, np.ndarray] = {}  # heat -> every card bound for the display or a discard
    discards: dict[tuple[int, int], int] = {}
    while not state.is_over:
        seat, heat = state.current_player, state.heat
        if state.phase == DISCARD and heat not in everything:
            everything[heat] = np.array(state.display) + np.sum(np.array(state.hands), axis=0)
        view = state.player_view(seat)
        legal = state.legal_actions()
        observation = observers[seat].observe(view)
        if len(legal) > 1:
            own = np.array(view.display) + np.array(view.hand)
            if view.pending_reveal is not None:
                own[view.pending_reveal] += 1
            observations.append(observation)
            shown.append(own)
            where.append((heat, seat, view.own_discard))
        action = yield agents[seat], Decision(seat, view, legal, lambda o=observation: o, state.legal_mask)
        if state.phase == DISCARD:
            discards[(heat, seat)] = int(action) - A.DISCARD_BASE
        state.apply_action(int(action))
    targets = np.zeros((len(observations), NUM_CATEGORIES), dtype=np.int8)
    for i, ((heat, seat, own_discard), own) in enumerate(zip(where, shown)):
        added = everything[heat] - own
        for other in range(n):
            if other != seat:
                added[discards[(heat, other)]] -= 1
        if own_discard is not None:  # already face down: in neither the display nor the hand
            added[own_discard] -= 1
        targets[i] = added[:NUM_CATEGORIES] - added[NUM_CATEGORIES:] + 2
    obs = np.array(observations, dtype=np.float16).reshape(len(observations), -1)
    return obs, targets


def draw_lineups(settings: BeliefConfig, generation: int) -> dict[int, list[list[str | None]]]:
    """Who sits where in a generation's games, per table size and game: ``None`` for the agent,
    else a bot of ``selfplay.opponents``, each seat a bot's with probability ``opponent_share``."""
    rng = np.random.default_rng([settings.seed, generation, 1])
    lineups: dict[int, list[list[str | None]]] = {}
    for n in settings.num_players:
        lineups[n] = []
        for _ in range(settings.games):
            seats: list[str | None] = []
            for _ in range(n):
                if settings.opponents and rng.random() < settings.opponent_share:
                    seats.append(settings.opponents[rng.integers(len(settings.opponents))])
                else:
                    seats.append(None)
            lineups[n].append(seats)
    return lineups


def game_seed(settings: BeliefConfig, generation: int, num_players: int, game: int) -> int:
    """The seed of a generation's game: its deal on the reference engine, and its bots' seeds."""
    return int(np.random.SeedSequence([settings.seed, generation, num_players, game]).generate_state(1)[0])


def play_generation(model: BeliefModel, settings: BeliefConfig, generation: int,
                    report: Reporter | None = None, engine: str = VECTOR) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The examples of one generation's self-play games, all table sizes, on ``engine`` (``vector``:
    all the games of a table size together on the batched engine; ``reference``: in batches of
    :data:`BATCH_GAMES` on the reference engine): observations, targets, and which game (numbered
    within the generation) each came from."""
    report = report or Reporter.quiet()
    phase = report.phase(f"generation {generation}/{settings.generations}: self-play",
                         settings.games * len(settings.num_players))
    from club_envs.training.selfplay_vec import drive_all  # (torch: seconds to load the first time)
    phase.restart_clock()

    lineups = draw_lineups(settings, generation)
    learner = BeliefAgent(model, name="belief")
    observations, targets, game_ids = [], [], []
    unclear = 0
    for table, n in enumerate(settings.num_players):
        config = Config(num_players=n)
        seeds = [game_seed(settings, generation, n, g) for g in range(settings.games)]
        if engine == VECTOR:
            played = table_examples(learner, config, lineups[n], [agent_seeds(seed, n) for seed in seeds],
                                    [settings.seed, generation, n], phase=phase)
            observations.append(played.observations)
            targets.append(played.targets)
            game_ids.append(played.games + table * settings.games)
            unclear += played.belief_unclear + played.bot_unclear
            phase.update(settings.games)
            continue
        moves = [game_examples(config, [learner if name is None else make_agent(name, config) for name in lineup], seed)
                 for lineup, seed in zip(lineups[n], seeds)]
        for start in range(0, len(moves), BATCH_GAMES):
            for obs, tgt in drive_all(watched(moves[start:start + BATCH_GAMES], phase)):
                game_ids.append(np.full(len(tgt), len(game_ids), dtype=np.int32))
                observations.append(obs)
                targets.append(tgt)
            phase.update(len(moves[start:start + BATCH_GAMES]))
    phase.set_postfix({})
    ties = f" ({unclear:,} near-ties settled by the reference code)" if engine == VECTOR else ""
    phase.close(note=f"{sum(len(t) for t in targets):,} examples{ties}")
    return np.concatenate(observations), np.concatenate(targets), np.concatenate(game_ids)


def watched(games: Sequence[Generator], phase: Any) -> list[Generator]:
    """``games`` as they are, their moves counted on ``phase`` (``moves`` and their rate): the bar's
    sign of life while a batch is in play, since its games all end at about the same time."""
    seen = [0]
    started = time.perf_counter()

    def counted(game: Generator) -> Generator:
        action = None
        while True:
            try:
                step = game.send(action)
            except StopIteration as stop:
                return stop.value
            seen[0] += 1
            if seen[0] % 1000 == 0:
                rate = seen[0] / max(1e-9, time.perf_counter() - started)
                phase.set_postfix({"moves in this batch": f"{seen[0]:,}", "moves/s": f"{rate:,.0f}"})
                phase.update(0)  # a redraw (at most every half second) or a plain line when one is due
            action = yield step

    return [counted(game) for game in games]


# --------------------------------------------------------------------------- 3. fit

def fit(model: BeliefModel, observations: np.ndarray, targets: np.ndarray, games: np.ndarray, settings: BeliefConfig,
        seed: int, report: Reporter | None = None, desc: str = "fit") -> tuple[BeliefModel, dict[str, float]]:
    """Train ``model`` (a copy) by cross-entropy on the examples; returns it and the held-out
    negative log-likelihoods (nats per category) of the model and of the uniform prior.

    Whole games are held out (``games``: one id per example), never single decisions: the
    decisions of one heat share their answer, so a decision-level split would measure memory."""
    import torch

    torch.manual_seed(seed)
    # One thread: the network is small, and a second thread that spins while the machine's other
    # work holds the cores made a fit many times slower than one thread alone.
    torch.set_num_threads(1)
    rng = np.random.default_rng(seed)
    log_prior, allowed = _prepared(observations)
    ids = np.unique(games)
    held_games = rng.permutation(ids)[: int(round(len(ids) * settings.validation_share))]
    is_held = np.isin(games, held_games)
    held, train = np.flatnonzero(is_held), np.flatnonzero(~is_held)
    net = to_torch(model.layers)
    optimizer = torch.optim.Adam(net.parameters(), lr=settings.learning_rate)
    # what the loss calls: the network, its hidden layers in ``training.precision``
    forward = functools.partial(forward_in, net, precision=settings.precision)
    # The observations stay float16 (a million examples are 1 GB); each batch is widened on its own.
    tensors = [torch.from_numpy(a) for a in (observations, log_prior, allowed, targets.astype(np.int64))]

    def nll(rows: np.ndarray) -> float:
        with torch.no_grad():
            total = 0.0
            for start in range(0, len(rows), 16384):
                r = torch.from_numpy(rows[start:start + 16384])
                total += float(_loss(forward, *(t[r] for t in tensors)) * len(r))
        return total / max(1, len(rows))  # _loss is already a mean per category

    before = nll(held) if len(held) else float("nan")
    batches = len(train) // settings.batch_size
    phase = (report or Reporter.quiet()).phase(desc, settings.epochs * batches, unit="batch", units="batches")
    for epoch in range(settings.epochs):
        for group in optimizer.param_groups:
            group["lr"] = settings.learning_rate * settings.lr_decay ** epoch
        shuffled = rng.permutation(train)
        for start in range(0, len(shuffled) - settings.batch_size + 1, settings.batch_size):
            rows = torch.from_numpy(shuffled[start:start + settings.batch_size])
            loss = _loss(forward, *(t[rows] for t in tensors))
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            phase.update()
            if phase.n % 100 == 0:
                phase.set_postfix({"epoch": f"{epoch + 1}/{settings.epochs}", "loss": f"{float(loss.detach()):.4f}"})
    phase.close(note=f"{settings.epochs} epochs over {len(train):,} examples")
    prior = -np.take_along_axis(log_prior[held], targets[held, :, None].astype(np.int64), -1)
    trained = BeliefModel(to_layers(net), model.meta)
    return trained, {"nll_before": before, "nll_after": nll(held) if len(held) else float("nan"),
                     "nll_prior": float(prior.mean()) if len(held) else float("nan"),
                     "examples": int(len(train)), "held_out": int(len(held))}


def _prepared(observations: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The uniform prior's clipped log-probabilities and the outcomes it allows, per example."""
    log_prior, allowed = [], []
    for start in range(0, len(observations), 65536):
        obs = observations[start:start + 65536].astype(np.float32)
        prior = prior_offsets(obs)
        log_prior.append(clipped_log(prior))
        allowed.append(prior > 0)
    return np.concatenate(log_prior), np.concatenate(allowed)


def _loss(net, observations, log_prior, allowed, targets):
    """Mean cross-entropy per category of :func:`club_envs.members_only.belief_model.combine`'s
    distribution (the same arithmetic in torch; the inputs as :func:`~club_envs.members_only.
    belief_model.network_inputs` builds them)."""
    import torch

    inputs = torch.cat([observations.float(), log_prior.reshape(len(log_prior), -1) / PRIOR_SCALE], dim=1)
    z = log_prior + net(inputs).reshape(log_prior.shape)
    z = torch.where(allowed, z, torch.full_like(z, -1e9)).log_softmax(-1)
    return -z.gather(-1, targets[..., None]).mean()


# --------------------------------------------------------------------------- 4. evaluate

def evaluate(model: BeliefModel, settings: BeliefConfig, label: str, report: Reporter | None = None,
             desc: str = "evaluation", engine: str = REFERENCE) -> list[dict[str, Any]]:
    """Win shares of the agent against each evaluation bot at each table size: ``evaluation.games``
    games with the agent in one seat (rotated), on the fixed seed series of ``seed + 17`` -- the
    same deals at every generation. On the batched engine (``engine`` vector) a series is one
    :func:`club_envs.vector_evaluation.policy_win_share` (every game at once, the agent's
    decisions compiled: :class:`~club_envs.members_only.vector_belief.VectorBeliefPolicy`; its
    deals are the batched engine's own for that seed); on the reference engine, or against a bot
    the batched engine does not play, the games are played together by :func:`drive_all`, so the
    agent's and the exact heuristic's decisions are batched; a game is the same as played alone."""
    from club_envs.stats import wilson_interval

    rows: list[dict[str, Any]] = []
    if settings.eval_games <= 0:
        return rows
    phase = (report or Reporter.quiet()).phase(
        f"{desc} vs {', '.join(settings.eval_opponents)}",
        settings.eval_games * len(settings.eval_opponents) * len(settings.num_players))
    from club_envs.training import selfplay_vec  # noqa: F401 -- (torch: seconds to load the first time, not the rate)
    phase.restart_clock()

    learner = BeliefAgent(model, name=label)
    for opponent in settings.eval_opponents:
        for n in settings.num_players:
            if engine == VECTOR and available(GAME_NAME, opponent):
                share, _ = policy_win_share(GAME_NAME, n, VectorBeliefPolicy(learner), opponent, settings.eval_games,
                                            seed=settings.seed + 17)
                wins = share * settings.eval_games
                phase.update(settings.eval_games)
            else:
                wins = _reference_wins(learner, opponent, Config(num_players=n), settings, phase)
            lo, hi = wilson_interval(wins, settings.eval_games)
            rows.append({"opponent": opponent, "players": n, "win_share": wins / settings.eval_games, "ci_lo": lo, "ci_hi": hi})
            phase.set_postfix({f"{r['opponent']} {r['players']}p": f"{r['win_share']:.3f}" for r in rows})
    phase.close()
    return rows


def _reference_wins(learner: BeliefAgent, opponent: str, config: Config, settings: BeliefConfig, phase: Any) -> float:
    """The agent's summed win shares in one evaluation series on the reference engine."""
    from club_envs.training.selfplay_vec import drive_all

    n = config.num_players
    games = []
    for g in range(settings.eval_games):
        seat = g % n
        seed = int(np.random.SeedSequence([settings.seed + 17, n, g]).generate_state(1)[0])
        agents = [learner if s == seat else make_agent(opponent, config) for s in range(n)]
        games.append(_won(config, agents, seed, seat))
    wins = 0.0
    for i in range(0, len(games), BATCH_GAMES):
        wins += float(sum(drive_all(watched(games[i:i + BATCH_GAMES], phase))))
        phase.update(len(games[i:i + BATCH_GAMES]))
    return wins


def _won(config: Config, agents: Sequence[Any], seed: int, seat: int) -> Generator:
    """One game as a step generator; returns ``seat``'s win share (1/k of a k-way shared win)."""
    for s, (agent, agent_seed) in enumerate(zip(agents, agent_seeds(seed, config.num_players))):
        agent.reset(s, agent_seed)
    state = State(config, seed=seed)
    observers = [Observer(config) for _ in range(config.num_players)]
    while not state.is_over:
        s = state.current_player
        view = state.player_view(s)
        decision = Decision(s, view, state.legal_actions(), lambda v=view, o=observers[s]: o.observe(v), state.legal_mask)
        state.apply_action(int((yield agents[s], decision)))
    winners = state.result["winners"]
    return 1.0 / len(winners) if seat in winners else 0.0


# --------------------------------------------------------------------------- the run

def run(config_path: Path | None = None, resume: Path | None = None, runs_dir: Path = Path("runs"),
        progress: bool = True) -> Path:
    """A run from a belief-iteration config (``config_path``), or ``resume`` of its run folder."""
    return launch.run(config_path, resume, runs_dir, progress, kind=BeliefConfig)


def train(settings: BeliefConfig, run_dir: Path, state: dict, progress: bool | Reporter = True) -> Path:
    """Generations up to ``selfplay.generations`` in ``run_dir``, after the last one ``state`` names."""
    # One BLAS thread: the model's forward passes are small matrix products, which a second thread
    # spinning on a busy 2-core machine made thirteen times slower (measured; the fit sets its own).
    with threadpool_limits(1, user_api="blas"):
        return _generations(settings, run_dir, state, Reporter.of(progress))


def _generations(settings: BeliefConfig, run_dir: Path, state: dict, report: Reporter) -> Path:
    done = int(state.get("generation", 0))
    say = report.say
    begun = bool(state) or (run_dir / "generations").is_dir() or (run_dir / "evaluations.csv").is_file()
    engine, why = resolve_engine(settings, state, begun)
    if state.get("engine") != engine:  # kept from the start, so a resumed run plays on the same engine
        state = {**state, "engine": engine}
        run_folder.save_state(run_dir, state)
    say(f"games on the {'batched' if engine == VECTOR else 'reference'} engine ({why})")
    announce_precision("training.precision", settings.precision, say)
    if done:
        model = BeliefModel.load(run_dir / "generations" / f"{done:04d}" / "belief.npz")
        say(f"resumed {run_dir} after generation {done}")
    else:
        model = BeliefModel.untrained(settings.hidden, seed=settings.seed)
    best = state.get("best", {"score": -1.0, "generation": 0})
    decisions = int(state.get("decisions", 0))
    started = time.time()
    elapsed = float(state.get("seconds", 0.0))

    if done == 0:  # the curve's first point: the untrained model, i.e. the uniform prior's (heuristic's) play
        _record_evaluation(run_dir, settings, _safe_evaluate(model, settings, 0, report, engine), 0)

    for generation in range(done + 1, settings.generations + 1):
        t0 = time.time()
        # --- 1-2. self-play games and their examples ------------------------------------------
        gen_dir = run_dir / "generations" / f"{generation:04d}"
        gen_dir.mkdir(parents=True, exist_ok=True)
        examples = gen_dir / "examples.npz"
        if examples.is_file():  # played before a stop during the fit: the same games, so read them back
            with np.load(examples, allow_pickle=False) as saved:
                observations, targets, game_ids = saved["observations"], saved["targets"], saved["games"]
        else:
            observations, targets, game_ids = play_generation(model, settings, generation, report, engine)
            with open(gen_dir / "examples.tmp", "wb") as fh:  # whole or not at all
                np.savez(fh, observations=observations, targets=targets, games=game_ids)
            os.replace(gen_dir / "examples.tmp", examples)
        del observations
        decisions += len(targets)
        played = time.time() - t0
        # --- 3. fit on the window's examples --------------------------------------------------
        window = [run_dir / "generations" / f"{g:04d}" / "examples.npz"
                  for g in range(max(1, generation - settings.window + 1), generation + 1)]
        data = [np.load(p, allow_pickle=False) for p in window]
        model, losses = fit(model, np.concatenate([d["observations"] for d in data]),
                            np.concatenate([d["targets"] for d in data]),
                            np.concatenate([d["games"] + 10_000_000 * i for i, d in enumerate(data)]),
                            settings, seed=settings.seed * 1000 + generation, report=report,
                            desc=f"generation {generation}/{settings.generations}: fit")
        model.save(gen_dir / "belief.npz", {"generation": generation, "decisions": decisions})
        for old in range(1, generation - settings.window + 1):  # examples outside the window are not needed again
            (run_dir / "generations" / f"{old:04d}" / "examples.npz").unlink(missing_ok=True)
        fitted = time.time() - t0 - played
        # --- 4. evaluate, keep the best ---------------------------------------------------------
        rows = _safe_evaluate(model, settings, generation, report, engine)
        _record_evaluation(run_dir, settings, rows, decisions)
        vs_first = [r["win_share"] for r in rows if r["opponent"] == settings.eval_opponents[0]]
        score = float(np.mean(vs_first)) if vs_first else 0.0
        if score >= best["score"]:  # without evaluation games the latest generation is the best
            best = {"score": score, "generation": generation}
            (run_dir / "best").mkdir(exist_ok=True)
            shutil.copyfile(gen_dir / "belief.npz", run_dir / "best" / "belief.npz")
        elapsed += time.time() - t0
        run_folder.append_csv(run_dir / "progress.csv",
                    [[generation, decisions, len(targets), losses["nll_prior"], losses["nll_before"], losses["nll_after"],
                      round(played, 1), round(fitted, 1), round(elapsed, 1)]],
                    ["generation", "decisions", "new_examples", "nll_uniform_prior", "nll_before_fit", "nll_after_fit",
                     "play_seconds", "fit_seconds", "total_seconds"])
        run_folder.save_state(run_dir, {"generation": generation, "decisions": decisions, "best": best,
                                        "seconds": elapsed, "engine": engine})
        summary = ", ".join(f"{r['opponent']} {r['players']}p {r['win_share']:.3f}" for r in rows)
        say(f"generation {generation}/{settings.generations}: {len(targets)} examples, held-out nats/category "
            f"{losses['nll_after']:.4f} (uniform prior {losses['nll_prior']:.4f}); {summary}; {time.time() - t0:.0f} s")
    if len((run_dir / "evaluations.csv").read_text().splitlines()) > 1:  # at least one evaluation
        try:
            from club_envs.training.curves import plot

            plot(run_dir, run_dir / "learning_curve.png", title="Members Only belief iteration")
        except Exception as exc:  # noqa: BLE001 -- a missing plot must not fail a finished run
            print(f"learning curve not drawn: {type(exc).__name__}: {exc}", file=sys.stderr)
    say(f"run folder: {run_dir} (best generation {best['generation']}; {time.time() - started:.0f} s this time)")
    return run_dir


def _safe_evaluate(model: BeliefModel, settings: BeliefConfig, generation: int, report: Reporter,
                   engine: str) -> list[dict[str, Any]]:
    """:func:`evaluate`, reported and skipped if it fails: a broken evaluation must not cost the run."""
    what = "the untrained model (the heuristic's play)" if generation == 0 else "its model"
    try:
        return evaluate(model, settings, f"belief@{generation}", report,
                        desc=f"generation {generation}/{settings.generations}: evaluation of {what}", engine=engine)
    except Exception as exc:  # noqa: BLE001
        print(f"evaluation of generation {generation} failed and was skipped: {type(exc).__name__}: {exc}", file=sys.stderr)
        return []


def _record_evaluation(run_dir: Path, settings: BeliefConfig, rows: list[dict[str, Any]], decisions: int) -> None:
    """Evaluation rows in the common ``evaluations.csv`` format (:mod:`club_envs.training.curves`);
    the step is the number of decisions in the games the model has learned from."""
    run_folder.append_csv(run_dir / "evaluations.csv",
                [[decisions, "player", decisions, r["opponent"], r["players"], settings.eval_games, r["win_share"],
                  r["ci_lo"], r["ci_hi"]] for r in rows],
                ["total_step", "side", "side_step", "opponent", "players", "games", "win_share", "ci_lo", "ci_hi"])
