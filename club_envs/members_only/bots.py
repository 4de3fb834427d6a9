"""Baseline players: ``random`` and ``heuristic``."""

from __future__ import annotations

import numpy as np

from club_envs.agents.base import Decision, RandomAgent, Thought
from club_envs.members_only import actions as A
from club_envs.members_only import beliefs, heuristic_round, heuristic_sampled
from club_envs.members_only.engine import BET, DISCARD, REVEAL, View, chip_multiplier
from club_envs.members_only.heuristic_values import final_counts, known_position, track_value
from club_envs.members_only.insight import held_by_others
from club_envs.members_only.rules import (
    NUM_CARD_TYPES,
    NUM_CATEGORIES,
    NUM_SPACES,
    SPACE_IS_AT_MOST,
    SPACE_THRESHOLD,
    TRACK_MAX,
    Config,
)

AGENT_NAMES = ("random", "heuristic", "heuristic_sampled", "heuristic_bold")
_THRESHOLDS = np.array(SPACE_THRESHOLD)
_AT_MOST = np.array(SPACE_IS_AT_MOST)


class HeuristicAgent:
    """A sensible Members Only player built on one estimate: the final count of each category.

    **The estimate.** The cards this seat has not seen (the deck minus its hand, its pending or
    discarded card and the display) are where the other players' hands come from. Every card in
    another player's hand reaches the display except that player's one discard, so the other
    players will add ``sum(their hand sizes) - (their number)`` cards; the agent draws that many
    cards from its unseen cards, ``samples`` times (multivariate hypergeometric), adds the display
    and its own hand, and cancels NO! pairs: a sample of every category's final count.

    **Bets.** For every empty space and chip it holds, the expected gain is
    ``P(correct) * (track value after the points - before) - P(wrong) * chip_cost`` where the
    points are reward x multiplier (x2 on the risk marker in the first round, x3 for the double
    chip there), the track value counts points from 5 up fully and below 5 by half, and a lost
    chip costs ``chip_cost`` (0.5 single, 1.0 double). It places the best chip if that gain is
    positive, otherwise it does not bet.

    **Exact or sampled.** By default (``samples=None``) the distribution of every category's final
    count is computed exactly (:mod:`club_envs.members_only.beliefs`: the limit of infinitely many
    samples, and about ten times cheaper than 200 of them); ``samples=200`` draws the deals as the
    first version of this bot did (``heuristic_sampled``).

    **Reveals and discards.** All of its cards reach the display except its one discard, so what
    matters is which card it keeps back for the discard. For each card type in hand it computes the
    expected value of its own chips (plus ``rival_weight`` times minus the other players' chips)
    if that card were the one *not* shown: it discards the card whose absence is best, and reveals
    the card whose absence would be worst (the card that helps its bets most), keeping the harmful
    cards for the end.
    """

    name = "heuristic"

    def __init__(
        self,
        seed: int | None = None,
        samples: int | None = None,
        chip_cost: tuple[float, float] = (0.5, 1.0),
        rival_weight: float = 0.3,
    ) -> None:
        self._rng = np.random.default_rng(seed)
        self.samples = samples
        self.chip_cost = chip_cost
        self.rival_weight = rival_weight
        # exact estimates: the choice is a function of the view alone (one instance serves every seat)
        self.stateless = samples is None

    def reset(self, seat: int, seed: int | None = None) -> None:
        if seed is not None:
            self._rng = np.random.default_rng(seed)

    # ----------------------------------------------------------------- decisions

    def act(self, decision: Decision) -> int:
        legal = decision.legal_actions
        if len(legal) == 1:
            return int(legal[0])
        view: View = decision.view
        if view.phase == BET:
            return self._bet(view, legal)
        if view.phase == REVEAL:
            return A.REVEAL_BASE + self._card_to_show(view)
        if view.phase == DISCARD:
            return A.DISCARD_BASE + self._card_to_hold_back(view)
        return int(legal[0])

    def explain(self, decision: Decision) -> list[Thought]:
        """What :meth:`act` weighs, its choice first: the expected gain of every bet (no bet: 0),
        or for reveals and discards the chips' worth if each card were the one held back."""
        view: View = decision.view
        legal = [int(a) for a in decision.legal_actions]
        if view.phase == BET:
            values = self.bet_values(view)
            scores = {a: (float(values[a]) if a < A.NUM_BETS else 0.0) for a in legal}
            thoughts = [Thought(a, scores[a], "expected gain") for a in legal]
        elif view.phase in (REVEAL, DISCARD):
            worth = self.card_values(view)
            base = A.REVEAL_BASE if view.phase == REVEAL else A.DISCARD_BASE
            thoughts = [Thought(a, float(worth[a - base]), "worth if held back") for a in legal if a - base in worth]
        else:
            return [Thought(a, 1.0, "chosen") for a in legal]
        chosen = self.act(decision)
        # reveal the card whose absence would hurt most; discard (hold back) the one it misses least
        sign = 1.0 if view.phase == REVEAL else -1.0
        ordered = sorted(thoughts, key=lambda t: (t.action != chosen, sign * t.score if view.phase != BET else -t.score))
        return ordered

    def beliefs(self, decision: Decision) -> list[tuple[str, float]]:
        """How many of each card the other seats hold, expected from the cards this seat has not
        seen (each unseen card is equally likely to be in another hand or out of play)."""
        view: View = decision.view
        unseen, _, _ = known_position(view)
        in_hands = sum(view.hand_sizes[s] for s in range(view.num_players) if s != view.seat)
        total = max(1, int(unseen.sum()))
        return [(held_by_others(c), float(unseen[c]) * in_hands / total) for c in range(NUM_CARD_TYPES)]

    def _bet(self, view: View, legal: list[int]) -> int:
        values = self.bet_values(view)
        bets = sorted((a for a in legal if a < A.NUM_BETS), key=lambda a: (a & 1, a))  # single chips first
        if not bets:
            return A.NO_BET
        gains = values[bets]
        best = int(np.argmax(gains))  # the first of equal gains, as a scan in that order would
        return int(bets[best]) if gains[best] > 0.0 else A.NO_BET

    @property
    def batch_key(self) -> tuple:
        """Bots with equal settings may be asked together by a vector environment (:meth:`act_batch`):
        exact bots decide alike; sampled bots each draw from their own generator first, and the
        rest of their arithmetic is done for the batch."""
        return ("members_only_heuristic", self.samples, self.chip_cost, self.rival_weight)

    @staticmethod
    def act_batch(agents: list[HeuristicAgent], decisions: list[Decision]) -> list[int]:
        """The choices of bots with one :attr:`batch_key`, evaluated together (the same arithmetic
        and the same draws as :meth:`act`, tested against it): sampled bots by
        :mod:`club_envs.members_only.heuristic_sampled`, exact ones by
        :mod:`club_envs.members_only.heuristic_batch`, through the round's shared evaluation
        (:mod:`club_envs.members_only.heuristic_round`)."""
        bot = agents[0]
        if bot.samples is not None:
            return heuristic_sampled.act_batch(agents, decisions)
        masks = np.stack([d.action_mask for d in decisions])
        evaluation = heuristic_round.evaluate([d.view for d in decisions], masks, bot.chip_cost, bot.rival_weight)
        return [int(a) for a in evaluation.choice]

    @property
    def prepare_key(self) -> tuple | None:
        """Exact bots share their evaluation with the other agents of a round that need it
        (policies reading ``members_only_heuristic`` inputs): :mod:`club_envs.members_only.heuristic_round`."""
        if self.samples is not None:
            return None
        return heuristic_round.key(self.chip_cost, self.rival_weight)

    @staticmethod
    def prepare_batch(agents: list[HeuristicAgent], decisions: list[Decision]) -> None:
        heuristic_round.prepare_decisions(decisions, agents[0].chip_cost, agents[0].rival_weight)

    def bet_values(self, view: View) -> np.ndarray:
        """The expected gain of every bet action (``(80,)``, indexed by action) in this position."""
        if self.samples is None:
            p_correct = beliefs.space_probabilities(beliefs.position_counts(*known_position(view)))
        else:
            counts = final_counts(self._final_card_samples(view))
            # p_correct[category, space]
            p_correct = np.where(
                _AT_MOST[None, None, :],
                counts[:, :, None] <= _THRESHOLDS[None, None, :],
                counts[:, :, None] >= _THRESHOLDS[None, None, :],
            ).mean(axis=0)
        track = np.array(view.tracks[view.seat], dtype=float)
        rewards = np.array(view.rewards, dtype=float)
        risk = view.round == 1
        expected = np.empty((NUM_CATEGORIES, NUM_SPACES, 2))
        for chip in (0, 1):
            points = rewards[None, :] * chip_multiplier(chip, risk)
            after = np.minimum(TRACK_MAX, track[:, None] + points)
            gain = track_value(after) - track_value(track)[:, None]
            expected[:, :, chip] = p_correct * gain - (1.0 - p_correct) * self.chip_cost[chip]
        return expected.reshape(-1)  # action (category * 8 + space) * 2 + chip

    def card_values(self, view: View) -> dict[int, float]:
        """For each card type in hand: the expected worth of the board's chips to this seat if that
        card is the one held back (revealed last or discarded)."""
        return self._value_without_each_card(view)

    def _card_to_show(self, view: View) -> int:
        values = self._value_without_each_card(view)
        return min(values, key=values.get)

    def _card_to_hold_back(self, view: View) -> int:
        values = self._value_without_each_card(view)
        return max(values, key=values.get)

    # ----------------------------------------------------------------- the estimate

    def _final_card_samples(self, view: View) -> np.ndarray:
        """``(samples, 10)`` cards of each type in the final display, if every own card is shown:
        the display + own cards + a random draw of what the other players will show."""
        unseen, to_come, shown = known_position(view)
        if to_come == 0:
            return np.repeat(shown[None, :], self.samples, axis=0)
        draws = self._rng.multivariate_hypergeometric(unseen, to_come, size=self.samples, method="count")
        return draws + shown[None, :]

    def _value_without_each_card(self, view: View) -> dict[int, float]:
        """For each card type in hand: the expected worth of the board's chips to this seat if all
        its cards except one of that type reach the display."""
        chips = _board_chips(view, self.chip_cost, self.rival_weight)
        if self.samples is None:
            return _exact_value_without_each_card(view, chips)
        cards = self._final_card_samples(view)
        values = {}
        for card in range(NUM_CARD_TYPES):
            if view.hand[card]:
                cards[:, card] -= 1
                values[card] = _board_worth(chips, final_counts(cards))
                cards[:, card] += 1
        return values


