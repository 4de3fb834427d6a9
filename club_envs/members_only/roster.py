"""Every Members Only bot by name: the baselines (:mod:`club_envs.members_only.bots`), the style
families (:mod:`club_envs.members_only.styles`) and the held-out evaluation bots
(:mod:`club_envs.members_only.holdout`, never seated by a training config)."""

from __future__ import annotations

from club_envs.members_only import bots, holdout, styles
from club_envs.members_only.rules import Config

AGENT_NAMES = (*bots.AGENT_NAMES, *styles.NAMES, *holdout.NAMES)


def make_agent(name: str, config: Config | None = None, seed: int | None = None):
    """A built-in bot by name (one of :data:`AGENT_NAMES`)."""
    key = name.strip().lower()
    if key in styles.NAMES:
        return styles.make_style_agent(key, seed)
    if key in holdout.NAMES:
        return holdout.make_holdout_agent(key, seed)
    if key in bots.AGENT_NAMES:
        return bots.make_agent(key, config, seed)
    raise ValueError(f"unknown agent {name!r} for members_only; expected one of {', '.join(AGENT_NAMES)}")
