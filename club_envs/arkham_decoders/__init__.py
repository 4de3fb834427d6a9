"""Arkham Decoders Club (Hironori Matsumoto): the game package (see :mod:`club_envs.games` for the contract)."""

from club_envs.arkham_decoders.bots import HeuristicAgent
from club_envs.arkham_decoders.roster import AGENT_NAMES, make_agent
from club_envs.arkham_decoders.engine import State, View
from club_envs.arkham_decoders.match import outcomes, play_match
from club_envs.arkham_decoders.observer import Observer
from club_envs.arkham_decoders.replay import replay
from club_envs.arkham_decoders.rules import GAME_NAME as RECORD_NAME
from club_envs.arkham_decoders.spec import SPEC
from club_envs.arkham_decoders.rules import PLAYER_COUNTS, ROLES, Config

__all__ = [
    "SPEC",
    "AGENT_NAMES",
    "RECORD_NAME",
    "PLAYER_COUNTS",
    "ROLES",
    "Config",
    "HeuristicAgent",
    "make_agent",
    "play_match",
    "replay",
    "outcomes",
    "State",
    "View",
    "Observer",
]
