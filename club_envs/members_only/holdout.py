"""Held-out Members Only opponents: bot families that share no decision rule with ``heuristic``.

They are written for evaluation only (:mod:`club_envs.evaluation_pools`): no training config may
seat them, so a score against them tells how an agent does against players it never met. None
of them asks the heuristic's exact count distributions or its expected-gain rule; each reads the
view its own way:

``holdout_margin``
    a point estimate of each category's final count (what is shown, plus the unseen cards' share
    of what the others will still show) with a rough spread; it bets the highest reward whose
    threshold lies at least half a spread away from the estimate (the double chip a spread and a
    half card away), first where a correct chip lifts its track to 5 or more, then to the highest track, and reveals the cards that push the counts its chips want first.
``holdout_prover``
    bets only what it can nearly prove: the lowest count the category can still end with (its own
    normal card discarded, the others' unseen NO! cards shown, their normal cards at half their
    share) for an "or more" space, the highest for an "or less" one. It reveals NO! cards first and discards the card that could hurt its chips.
``holdout_gambler``
    chases long shots: the highest reward it gives at least a 35% chance under a normal
    approximation of the count, a bet on every turn while it holds more than one chip, the
    risk marker always; its reveals come in any order.
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod

import numpy as np

from club_envs.agents.base import Decision
from club_envs.members_only import actions as A
from club_envs.members_only.engine import BET, DISCARD, REVEAL, View, chip_multiplier
from club_envs.members_only.rules import (
    COPIES_PER_TYPE,
    NUM_CATEGORIES,
    NUM_SPACES,
    SPACE_IS_AT_MOST,
    SPACE_THRESHOLD,
    TRACK_MAX,
    TRACK_SCORING_MIN,
)

NAMES = ("holdout_margin", "holdout_prover", "holdout_gambler")


class Reading:
    """What a held-out bot reads from a view: per category the cards certain to be shown (normal
    minus NO!), the unseen normal and NO! cards, and the share of unseen cards still to be shown."""

    def __init__(self, view: View) -> None:
        own = np.array(view.hand)
        if view.pending_reveal is not None:
            own[view.pending_reveal] += 1
        display = np.array(view.display)
        unseen = np.array(COPIES_PER_TYPE) - display - own
        if view.own_discard is not None:
            unseen[view.own_discard] -= 1
        shown = display + own
        others = [s for s in range(view.num_players) if s != view.seat]
        self.to_come = max(0, sum(view.hand_sizes[s] for s in others) - len(others))
        self.share = self.to_come / max(1, int(unseen.sum()))
        self.net_shown = shown[:NUM_CATEGORIES] - shown[NUM_CATEGORIES:]
        self.unseen_normal, self.unseen_no = unseen[:NUM_CATEGORIES], unseen[NUM_CATEGORIES:]
        self.own_normal = own[:NUM_CATEGORIES]

    def estimate(self) -> tuple[np.ndarray, np.ndarray]:
        """A point estimate of each final count and a rough spread (a binomial's, per card)."""
        mean = np.maximum(0.0, self.net_shown + self.share * (self.unseen_normal - self.unseen_no))
        spread = np.sqrt(self.share * (1.0 - self.share) * (self.unseen_normal + self.unseen_no)) + 0.5
        return mean, spread

    def bounds(self, nearly: bool = True) -> tuple[np.ndarray, np.ndarray]:
        """The lowest and the highest count each category can still end with; ``nearly``: drawn in
        to what the others show in all but unusual deals (at least half their share of the unseen
        normal cards, at most one and a half times it, their share of the NO! cards)."""
        low = self.net_shown - np.minimum(self.unseen_no, self.to_come) - (self.own_normal > 0)
        high = self.net_shown + np.minimum(self.unseen_normal, self.to_come)
        if nearly:  # "nearly": the bounds drawn in by the cards the others show in a typical deal
            low = np.maximum(low, np.floor(self.net_shown + self.share * self.unseen_normal * 0.5 - self.share * self.unseen_no))
            high = np.minimum(high, np.ceil(self.net_shown + self.share * self.unseen_normal * 1.5))
        return np.maximum(0, low), np.maximum(0, high)


def _open_bets(view: View, legal) -> list[tuple[int, int, int, int]]:
    """``(action, category, space, chip)`` of every legal bet in a category whose track is not full."""
    out = []
    for a in legal:
        a = int(a)
        if a < A.NUM_BETS:
            c, space, chip = A.decode_bet(a)
            if view.tracks[view.seat][c] < TRACK_MAX:
                out.append((a, c, space, chip))
    return out


def _distance(space: int, count: float) -> float:
    """How far ``count`` lies inside the space's correct side (negative: on the wrong side)."""
    k = SPACE_THRESHOLD[space]
    return k - count if SPACE_IS_AT_MOST[space] else count - k


def _track_after(view: View, category: int, space: int, chip: int) -> int:
    """This seat's track in ``category`` if the chip is correct."""
    points = view.rewards[space] * chip_multiplier(chip, view.round == 1)
    return min(TRACK_MAX, view.tracks[view.seat][category] + points)


def _counts_at_end(view: View, category: int, space: int, chip: int) -> bool:
    """Whether a correct chip lifts this seat's track to 5 or more, where markers score."""
    return _track_after(view, category, space, chip) >= TRACK_SCORING_MIN


def _own_wants(view: View) -> np.ndarray:
    """Per category: +1 when this seat's chips want more cards there, -1 fewer, 0 no chip or both."""
    want = np.zeros(NUM_CATEGORIES)
    for spot, owner, _, _ in view.bets:
        if owner == view.seat:
            c, space = divmod(spot, NUM_SPACES)
            want[c] += -1.0 if SPACE_IS_AT_MOST[space] else 1.0
    return np.sign(want)


def _harm(card: int, want: np.ndarray) -> float:
    """How much showing ``card`` goes against this seat's chips (a normal card adds one to its
    category, a NO! takes one away)."""
    c, sign = (card, 1.0) if card < NUM_CATEGORIES else (card - NUM_CATEGORIES, -1.0)
    return -sign * want[c]


class _HoldoutBase(ABC):
    """Shared plumbing: a seeded generator, reset per game; ``act`` dispatches by phase."""

    name = "holdout"

    def __init__(self, seed: int | None = None) -> None:
        self._rng = np.random.default_rng(seed)

    def reset(self, seat: int, seed: int | None = None) -> None:
        if seed is not None:
            self._rng = np.random.default_rng(seed)

    def act(self, decision: Decision) -> int:
        legal = decision.legal_actions
        if len(legal) == 1:
            return int(legal[0])
        view: View = decision.view
        cards = [c for c, n in enumerate(view.hand) if n]
        if view.phase == BET:
            return self.bet(view, legal)
        if view.phase == REVEAL:
            return A.REVEAL_BASE + self.reveal(view, cards)
        if view.phase == DISCARD:
            return A.DISCARD_BASE + self.discard(view, cards)
        return int(legal[0])

    def discard(self, view: View, cards: list[int]) -> int:
        """The card that goes most against its chips; ties at random."""
        want = _own_wants(view)
        harm = np.array([_harm(c, want) for c in cards])
        worst = [c for c, h in zip(cards, harm) if h == harm.max()]
        return int(worst[self._rng.integers(len(worst))])

    @abstractmethod
    def bet(self, view: View, legal) -> int:
        """The bet action (or ``A.NO_BET``) of this family."""

    @abstractmethod
    def reveal(self, view: View, cards: list[int]) -> int:
        """The card type (of ``cards``, those in hand) this family shows now."""


class MarginBot(_HoldoutBase):
    """``holdout_margin`` (module docstring)."""

    name = "holdout_margin"

    def bet(self, view: View, legal) -> int:
        mean, spread = Reading(view).estimate()
        best, best_key = A.NO_BET, None
        for a, c, space, chip in _open_bets(view, legal):
            room = _distance(space, mean[c])
            if room < 0.25 * spread[c] or (chip == 1 and room < 0.5 * spread[c] + 0.5):
                continue
            key = (_counts_at_end(view, c, space, chip), _track_after(view, c, space, chip), room)
            if best_key is None or key > best_key:
                best, best_key = a, key
        return best

    def reveal(self, view: View, cards: list[int]) -> int:
        """Cards that push the counts its chips want first; then NO! cards; then the rest."""
        want = _own_wants(view)
        keep = self.discard(view, cards) if len(cards) > 1 else None
        options = [c for c in cards if c != keep] or cards
        return int(min(options, key=lambda c: (_harm(c, want), -(c >= NUM_CATEGORIES), c)))


class ProverBot(_HoldoutBase):
    """``holdout_prover`` (module docstring)."""

    name = "holdout_prover"

    def bet(self, view: View, legal) -> int:
        low, high = Reading(view).bounds()
        best, best_key = A.NO_BET, None
        for a, c, space, chip in _open_bets(view, legal):
            sure = low[c] >= SPACE_THRESHOLD[space] if not SPACE_IS_AT_MOST[space] else high[c] <= SPACE_THRESHOLD[space]
            if sure:
                key = (_counts_at_end(view, c, space, chip), _track_after(view, c, space, chip))
                if best_key is None or key > best_key:
                    best, best_key = a, key
        return best

    def reveal(self, view: View, cards: list[int]) -> int:
        keep = self.discard(view, cards) if len(cards) > 1 else None
        options = [c for c in cards if c != keep] or cards
        return int(max(options))  # NO! cards (5..9) first, then normal cards, highest category first


class GamblerBot(_HoldoutBase):
    """``holdout_gambler`` (module docstring)."""

    name = "holdout_gambler"
    MIN_CHANCE = 0.35

    def bet(self, view: View, legal) -> int:
        single, double = view.chips[view.seat]
        if single + double <= 1 and view.round != 1:
            return A.NO_BET
        mean, spread = Reading(view).estimate()
        best, best_key = A.NO_BET, None
        for a, c, space, chip in _open_bets(view, legal):
            chance = 0.5 * (1.0 + math.erf(_distance(space, mean[c]) / (spread[c] * math.sqrt(2.0))))
            if chance < self.MIN_CHANCE:
                continue
            key = (view.rewards[space], chip == (view.round == 1), chance)  # the double chip on the risk marker
            if best_key is None or key > best_key:
                best, best_key = a, key
        return best

    def reveal(self, view: View, cards: list[int]) -> int:
        return int(cards[self._rng.integers(len(cards))])


_BOTS = {"holdout_margin": MarginBot, "holdout_prover": ProverBot, "holdout_gambler": GamblerBot}


def make_holdout_agent(name: str, seed: int | None = None) -> _HoldoutBase:
    """The held-out bot ``name`` (one of :data:`NAMES`)."""
    if name not in _BOTS:
        raise ValueError(f"unknown held-out bot {name!r}; expected one of {', '.join(NAMES)}")
    return _BOTS[name](seed)
