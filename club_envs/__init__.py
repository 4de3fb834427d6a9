"""club-envs: Members Only and Arkham Decoders Club as reinforcement-learning environments.

Importing the package registers every environment with Gymnasium and with PettingZoo's registry:

* ``pettingzoo.make("aec", "club_envs/members_only-v0", num_players=4)``
* ``pettingzoo.make("aec", "club_envs/arkham_decoders-v0", num_players=5)``
* ``gymnasium.make("club_envs/MembersOnly-v0", num_players=4, opponents="random")``
* ``gymnasium.make_vec("club_envs/MembersOnly-v0", num_envs=256, vectorization_mode="vector_entry_point",
  num_players=4, opponents="heuristic")`` (the batched engine)
* ``gymnasium.make("club_envs/ArkhamDecoders-v0", num_players=5, role="black_man")``
* ``gymnasium.make_vec("club_envs/ArkhamDecoders-v0", num_envs=256, vectorization_mode="vector_entry_point",
  num_players=5, role="black_man", opponents="random")`` (the batched engine)

and gives the batched multi-agent games for self-play trainers (:mod:`club_envs.vector_game`):

* ``club_envs.make_vector_game("members_only", num_games=256, num_players=4, seed=0)``

The environment modules are imported lazily, so ``import club_envs`` stays cheap.
"""

from __future__ import annotations

import importlib
import warnings

__version__ = "0.1.0"

_GYM_IDS = {
    "club_envs/MembersOnly-v0": "club_envs.members_only.gym_env:MembersOnlyGymEnv",
    "club_envs/ArkhamDecoders-v0": "club_envs.arkham_decoders.gym_env:ArkhamDecodersGymEnv",
}
# Batched implementations: gymnasium.make_vec(id, num_envs=N, vectorization_mode="vector_entry_point", ...).
_VECTOR_ENTRY_POINTS = {
    "club_envs/MembersOnly-v0": "club_envs.members_only.vector_env:MembersOnlyVectorEnv",
    "club_envs/ArkhamDecoders-v0": "club_envs.arkham_decoders.vector_env:ArkhamDecodersVectorEnv",
}
_AEC_IDS = {
    "club_envs/members_only-v0": "club_envs.members_only_v0:env",
    "club_envs/arkham_decoders-v0": "club_envs.arkham_decoders_v0:env",
}


def _register() -> None:
    import gymnasium
    import pettingzoo

    for env_id, entry_point in _GYM_IDS.items():
        if env_id not in gymnasium.registry:
            gymnasium.register(
                id=env_id,
                entry_point=entry_point,
                vector_entry_point=_VECTOR_ENTRY_POINTS.get(env_id),
                disable_env_checker=True,
            )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # re-import after reload must not warn about overriding
        for env_id, entry_point in _AEC_IDS.items():
            if env_id not in pettingzoo.aec_registry:
                pettingzoo.register("aec", env_id, entry_point=entry_point)


_register()

_LAZY = {"members_only_v0", "arkham_decoders_v0"}
_LAZY_FUNCTIONS = {"make_vector_game": "club_envs.vector_game"}


def __getattr__(name: str):
    if name in _LAZY:
        return importlib.import_module(f"club_envs.{name}")
    if name in _LAZY_FUNCTIONS:
        return getattr(importlib.import_module(_LAZY_FUNCTIONS[name]), name)
    raise AttributeError(f"module 'club_envs' has no attribute {name!r}")


__all__ = ["members_only_v0", "arkham_decoders_v0", "make_vector_game", "__version__"]
