"""A learned Black Man: the chance he wins after each vote, learned from finished games.

The Black Man's only decisions with a choice are his votes (agree or oppose a proposal). He knows
the true book, so nothing is hidden from him that a belief could learn; what he lacks is a way to
tell which vote wins. A :class:`VoteValueModel` learns it the plain Monte Carlo way: every vote of
a finished game is labelled with whether the Black Man went on to win, and a small MLP predicts,
from his observation, the log-odds of winning after *agree* and after *oppose*. The
:class:`BlackManAgent` takes the vote with the higher value. Played against the games' current
team, with some votes chosen at random to keep both values measured, and refitted every
generation, this is Monte Carlo policy iteration (``club_envs.training.arkham_belief`` with
``selfplay.opponents: [self]``).

Its inputs are the Black Man's observation plus a few facts of his own view the network would
otherwise have to learn to combine (for each face-up card: whether it is of the true book, its
value; how many true cards are on the table; whether the leader has peeked at the identities).
No hand-set vote model, no heuristic evaluation: a model whose last layer is zero values both
votes alike and opposes.

Files share the belief-file format (:mod:`club_envs.agents.belief_file`) with ``kind:
black_man_vote_value`` in their meta, so a team belief file cannot be loaded as one by mistake.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

import club_envs.agents.belief_file as belief_file
from club_envs.agents.base import Decision, Thought
from club_envs.arkham_decoders import actions as A
from club_envs.arkham_decoders.bots import leader_has_peeked
from club_envs.arkham_decoders.engine import VOTE, View
from club_envs.arkham_decoders.observer import Observer
from club_envs.arkham_decoders.rules import BLACK_MAN, GAME_NAME, NUM_VALUES, VALUES

OBS_SIZE = Observer().size
TABLE_SLOTS = 3
FACT_SIZE = 3 * TABLE_SLOTS + 2
INPUT_SIZE = OBS_SIZE + FACT_SIZE
VOTES = (A.AGREE, A.OPPOSE)  # the order of the model's two outputs
_VALUE_SCALE = float(max(abs(v) for v in VALUES))


def vote_facts(view: View) -> np.ndarray:
    """``(FACT_SIZE,)``: per face-up slot (is of the true book, value / max, occupied), the number
    of true cards on the table, and whether the leader has peeked (knows the Black Man)."""
    out = np.zeros(FACT_SIZE, dtype=np.float32)
    true_cards = 0
    for i, (_, card) in enumerate(view.table[:TABLE_SLOTS]):
        is_true = view.true_book is not None and card // NUM_VALUES == view.true_book
        true_cards += is_true
        out[3 * i:3 * i + 3] = (is_true, VALUES[card % NUM_VALUES] / _VALUE_SCALE, 1.0)
    out[3 * TABLE_SLOTS] = true_cards
    out[3 * TABLE_SLOTS + 1] = leader_has_peeked(view)
    return out


def network_inputs(observations: np.ndarray, views: Sequence[View]) -> np.ndarray:
    obs = np.asarray(observations, dtype=np.float32).reshape(len(views), -1)
    return np.concatenate([obs, np.stack([vote_facts(v) for v in views])], axis=1)


class VoteValueModel(belief_file.BeliefMLP):
    """An MLP (ReLU hidden layers) from :data:`INPUT_SIZE` inputs to the Black Man's win log-odds
    after agree and after oppose."""

    GAME, KIND, INPUT_SIZE, OUTPUT_SIZE = GAME_NAME, "black_man_vote_value", INPUT_SIZE, 2
    OUTPUTS, DEFAULT_HIDDEN = "win log-odds after agree, oppose", (128, 128)

    def values(self, observations: np.ndarray, views: Sequence[View]) -> np.ndarray:
        """``(B, 2)`` win log-odds after agree and after oppose, one row per Black Man view."""
        if len(views) == 0:
            return np.zeros((0, 2))
        obs = np.asarray(observations, dtype=np.float32).reshape(len(views), -1)
        if obs.shape[1] != OBS_SIZE:
            raise ValueError(f"expected Arkham observations of size {OBS_SIZE}, got shape {obs.shape}")
        return self.logits(network_inputs(obs, views))


class BlackManAgent:
    """Votes as the Black Man for the higher learned value (oppose on a tie); deterministic.

    ``exploration`` > 0 (training only) takes a uniformly random vote that often, drawn from the
    seed given at :meth:`reset`. Other roles are not its to play."""

    def __init__(self, model: VoteValueModel, name: str = "black_man_vote_value", exploration: float = 0.0,
                 seed: int | None = None) -> None:
        if not 0.0 <= exploration <= 1.0:
            raise ValueError(f"exploration={exploration!r}: expected a share between 0 and 1")
        self.model, self.name, self.exploration = model, name, exploration
        self._rng = np.random.default_rng(seed)

    @classmethod
    def from_file(cls, path: str | Path, name: str | None = None) -> BlackManAgent:
        return cls(VoteValueModel.load(path), name=name or Path(path).stem)

    def reset(self, seat: int, seed: int | None = None) -> None:
        if seed is not None:
            self._rng = np.random.default_rng(seed)

    def explain(self, decision: Decision) -> list[Thought]:
        """The learned win log-odds after each vote, the higher first (oppose on a tie)."""
        view = decision.view
        if view.identity != BLACK_MAN or view.phase != VOTE or len(decision.legal_actions) == 1:
            return [Thought(int(a), 1.0, "chosen") for a in decision.legal_actions]
        value = self.model.values(np.asarray(decision.observation)[None], [view])[0]
        scored = [Thought(VOTES[0], float(value[0]), "win log-odds"), Thought(VOTES[1], float(value[1]), "win log-odds")]
        return scored if value[0] > value[1] else scored[::-1]

    def act(self, decision: Decision) -> int:
        legal = decision.legal_actions
        if len(legal) == 1:
            return int(legal[0])
        view = decision.view
        if view.identity != BLACK_MAN or view.phase != VOTE:
            raise ValueError(f"{self.name} plays the Black Man's votes only; asked to play a {view.identity} "
                             f"in phase {view.phase}")
        if self.exploration and self._rng.random() < self.exploration:
            return VOTES[int(self._rng.integers(2))]
        value = self.model.values(np.asarray(decision.observation)[None], [view])[0]
        return VOTES[0] if value[0] > value[1] else VOTES[1]
