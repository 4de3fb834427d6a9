"""Every policy-input function gives, for a batch of decisions, exactly the inputs it gives each
decision alone -- the training environments compute them in batches, a table one at a time."""

from __future__ import annotations

import importlib

import numpy as np
import pytest

from club_envs.agents import features
from club_envs.agents.policy import PolicyAgent
from club_envs.games import load_game


def random_decisions(game_name: str, seed: int, count: int) -> tuple[np.ndarray, list, np.ndarray]:
    """Observations, views and masks of the player to move in seeded random games of every size."""
    game = load_game(game_name)
    observer_module = importlib.import_module(f"{game.__name__}.observer")
    engine = importlib.import_module(f"{game.__name__}.engine")
    rng = np.random.default_rng(seed)
    observations, views, masks = [], [], []
    while len(views) < count:
        config = game.Config(num_players=int(rng.choice(game.PLAYER_COUNTS)))
        state, observer = engine.State(config, seed=int(rng.integers(2**31))), observer_module.Observer(config)
        while not state.is_over and len(views) < count:
            view = state.player_view(state.current_player)
            observations.append(observer.observe(view))
            views.append(view)
            masks.append(state.legal_mask().astype(bool))
            state.apply_action(int(rng.choice(state.legal_actions())))
    return np.stack(observations), views, np.stack(masks)


@pytest.mark.parametrize("name", [n for n in features.NAMES if n != "none"])
def test_batched_inputs_equal_the_inputs_of_each_decision(name):
    spec = features.get(name)
    observations, views, masks = random_decisions(spec.game, seed=len(name), count=300)
    batched = spec.transform_batch(observations, views, masks)
    one_by_one = np.stack([spec.transform(o, v, m) for o, v, m in zip(observations, views, masks)])
    assert batched.shape == (len(views), spec.obs_size + spec.extra)
    if name == "members_only_belief_inputs":
        # a belief model's forward pass rounds differently for a batch than for one row (the matrix
        # product's kernel changes with its shape): the same numbers to float32 rounding, not bit for bit
        np.testing.assert_allclose(batched, one_by_one, rtol=0, atol=1e-5)
    else:
        assert np.array_equal(batched, one_by_one)


def test_a_policy_draws_what_numpys_choice_draws():
    """PolicyAgent.choose skips Generator.choice's argument checks but keeps its draws, so seeded
    games played before stay the same."""
    rng = np.random.default_rng(0)
    agent = PolicyAgent.__new__(PolicyAgent)
    agent.deterministic = False
    for seed in range(200):
        probs = rng.random(101) * (rng.random(101) < 0.3)
        probs[seed % 101] += 0.01
        probs /= probs.sum()
        agent._rng, reference = np.random.default_rng(seed), np.random.default_rng(seed)
        assert [agent.choose(probs) for _ in range(5)] == [int(reference.choice(101, p=probs)) for _ in range(5)]