_CARD_ROWS = np.eye(NUM_CARD_TYPES, dtype=np.int64)


def _exact_value_without_each_card(view: View, chips) -> dict[int, float]:
    """:meth:`HeuristicAgent._value_without_each_card` from the exact count distributions: all
    ten "one card held back" cases in one batch."""
    held = [card for card in range(NUM_CARD_TYPES) if view.hand[card]]
    category = chips[0]
    if len(category) == 0:
        return {card: 0.0 for card in held}
    unseen, to_come, shown = known_position(view)
    counts = np.stack([beliefs.position_counts(unseen, to_come, shown - _CARD_ROWS[card]) for card in held])
    _, threshold, at_most, win, lose = chips
    correct = np.where(at_most[:, None], beliefs.COUNT_VALUES[None, :] <= threshold[:, None],
                       beliefs.COUNT_VALUES[None, :] >= threshold[:, None])  # (chips, 12)
    p = (counts[:, category, :] * correct[None]).sum(axis=-1)  # (held, chips)
    worth = (p * win[None] + (1.0 - p) * lose[None]).sum(axis=1)
    return {card: float(w) for card, w in zip(held, worth)}


def _board_chips(view: View, chip_cost: tuple[float, float], rival_weight: float):
    """Every chip on the board as arrays: category, threshold, "or less"?, and what a correct and
    a wrong result are worth to this seat (own chips count fully, rivals' by -rival_weight)."""
    category, threshold, at_most, win, lose = [], [], [], [], []
    for spot, owner, kind, risk in view.bets:
        c, space = divmod(spot, NUM_SPACES)
        track = view.tracks[owner][c]
        points = view.rewards[space] * chip_multiplier(kind, risk)
        gain = track_value(min(TRACK_MAX, track + points)) - track_value(track)
        weight = 1.0 if owner == view.seat else -rival_weight
        category.append(c)
        threshold.append(SPACE_THRESHOLD[space])
        at_most.append(SPACE_IS_AT_MOST[space])
        win.append(weight * gain)
        lose.append(-weight * chip_cost[kind])
    return (np.array(category, dtype=int), np.array(threshold), np.array(at_most, dtype=bool),
            np.array(win), np.array(lose))


