"""Arkham Decoders Club's hooks for the search (:mod:`club_envs.search`).

A game is short (a few dozen decisions) and is decided only by the final SAN total, so simulations
play it to the end and a seat's value is 1 if its side won, 0 if not. The tree considers every
legal action. The default rollout policy, ``light``, is the heuristic bot
(:class:`LightRollout`). By default worlds are reweighted by the heuristic bots' vote model
(:func:`club_envs.arkham_decoders.sampler.belief_weight`; measured: a team that samples uniformly
ignores what the Black Man's votes reveal); ``beliefs=uniform`` samples them uniformly.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from club_envs.agents.base import Decision
from club_envs.arkham_decoders.bots import HeuristicAgent
from club_envs.arkham_decoders.engine import State, View
from club_envs.arkham_decoders.observer import Observer
from club_envs.arkham_decoders.rules import Config
from club_envs.arkham_decoders.sampler import belief_weight, sample_world
from club_envs.search.game import SearchGame

DEFAULT_ROLLOUT = "light"


class LightRollout:
    """The default rollout policy: the heuristic bots' decisions. A simulation asks the belief of
    the same vote history again and again; :class:`~club_envs.arkham_decoders.bots.HeuristicAgent`
    caches it per history, so the rollout is the bot itself."""

    name = "light"

    def __init__(self, seed: int | None = None) -> None:
        self._bot = HeuristicAgent(seed)

    def reset(self, seat: int, seed: int | None = None) -> None:
        pass

    def act(self, decision: Decision) -> int:
        return self._bot.act(decision)


ROLLOUTS = {"light": LightRollout}


def outcome_values(state: State) -> np.ndarray:
    """Per seat: 1 if its side won the finished game, else 0."""
    out = np.zeros(state.num_players)
    if state.result is not None:
        out[state.result["winners"]] = 1.0
    return out


def default_weight(view: View):
    """Worlds weighted by the heuristic's vote model, except for the Black Man: he knows who he is
    and which book is true, so every world he can sample weighs the same."""
    return None if view.true_book is not None else belief_weight(view)


def search_game(config: Config, width: int | None = None, cards: int | None = None,
                paired: int | None = None) -> SearchGame:
    """The search hooks for games played with ``config`` (``paired``: worlds for paired play-outs
    at the root instead of the tree; default 0, the tree)."""
    if width is not None or cards is not None:
        raise ValueError("the ismcts option width applies to members_only only (and so does cards)")
    observer = Observer(config)

    def candidates(state: State) -> tuple[Sequence[int], bool]:
        return state.legal_actions(), False

    def decision(state: State) -> Decision:
        seat = state.current_player
        view = state.player_view(seat)
        return Decision(seat, view, state.legal_actions(), lambda: observer.observe(view), state.legal_mask)

    def stop(state: State, root: View) -> bool:
        return False

    return SearchGame(
        name="arkham_decoders_club",
        sample_world=sample_world,
        stop=stop,
        values=outcome_values,
        candidates=candidates,
        decision=decision,
        default_weight=default_weight,
        paired_worlds=paired or 0,
    )


__all__ = ["search_game", "outcome_values", "belief_weight"]
