"""The ``arkham_heuristic`` policy inputs: shape, information hygiene, agreement with the bot, and a
policy that reads them playing through the environments and the command line."""

from __future__ import annotations

import random

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from club_envs.agents import features as feature_registry
from club_envs.agents.base import Decision
from club_envs.agents.policy import PolicyAgent, save_policy
from club_envs.arkham_decoders import actions as A
from club_envs.arkham_decoders.bots import HeuristicAgent
from club_envs.arkham_decoders.engine import State
from club_envs.arkham_decoders.features import (
    HEURISTIC_SIZE,
    heuristic_inputs,
    public_true_book,
    slices,
    vote_outcome,
)
from club_envs.arkham_decoders.observer import Observer
from club_envs.arkham_decoders.rules import NUM_BOOKS, Config
from tests.arkham_decoders.test_properties import _hide_differently, _play, games


def _mask(state: State) -> np.ndarray:
    mask = np.zeros(A.NUM_ACTIONS, dtype=bool)
    if not state.is_terminal:
        mask[state.legal_actions()] = True
    return mask


def _inputs(state: State, seat: int) -> np.ndarray:
    view = state.player_view(seat)
    mask = _mask(state) if state.current_player == seat else np.zeros(A.NUM_ACTIONS, dtype=bool)
    return heuristic_inputs(Observer(state.config).observe(view), view, mask)


def test_registered_with_the_observation_size_of_every_table():
    spec = feature_registry.get("arkham_heuristic")
    assert spec.game == "arkham_decoders" and spec.extra == HEURISTIC_SIZE
    assert "arkham_heuristic" in feature_registry.NAMES
    for n in (4, 5, 6):
        state = _play(n, n, [])
        out = _inputs(state, state.current_player)
        assert out.shape == (spec.obs_size + spec.extra,) and out.dtype == np.float32
        assert np.isfinite(out).all()


@settings(max_examples=120, deadline=None)
@given(games, st.integers(0, 5), st.integers(0, 2**31 - 1))
def test_features_do_not_depend_on_what_the_seat_cannot_know(game, seat, rng_seed):
    n, seed, choices = game
    state = _play(n, seed, choices)
    seat %= n
    other = _hide_differently(state, seat, random.Random(rng_seed))
    assert np.array_equal(_inputs(state, seat), _inputs(other, seat))


def test_the_hygiene_test_would_see_a_leak():
    """Sanity check: the Black Man's true book does move the features, so identity above is not vacuous."""
    state = _play(5, 3, [0] * 20)
    bm = state.black_man_seat
    leader = state.leader
    assert not np.array_equal(_inputs(state, bm)[-HEURISTIC_SIZE:], _inputs(state, leader)[-HEURISTIC_SIZE:])


@pytest.mark.parametrize("n", [4, 5, 6])
def test_the_heuristic_choice_is_what_the_bot_plays_and_probabilities_are_distributions(n):
    part = slices()
    bot = HeuristicAgent()
    decisions = 0
    for seed in range(6):
        state = State(Config(num_players=n), seed=seed)
        while not state.is_terminal:
            seat, view, legal = state.current_player, state.player_view(state.current_player), state.legal_actions()
            extra = _inputs(state, seat)[-HEURISTIC_SIZE:]
            action = bot.act(Decision(seat, view, legal, lambda: None, lambda: None))
            assert np.flatnonzero(extra[part["heuristic_action"]]).tolist() == [action]
            assert extra[part["belief"]].sum() == pytest.approx(1.0, abs=1e-5)
            assert extra[part["p_true"]].sum() == pytest.approx(1.0, abs=1e-5)
            assert extra[part["p_true_public"]].sum() == pytest.approx(1.0, abs=1e-5)
            for book in view.face_up_books:  # a face-up grimoire is a known fake
                assert extra[part["p_true"]][book] == 0.0
            if view.true_book is not None:
                assert extra[part["p_true"]][view.true_book] == 1.0
            state.apply_action(action)
            decisions += 1
    assert decisions > 100


def test_the_public_belief_is_the_same_for_every_seat_that_has_not_peeked():
    state = _play(6, 11, [1] * 60)
    views = [state.player_view(s) for s in range(6) if state.player_view(s).black_man is None]
    assert len(views) >= 2
    first = public_true_book(views[0])
    for view in views[1:]:
        assert np.allclose(public_true_book(view), first)
    assert public_true_book(views[0]).shape == (NUM_BOOKS,)