def _board_worth(chips, counts: np.ndarray) -> float:
    """Expected worth of the chips given samples of the final counts ``(samples, 5)``."""
    category, threshold, at_most, win, lose = chips
    if len(category) == 0:
        return 0.0
    count = counts[:, category]  # (samples, chips)
    correct = np.where(at_most, count <= threshold, count >= threshold)
    p = correct.mean(axis=0)
    return float((p * win + (1.0 - p) * lose).sum())


def make_agent(name: str, config: Config | None = None, seed: int | None = None):
    """A built-in agent by name: ``"random"``, ``"heuristic"`` (exact estimates) or
    ``"heuristic_sampled"`` (the same bot estimating from 200 sampled deals) or ``"heuristic_bold"``
    (a differently tuned heuristic: lost chips cost it half as much and rivals' chips do not
    matter to it, so it bets more and reveals only for itself -- an opponent no trained agent
    meets in training)."""
    key = name.strip().lower()
    if key == "random":
        return RandomAgent(seed)
    if key == "heuristic":
        return HeuristicAgent(seed)
    if key == "heuristic_sampled":
        bot = HeuristicAgent(seed, samples=200)
        bot.name = "heuristic_sampled"
        return bot
    if key == "heuristic_bold":
        bot = HeuristicAgent(seed, chip_cost=(0.25, 0.5), rival_weight=0.0)
        bot.name = "heuristic_bold"
        return bot
    raise ValueError(f"unknown agent {name!r} for members_only; expected one of {', '.join(AGENT_NAMES)}")
