"""Members Only as a PettingZoo AEC environment, version 0 (see :mod:`club_envs.members_only.env`),
and its batched multi-agent version for self-play trainers (:mod:`club_envs.members_only.vector_game`):
``members_only_v0.vector_game(num_games=256, num_players=4, seed=0)``."""

from club_envs.members_only.env import env, raw_env
from club_envs.members_only.vector_game import MembersOnlyVectorGame as vector_game

__all__ = ["env", "raw_env", "vector_game"]
