"""What the search needs from a game, and nothing more.

The search plays on the engine's own ``State`` through its public methods (``current_player``,
``is_over``, ``legal_actions()``, ``apply_action()``, ``player_view()``, ``clone()``); everything
game-specific is gathered here so that a new game adds one small module and reuses the search.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from club_envs.agents.base import Decision
from club_envs.search.worlds import Weight


@dataclass(frozen=True)
class SearchGame:
    """One game's hooks for the search.

    A view has a ``seat`` (the searching seat).

    sample_world(view, rng, weight)
        a full state consistent with ``view`` (uniform unless ``weight`` reweights worlds).
    stop(state, root_view) -> bool
        where a simulation stops before the game ends (e.g. at the end of a heat); the position is
        then valued by ``values``.
    values(state) -> array
        per seat, what the position is worth in [0, 1] (1 a sure win): the result of a finished game
        or an estimate of an unfinished one.
    candidates(state) -> (actions, ordered)
        the actions the tree considers for the player to move (all legal ones, or a pruned set);
        ``ordered`` says they are listed best first, so the tree tries them in that order. They must
        depend only on what the player to move can see.
    fixed_own_view
        True when the searching seat's view at a tree node is the same in every sampled world (its
        root view plus the actions taken: it draws no hidden cards before a simulation stops); the
        search then computes its candidates once per node.
    decision(state) -> Decision
        the player to move's decision, for the rollout policy (view, legal actions, observation).
    default_weight(view) -> Weight | None
        the belief weighting used unless the options say ``beliefs=uniform``.
    paired_worlds
        when above 0, the searching seat's decisions are searched by paired play-outs
        (:func:`~club_envs.search.ismcts.paired_search`: every candidate in the same this many
        worlds) instead of the tree; 0 (the default) keeps the tree. The ``paired=N`` option
        overrides it.
    paired_anchor
        with paired play-outs, how many standard errors of the paired difference another candidate
        must be ahead of the first (the game's favourite) to be played instead; 0 (the default):
        the best mean. The ``anchor=Z`` option overrides it.
    """

    name: str
    sample_world: Callable[[Any, np.random.Generator, Weight | None], Any]
    stop: Callable[[Any, Any], bool]
    values: Callable[[Any], np.ndarray]
    candidates: Callable[[Any], tuple[Sequence[int], bool]]
    decision: Callable[[Any], Decision]
    default_weight: Callable[[Any], Weight | None] = lambda view: None
    fixed_own_view: bool = False
    paired_worlds: int = 0
    paired_anchor: float = 0.0
