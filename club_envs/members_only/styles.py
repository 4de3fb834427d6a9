"""Members Only opponents of many styles: the heuristic's judgement, played with another temper.

A learner that meets only ``heuristic`` learns its tells -- that it reveals the cards helping its
own bets first, bets exactly when the expected gain is positive, never errs -- and reads everyone
else wrong. These bots keep the heuristic's estimate of what each bet and each card is worth
(:class:`~club_envs.members_only.bots.HeuristicAgent`) but act on it with a :class:`Style`:

``chip_cost``, ``rival_weight``
    what a lost chip costs and how much rivals' chips matter (the heuristic: (0.5, 1.0), 0.3);
``bet_margin``
    the expected gain a bet must beat (the heuristic: 0). A cautious bettor wants a clear edge, a
    bold one takes slightly losing bets too;
``reveal``
    the order its cards reach the display: ``"helpful"`` (the heuristic's: the card that helps its
    chips most first), ``"misleading"`` (the least helpful first, the helpful ones held to the end,
    so its early reveals point away from its bets) or ``"shuffled"`` (any order). The card it
    discards is the one its chips miss least in every order;
``epsilon``
    the share of decisions taken uniformly at random among the legal actions (noise).

``members_only_style_mix`` draws a new style for every game from :func:`draw_style`, seeded by the
seed the table gives :meth:`StyleAgent.reset`: the same seed, the same style and the same play.
The named fixed styles are in :data:`STYLES`.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from club_envs.agents.base import Decision
from club_envs.members_only import actions as A
from club_envs.members_only.bots import HeuristicAgent
from club_envs.members_only.engine import BET, DISCARD, REVEAL, View

REVEAL_ORDERS = ("helpful", "misleading", "shuffled")


@dataclass(frozen=True)
class Style:
    """How a :class:`StyleAgent` acts on the heuristic's estimate (see the module docstring)."""

    chip_cost: tuple[float, float] = (0.5, 1.0)
    rival_weight: float = 0.3
    bet_margin: float = 0.0
    reveal: str = "helpful"
    epsilon: float = 0.0

    def __post_init__(self) -> None:
        if self.reveal not in REVEAL_ORDERS:
            raise ValueError(f"unknown reveal order {self.reveal!r}; expected one of {', '.join(REVEAL_ORDERS)}")
        if not 0.0 <= self.epsilon <= 1.0:
            raise ValueError(f"epsilon must be in 0..1, got {self.epsilon}")


MIX = "members_only_style_mix"
STYLES: dict[str, Style] = {
    "members_only_style_cautious": Style(chip_cost=(1.0, 2.0), bet_margin=0.3),
    "members_only_style_bold": Style(chip_cost=(0.2, 0.4), rival_weight=0.0, bet_margin=-0.15),
    "members_only_style_misleading": Style(reveal="misleading"),
    "members_only_style_shuffled": Style(reveal="shuffled"),
    "members_only_style_noisy": Style(epsilon=0.2),
}
NAMES = (MIX, *STYLES)


def draw_style(rng: np.random.Generator) -> Style:
    """One game's style for ``members_only_style_mix``: the chip cost scaled log-uniformly by
    0.4..2.5, rivals weighted 0..0.6, a bet margin of -0.2..0.4, a reveal order (helpful 40%,
    misleading 35%, shuffled 25%), and noise on half the games (epsilon 0.02..0.15)."""
    scale = float(np.exp(rng.uniform(np.log(0.4), np.log(2.5))))
    rival = float(rng.uniform(0.0, 0.6))
    margin = float(rng.uniform(-0.2, 0.4))
    reveal = REVEAL_ORDERS[int(rng.choice(3, p=[0.4, 0.35, 0.25]))]
    epsilon = float(rng.uniform(0.02, 0.15)) if rng.random() < 0.5 else 0.0
    return Style((0.5 * scale, 1.0 * scale), rival, margin, reveal, epsilon)


class StyleAgent:
    """A Members Only bot of one :class:`Style`, or of a style drawn per game (``mix=True``).

    Asked one decision at a time (it has no ``batch_key``): its choices are not the heuristic's,
    so it must never be batched with it."""

    def __init__(self, style: Style | None = None, seed: int | None = None, name: str = MIX) -> None:
        self.name = name
        self.mix = style is None
        self._rng = np.random.default_rng(seed)
        self.style = draw_style(self._rng) if style is None else style
        self._judge = self._judge_for(self.style)

    @staticmethod
    def _judge_for(style: Style) -> HeuristicAgent:
        return HeuristicAgent(chip_cost=style.chip_cost, rival_weight=style.rival_weight)

    def reset(self, seat: int, seed: int | None = None) -> None:
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        if self.mix:
            self.style = draw_style(self._rng)
            self._judge = self._judge_for(self.style)

    def act(self, decision: Decision) -> int:
        legal = decision.legal_actions
        if len(legal) == 1:
            return int(legal[0])
        if self.style.epsilon and self._rng.random() < self.style.epsilon:
            return int(legal[self._rng.integers(len(legal))])
        view: View = decision.view
        if view.phase == BET:
            return self._bet(view, legal)
        if view.phase == REVEAL:
            return A.REVEAL_BASE + self._card_to_show(view)
        if view.phase == DISCARD:
            worth = self._judge.card_values(view)
            return A.DISCARD_BASE + max(worth, key=worth.get)
        return int(legal[0])

    def _bet(self, view: View, legal) -> int:
        bets = sorted((int(a) for a in legal if a < A.NUM_BETS), key=lambda a: (a & 1, a))  # single chips first
        if not bets:
            return A.NO_BET
        gains = self._judge.bet_values(view)[bets]
        best = int(np.argmax(gains))
        return bets[best] if gains[best] > self.style.bet_margin else A.NO_BET

    def _card_to_show(self, view: View) -> int:
        """The card revealed now, by the style's order; the card whose absence is best (the one it
        will discard) is shown only when nothing else is left."""
        worth = self._judge.card_values(view)  # chips' worth if that card is the one held back
        if self.style.reveal == "helpful" or len(worth) == 1:
            return min(worth, key=worth.get)
        keep = max(worth, key=worth.get)
        others = sorted(c for c in worth if c != keep) or [keep]
        if self.style.reveal == "misleading":
            return max(others, key=lambda c: (worth[c], -c))
        return int(others[self._rng.integers(len(others))])


def make_style_agent(name: str, seed: int | None = None) -> StyleAgent:
    """The style bot ``name`` (one of :data:`NAMES`)."""
    if name == MIX:
        return StyleAgent(None, seed, MIX)
    if name not in STYLES:
        raise ValueError(f"unknown style bot {name!r}; expected one of {', '.join(NAMES)}")
    return StyleAgent(replace(STYLES[name]), seed, name)
