"""The batched opponents' choice and its check (club_envs.agents.batched): compiled, and equal to
the numpy expressions they replace -- the frozen snapshots of every vector environment choose
through them, so a difference would change every self-play game."""

import numpy as np
import pytest

from club_envs.agents.batched import MaskedLogits, checked_answer, first_illegal, masked_choice
from club_envs.errors import IllegalActionError


def numpy_choice(logits, masks, greedy, rng):
    """The masked choice as numpy states it (the form it had before it was compiled)."""
    scores = np.where(masks, np.asarray(logits, dtype=np.float64), -np.inf)
    if greedy:
        return scores.argmax(axis=1)
    probs = np.exp(scores - scores.max(axis=1, keepdims=True))
    cdf = np.cumsum(probs, axis=1)
    cdf /= cdf[:, -1:]
    picks = (cdf <= rng.random(len(cdf))[:, None]).sum(axis=1)
    return np.minimum(picks, masks.shape[1] - 1)


def random_rows(rng, case):
    rows, actions = int(rng.integers(1, 24)), int(rng.integers(2, 130))
    scale = rng.choice([0.01, 1.0, 8.0, 60.0])
    logits = (rng.normal(size=(rows, actions)) * scale).astype(rng.choice([np.float32, np.float64]))
    if case % 5 == 0:  # ties among the legal actions
        logits[:, : actions // 2] = logits[:, :1]
    masks = rng.random((rows, actions)) < rng.choice([0.03, 0.3, 0.95])
    masks[np.arange(rows), rng.integers(0, actions, rows)] = True  # every row has a legal action
    return logits, masks


@pytest.mark.parametrize("greedy", [True, False])
def test_masked_choice_equals_the_numpy_expression_and_draws_the_same_numbers(greedy):
    rng = np.random.default_rng(7)
    for case in range(400):
        logits, masks = random_rows(rng, case)
        mine, theirs = np.random.default_rng(case), np.random.default_rng(case)
        picks = masked_choice(logits, masks, greedy, mine)
        assert picks.dtype == np.int64
        assert np.array_equal(picks, numpy_choice(logits, masks, greedy, theirs))
        assert masks[np.arange(len(picks)), picks].all()
        assert mine.random() == theirs.random()  # the generators are left in the same place


def test_masked_choice_samples_in_proportion_to_the_softmax():
    logits = np.log(np.array([[0.5, 0.3, 0.2, 9.0]]))
    masks = np.array([[True, True, True, False]])
    picks = masked_choice(np.repeat(logits, 20000, axis=0), np.repeat(masks, 20000, axis=0), False,
                          np.random.default_rng(0))
    shares = np.bincount(picks, minlength=4) / len(picks)
    assert shares[3] == 0.0
    assert np.allclose(shares[:3], [0.5, 0.3, 0.2], atol=0.015)


def test_masked_logits_choose_through_masked_choice():
    logits = np.random.default_rng(1).normal(size=(50, 12))
    masks = np.random.default_rng(2).random((50, 12)) < 0.5
    masks[:, 3] = True
    policy = MaskedLogits(lambda obs: logits, greedy=False, seed=4)
    assert np.array_equal(policy(np.zeros((50, 3)), masks), masked_choice(logits, masks, False, np.random.default_rng(4)))


def test_checked_answer_passes_legal_answers_and_names_the_first_illegal_one():
    legal = np.zeros((3, 5), bool)
    legal[0, [1, 2]] = legal[1, 4] = legal[2, 0] = True
    rows, seats = np.array([10, 11, 12]), np.array([2, 0, 1])
    assert checked_answer("p", np.array([2, 4, 0]), legal, rows, seats).tolist() == [2, 4, 0]
    assert checked_answer("p", np.array([1, 4, 0], np.int32), legal, rows, seats).dtype == np.int64
    assert checked_answer("p", [1, 4, 0], legal, rows, seats).tolist() == [1, 4, 0]
    for bad, game, seat, action, allowed in (([2, 3, 0], 11, 0, 3, "4"), ([2, 4, -1], 12, 1, -1, "0"),
                                             ([5, 4, 0], 10, 2, 5, "1, 2")):
        assert first_illegal(np.array(bad, np.int64), legal) == [10, 11, 12].index(game)
        with pytest.raises(IllegalActionError, match=f"game {game}: opponent 'p' at seat {seat} chose illegal "
                                                     f"action {action}; legal actions: {allowed}$"):
            checked_answer("p", np.array(bad, np.int64), legal, rows, seats)
    assert first_illegal(np.array([1, 4, 0], np.int64), legal) == -1
    with pytest.raises(IllegalActionError, match="must answer 3 whole numbers, one per game; got shape \\(2,\\)"):
        checked_answer("p", np.array([1, 4]), legal, rows, seats)
    with pytest.raises(IllegalActionError, match="dtype float64"):
        checked_answer("p", np.array([1.0, 4.0, 0.0]), legal, rows, seats)
