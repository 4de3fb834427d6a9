"""The learned Arkham belief: it starts as the hand-set vote model, reads only what a seat may know,
its files round-trip and damaged ones are refused, and its agent plays through the registry."""

from __future__ import annotations

import copy
import random

import numpy as np
import pytest

from club_envs.agents import registry
from club_envs.agents.base import Decision
from club_envs.arkham_decoders.belief_agent import BeliefAgent
from club_envs.arkham_decoders.belief_model import (
    INPUT_SIZE,
    OUTPUT_SIZE,
    BeliefFileError,
    BeliefModel,
    prior,
)
from club_envs.arkham_decoders.bots import HeuristicAgent, true_book_probabilities
from club_envs.arkham_decoders.engine import State
from club_envs.arkham_decoders.match import play_match
from club_envs.arkham_decoders.observer import Observer
from club_envs.arkham_decoders.rules import BLACK_MAN, INVESTIGATOR, Config
from club_envs.games import load_game
from tests.arkham_decoders.test_properties import _hide_differently, _play


def random_model(seed=0, hidden=(32,)):
    """A model whose last layer is not zero, so it moves away from the prior."""
    rng = np.random.default_rng(seed)
    sizes = [INPUT_SIZE, *hidden, OUTPUT_SIZE]
    return BeliefModel([(rng.normal(0, 0.5, (b, a)), rng.normal(0, 0.5, b)) for a, b in zip(sizes, sizes[1:])])


def decisions_of(num_players, seed, games=2):
    """Every decision with a choice in heuristic games, as (state copy, decision)."""
    out = []
    bot = HeuristicAgent()
    for g in range(games):
        state = State(Config(num_players=num_players), seed=seed + g)
        observer = Observer(state.config)
        while not state.is_terminal:
            seat = state.current_player
            view = state.player_view(seat)
            legal = state.legal_actions()
            decision = Decision(seat, view, legal, lambda v=view: observer.observe(v), state.legal_mask)
            if len(legal) > 1:
                out.append((state.clone(), decision))
            state.apply_action(bot.act(decision))
    return out


@pytest.mark.parametrize("num_players", [4, 5, 6])
def test_an_untrained_model_is_the_hand_set_belief_and_its_agent_is_the_heuristic(num_players):
    model = BeliefModel.untrained((16, 16))
    decisions = [d for _, d in decisions_of(num_players, seed=30 + num_players)]
    obs = np.stack([d.observation for d in decisions])
    views = [d.view for d in decisions]
    assert np.allclose(model.predict(obs, views).reshape(len(views), -1), np.stack([prior(v).ravel() for v in views]))
    p_true = model.true_book_probabilities(obs, views)
    assert all(np.array_equal(p, true_book_probabilities(v)) for p, v in zip(p_true, views))
    agent = BeliefAgent(model)
    for seed in range(6):
        config = Config(num_players=num_players)
        mine = play_match(config, [agent] * num_players, seed=seed)
        theirs = play_match(config, [HeuristicAgent() for _ in range(num_players)], seed=seed)
        assert mine["events"] == theirs["events"]


def test_predictions_are_distributions_that_keep_what_the_seat_knows():
    model = random_model()
    decisions = [d for _, d in decisions_of(5, seed=7)]
    obs = np.stack([d.observation for d in decisions])
    views = [d.view for d in decisions]
    predicted = model.predict(obs, views)
    priors = np.stack([prior(v) for v in views])
    assert np.allclose(predicted.sum(axis=(1, 2)), 1.0)
    assert (predicted[priors == 0] == 0).all()  # face-up fakes, a known Black Man, the Investigator's book
    assert not np.allclose(predicted, priors, atol=1e-3)  # the network does move the belief
    for view, p in zip(views, predicted):
        for book in view.face_up_books:
            assert (p[:, book] == 0).all()
        if view.identity == INVESTIGATOR:
            assert (p[:, view.grimoire] == 0).all()
    assert np.allclose(model.predict(obs[:1], views[:1]), predicted[:1])


def test_the_agent_batches_like_one_by_one_and_plays_the_heuristic_black_man():
    model = random_model(1)
    agent = BeliefAgent(model)
    decisions = [d for _, d in decisions_of(6, seed=11)]
    one_by_one = [agent.act(d) for d in decisions]
    assert BeliefAgent.act_batch([agent] * len(decisions), decisions) == one_by_one
    assert all(a in d.legal_actions for d, a in zip(decisions, one_by_one))
    bot = HeuristicAgent()
    black_man = [(d, a) for d, a in zip(decisions, one_by_one) if d.view.identity == BLACK_MAN]
    assert black_man and all(a == bot.act(d) for d, a in black_man)
    team = [(d, a) for d, a in zip(decisions, one_by_one) if d.view.identity != BLACK_MAN]
    assert any(a != bot.act(d) for d, a in team)  # another belief, other choices


