"""The learned Black Man: an untrained model opposes, it plays only the Black Man's votes, reads
only what he may know, explores reproducibly, and its files are told apart from team beliefs."""

from __future__ import annotations

import copy
import random

import numpy as np
import pytest

from club_envs.agents import registry
from club_envs.agents.belief_file import BeliefFileError
from club_envs.arkham_decoders import actions as A
from club_envs.arkham_decoders.belief_agent import BeliefAgent
from club_envs.arkham_decoders.belief_model import BeliefModel
from club_envs.arkham_decoders.engine import VOTE
from club_envs.arkham_decoders.match import play_match
from club_envs.arkham_decoders.observer import Observer
from club_envs.arkham_decoders.rules import BLACK_MAN, Config
from club_envs.arkham_decoders.vote_value import INPUT_SIZE, VOTES, BlackManAgent, VoteValueModel, vote_facts
from club_envs.games import load_game
from tests.arkham_decoders.test_belief import decisions_of
from tests.arkham_decoders.test_properties import _hide_differently, _play


def random_model(seed=0, hidden=(16,)):
    rng = np.random.default_rng(seed)
    sizes = [INPUT_SIZE, *hidden, 2]
    return VoteValueModel([(rng.normal(0, 0.5, (b, a)), rng.normal(0, 0.5, b)) for a, b in zip(sizes, sizes[1:])])


def black_man_votes(num_players, seed, games=3):
    """Every vote of the Black Man in heuristic games, as (state copy, decision)."""
    return [(st, d) for st, d in decisions_of(num_players, seed, games)
            if st.current_player == st.black_man_seat and d.view.phase == VOTE]


def test_an_untrained_model_values_both_votes_alike_and_opposes():
    votes = black_man_votes(5, seed=11)
    assert votes
    agent = BlackManAgent(VoteValueModel.untrained((8,)))
    assert all(agent.act(d) == A.OPPOSE for _, d in votes)
    values = VoteValueModel.untrained((8,)).values(np.stack([d.observation for _, d in votes]), [d.view for _, d in votes])
    assert values.shape == (len(votes), 2) and not values.any()


def test_the_facts_name_the_true_cards_on_the_table():
    for _, d in black_man_votes(6, seed=3):
        facts = vote_facts(d.view)
        true_cards = [card // 6 == d.view.true_book for _, card in d.view.table]
        assert facts[9] == sum(true_cards) and list(facts[0:3 * len(true_cards):3]) == true_cards


def test_exploration_is_reproducible_and_the_agent_plays_only_the_black_man():
    votes = black_man_votes(4, seed=21, games=6)
    model = random_model(1)
    runs = []
    for _ in range(2):
        agent = BlackManAgent(model, exploration=0.5, seed=0)
        agent.reset(0, 7)
        runs.append([agent.act(d) for _, d in votes])
    assert runs[0] == runs[1] and set(runs[0]) == set(VOTES)
    greedy = BlackManAgent(model)
    values = model.values(np.stack([d.observation for _, d in votes]), [d.view for _, d in votes])
    assert [greedy.act(d) for _, d in votes] == [A.AGREE if v[0] > v[1] else A.OPPOSE for v in values]
    team_decision = next(d for st, d in decisions_of(4, seed=5, games=1) if st.current_player != st.black_man_seat)
    with pytest.raises(ValueError, match="plays the Black Man's votes only"):
        greedy.act(team_decision)
    with pytest.raises(ValueError, match="exploration=2: expected a share between 0 and 1"):
        BlackManAgent(model, exploration=2)


@pytest.mark.parametrize("seed", range(4))
def test_the_black_man_reads_no_hidden_information(seed):
    """States that differ only in what the Black Man cannot know give him the same values."""
    model, rng = random_model(2), random.Random(seed)
    n = 4 + seed % 3
    checked = 0
    for steps in (10, 40, 90, 140):
        state = _play(n, 2000 + seed, [rng.randrange(10_000) for _ in range(steps)])
        if state.is_terminal:
            continue
        seat = state.black_man_seat
        other = _hide_differently(copy.deepcopy(state), seat, rng)
        a, b = state.player_view(seat), other.player_view(seat)
        assert a == b
        oa, ob = Observer(state.config).observe(a), Observer(state.config).observe(b)
        assert np.array_equal(model.values(oa[None], [a]), model.values(ob[None], [b]))
        checked += 1
    assert checked


def test_files_round_trip_and_are_told_apart_from_team_beliefs(tmp_path):
    model = random_model(3)
    path = model.save(tmp_path / "black_man.npz", {"generation": 2})
    loaded = VoteValueModel.load(path)
    assert loaded.meta["kind"] == "black_man_vote_value" and loaded.meta["generation"] == 2
    assert all(np.array_equal(w, w2) for (w, _), (w2, _) in zip(model.layers, loaded.layers))
    team_file = BeliefModel.untrained((8,)).save(tmp_path / "belief.npz")
    with pytest.raises(BeliefFileError, match="holds a belief model; expected a black_man_vote_value model"):
        VoteValueModel.load(team_file)
    with pytest.raises(BeliefFileError, match="holds a black_man_vote_value model; expected a belief model"):
        BeliefModel.load(path)
    game = load_game("arkham_decoders")
    assert isinstance(registry.load(str(path), game=game), BlackManAgent)
    both = registry.load(str(tmp_path), game=game, config=Config(num_players=5))  # belief.npz + black_man.npz
    record = play_match(Config(num_players=5), lambda seat, role: both, seed=4)
    assert record["result"]["winners"]
    assert isinstance(both.by_role[BLACK_MAN], BlackManAgent)
    assert {type(both.by_role[r]) for r in ("leader", "member", "investigator")} == {BeliefAgent}
    lone = registry.load(str(path), game=game)
    record = play_match(Config(num_players=4), lambda seat, role: lone if role == BLACK_MAN else BeliefAgent(
        BeliefModel.untrained((8,))), seed=2)
    assert record["result"]["winners"]
