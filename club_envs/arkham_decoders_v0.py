"""Arkham Decoders Club, version 0, as a PettingZoo AEC environment (see ``arkham_decoders.env``),
and its batched multi-agent version for self-play trainers (:mod:`club_envs.arkham_decoders.vector_game`):
``arkham_decoders_v0.vector_game(num_games=256, num_players=5, seed=0)``."""

from club_envs.arkham_decoders.env import env, raw_env
from club_envs.arkham_decoders.vector_game import ArkhamDecodersVectorGame as vector_game

__all__ = ["env", "raw_env", "vector_game"]