@pytest.mark.parametrize("seed", range(6))
def test_the_belief_reads_no_hidden_information(seed):
    """States that differ only in what the seat cannot know give the same prediction and decision."""
    model, rng = random_model(2), random.Random(seed)
    agent = BeliefAgent(model)
    n = 4 + seed % 3
    checked = changed = 0
    for steps in (10, 40, 90, 140):
        state = _play(n, 1000 + seed, [rng.randrange(10_000) for _ in range(steps)])
        if state.is_terminal:
            continue
        for seat in range(n):
            # from a deep copy: the helper's clone shares some containers with the state it is given
            other = _hide_differently(copy.deepcopy(state), seat, rng)
            a, b = state.player_view(seat), other.player_view(seat)
            assert a == b
            oa, ob = Observer(state.config).observe(a), Observer(state.config).observe(b)
            assert np.array_equal(model.predict(oa[None], [a]), model.predict(ob[None], [b]))
            if seat == state.current_player:
                da = Decision(seat, a, state.legal_actions(), lambda: oa, state.legal_mask)
                db = Decision(seat, b, other.legal_actions(), lambda: ob, other.legal_mask)
                assert agent.act(da) == agent.act(db)
            checked += 1
            changed += other.true_book != state.true_book or other.black_man_seat != state.black_man_seat
    assert checked >= n
    assert changed  # the hidden truth really differed in some of the pairs


def test_a_belief_file_round_trips_and_plays_by_name(tmp_path):
    model = random_model(3)
    path = model.save(tmp_path / "belief.npz", {"generation": 4})
    loaded = BeliefModel.load(path)
    assert loaded.meta["generation"] == 4 and loaded.meta["game"] == "arkham_decoders_club"
    for (w, b), (w2, b2) in zip(model.layers, loaded.layers):
        assert np.array_equal(w, w2) and np.array_equal(b, b2)
    game = load_game("arkham_decoders")
    for name in (str(path), str(tmp_path)):  # the file, or a folder holding belief.npz
        assert isinstance(registry.load(name, game=game, config=Config(num_players=5)), BeliefAgent)
    agent = registry.load(str(path), game=game)
    record = play_match(Config(num_players=5), lambda seat, role: HeuristicAgent() if role == "black_man" else agent, seed=4)
    assert record["result"]["winners"]
    assert {s["controller"] for s in record["seats"]} >= {str(path)}
    # a belief file for the team's roles only, as a shipped entry would name it
    team = registry._from_files({r: path for r in ("leader", "member", "investigator")}, "team", None, None, game)
    record = play_match(Config(num_players=6), lambda seat, role: HeuristicAgent() if role == "black_man" else team, seed=5)
    assert record["result"]["winners"]
    with pytest.raises(ValueError, match="Arkham Decoders Club belief file; it cannot play members_only"):
        registry.load(str(path), game=load_game("members_only"))
    with pytest.raises(ValueError, match="':sample' does not apply"):
        registry.load(f"{path}:sample", game=game)


def test_a_belief_agent_loads_tempered_by_name_and_plays_as_the_tempered_file(tmp_path):
    """``NAME:temper=F`` plays exactly as the file tempered by F (the belief's logits x F), for a file,
    a folder or a shipped name; an untempered load is unchanged; policies, bots and factors outside
    (0, 1] are refused with the option's range."""
    model = random_model(5)
    path = model.save(tmp_path / "belief.npz")
    model.tempered(0.1).save(tmp_path / "tenth" / "belief.npz")
    game, config = load_game("arkham_decoders"), Config(num_players=5)

    def moves(name):
        agent = registry.load(name, game=game, config=config)
        return [play_match(config, lambda seat, role: HeuristicAgent() if role == "black_man" else agent,
                           seed=seed)["events"] for seed in range(6)]

    tempered = moves(str(tmp_path / "tenth" / "belief.npz"))
    assert moves(f"{path}:temper=0.1") == moves(f"{tmp_path}:temper=0.1") == tempered
    assert moves(f"{path}:temper=1") == moves(str(path)) != tempered  # the factor changed the game
    agent = registry.load("arkham_team_belief:temper=0.5", game=game, config=config)
    shipped = registry.load("arkham_team_belief", game=game, config=config)
    (w, b), (w2, b2) = agent.by_role["leader"].model.layers[-1], shipped.by_role["leader"].model.layers[-1]
    assert np.array_equal(w, w2 * np.float32(0.5)) and np.array_equal(b, b2 * np.float32(0.5))
    for name, message in ((f"{path}:temper=0", r"takes a factor in \(0, 1\], not '0'"),
                          (f"{path}:temper=half", r"takes a factor in \(0, 1\], not 'half'"),
                          ("heuristic:temper=0.5", "'heuristic' is a built-in bot"),
                          ("arkham_neural_team:temper=0.5", "'arkham_neural_team' holds none"),
                          (f"{path}:hot", r"expected ':greedy', ':sample' or ':temper=F'")):
        with pytest.raises(ValueError, match=message):
            registry.load(name, game=game, config=config)


def test_members_only_belief_files_still_load_as_members_only_agents(tmp_path):
    from club_envs.members_only.belief_agent import BeliefAgent as MembersOnlyBeliefAgent
    from club_envs.members_only.belief_model import BeliefModel as MembersOnlyBeliefModel

    path = MembersOnlyBeliefModel.untrained((8,)).save(tmp_path / "mo.npz")
    assert isinstance(registry.load(str(path), game=load_game("members_only")), MembersOnlyBeliefAgent)
    with pytest.raises(ValueError, match="Members Only belief file"):
        registry.load(str(path), game=load_game("arkham_decoders"))
    with pytest.raises(BeliefFileError, match="is for 'members_only'"):
        BeliefModel.load(path)
