"""Members Only as a PettingZoo AEC environment, version 0 (see :mod:`club_envs.members_only.env`)."""

from club_envs.members_only.env import env, raw_env

__all__ = ["env", "raw_env"]
