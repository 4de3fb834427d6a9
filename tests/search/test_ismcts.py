"""The search itself, on toy games whose best move is known, and its options."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from club_envs.agents.base import Decision, RandomAgent
from club_envs.search.game import SearchGame
from club_envs.search.ismcts import ISMCTSOptions, best_action, best_paired, paired_search, parse_options, search

_VIEW = SimpleNamespace(seat=0)  # the toy games' seat 0 sees nothing but its seat


class _Toy:
    """Seat 0 moves, then seat 1 (if ``reply``); a payoff table gives seat 0's value."""

    def __init__(self, payoff, hidden=0):
        self.payoff = payoff
        self.hidden = hidden
        self.moves: list[int] = []

    @property
    def current_player(self):
        return len(self.moves) % 2

    @property
    def is_over(self):
        return len(self.moves) == 2

    def legal_actions(self):
        return list(range(len(self.payoff))) if not self.moves else [0, 1]

    def apply_action(self, a):
        assert a in self.legal_actions()
        self.moves.append(a)

    def player_view(self, seat):
        return SimpleNamespace(seat=seat)


def _game(make_world) -> SearchGame:
    def values(state):
        v = state.payoff[state.moves[0]][state.moves[1]]
        if state.hidden:
            v = 1 - v
        return np.array([v, 1 - v])

    return SearchGame(
        name="toy",
        sample_world=lambda view, rng, weight: make_world(rng),
        stop=lambda state, view: False,
        values=values,
        candidates=lambda state: (state.legal_actions(), False),
        decision=lambda state: Decision(state.current_player, None, state.legal_actions(), lambda: None, lambda: None),
    )


def test_the_search_expects_the_best_reply():
    """Move 1 is worth 0.6 whatever the reply; moves 0 and 2 look better against a random reply
    but the opponent answers them with 0 and 0.2."""
    payoff = [[1.0, 0.0], [0.6, 0.6], [1.0, 0.2]]
    game = _game(lambda rng: _Toy(payoff))
    stats = search(game, _VIEW, np.random.default_rng(0), RandomAgent(0), iterations=600, exploration=0.5)
    assert best_action(stats) == 1
    assert stats[1][1] == pytest.approx(0.6)


def test_the_search_averages_over_sampled_worlds():
    """Which move wins depends on a hidden bit that is 1 in 80% of the worlds."""
    payoff = [[1.0, 1.0], [0.0, 0.0]]  # move 0 wins when hidden is 0, move 1 when it is 1
    game = _game(lambda rng: _Toy(payoff, hidden=int(rng.random() < 0.8)))
    stats = search(game, _VIEW, np.random.default_rng(1), RandomAgent(1), iterations=400)
    assert best_action(stats) == 1
    assert stats[1][1] == pytest.approx(0.8, abs=0.08)


def test_the_same_seed_gives_the_same_statistics():
    payoff = [[0.3, 0.9], [0.5, 0.4], [0.7, 0.1]]
    game = _game(lambda rng: _Toy(payoff, hidden=int(rng.random() < 0.5)))
    a = search(game, _VIEW, np.random.default_rng(5), RandomAgent(5), iterations=100)
    b = search(game, _VIEW, np.random.default_rng(5), RandomAgent(5), iterations=100)
    assert a == b


def test_a_time_budget_or_iterations_is_required():
    game = _game(lambda rng: _Toy([[1.0, 1.0]]))
    with pytest.raises(ValueError, match="iterations"):
        search(game, _VIEW, np.random.default_rng(0), RandomAgent(0), iterations=None, seconds=None)
    stats = search(game, _VIEW, np.random.default_rng(0), RandomAgent(0), iterations=None, seconds=0.01)
    assert stats[0][0] >= 1


def test_options_are_read_from_the_name():
    assert parse_options("") == ISMCTSOptions()
    opts = parse_options("iters=200:rollout=heuristic:c=1.5:beliefs=heuristic")
    assert (opts.iters, opts.rollout, opts.c, opts.beliefs) == (200, "heuristic", 1.5, "heuristic")
    timed = parse_options("seconds=0.5")
    assert timed.seconds == 0.5 and timed.iters is None
    assert timed.label() == "ismcts:seconds=0.5"
    assert parse_options("width=6").label() == "ismcts:width=6"


@pytest.mark.parametrize("text, message", [
    ("iters=0", "bad value"),
    ("iters=many", "bad value"),
    ("seconds=-1", "bad value"),
    ("depth=3", "unknown ismcts option 'depth'"),
    ("iters", "needs a value"),
    ("iters=5:seconds=1", "twice"),
    ("beliefs=", "needs a value"),
])
def test_bad_options_say_what_is_allowed(text, message):
    with pytest.raises(ValueError, match=message) as info:
        parse_options(text)
    assert "iters=N" in str(info.value) or "twice" in str(info.value)


