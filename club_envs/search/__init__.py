"""Game-independent search: Information-Set MCTS over worlds sampled from one seat's view.

A game takes part by providing a :class:`~club_envs.search.game.SearchGame` (its sampler, where a
rollout may stop and what a stopped position is worth); see ``club_envs/<game>/search.py``.
"""

from club_envs.search.game import SearchGame
from club_envs.search.ismcts import ISMCTSAgent, ISMCTSOptions, parse_options, search

__all__ = ["SearchGame", "ISMCTSAgent", "ISMCTSOptions", "parse_options", "search"]
