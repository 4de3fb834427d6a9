"""The learned belief: its file format, its agent, and that it reads only what a seat may know."""

from __future__ import annotations

import numpy as np
import pytest

from club_envs.agents import registry
from club_envs.agents.base import Decision
from club_envs.members_only import beliefs, heuristic_batch
from club_envs.members_only.belief_agent import BeliefAgent
from club_envs.members_only.belief_model import (
    INPUT_SIZE,
    OUTPUT_SIZE,
    BeliefModel,
    prior_offsets,
)
from club_envs.members_only.bots import make_agent
from club_envs.members_only.engine import State
from club_envs.members_only.match import play_match
from club_envs.members_only.observer import Observer
from club_envs.members_only.rules import Config
from club_envs.members_only.sampler import sample_world
from tests.members_only.test_heuristic_batch import seeded_decisions


def with_observations(decisions, num_players):
    observer = Observer(Config(num_players=num_players))
    return [Decision(d.seat, d.view, d.legal_actions, lambda v=d.view: observer.observe(v), lambda d=d: d.action_mask)
            for d in decisions]


def random_model(seed=0, hidden=(32,)):
    """A model whose last layer is not zero, so it moves away from the prior."""
    rng = np.random.default_rng(seed)
    sizes = [INPUT_SIZE, *hidden, OUTPUT_SIZE]
    return BeliefModel([(rng.normal(0, 0.3, (b, a)), rng.normal(0, 0.3, b)) for a, b in zip(sizes, sizes[1:])])


@pytest.mark.parametrize("num_players", [3, 4, 5])
def test_an_untrained_model_is_the_uniform_prior_and_its_agent_is_the_heuristic(num_players):
    decisions = with_observations(seeded_decisions(num_players, games=2, seed=10 + num_players), num_players)
    model = BeliefModel.untrained((16, 16))
    observations = np.stack([d.observation for d in decisions])
    predicted = model.predict(observations)
    assert np.allclose(predicted, prior_offsets(observations), atol=1e-6)
    assert np.allclose(predicted.sum(axis=-1), 1.0)
    agent, bot = BeliefAgent(model), make_agent("heuristic")
    assert [agent.act(d) for d in decisions] == [bot.act(d) for d in decisions]


def test_predictions_are_distributions_that_never_put_weight_on_impossible_outcomes():
    decisions = with_observations(seeded_decisions(4, games=2, seed=3), 4)
    observations = np.stack([d.observation for d in decisions])
    predicted = random_model().predict(observations)
    prior = prior_offsets(observations)
    assert np.allclose(predicted.sum(axis=-1), 1.0)
    assert (predicted[prior == 0] == 0).all()
    assert not np.allclose(predicted, prior, atol=1e-3)  # the network does move the belief
    assert np.allclose(random_model().predict(observations[0]), predicted[0])  # one observation or a batch


def test_the_agent_is_the_heuristic_rule_on_the_predicted_belief_and_batches_like_one_by_one():
    decisions = with_observations(seeded_decisions(4, games=2, seed=5), 4)
    model = random_model(1)
    agent = BeliefAgent(model)
    one_by_one = [agent.act(d) for d in decisions]
    assert BeliefAgent.act_batch([agent] * len(decisions), decisions) == one_by_one
    offsets = model.predict(np.stack([d.observation for d in decisions]))
    expected = heuristic_batch.evaluate([d.view for d in decisions], np.stack([d.action_mask for d in decisions]),
                                        offsets=offsets).choice
    assert one_by_one == [int(a) for a in expected]
    assert all(d.action_mask[a] for d, a in zip(decisions, one_by_one))
    assert one_by_one != [make_agent("heuristic").act(d) for d in decisions]  # another belief, other choices


def test_the_belief_reads_no_hidden_information():
    """Worlds that differ only in what the seat cannot see (other hands, out-of-play cards)
    give the same prediction and the same decision."""
    model, rng = random_model(2), np.random.default_rng(0)
    config = Config(num_players=4)
    checked = 0
    for game in range(3):
        state = State(config, seed=200 + game)
        bot = make_agent("heuristic")
        while not state.is_over:
            seat = state.current_player
            view = state.player_view(seat)
            if len(state.legal_actions()) > 1 and rng.random() < 0.2:
                other = sample_world(view, rng)
                assert other.player_view(seat) == view
                observer = Observer(config)
                a, b = observer.observe(view), Observer(config).observe(other.player_view(seat))
                assert np.array_equal(a, b)
                assert np.array_equal(model.predict(a), model.predict(b))
                checked += 1
            state.apply_action(bot.act(Decision(seat, view, state.legal_actions(), lambda: None, state.legal_mask)))
    assert checked > 20


def test_a_belief_file_round_trips_and_plays_by_name(tmp_path):
    model = random_model(3)
    path = model.save(tmp_path / "belief.npz", {"generation": 7})
    loaded = BeliefModel.load(path)
    assert loaded.meta["generation"] == 7 and loaded.meta["format"] == "club-envs-belief"
    for (w, b), (w2, b2) in zip(model.layers, loaded.layers):
        assert np.array_equal(w, w2) and np.array_equal(b, b2)
    from club_envs.games import load_game

    game = load_game("members_only")
    for name in (str(path), str(tmp_path)):  # the file, or a folder holding belief.npz
        agent = registry.load(name, game=game, config=Config(num_players=3))
        assert isinstance(agent, BeliefAgent)
    agent = registry.load(str(path), game=game)
    record = play_match(Config(num_players=3), [agent, make_agent("heuristic"), make_agent("heuristic")], seed=4)
    assert record["result"]["winners"] and record["seats"][0]["controller"] == str(path)


def test_a_belief_agent_plays_members_only_only(tmp_path):
    from club_envs.games import load_game

    path = random_model(5).save(tmp_path / "belief.npz")
    with pytest.raises(ValueError, match="Members Only belief file"):
        registry.load(str(path), game=load_game("arkham_decoders"))
    with pytest.raises(ValueError, match="':sample' does not apply"):
        registry.load(f"{path}:sample", game=load_game("members_only"))


def test_the_prior_is_the_heuristics_own_assumption():
    decisions = with_observations(seeded_decisions(5, games=1, seed=8), 5)
    for d in decisions[::7]:
        unseen, to_come, _ = heuristic_batch.positions([d.view])
        assert np.allclose(prior_offsets(d.observation[None])[0], beliefs.offset_distribution(unseen[0], to_come[0]))