class _Shifted:
    """Seat 0 makes one move worth ``luck + bonus[move]``: the luck of the world is shared by every
    move, so only the bonus tells them apart."""

    current_player = 0

    def __init__(self, luck, bonus):
        self.luck, self.bonus, self.move = luck, bonus, None

    @property
    def is_over(self):
        return self.move is not None

    def legal_actions(self):
        return list(range(len(self.bonus)))

    def apply_action(self, a):
        self.move = a

    def clone(self):
        return _Shifted(self.luck, self.bonus)


def _shifted_game(bonus) -> SearchGame:
    return SearchGame(
        name="shifted",
        sample_world=lambda view, rng, weight: _Shifted(0.9 * rng.random(), bonus),
        stop=lambda state, view: False,
        values=lambda state: np.array([state.luck + state.bonus[state.move]]),
        candidates=lambda state: (state.legal_actions(), True),
        decision=lambda state: Decision(0, None, state.legal_actions(), lambda: None, lambda: None),
    )


def test_paired_play_outs_compare_candidates_in_the_same_worlds():
    """A bonus of 0.02 under world luck spread over 0.9 is found from 3 worlds, every time:
    each candidate meets the same worlds, so the luck cancels out of the comparison."""
    game = _shifted_game([0.0, 0.02, 0.01])
    for seed in range(20):
        stats = paired_search(game, _VIEW, np.random.default_rng(seed), RandomAgent(seed), worlds=3)
        assert list(stats) == [0, 1, 2]  # the game's order
        assert best_paired(stats) == 1
        assert stats[1][1] - stats[0][1] == pytest.approx(0.02)
        assert {n for n, _ in stats.values()} == {3}


def test_paired_play_outs_keep_the_first_candidate_on_a_tie():
    stats = paired_search(_shifted_game([0.0, 0.0, 0.0]), _VIEW, np.random.default_rng(0), RandomAgent(0), worlds=2)
    assert best_paired(stats) == 0


def test_paired_options_parse():
    assert parse_options("paired=0").paired == 0
    assert parse_options("paired=32:cards=2").label() == "ismcts:cards=2:paired=32"
    with pytest.raises(ValueError, match="bad value"):
        parse_options("cards=0")


class _Noisy(_Shifted):
    """Moves 1 and 2 carry their own luck in each world (per-move noise of spread 0.4)."""

    def __init__(self, luck, bonus, noise):
        super().__init__(luck, bonus)
        self.noise = noise

    def clone(self):
        return _Noisy(self.luck, self.bonus, self.noise)


def _noisy_game(bonus) -> SearchGame:
    return SearchGame(
        name="noisy",
        sample_world=lambda view, rng, weight: _Noisy(0.2 * rng.random(), bonus, [0.0, *(0.4 * rng.random(2) - 0.2)]),
        stop=lambda state, view: False,
        values=lambda state: np.array([state.luck + state.bonus[state.move] + state.noise[state.move]]),
        candidates=lambda state: (state.legal_actions(), True),
        decision=lambda state: Decision(0, None, state.legal_actions(), lambda: None, lambda: None),
    )


def test_an_anchor_keeps_the_favourite_unless_the_play_outs_clearly_disagree():
    """Moves worth the same as the first, told apart only by noise, rarely displace it under an anchor
    of 2 standard errors (about 1 time in 11 with two rivals) but do two times in three without
    one; a clear lead displaces it anyway."""
    switched = {0.0: 0, 2.0: 0}
    for seed in range(30):
        for anchor in switched:
            stats = paired_search(_noisy_game([0.0, 0.0, 0.0]), _VIEW, np.random.default_rng(seed), RandomAgent(seed),
                                  worlds=8, anchor=anchor)
            switched[anchor] += best_paired(stats) != 0
        clear = paired_search(_noisy_game([0.0, 0.5, 0.0]), _VIEW, np.random.default_rng(seed), RandomAgent(seed),
                              worlds=8, anchor=2.0)
        assert best_paired(clear) == 1
    assert switched[2.0] <= 8 and switched[0.0] >= 12


def test_the_anchor_option_parses():
    assert parse_options("anchor=1.5").anchor == 1.5
    assert parse_options("anchor=1").label() == "ismcts:anchor=1"
    with pytest.raises(ValueError, match="bad value"):
        parse_options("anchor=-1")
