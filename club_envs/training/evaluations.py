"""Evaluation of an exported policy against the bots, and the one writer of ``evaluations.csv``.

Both PPO backends evaluate the same way: the policy file of a side plays ``evaluation.games``
games against each of ``evaluation.opponents`` at each table size, on the fixed seed series of
``seed + 17`` (the same deals at every evaluation), and the best policy so far by mean win share
is copied to ``best/``. The agents of ``evaluation.watch`` are played the same way and written
beside them, for the learning curve only: the choice of the best policy never reads them
(:func:`judged_share`), so a run may watch held-out and shipped agents it may not be tuned on.
The two backends' run folders count steps differently, so their CSV files lead with different
step columns (:data:`COLUMNS`, :data:`RLLIB_COLUMNS`); a resumed run appends to its own file in
its own layout.
"""

from __future__ import annotations

import shutil
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

from club_envs import vector_evaluation
from club_envs.agents.policy import BatchedPolicyAgent, PolicyAgent, load_policy_file
from club_envs.agents.vector_opponents import seated_for
from club_envs.evaluation import learner_win_share
from club_envs.training import games
from club_envs.training.progress import Reporter
from club_envs.training.run_folder import append_csv
from club_envs.training.settings import EvaluationSettings, GameSettings

FILE = "evaluations.csv"
# steps of a stable-baselines3 run: all sides together, and this side's own
COLUMNS = ("total_step", "side", "side_step", "opponent", "players", "games", "win_share", "ci_lo", "ci_hi")
# steps of an RLlib run: environment steps (every decision at the table)
RLLIB_COLUMNS = ("env_steps", "side", "opponent", "players", "games", "win_share", "ci_lo", "ci_hi")


@dataclass(frozen=True)
class Evaluation:
    """One row: the side's win share against one bot at one table size, with its 95% interval."""

    side: str
    opponent: str
    players: int
    games: int
    win_share: float
    ci_lo: float
    ci_hi: float


def evaluate_policy(path: Path, side: str, game: GameSettings, evaluation: EvaluationSettings, seed: int,
                    name: str, deterministic: bool, report: Reporter | None = None,
                    batched: bool = False) -> list[Evaluation]:
    """The policy file ``path`` of ``side`` against every evaluation opponent, then every watched
    agent, at every table size (rows in that order); the bar (``report``) moves by one series of
    ``evaluation.games`` games at a time, and its line at the end gives every win share. ``batched``:
    on the batched engine wherever it seats the opponent and plays the policy's inputs
    (:mod:`club_envs.vector_evaluation`), else game by game on the reference engine."""
    net, meta = load_policy_file(path)
    rows = []
    against = (*evaluation.opponents, *evaluation.watch)
    phase = (report or Reporter.quiet()).phase(f"evaluation of {name} vs {', '.join(against)}",
                                               evaluation.games * len(against) * len(game.num_players))
    for opponent in against:
        for n in game.num_players:
            learner = PolicyAgent(net, name=name, meta=meta, deterministic=deterministic)
            module, config, role_side = games.eval_setup(game.name, side, n)
            seated = _batched_opponent(game.name, module, config, opponent, opponent in evaluation.watch, seed + 17) \
                if batched and (learner.features is None or learner.features.from_state is not None) else None
            if seated is not None:
                share, (lo, hi) = vector_evaluation.policy_win_share(
                    game.name, n, BatchedPolicyAgent(learner, seed + 17), seated, evaluation.games, seed + 17,
                    role_side=role_side)
            else:
                share, (lo, hi) = learner_win_share(module, config, learner, opponent, evaluation.games,
                                                    seed=seed + 17, role_side=role_side)
            rows.append(Evaluation(side, opponent, n, evaluation.games, share, lo, hi))
            phase.update(evaluation.games)
            phase.set_postfix({f"{r.opponent} {r.players}p": f"{r.win_share:.3f}" for r in rows})
    phase.close()
    return rows


def _batched_opponent(game_name: str, module, config, name: str, watched: bool, seed: int):
    """What the batched engine seats for ``name``, or ``None``: game by game on the reference engine.
    A judging opponent is played there only when the engine plays it by name (its evaluations stay
    the games they always were); a watched agent wherever :func:`seated_for` can seat it (a trained
    policy, the belief agents' compiled rule)."""
    if watched:
        return seated_for(module, config, name, seed)
    return name if vector_evaluation.available(game_name, name) else None


def mean_share(rows: Sequence[Evaluation], opponent: str | None = None) -> float:
    """The mean win share of ``rows`` (against ``opponent`` only, if given)."""
    shares = [r.win_share for r in rows if opponent is None or r.opponent == opponent]
    return sum(shares) / len(shares)


def judged_share(rows: Sequence[Evaluation], evaluation: EvaluationSettings) -> float:
    """The score that picks the best policy: the mean win share against ``evaluation.opponents``
    alone (the watched agents' rows are for the curve, never for the choice)."""
    return mean_share([r for r in rows if r.opponent in evaluation.opponents])


def write(run_dir: Path, rows: Sequence[Evaluation], columns: Sequence[str] = COLUMNS, **steps: int) -> None:
    """Rows appended to the run's ``evaluations.csv``; ``steps`` fills the step columns."""
    append_csv(run_dir / FILE, [[{**asdict(r), **steps}[c] for c in columns] for r in rows], list(columns))


def keep_best(run_dir: Path, path: Path, name: str, score: float, best: dict, side: str, **when: int) -> None:
    """Copy the policy file ``path`` to ``best/<name>`` when ``score`` is at least the side's best so
    far (``best``, updated)."""
    if score >= best.get(side, {}).get("score", -1.0):
        best[side] = {"score": score, **when}
        (run_dir / "best").mkdir(exist_ok=True)
        shutil.copyfile(path, run_dir / "best" / name)
