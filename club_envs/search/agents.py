"""``ismcts`` as an agent name: options, rollout policy and the game's search hooks put together."""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any

from club_envs.search.ismcts import ISMCTSAgent, parse_options

NAME = "ismcts"


def make_ismcts(game: ModuleType, config: Any, options: str = "", seed: int | None = None) -> ISMCTSAgent:
    """An ISMCTS agent for ``game`` from the option text after ``ismcts:`` (see
    :class:`~club_envs.search.ismcts.ISMCTSOptions`); ``ValueError`` names a bad option."""
    from club_envs.agents.registry import load

    opts = parse_options(options)
    hooks = importlib.import_module(game.__name__ + ".search")
    search_game = hooks.search_game(config, width=opts.width, cards=opts.cards, paired=opts.paired)
    rollout_name = opts.rollout or hooks.DEFAULT_ROLLOUT
    if rollout_name.split(":")[0] == NAME:
        raise ValueError("the rollout policy of ismcts cannot itself be ismcts; use random, heuristic or a policy")
    if rollout_name in hooks.ROLLOUTS:
        rollout = hooks.ROLLOUTS[rollout_name](seed)
    else:
        try:
            rollout = load(rollout_name, game=game, config=config, seed=seed)
        except ValueError as exc:
            extra = ", ".join(hooks.ROLLOUTS)
            raise ValueError(f"ismcts rollout={rollout_name!r}: {exc}" + (f" (or {extra})" if extra else "")) from None
    if opts.beliefs == "heuristic":
        belief = getattr(hooks, "belief_weight", None)
        if belief is None:
            raise ValueError(f"{game.RECORD_NAME} has no heuristic belief model; use beliefs=uniform")
        weight_for = belief
    elif opts.beliefs == "uniform":
        weight_for = lambda view: None  # noqa: E731
    else:
        weight_for = search_game.default_weight
    return ISMCTSAgent(search_game, rollout, opts, weight_for=weight_for, seed=seed)
