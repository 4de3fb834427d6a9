"""One exact heuristic evaluation per round of a vector environment, shared by all who need it.

In a round of :func:`club_envs.training.selfplay_vec.drive_all` several groups of agents ask for
the exact heuristic's evaluation of their positions: the ``heuristic`` bots for their choices, and
every frozen policy that reads ``members_only_heuristic`` inputs for those inputs -- a few
positions per group, and every evaluation pays a fixed cost of array set-up whatever its size.
So ``drive_all`` first hands all of the round's positions of agents with the same ``prepare_key``
(:func:`key`) to :func:`prepare`, which evaluates them in one batch and keeps the rows; each
group's :func:`evaluate` then finds its rows there. A row does not depend on the batch it was
computed in (tested), so the numbers and choices are the same either way.

Rows are kept until the next :func:`prepare` only, each with its view object (held, so its
identity is not reused), settings and mask, and used only when all three match.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from club_envs.members_only import heuristic_batch
from club_envs.members_only.engine import View
from club_envs.members_only.heuristic_batch import Evaluation

_prepared: dict = {}  # "settings", "views", "masks", "evaluation", "index" (id(view) -> row)


def key(chip_cost: tuple[float, float], rival_weight: float) -> tuple:
    """The ``prepare_key`` of agents that need the evaluation with these settings."""
    return ("members_only_heuristic", tuple(float(c) for c in chip_cost), float(rival_weight))


def prepare(views: Sequence[View], masks: np.ndarray, chip_cost: tuple[float, float], rival_weight: float) -> None:
    """Evaluate a round's positions in one batch and keep the rows for :func:`evaluate`."""
    masks = np.asarray(masks, dtype=bool)
    _prepared.clear()
    _prepared.update(settings=key(chip_cost, rival_weight), views=list(views), masks=masks,
                     evaluation=heuristic_batch.evaluate(views, masks, chip_cost, rival_weight),
                     index={id(view): i for i, view in enumerate(views)})


def prepare_decisions(decisions: Sequence, chip_cost: tuple[float, float], rival_weight: float) -> None:
    """:func:`prepare` for the positions of these decisions."""
    prepare([d.view for d in decisions], np.stack([d.action_mask for d in decisions]), chip_cost, rival_weight)


def evaluate(views: Sequence[View], masks: np.ndarray, chip_cost: tuple[float, float] = (0.5, 1.0),
             rival_weight: float = 0.3) -> Evaluation:
    """:func:`heuristic_batch.evaluate`, from the prepared rows when every view has one."""
    masks = np.asarray(masks, dtype=bool)
    if _prepared and _prepared["settings"] == key(chip_cost, rival_weight):
        index, kept = _prepared["index"], _prepared["views"]
        rows = [index.get(id(view), -1) for view in views]
        if all(i >= 0 and kept[i] is view for i, view in zip(rows, views)) \
                and np.array_equal(_prepared["masks"][rows], masks):
            return Evaluation(*(part[rows] for part in _prepared["evaluation"]))
    return heuristic_batch.evaluate(views, masks, chip_cost, rival_weight)