def _policy_file(tmp_path, side: str, roles: list[str]):
    spec = feature_registry.get("arkham_heuristic")
    size = spec.obs_size + spec.extra
    torch.manual_seed(0)
    weights = {"mlp_extractor.policy_net.0.weight": torch.randn(16, size) * 0.1,
               "mlp_extractor.policy_net.0.bias": torch.zeros(16),
               "action_net.weight": torch.randn(A.NUM_ACTIONS, 16) * 0.1, "action_net.bias": torch.zeros(A.NUM_ACTIONS)}
    meta = {"game": "arkham_decoders", "side": side, "roles": roles, "obs_size": size,
            "num_actions": A.NUM_ACTIONS, "hidden": [16], "activation": "tanh", "features": "arkham_heuristic"}
    return save_policy(tmp_path / f"{side}.pt", weights, meta)


def test_a_policy_with_features_plays_in_the_gym_view_and_through_the_cli(tmp_path, capsys):
    import gymnasium as gym

    from club_envs.cli import main as cli

    team = _policy_file(tmp_path, "team", ["leader", "member", "investigator"])
    black_man = _policy_file(tmp_path, "black_man", ["black_man"])
    agent = PolicyAgent.from_file(team)
    assert agent.features is not None and agent.features.extra == HEURISTIC_SIZE
    env = gym.make("club_envs/ArkhamDecoders-v0", num_players=4, role="black_man",
                   opponents={r: PolicyAgent.from_file(team) for r in ("leader", "member", "investigator")})
    obs, info = env.reset(seed=1)
    view = env.unwrapped.learner_view()
    assert view.seat == info["seat"] and view.true_book is not None
    done = False
    while not done:
        obs, reward, done, _, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
    assert reward in (-1.0, 1.0)

    lineup = f"leader={team},member={team},investigator={team},black_man={black_man}"
    assert cli(["evaluate", "arkham_decoders", "--players", "5", "--agents", lineup, "--games", "4", "--seed", "3"]) == 0
    assert "black_man" in capsys.readouterr().out
    out_dir = tmp_path / "records"
    assert cli(["simulate", "arkham_decoders", "--players", "6", "--games", "2", "--seed", "1",
                "--agents", lineup, "--out", str(out_dir)]) == 0
    assert len(list(out_dir.glob("*.json*"))) == 2


def _table_total_now(state: State) -> float:
    """The table's SAN total if the game were scored now, by the engine's own scoring."""
    return sum(state.score_san().values())


def test_the_vote_look_ahead_is_exact_when_the_black_man_knows_the_investigators_book():
    """With two grimoires face up the Black Man can name the Investigator's book, so against heuristic
    players the look-ahead must equal what really happens after each of his votes."""
    bot = HeuristicAgent()
    checked = 0
    for seed in range(400):
        state = State(Config(num_players=4 + seed % 3), seed=seed)
        while not state.is_terminal:
            seat, view, legal = state.current_player, state.player_view(state.current_player), state.legal_actions()
            if view.phase == "vote" and seat == state.black_man_seat and len(view.face_up_books) == 2:
                agree, oppose, _ = vote_outcome(view)
                for expected, vote in ((agree, A.AGREE), (oppose, A.OPPOSE)):
                    trial = state.clone()
                    before = _table_total_now(trial)
                    trial.apply_action(vote)
                    while not trial.is_terminal and trial.phase in ("vote", "choose"):
                        s = trial.current_player
                        trial.apply_action(bot.act(Decision(s, trial.player_view(s), trial.legal_actions(),
                                                            lambda: None, lambda: None)))
                    assert _table_total_now(trial) - before == pytest.approx(expected)
                checked += 1
            state.apply_action(bot.act(Decision(seat, view, legal, lambda: None, lambda: None)))
        if checked >= 15:
            break
    assert checked >= 15


def test_the_vote_look_ahead_is_zero_outside_an_advisors_vote():
    part = slices()
    state = _play(5, 4, [0] * 30)
    for seat in range(5):
        view = state.player_view(seat)
        if not (view.phase == "vote" and seat == state.current_player):
            assert not _inputs(state, seat)[-HEURISTIC_SIZE:][part["vote_outcome"]].any()


