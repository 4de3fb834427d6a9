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

A learned belief (:class:`~club_envs.members_only.belief_model.BeliefModel`, e.g. the shipped
``members_only_belief``) can serve the search twice, each computed once per decision from the
searching seat's own observation: ``beliefs=`` weights the sampled worlds by what it predicts the
other players will still show (:func:`club_envs.members_only.sampler.learned_weight`), and
``estimates=`` ranks the candidate bets and cards by it instead of by the uniform belief -- so
with one card the reveals and discards are the belief agent's. The uniform belief reads nothing
into the other players' bets and reveals; the learned one does, and both uses won more games when
measured (docs/search.md), so the defaults are :data:`DEFAULT_BELIEFS` and
:data:`DEFAULT_ESTIMATES` (the uniform ones when that agent is not installed).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from club_envs.agents.base import Decision
from club_envs.members_only import actions as A
from club_envs.members_only import heuristic_batch
from club_envs.members_only.belief_model import NUM_OFFSETS, BeliefModel, network_inputs, prior_offsets
from club_envs.members_only.bots import HeuristicAgent
from club_envs.members_only.heuristic_values import track_value
from club_envs.members_only.engine import BET, REVEAL, State, View
from club_envs.members_only.observer import Observer
from club_envs.members_only.rules import NUM_CATEGORIES, Config
from club_envs.members_only.sampler import learned_weight, sample_world
from club_envs.search.game import SearchGame
from club_envs.search.worlds import Weight

DEFAULT_WIDTH = 4
DEFAULT_PAIRED_WORLDS = 16
DEFAULT_ROLLOUT = "light"
DEFAULT_ANCHOR = 2.0  # paired play-outs: standard errors another bet must lead the favourite by
DEFAULT_BELIEFS = "members_only_belief"  # the learned belief that weights worlds unless beliefs= says otherwise
SHIPPED_BELIEFS = ("members_only_belief",)  # the shipped agents that hold a learned belief model
DEFAULT_ESTIMATES = "members_only_belief"  # the learned belief that ranks candidates unless estimates= says otherwise
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
BATCHED_ROLLOUTS = ("light", "heuristic", "random")  # played out on the batched engine (vector_search)


def batched_playouts(config: Config, rollout: str):
    """Paired play-outs of ``rollout`` on the batched engine
    (:class:`club_envs.members_only.vector_search.Playouts`; imported here, on first use, because it
    compiles the batched engine)."""
    from club_envs.members_only.vector_search import Playouts

    return Playouts(config, rollout, TEMPERATURE, CHIP_WORTH)


def learned_logits(model: BeliefModel, observation: np.ndarray) -> np.ndarray:
    """The model's logits ``(5, 14)`` for one observation: added to the uniform prior's
    log-probabilities they give its distribution, so ``exp(logit)`` is the ratio of the two."""
    obs = np.asarray(observation, dtype=np.float32)[None]
    inputs, _ = network_inputs(obs, prior_offsets(obs))
    return model.logits(inputs).reshape(NUM_CATEGORIES, NUM_OFFSETS)


def learned_weight_for(model: BeliefModel, config: Config):
    """``weight_for(view)``: the weight of worlds under ``model``, computed once per decision from
    the seat's own observation (:func:`club_envs.members_only.sampler.learned_weight`)."""
    observer = Observer(config)

    def weight_for(view: View) -> Weight:
        return learned_weight(view.seat, learned_logits(model, observer.observe(view)))

    return weight_for


def belief_model(name: str, game, config: Config, load: Callable[..., Any], shipped: Collection[str]) -> BeliefModel:
    """The learned belief named ``name``: a shipped Members Only belief agent (``members_only_belief``)
    or a belief file (``*.npz``, or a folder holding ``belief.npz``); ``ValueError`` otherwise.
    ``load`` turns a name into an agent (:func:`club_envs.agents.registry.load`); ``shipped`` names
    the installed shipped agents."""
    from club_envs.members_only.belief_agent import BeliefAgent

    names = [n for n in SHIPPED_BELIEFS if n in shipped]
    known = " or ".join([*names, "a belief file (*.npz)"])
    detail = ""
    try:
        agent = load(name, game=game, config=config)
    except (ValueError, OSError) as exc:
        agent, detail = None, f" ({exc})" if Path(name).exists() else ""
    if not isinstance(agent, BeliefAgent):
        raise ValueError(f"{name!r} is not a Members Only belief model{detail}; a belief model is {known}")
    return agent.model


def search_game(config: Config, width: int | None = None, cards: int | None = None,
                paired: int | None = None, estimates: BeliefModel | None = None) -> SearchGame:
    """The search hooks for games played with ``config``: ``width`` bets (plus "no bet") and
    ``cards`` reveals or discards considered per decision, ``paired`` worlds for paired play-outs
    (0: the tree). Defaults: 4 bets, 16 paired worlds, 1 card with paired search (else ``width``).
    ``estimates``: a learned belief that ranks those candidates (and so, with one card, chooses the
    reveals and discards) in place of the heuristic's uniform one."""
    width = DEFAULT_WIDTH if width is None else width
    paired = DEFAULT_PAIRED_WORLDS if paired is None else paired
    cards = (1 if paired > 0 else width) if cards is None else cards
    estimator = HeuristicAgent(seed=0)  # exact beliefs: no randomness used
    observer = Observer(config)

    def estimate(state: State) -> tuple[np.ndarray, np.ndarray]:
        """The player to move's expected gain per bet action ``(80,)`` and worth per card held back
        ``(10,)``, by its own view and the learned belief."""
        view = state.player_view(state.current_player)
        offsets = estimates.predict(observer.observe(view))
        ev = heuristic_batch.evaluate([view], state.legal_mask()[None], estimator.chip_cost, estimator.rival_weight,
                                      offsets=offsets[None])
        return ev.bets[0], ev.cards[0]

    def stop(state: State, root: View) -> bool:
        return state.heat != root.heat

    def candidates(state: State) -> tuple[Sequence[int], bool]:
        legal = state.legal_actions()
        if state.phase != BET:
            if len(legal) <= 1:
                return legal, False
            # Reveals: the heuristic shows first the card whose absence would hurt its chips most;
            # discards: it holds back the card whose absence is best.
            if estimates is None:
                worth = estimator.card_values(state.player_view(state.current_player))
            else:
                worth = estimate(state)[1]
            base = A.REVEAL_BASE if state.phase == REVEAL else A.DISCARD_BASE
            sign = 1.0 if state.phase == REVEAL else -1.0
            ranked = sorted(legal, key=lambda a: (sign * worth[a - base], a))
            return ranked[:cards], True
        if len(legal) <= 1:
            return legal, False
        if estimates is None:
            gains = estimator.bet_values(state.player_view(state.current_player))
        else:
            gains = estimate(state)[0]
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
        paired_anchor=DEFAULT_ANCHOR,
    )
