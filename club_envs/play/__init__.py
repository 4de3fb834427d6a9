"""Human play: one person against agents, shared by the terminal (``club-envs play``) and the
browser (``club-envs serve``). See :class:`club_envs.play.human_game.HumanGame`."""

from club_envs.play.human_game import Frame, HumanGame, IllegalMove, Move, NotYourTurn

__all__ = ["Frame", "HumanGame", "IllegalMove", "Move", "NotYourTurn"]
