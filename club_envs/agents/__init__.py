"""Agents: the built-in bots, policy adapters, and shipped trained agents.

``club_envs.agents.load(name, game=None, config=None, seed=None)`` gives any agent by name: ``random``
and ``heuristic`` (with the game), a shipped trained agent (``members_only``, ``arkham_team``,
``arkham_black_man``, ``arkham_decoders``), a policy file or a training run folder.
"""

from club_envs.agents.base import Agent, CallableAgent, Decision, RandomAgent, as_agent
from club_envs.agents.registry import load, shipped_names

__all__ = ["Agent", "CallableAgent", "Decision", "RandomAgent", "as_agent", "load", "shipped_names"]
