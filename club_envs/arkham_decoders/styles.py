"""Arkham Decoders Club opponents of many styles: the heuristic's reading, played with another temper.

A team that meets only the heuristic Black Man learns his tell -- he opposes every proposal of
fakes and agrees only when the leader would decode a true card -- and a Black Man that meets only
the heuristic team learns its thresholds. These bots keep the heuristic's belief
(:func:`~club_envs.arkham_decoders.bots.true_book_probabilities`) and act on it with a
:class:`Style`:

Black Man
    ``cover``: the chance he agrees to a proposal holding no true card (an honest-looking Black
    Man agrees to fakes as the Investigator does; the heuristic never); ``push``: the chance he
    agrees to a proposal holding true cards that the leader would not decode after a 1-1 vote (a
    bluffing Black Man pushes them; the heuristic never); ``follow``: the chance he agrees when
    the leader would decode a true card (the heuristic: always).
Team
    ``confidence``: the belief sharpened (> 1, a bold team acting on thin evidence) or flattened
    (< 1, a cautious one) as ``P(t)^confidence``, renormalised; ``pass_below``: the expected points
    under which a member passes (the heuristic: -1; higher passes more); ``agree_above``: the
    expected points of the three cards above which the Investigator agrees (the heuristic: 2.5).
Both
    ``epsilon``: the share of decisions taken at random among the legal actions.

``arkham_style_mix`` draws a new style for every game from :func:`draw_style`, seeded by the seed
the table gives :meth:`StyleAgent.reset`; the named fixed styles are in :data:`STYLES`.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from club_envs.agents.base import Decision
from club_envs.arkham_decoders import actions as A
from club_envs.arkham_decoders.bots import (
    INV_AGREE_ABOVE_EXPECTED,
    PASS_BELOW_EXPECTED_POINTS,
    expected_points,
    leader_pick,
    leader_true_book,
    true_book_probabilities,
)
from club_envs.arkham_decoders.engine import CHOOSE, PROPOSAL, VOTE, View
from club_envs.arkham_decoders.rules import BLACK_MAN, NUM_VALUES


@dataclass(frozen=True)
class Style:
    """How a :class:`StyleAgent` plays (see the module docstring); the defaults are the heuristic."""

    cover: float = 0.0
    push: float = 0.0
    follow: float = 1.0
    confidence: float = 1.0
    pass_below: float = PASS_BELOW_EXPECTED_POINTS
    agree_above: float = INV_AGREE_ABOVE_EXPECTED
    epsilon: float = 0.0

    def __post_init__(self) -> None:
        for key in ("cover", "push", "follow", "epsilon"):
            if not 0.0 <= getattr(self, key) <= 1.0:
                raise ValueError(f"{key} must be in 0..1, got {getattr(self, key)}")
        if self.confidence <= 0:
            raise ValueError(f"confidence must be above 0, got {self.confidence}")


MIX = "arkham_style_mix"
STYLES: dict[str, Style] = {
    "arkham_style_honest": Style(cover=0.6),
    "arkham_style_bluffer": Style(cover=0.15, push=0.6, follow=0.85),
    "arkham_style_cautious": Style(confidence=0.6, pass_below=0.0, agree_above=3.2),
    "arkham_style_bold": Style(confidence=1.8, pass_below=-3.0, agree_above=1.8),
    "arkham_style_noisy": Style(epsilon=0.2),
}
NAMES = (MIX, *STYLES)


def draw_style(rng: np.random.Generator) -> Style:
    """One game's style for ``arkham_style_mix``: cover 0..0.7, push 0..0.6, follow 0.6..1,
    confidence log-uniform 0.5..2, a member's pass level -3..0, the Investigator's agreement level
    1.5..3.5, and noise on half the games (epsilon 0.02..0.15)."""
    return Style(
        cover=float(rng.uniform(0.0, 0.7)),
        push=float(rng.uniform(0.0, 0.6)),
        follow=float(rng.uniform(0.6, 1.0)),
        confidence=float(np.exp(rng.uniform(np.log(0.5), np.log(2.0)))),
        pass_below=float(rng.uniform(-3.0, 0.0)),
        agree_above=float(rng.uniform(1.5, 3.5)),
        epsilon=float(rng.uniform(0.02, 0.15)) if rng.random() < 0.5 else 0.0,
    )


def tempered(p_true: np.ndarray, confidence: float) -> list[float]:
    """``p_true ** confidence``, renormalised (a certain book stays certain, a ruled-out one out)."""
    p = np.asarray(p_true, dtype=float) ** confidence
    total = p.sum()
    return (p / total).tolist() if total > 0 else list(map(float, p_true))


class StyleAgent:
    """An Arkham bot of one :class:`Style` for every role, or of a style drawn per game (``mix``)."""

    def __init__(self, style: Style | None = None, seed: int | None = None, name: str = MIX) -> None:
        self.name = name
        self.mix = style is None
        self._rng = np.random.default_rng(seed)
        self.style = draw_style(self._rng) if style is None else style

    def reset(self, seat: int, seed: int | None = None) -> None:
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        if self.mix:
            self.style = draw_style(self._rng)

    def act(self, decision: Decision) -> int:
        legal = decision.legal_actions
        if len(legal) == 1:
            return int(legal[0])
        if self.style.epsilon and self._rng.random() < self.style.epsilon:
            return int(legal[self._rng.integers(len(legal))])
        view: View = decision.view
        if view.phase == VOTE and view.identity == BLACK_MAN:
            return self._vote_black_man(view)
        p_true = tempered(true_book_probabilities(view), self.style.confidence)
        if view.phase == PROPOSAL:
            best = max(view.hand, key=lambda c: (expected_points(c, p_true), -c))
            if view.seat != view.leader and expected_points(best, p_true) < self.style.pass_below:
                return A.PASS
            return A.REVEAL + best
        if view.phase == VOTE:
            expected = sum(expected_points(card, p_true) for _, card in view.table)
            return A.AGREE if expected > self.style.agree_above else A.OPPOSE
        if view.phase == CHOOSE:
            slot = leader_pick(view, p_true)
            return A.DECODE + slot if A.DECODE + slot in legal else int(legal[0])
        return int(legal[0])

    def _vote_black_man(self, view: View) -> int:
        if not any(card // NUM_VALUES == view.true_book for _, card in view.table):
            chance = self.style.cover
        else:
            slot = leader_pick(view, leader_true_book(view, view.seat).tolist())
            leader_takes_true = slot >= 0 and view.table[slot][1] // NUM_VALUES == view.true_book
            chance = self.style.follow if leader_takes_true else self.style.push
        if chance >= 1.0 or (chance > 0.0 and self._rng.random() < chance):
            return A.AGREE
        return A.OPPOSE


def make_style_agent(name: str, seed: int | None = None) -> StyleAgent:
    """The style bot ``name`` (one of :data:`NAMES`)."""
    if name == MIX:
        return StyleAgent(None, seed, MIX)
    if name not in STYLES:
        raise ValueError(f"unknown style bot {name!r}; expected one of {', '.join(NAMES)}")
    return StyleAgent(replace(STYLES[name]), seed, name)
