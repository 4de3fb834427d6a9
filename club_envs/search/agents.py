"""``ismcts`` as an agent name: options, rollout policy and the game's search hooks put together."""

from __future__ import annotations

from collections.abc import Callable, Collection
from types import ModuleType
from typing import Any

from club_envs.games import spec_of
from club_envs.search.ismcts import ISMCTSAgent, parse_options

NAME = "ismcts"


def make_ismcts(game: ModuleType, config: Any, options: str = "", seed: int | None = None, *,
                load: Callable[..., Any], shipped: Collection[str] = ()) -> ISMCTSAgent:
    """An ISMCTS agent for ``game`` from the option text after ``ismcts:`` (see
    :class:`~club_envs.search.ismcts.ISMCTSOptions`); ``ValueError`` names a bad option. ``load`` turns
    an agent name into an agent (:func:`club_envs.agents.registry.load`) for a named rollout policy;
    ``shipped`` names the installed shipped agents (a game's default learned belief is used if there)."""

    opts = parse_options(options)
    hooks = spec_of(game).hook("search")
    beliefs = opts.beliefs or _default(hooks, "DEFAULT_BELIEFS", shipped)
    estimates_name = opts.estimates or _default(hooks, "DEFAULT_ESTIMATES", shipped)
    estimates = _learned(hooks, "estimates", estimates_name, game, config, load, shipped)
    extra = {"estimates": estimates} if estimates is not None else {}
    search_game = hooks.search_game(config, width=opts.width, cards=opts.cards, paired=opts.paired, **extra)
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
    if beliefs == "heuristic":
        belief = getattr(hooks, "belief_weight", None)
        if belief is None:
            raise ValueError(f"{game.RECORD_NAME} has no heuristic belief model; use beliefs=uniform")
        weight_for = belief
    elif beliefs == "uniform":
        weight_for = lambda view: None  # noqa: E731
    elif beliefs is not None:
        model = _learned(hooks, "beliefs", beliefs, game, config, load, shipped)
        weight_for = hooks.learned_weight_for(model, config)
    else:
        weight_for = search_game.default_weight
    playouts = _playouts(hooks, opts, search_game, rollout_name, game, config)
    return ISMCTSAgent(search_game, rollout, opts, weight_for=weight_for, seed=seed, playouts=playouts)


def _playouts(hooks: ModuleType, opts: Any, search_game: Any, rollout: str, game: ModuleType, config: Any) -> Any:
    """The batched play-outs of paired search (option ``engine``): the game's, where it has them
    for this rollout, unless ``engine=reference``; ``ValueError`` for ``engine=vector`` where there
    are none or the search is the tree."""
    batched = getattr(hooks, "BATCHED_ROLLOUTS", ())
    paired = (search_game.paired_worlds if opts.paired is None else opts.paired) > 0
    if opts.engine == "reference" or (opts.engine is None and (not paired or rollout not in batched)):
        return None
    if not paired:
        raise ValueError("ismcts engine=vector plays paired play-outs (paired=N, N >= 1); the tree search runs on "
                         "the reference engine (engine=reference)")
    if not batched:
        raise ValueError(f"ismcts engine=vector: {game.RECORD_NAME} has no play-outs on the batched engine; "
                         "use engine=reference")
    if rollout not in batched:
        raise ValueError(f"ismcts engine=vector: {game.RECORD_NAME} plays out on the batched engine with "
                         f"rollout={'|'.join(batched)}, not rollout={rollout!r}; use engine=reference")
    return hooks.batched_playouts(config, rollout)


def _default(hooks: ModuleType, attribute: str, shipped: Collection[str]) -> str | None:
    """A game's default learned belief for the search (e.g. ``DEFAULT_BELIEFS``), when it names one
    and that shipped agent is installed; ``None`` keeps the search's own default."""
    name = getattr(hooks, attribute, None)
    return name if name is not None and name in shipped else None


def _learned(hooks: ModuleType, option: str, name: str | None, game: ModuleType, config: Any,
             load: Callable[..., Any], shipped: Collection[str]) -> Any:
    """The learned belief model ``name`` for option ``option`` (``None`` for none or ``heuristic``);
    ``ValueError`` names the allowed values when the game has no such model or ``name`` is not one."""
    if name is None or (name == "heuristic" and option == "estimates"):
        return None
    find = getattr(hooks, "belief_model", None)
    if find is None:
        allowed = "uniform|heuristic" if option == "beliefs" else "heuristic"
        raise ValueError(f"ismcts {option}={name!r}: {game.RECORD_NAME} has no learned belief for the search; "
                         f"allowed: {allowed}")
    try:
        return find(name, game, config, load, shipped)
    except ValueError as exc:
        allowed = "uniform, heuristic" if option == "beliefs" else "heuristic"
        raise ValueError(f"ismcts {option}={exc}; allowed: {allowed} or a belief model") from None
