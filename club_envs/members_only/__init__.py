"""Members Only (Reiner Knizia): the game package (see :mod:`club_envs.games` for the contract)."""

from club_envs.members_only.bots import HeuristicAgent
from club_envs.members_only.roster import AGENT_NAMES, make_agent
from club_envs.members_only.match import outcomes, play_match
from club_envs.members_only.replay import replay
from club_envs.members_only.rules import GAME_NAME as RECORD_NAME
from club_envs.members_only.spec import SPEC
from club_envs.members_only.rules import PLAYER_COUNTS, Config

ROLES: tuple[str, ...] = ()

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
]
