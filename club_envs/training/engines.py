"""Which engine plays a PPO self-play run's games: the batched one wherever it serves the config.

``envs.engine`` (:data:`~club_envs.training.settings.ENGINES`):

``auto`` (the default)
    the batched engine (:mod:`club_envs.training.vector_selfplay`) when it can play everything the
    config asks for, else the one-game environments -- and the run says which and why;
``vector``
    the batched engine, or a config error naming what it cannot play;
``reference``
    the one-game environments (:mod:`club_envs.training.selfplay_vec`, ``envs.workers``), today's
    path, kept for comparison.

What the batched engine needs (:func:`vector_gaps`): the game's vector environment seating policies
and every bot of ``selfplay.bots`` (compiled, or as their reference code), the learner's ``network.features``
in their batched-engine form, the hidden state in its batched-engine form for a privileged
critic, games in this process. The engine a
run starts with is kept in its ``state.json``, so ``--resume`` goes on with the same one (a run
folder from before this setting resumes on the one-game environments it started with).
"""

from __future__ import annotations

from club_envs.agents.features import get as get_features
from club_envs.games import get_spec
from club_envs.training import games
from club_envs.training.config import ConfigFileError
from club_envs.training.settings import SelfPlayConfig

PRIVILEGED_HOOK = "vector_privileged"  # a game's module of hidden-state rows from its batched engine

VECTOR, REFERENCE = "vector", "reference"


def batched_bots(game: str) -> tuple[str, ...] | None:
    """The bots ``game``'s vector environment seats (in compiled code or as their reference code),
    or ``None`` when it has no vector environment that seats policies and bots game by game (what
    self-play needs)."""
    spec = get_spec(game)
    if not spec.has_hook("vector_env"):
        return None
    bots = getattr(spec.hook("vector_env"), "OPPONENT_BOTS", None)
    return None if bots is None else tuple(bots)


def vector_gaps(settings: SelfPlayConfig) -> list[str]:
    """What in ``settings`` the batched engine cannot play (empty: it serves the whole config)."""
    game = settings.game.name
    bots = batched_bots(game)
    if bots is None:
        return [f"{game} has no batched self-play environment yet"]
    gaps = [f"selfplay.bots: {b!r} (the batched engine plays {', '.join(bots)})"
            for b in settings.selfplay.bots if b not in bots]
    features = get_features(settings.network.features)
    if features is not None and features.from_state is None:
        gaps.append(f"network.features: {settings.network.features!r} has no batched-engine form")
    if settings.algorithm.critic == "privileged" and not get_spec(game).has_hook(PRIVILEGED_HOOK):
        gaps.append(f"algorithm.critic: 'privileged' ({game}'s hidden state has no batched-engine form)")
    variants = sum(len(games.vector_variants(settings.game, side)) for side in games.side_names(game)[:1])
    if settings.envs.n_envs < variants:
        gaps.append(f"envs.n_envs: {settings.envs.n_envs} (the batched engine gives every table size its "
                    f"own games: {variants} or more)")
    if settings.envs.subprocess or not settings.envs.batched:
        gaps.append("envs.subprocess / envs.batched: false (the batched engine runs its games in this process)")
    return gaps


def resolve(settings: SelfPlayConfig, state: dict) -> tuple[str, str]:
    """``(engine, why)`` for a run of ``settings`` whose ``state.json`` holds ``state``."""
    if "engine" in state:
        return state["engine"], "the engine this run started with"
    if state.get("steps") and "started_from" not in state:  # a run started from another picks afresh
        return REFERENCE, "a run folder from before envs.engine: the one-game environments it started with"
    asked = settings.envs.engine
    if asked == REFERENCE:
        return REFERENCE, "envs.engine: reference"
    gaps = vector_gaps(settings)
    if not gaps:
        return VECTOR, "the batched engine plays everything this config asks for"
    if asked == VECTOR:
        raise ConfigFileError("envs.engine: vector cannot play " + "; ".join(gaps)
                              + "; allowed values for this config: auto, reference")
    return REFERENCE, "the batched engine cannot play " + "; ".join(gaps)