def _mixed_games(seeds: range):
    """Every position of seeded 4-6 player games, the seat to move playing the heuristic bot or, 3
    times in 10, a random legal action: ``(state, seat, view)`` before each move."""
    bot = HeuristicAgent()
    for seed in seeds:
        state = State(Config(num_players=4 + seed % 3), seed=seed)
        rng = random.Random(seed)
        while not state.is_terminal:
            seat, legal = state.current_player, state.legal_actions()
            view = state.player_view(seat)
            yield state, seat, view
            state.apply_action(rng.choice(legal) if rng.random() < 0.3 else
                               bot.act(Decision(seat, view, legal, lambda: None, lambda: None)))


def test_the_shared_reading_and_the_look_ahead_shortcuts_match_the_bot_on_its_own_views():
    """``heuristic_inputs`` works the seat's beliefs out once and plays the other advisor without
    building its view; both must give what the bot and the plain functions give from the views."""
    from club_envs.arkham_decoders.bots import known_san, leader_pick, true_book_probabilities
    from club_envs.arkham_decoders.features import _read, _rival_votes
    from club_envs.arkham_decoders.rules import BLACK_MAN, INVESTIGATOR

    bot = HeuristicAgent()
    rivals = 0
    for state, seat, view in _mixed_games(range(30)):
        for s in range(state.config.num_players):
            seen = state.player_view(s)
            reading = _read(seen)
            assert reading.p_true == true_book_probabilities(seen).tolist()
            assert reading.p_public == public_true_book(seen).tolist()
            assert leader_pick(seen, reading.p_true, known_san(seen, reading.p_true)) == leader_pick(
                seen, true_book_probabilities(seen))
        if view.phase == "vote":
            other = view.advisors[1 - view.advisors.index(seat)]
            if view.identity == BLACK_MAN:
                grimoires = [g for g in range(NUM_BOOKS) if g != view.true_book and g not in view.face_up_books]
                rival_views = [view._replace(seat=other, identity=INVESTIGATOR, grimoire=g, true_book=None)
                               for g in grimoires]
            else:
                books = [b for b, p in enumerate(true_book_probabilities(view)) if p > 0]
                rival_views = [view._replace(seat=other, identity=BLACK_MAN, grimoire=b, true_book=b)
                               for b in books]
            hypotheses = _rival_votes(view, _read(view))
            assert len(hypotheses) == len(rival_views)
            for (_, _, vote), rival in zip(hypotheses, rival_views):
                played = bot.act(Decision(other, rival, [A.AGREE, A.OPPOSE], lambda: None, lambda: None))
                assert vote == int(played == A.AGREE)
                rivals += 1
    assert rivals > 100


