"""The compiled ``heuristic_sampled`` draws numpy's deals and makes the bot's choices, to the bit."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest

import club_envs  # noqa: F401  (registers the environment ids)
from club_envs.agents.base import Decision
from club_envs.members_only import roster, vector_sampled
from club_envs.members_only.bots import HeuristicAgent, make_agent
from club_envs.members_only.engine import BET, DISCARD, REVEAL
from club_envs.members_only.rules import Config
from club_envs.members_only.vector_engine import VectorGames
from club_envs.members_only.vector_views import view_of


def test_the_draws_are_numpys_multivariate_hypergeometric_count_method():
    """Same deals as ``rng.multivariate_hypergeometric(..., method="count")`` (fewer than half the
    cards drawn, more than half, none, all), the generator left where numpy leaves it -- its
    buffered 32-bit half-word included (checked by drawing on after each call)."""
    cases = np.random.default_rng(0)
    for case in range(60):
        unseen = cases.integers(0, 7, size=10)
        total = int(unseen.sum())
        to_come = [0, total, 1, int(cases.integers(0, total + 1))][case % 4]
        shown = cases.integers(0, 3, size=10)
        samples = int(cases.integers(1, 40))
        numpy_rng, ours = np.random.default_rng(case), np.random.default_rng(case)
        numpy_rng.integers(0, 2**32, size=case % 3, dtype=np.uint32)  # odd half-words buffered, or not
        ours.integers(0, 2**32, size=case % 3, dtype=np.uint32)
        expected = (numpy_rng.multivariate_hypergeometric(unseen, to_come, size=samples, method="count")
                    + shown[None, :] if to_come else np.repeat(shown[None, :], samples, axis=0))
        cards = np.zeros((samples, 10), np.int64)
        bits = ours.bit_generator
        vector_sampled.draw_final_cards(bits.ctypes.next_uint32, bits.ctypes.state_address, unseen.astype(np.int64),
                                        to_come, shown.astype(np.int64), np.zeros(65, np.int64), cards)
        assert np.array_equal(cards, expected), case
        assert numpy_rng.integers(0, 2**32, size=3, dtype=np.uint32).tolist() == \
            ours.integers(0, 2**32, size=3, dtype=np.uint32).tolist()
        assert numpy_rng.random() == ours.random()


@pytest.mark.parametrize("num_players", [3, 4, 5])
def test_every_decision_is_the_bots_act_and_moves_its_generator_alike(num_players):
    """Games on the batched engine, moved mostly by the exact heuristic (so boards fill up) and
    partly at random: at every position of every game, twin sampled bots (same seed, same draws so
    far) are asked -- one through the compiled path, one through ``act`` on the seat's view; the
    choices agree and the generators end in the same place."""
    games = VectorGames(Config(num_players=num_players, max_heats=3), 12, seed=num_players)
    rng = np.random.default_rng(num_players)
    exact = make_agent("heuristic")
    fast = [HeuristicAgent(seed=100 + g, samples=50) for g in range(12)]
    slow = [HeuristicAgent(seed=100 + g, samples=50) for g in range(12)]
    scratch = vector_sampled.SampledScratch()
    seen = {BET: 0, REVEAL: 0, DISCARD: 0}
    boards = set()
    while not games.is_over.all():
        rows = np.flatnonzero(~games.is_over)
        assert all(vector_sampled.compiles(bot) for bot in fast)
        chosen = vector_sampled.answer(games, rows, [fast[g] for g in rows], scratch)
        masks = games.legal_masks().copy()
        actions = np.zeros(12, np.int64)
        for k, g in enumerate(rows.tolist()):
            seat = int(games.tables.current[g])
            view = view_of(games, g, seat)
            decision = Decision.from_mask(seat, view, masks[g].copy(), lambda: None)
            assert chosen[k] == slow[g].act(decision), (g, view.phase)
            assert masks[g, chosen[k]]
            if len(decision.legal_actions) > 1:
                seen[view.phase] += 1
                boards.add(min(len(view.bets), 8))
            actions[g] = exact.act(decision) if rng.random() < 0.7 else rng.choice(np.flatnonzero(masks[g]))
        games.step(actions)
    assert min(seen.values()) > 20
    assert {0, 7, 8} <= boards  # empty boards and both of numpy's summation orders
    assert [a._rng.random() for a in fast] == [a._rng.random() for a in slow]


def test_more_cards_to_come_than_unseen_is_refused_as_numpy_refuses_it():
    bits = np.random.default_rng(0).bit_generator
    with pytest.raises(ValueError, match="more cards still to be shown than cards unseen"):
        vector_sampled.draw_final_cards(bits.ctypes.next_uint32, bits.ctypes.state_address, np.ones(10, np.int64), 11,
                                        np.zeros(10, np.int64), np.zeros(65, np.int64), np.zeros((5, 10), np.int64))


def test_only_plain_sampled_bots_with_pcg64_generators_are_compiled():
    assert vector_sampled.compiles(make_agent("heuristic_sampled", seed=1))
    assert not vector_sampled.compiles(make_agent("heuristic"))  # exact: vector_heuristic plays it
    other = make_agent("heuristic_sampled", seed=1)
    other._rng = np.random.Generator(np.random.MT19937(1))
    assert not vector_sampled.compiles(other)
    assert not vector_sampled.compiles(roster.make_agent("members_only_style_mix", seed=1))  # tuned subclasses


def test_the_vector_env_plays_the_same_games_as_with_the_reference_code(monkeypatch):
    """With sampled opponents the vector environment's games (observations, rewards, ends) are
    those it plays when every sampled bot is asked through its reference code."""

    def play():
        envs = gymnasium.make_vec("club_envs/MembersOnly-v0", num_envs=8, vectorization_mode="vector_entry_point",
                                  num_players=4, opponents=["heuristic_sampled", "heuristic", "heuristic_sampled"],
                                  max_heats=3)
        obs, _ = envs.reset(seed=5)
        rng = np.random.default_rng(5)
        seen = [obs]
        for _ in range(120):
            masks = envs.action_masks()
            obs, rewards, terminated, truncated, _ = envs.step(np.argmax(np.where(masks, rng.random(masks.shape), -1),
                                                                         axis=1))
            seen += [obs, rewards, terminated, truncated]
        return seen

    fast = play()
    monkeypatch.setattr(vector_sampled, "compiles", lambda agent: False)
    slow = play()
    assert all(np.array_equal(a, b) for a, b in zip(fast, slow))
