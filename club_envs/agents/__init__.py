"""Agents: the built-in bots, policy adapters, and (later) shipped trained agents."""

from club_envs.agents.base import Agent, CallableAgent, Decision, RandomAgent, as_agent

__all__ = ["Agent", "CallableAgent", "Decision", "RandomAgent", "as_agent"]