def _product_belief(votes, face_up_books, advisors, black_man):
    """The vote model's posterior written plainly in numpy, one factor array per advice: what the
    faster :func:`~club_envs.arkham_decoders.bots._belief` must reproduce bit for bit."""
    from club_envs.arkham_decoders import bots
    from club_envs.arkham_decoders.rules import NUM_VALUES

    likelihood = np.ones((2, NUM_BOOKS))
    for public in votes:
        has_true = np.zeros(NUM_BOOKS, dtype=bool)
        for _, card in public.table:
            has_true[card // NUM_VALUES] = True
        for b in range(2):
            p_bm = np.where(has_true, bots.BM_AGREE_WITH_TRUE, bots.BM_AGREE_WITHOUT_TRUE)
            p_inv = np.where(has_true, bots.INV_AGREE_WITH_TRUE, bots.INV_AGREE_WITHOUT_TRUE)
            bm_vote, inv_vote = public.votes[b], public.votes[1 - b]
            likelihood[b] *= (p_bm if bm_vote else 1 - p_bm) * (p_inv if inv_vote else 1 - p_inv)
    post = np.ones((2, NUM_BOOKS))
    for book in face_up_books:
        post[:, book] = 0.0
    if black_man is not None:
        post[1 - advisors.index(black_man), :] = 0.0
    post *= likelihood
    total = post.sum()
    return post / total if total > 0 else np.full((2, NUM_BOOKS), 1.0 / (2 * NUM_BOOKS))


def test_the_belief_and_its_one_advice_extension_are_the_plain_product_bit_for_bit():
    """The belief is summed on Python floats in numpy's order, and the look-ahead extends a cached
    history by one hypothetical advice: both must give the very float64 numbers of the plain numpy
    product (the policy inputs are compared bit for bit), on histories of every length and with
    every face-up set, including the one where nothing is left (the uniform fallback)."""
    from club_envs.arkham_decoders.bots import _belief, book_belief_after
    from club_envs.arkham_decoders.engine import PublicVote
    from club_envs.arkham_decoders.rules import NUM_CARDS

    rng = random.Random(7)
    advisors = (1, 3)
    for _ in range(400):
        votes = tuple(PublicVote(tuple((rng.randrange(5), rng.randrange(NUM_CARDS)) for _ in range(3)),
                                 (rng.randrange(2), rng.randrange(2))) for _ in range(rng.randrange(16)))
        face_up = tuple(rng.sample(range(NUM_BOOKS), rng.choice([0, 0, 1, 2, 3, 4])))
        black_man = rng.choice([None, *advisors])
        expected = _product_belief(votes, face_up, advisors, black_man)
        got = _belief(votes, face_up, advisors, black_man)
        assert got.dtype == np.float64 and got.tobytes() == expected.tobytes()
        table = tuple((rng.randrange(5), rng.randrange(NUM_CARDS)) for _ in range(3))
        for pair in ((1, 0), (0, 1), (1, 1), (0, 0)):
            longer = _product_belief(votes + (PublicVote(table, pair),), face_up, advisors, black_man)
            assert book_belief_after(votes, face_up, advisors, black_man, table, pair) == longer.sum(axis=0).tolist()


def test_the_look_ahead_shortcuts_match_the_plain_definitions_on_game_views():
    """The leader's pick works the SANs out only to break a tie, the seats' SANs are looked up per
    card, and a vote's effect on the table total is summed over the cards' owners only: each must
    equal its plain definition on the views of real games."""
    from itertools import combinations

    from club_envs.arkham_decoders.bots import (
        eligible_slots,
        expected_points,
        known_san,
        leader_pick,
        true_book_probabilities,
    )
    from club_envs.arkham_decoders.features import _points_by_card, _seat_sans, _total_change, _totals
    from club_envs.arkham_decoders.rules import ADVISOR, NUM_VALUES, VALUES

    def plain_totals(view, decoded):  # the rules' table total per true book, penalties included
        totals = []
        for book in range(NUM_BOOKS):
            sans = [sum(VALUES[c % NUM_VALUES] if c // NUM_VALUES == book else 1 for c in pile)
                    for role, pile in zip(view.roles, decoded) if role != ADVISOR]
            totals.append(sum(san - view.insanity_penalty if san <= 0 else san for san in sans))
        return totals

    ties = 0
    for _, _, view in _mixed_games(range(12)):
        p_true = true_book_probabilities(view).tolist()
        assert _seat_sans(view, _points_by_card(tuple(p_true))[0]) == known_san(view, p_true)
        assert list(_totals(view.roles, view.decoded, view.insanity_penalty)) == plain_totals(view, view.decoded)
        if len(view.table) == A.NUM_SLOTS:
            san = known_san(view, p_true)

            def rank(slot, view=view, p_true=p_true, san=san):
                seat_of, card = view.table[slot]
                return (expected_points(card, p_true), -san[seat_of])

            eligible = eligible_slots(view)
            plain = max(eligible, key=rank) if eligible else -1
            assert leader_pick(view, p_true) == plain
            points = [expected_points(view.table[s][1], p_true) for s in eligible]
            ties += len(points) > len(set(points))
            before = plain_totals(view, view.decoded)
            for k in range(A.NUM_SLOTS + 1):
                for slots in combinations(range(A.NUM_SLOTS), k):
                    decoded = [list(d) for d in view.decoded]
                    for i in slots:
                        decoded[view.table[i][0]].append(view.table[i][1])
                    after = plain_totals(view, decoded)
                    assert _total_change(view, list(slots)) == [a - b for a, b in zip(after, before)]
    assert ties > 0
