"""Every Arkham Decoders Club bot by name: the baselines (:mod:`club_envs.arkham_decoders.bots`),
the style families (:mod:`club_envs.arkham_decoders.styles`) and the held-out evaluation bots
(:mod:`club_envs.arkham_decoders.holdout`, never seated by a training config)."""

from __future__ import annotations

from club_envs.agents.base import Agent
from club_envs.arkham_decoders import bots, holdout, styles
from club_envs.arkham_decoders.rules import Config

AGENT_NAMES = (*bots.AGENT_NAMES, *styles.NAMES, *holdout.NAMES)


def make_agent(name: str, config: Config | None = None, seed: int | None = None) -> Agent:
    """A built-in bot by name (one of :data:`AGENT_NAMES`)."""
    if name in styles.NAMES:
        return styles.make_style_agent(name, seed)
    if name in holdout.NAMES:
        return holdout.make_holdout_agent(name, seed)
    if name in bots.AGENT_NAMES:
        return bots.make_agent(name, config, seed)
    raise ValueError(f"unknown agent {name!r} for arkham_decoders_club; expected one of {', '.join(AGENT_NAMES)}")
