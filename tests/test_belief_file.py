"""The belief-file format both games' learned models share (club_envs.agents.belief_file): every
damaged or mismatched file is refused with a line naming its problem, whichever game's model reads it."""

from __future__ import annotations

import numpy as np
import pytest

from club_envs.agents.belief_file import BeliefFileError
from club_envs.arkham_decoders import belief_model as arkham
from club_envs.members_only import belief_model as members_only

MODELS = {"members_only": members_only, "arkham_decoders_club": arkham}


def random_model(module, seed=4, hidden=(32,)):
    rng = np.random.default_rng(seed)
    sizes = [module.INPUT_SIZE, *hidden, module.OUTPUT_SIZE]
    return module.BeliefModel([(rng.normal(0, 0.3, (b, a)), rng.normal(0, 0.3, b)) for a, b in zip(sizes, sizes[1:])])


@pytest.mark.parametrize("game", sorted(MODELS))
@pytest.mark.parametrize("content, message", [
    (b"not a zip archive", "not a readable .npz archive"),
    (None, "has no 'meta' entry"),
])
def test_a_damaged_belief_file_is_refused_with_its_problem(tmp_path, game, content, message):
    module = MODELS[game]
    path = tmp_path / "bad.npz"
    if content is None:
        np.savez(path, w0=np.zeros((module.OUTPUT_SIZE, module.INPUT_SIZE)))
    else:
        path.write_bytes(content)
    with pytest.raises(BeliefFileError, match=message):
        module.BeliefModel.load(path)


@pytest.mark.parametrize("game", sorted(MODELS))
def test_belief_files_with_wrong_shapes_formats_or_values_are_refused(tmp_path, game):
    module = MODELS[game]
    path = random_model(module).save(tmp_path / "b.npz")
    with np.load(path) as data:
        arrays = {k: data[k] for k in data.files}
    cases = {
        "layer 0 has weights": {**arrays, "w0": arrays["w0"][:, :10]},
        "NaN or infinite": {**arrays, "b1": np.full_like(arrays["b1"], np.nan)},
        "is not a club-envs-belief file": {**arrays, "meta": np.array('{"format": "other"}')},
        "version": {**arrays, "meta": np.array('{"format": "club-envs-belief", "version": 9, "game": "%s"}' % game)},
        "meta is not JSON": {**arrays, "meta": np.array("{")},
        "holds no layers": {"meta": arrays["meta"]},
        "the last layer has 5 outputs": {**arrays, "w1": arrays["w1"][:5], "b1": arrays["b1"][:5]},
    }
    for message, content in cases.items():
        bad = tmp_path / "bad.npz"
        np.savez(bad, **content)
        with pytest.raises(BeliefFileError, match=message):
            module.BeliefModel.load(bad)
    with pytest.raises(BeliefFileError, match="does not exist"):
        module.BeliefModel.load(tmp_path / "missing.npz")


@pytest.mark.parametrize("game", sorted(MODELS))
def test_a_tempered_belief_scales_the_logits_and_keeps_its_format(tmp_path, game):
    """``tempered(f)`` is prior x exp(f x logits): the logits scale by f, the factors compound in the
    meta, the file reads back as the same model, and factors outside (0, 1] are refused."""
    module = MODELS[game]
    model = random_model(module)
    x = np.random.default_rng(0).normal(size=(5, module.INPUT_SIZE)).astype(np.float32)
    half = model.tempered(0.5)
    np.testing.assert_allclose(half.logits(x), 0.5 * model.logits(x), rtol=1e-5, atol=1e-6)
    quarter = half.tempered(0.5)
    assert quarter.meta["tempered"] == 0.25 and "tempered" not in model.meta
    back = module.BeliefModel.load(quarter.save(tmp_path / "tempered.npz"))
    assert back.meta["tempered"] == 0.25
    np.testing.assert_allclose(back.logits(x), 0.25 * model.logits(x), rtol=1e-5, atol=1e-6)
    for factor in (0.0, -0.5, 1.5, float("nan")):
        with pytest.raises(ValueError, match=r"temper factor must be in \(0, 1\]"):
            model.tempered(factor)


def test_a_tempered_arkham_belief_moves_the_prior_less():
    """On the Arkham team's posterior: a factor of 1 changes nothing, smaller factors stay between the
    hand-set prior and the untempered posterior (closer to the prior), bit for bit the prior's zeros."""
    from club_envs.arkham_decoders.belief_model import combine

    model = random_model(arkham, seed=7)
    x = np.random.default_rng(1).normal(size=(6, arkham.INPUT_SIZE)).astype(np.float32)
    prior = np.random.default_rng(2).random((6, arkham.OUTPUT_SIZE))
    prior[:, :2] = 0.0  # hypotheses the prior rules out stay ruled out
    full = combine(prior, model.logits(x))
    np.testing.assert_array_equal(combine(prior, model.tempered(1.0).logits(x)), full)
    near = combine(prior, model.tempered(0.2).logits(x))
    assert (near[:, :2] == 0).all()
    assert (np.abs(near - prior).sum(axis=1) < np.abs(full - prior).sum(axis=1)).all()


def test_a_shipped_members_only_belief_loads_tempered_by_name():
    """``:temper=F`` on Members Only's shipped belief agent: the same agent class on the model x F."""
    from club_envs.agents import registry
    from club_envs.games import load_game

    game = load_game("members_only")
    plain, half = (registry.load(n, game=game) for n in ("members_only_belief", "members_only_belief:temper=0.5"))
    assert type(plain) is type(half) and half.name == "members_only_belief:temper=0.5"
    (w, b), (w2, b2) = half.model.layers[-1], plain.model.layers[-1]
    assert np.array_equal(w, w2 * np.float32(0.5)) and np.array_equal(b, b2 * np.float32(0.5))
    assert half.model.meta["tempered"] == 0.5 and "tempered" not in plain.model.meta
