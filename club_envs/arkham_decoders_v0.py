"""Arkham Decoders Club, version 0, as a PettingZoo AEC environment (see ``arkham_decoders.env``)."""

from club_envs.arkham_decoders.env import env, raw_env

__all__ = ["env", "raw_env"]
