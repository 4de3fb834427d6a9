"""High Card Swap: a tiny game registered through the same spec as the real games.

It exists to prove the claim of ``docs/adding_a_game.md``: a new game is one package and one
``register`` call. Two or three players are each dealt one card of 1..9 face down; in seat order
each either keeps it or swaps it for the top card of the deck; the highest card wins. The package
follows the contract of :mod:`club_envs.games` with as few modules as possible (the spec's hooks
may name any module of the package).
"""

from tests.toy_game.game import AGENT_NAMES, PLAYER_COUNTS, RECORD_NAME, ROLES, Config, make_agent
from tests.toy_game.game import outcomes, play_match, replay
from tests.toy_game.spec import SPEC

__all__ = ["AGENT_NAMES", "PLAYER_COUNTS", "RECORD_NAME", "ROLES", "SPEC", "Config", "make_agent",
           "outcomes", "play_match", "replay"]
