"""Members Only's hooks for the search (:mod:`club_envs.search`).

Simulations stop at the end of the heat being played: by then every card of the heat has been
shown and every chip settled, and what is left -- the score tracks -- can be valued without playing
the game out (the rest of a game is several more heats of fresh deals, long and noisy to simulate).
A stopped position is worth, to each seat, a soft estimate of its chance of winning: a softmax of
the seats' track values (markers from 5 up count fully, below 5 by half, as the heuristic values
them; each chip still in hand adds what the heuristic charges for losing it), with a temperature of
a few points. A finished game is worth its win shares.

The search considers, at a betting decision, only the ``width`` bets with the best expected gain
by the heuristic's exact beliefs (of the player to move, from its own view of the world), plus "no
bet"; at a reveal or a discard, the ``cards`` cards the heuristic would rather show (or hold
back). They are tried in the heuristic's order of preference. The default rollout policy is
:class:`LightRollout`.

By default the searching seat's decisions are searched by *paired* play-outs
(:func:`club_envs.search.ismcts.paired_search`, 16 worlds) rather than by the tree: every candidate
bet is played out to the heat's end in the same sampled worlds, so two bets are compared on the same
cards. A bet's worth hinges on whether a category's count lands in its space; with the tree's UCB
each bet met its own handful of worlds and that chance alone decided between them (measured: the
tree lost to the heuristic, paired play-outs did not -- docs/search.md). With paired search the
default ``cards`` is 1: reveals and discards are the heuristic's exact choice (the tree's choices
there, from a few noisy simulations, lost games when measured).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from club_envs.agents.base import Decision
from club_envs.members_only import actions as A
from club_envs.members_only.bots import HeuristicAgent, track_value
from club_envs.members_only.engine import BET, REVEAL, State, View
from club_envs.members_only.observer import Observer
from club_envs.members_only.rules import Config
from club_envs.members_only.sampler import sample_world
from club_envs.search.game import SearchGame

DEFAULT_WIDTH = 4
DEFAULT_PAIRED_WORLDS = 16
DEFAULT_ROLLOUT = "light"
CHIP_WORTH = (0.5, 1.0)  # what a single and the double chip in hand are worth (the heuristic's chip cost)
TEMPERATURE = 3.0  # track-value points: a lead of 3 makes a seat e times likelier to win


def position_values(state: State, temperature: float = TEMPERATURE) -> np.ndarray:
    """Per seat, in [0, 1]: win shares of a finished game, else a softmax of track values."""
    n = state.num_players
    if state.result is not None:
        winners = state.result["winners"]
        out = np.zeros(n)
        out[winners] = 1.0 / len(winners)
        return out
    worth = np.array([float(np.sum(track_value(np.array(t)))) + CHIP_WORTH[0] * c[0] + CHIP_WORTH[1] * c[1]
                      for t, c in zip(state.tracks, state.chips)])
    z = np.exp((worth - worth.max()) / temperature)
    return z / z.sum()


class LightRollout:
    """The default rollout policy: the heuristic's bets and discards, reveals in random order.

    Within a heat every card but one discard per player reaches the display, so the order of the
    reveals changes the final counts not at all and later bets only a little; choosing reveals at
    random instead of by the heuristic's card values makes a simulation several times cheaper.
    """

    name = "light"

    def __init__(self, seed: int | None = None) -> None:
        self._heuristic = HeuristicAgent(seed)
        self._rng = np.random.default_rng(seed)

    def reset(self, seat: int, seed: int | None = None) -> None:
        self._heuristic.reset(seat, seed)
        if seed is not None:
            self._rng = np.random.default_rng(seed)

    def act(self, decision: Decision) -> int:
        legal = decision.legal_actions
        if decision.view.phase == REVEAL:
            return int(legal[int(self._rng.integers(len(legal)))])
        return self._heuristic.act(decision)


ROLLOUTS = {"light": LightRollout}


def search_game(config: Config, width: int | None = None, cards: int | None = None,
                paired: int | None = None) -> SearchGame:
    """The search hooks for games played with ``config``: ``width`` bets (plus "no bet") and
    ``cards`` reveals or discards considered per decision, ``paired`` worlds for paired play-outs
    (0: the tree). Defaults: 4 bets, 16 paired worlds, 1 card with paired search (else ``width``)."""
    width = DEFAULT_WIDTH if width is None else width
    paired = DEFAULT_PAIRED_WORLDS if paired is None else paired
    cards = (1 if paired > 0 else width) if cards is None else cards
    estimator = HeuristicAgent(seed=0)  # exact beliefs: no randomness used
    observer = Observer(config)

    def stop(state: State, root: View) -> bool:
        return state.heat != root.heat

    def candidates(state: State) -> tuple[Sequence[int], bool]:
        legal = state.legal_actions()
        if state.phase != BET:
            if len(legal) <= 1:
                return legal, False
            # Reveals: the heuristic shows first the card whose absence would hurt its chips most;
            # discards: it holds back the card whose absence is best.
            worth = estimator.card_values(state.player_view(state.current_player))
            base = A.REVEAL_BASE if state.phase == REVEAL else A.DISCARD_BASE
            sign = 1.0 if state.phase == REVEAL else -1.0
            ranked = sorted(legal, key=lambda a: (sign * worth[a - base], a))
            return ranked[:cards], True
        if len(legal) <= width + 1:
            return legal, False
        gains = estimator.bet_values(state.player_view(state.current_player))
        bets = [a for a in legal if a != A.NO_BET]
        bets.sort(key=lambda a: -gains[a])
        best = bets[:width]
        ranked = sorted([*best, A.NO_BET], key=lambda a: -(gains[a] if a != A.NO_BET else 0.0))
        return ranked, True

    def decision(state: State) -> Decision:
        seat = state.current_player
        view = state.player_view(seat)
        return Decision(seat, view, state.legal_actions(), lambda: observer.observe(view), state.legal_mask)

    return SearchGame(
        name="members_only",
        sample_world=sample_world,
        stop=stop,
        values=position_values,
        candidates=candidates,
        decision=decision,
        fixed_own_view=True,  # simulations stop at the heat's end: nobody draws a card before
        paired_worlds=paired,
    )
