"""Fuzzing policy files: a damaged file is refused with one PolicyFileError line naming the file,
or it loads -- and then, checked against the game at load time, it plays a whole game without
failing. A pickled object is never loaded, so no code from the file can run."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

from club_envs.agents.policy import PolicyFileError, save_policy
from club_envs.agents.registry import load as load_agent
from club_envs.games import load_game

from .mutations import damage_bytes, fuzz_settings, json_values, mutate

GAMES = {
    "members_only": {"obs": 510, "actions": 101, "roles": None, "players": 3},
    "arkham_decoders": {"obs": 409, "actions": 30, "roles": ["leader", "member", "investigator"], "players": 4},
}


def valid_blob(game_name: str) -> dict:
    spec = GAMES[game_name]
    g = torch.Generator().manual_seed(0)
    weights = {
        "mlp_extractor.policy_net.0.weight": torch.randn(8, spec["obs"], generator=g) * 0.1,
        "mlp_extractor.policy_net.0.bias": torch.zeros(8),
        "action_net.weight": torch.randn(spec["actions"], 8, generator=g) * 0.1,
        "action_net.bias": torch.zeros(spec["actions"]),
    }
    meta = {"game": game_name, "side": "player", "roles": spec["roles"], "obs_size": spec["obs"],
            "num_actions": spec["actions"], "hidden": [8], "activation": "tanh", "steps": 0}
    return {"meta": meta, "weights": weights}


tensors = st.builds(
    lambda shape, fill, dtype: torch.full(shape, fill).to(dtype),
    st.lists(st.sampled_from([0, 1, 5, 8, 30, 101, 409, 510]), min_size=0, max_size=3).map(tuple),
    st.sampled_from([0.0, 1.0, -1e30, float("nan"), float("inf")]),
    st.sampled_from([torch.float32, torch.float64, torch.int64, torch.bool]),
)


def damaged_policy(data: st.DataObject, game_name: str) -> dict:
    blob = valid_blob(game_name)
    part = data.draw(st.sampled_from(["meta", "weights"]), label="part")
    if part == "meta":
        blob["meta"] = mutate(data, blob["meta"])
    else:
        weights = blob["weights"]
        key = data.draw(st.sampled_from(sorted(weights) + ["mlp_extractor.policy_net.2.weight", "extra",
                                                           "mlp_extractor.policy_net.x.bias"]), label="weight")
        action = data.draw(st.sampled_from(["tensor", "delete", "value"]), label="action")
        if action == "delete":
            weights.pop(key, None)
        elif action == "tensor":
            weights[key] = data.draw(tensors, label="tensor")
        else:
            weights[key] = data.draw(json_values, label="value")
    return blob


def plays_a_game(path: Path, game_name: str) -> None:
    """Load the file for the game the way every tool does; if it loads, it must play a whole game."""
    game = load_game(game_name)
    config = game.Config(num_players=GAMES[game_name]["players"])
    if game_name == "members_only":
        config = game.Config(num_players=3, max_heats=2)
    try:
        agent = load_agent(str(path), game=game, config=config, seed=1)
    except PolicyFileError as exc:
        message = str(exc)
        assert message.startswith(str(path)), message
        assert "\n" not in message and len(message) < 1000, message
        return
    roles = getattr(agent, "by_role", None)
    if roles is None:
        seats = [agent] + [load_agent("random", game=game, config=config, seed=s) for s in range(1, config.num_players)]
        record = game.play_match(config, seats, seed=3)
    else:
        def seat(seat_number: int, role: str):
            if role in roles:
                return load_agent(str(path), game=game, config=config, seed=seat_number)
            return load_agent("random", game=game, config=config, seed=seat_number)
        record = game.play_match(config, seat, seed=3)
    assert record["result"]["reason"] != "illegal_action"


@pytest.mark.parametrize("game_name", sorted(GAMES))
@fuzz_settings(40)
@given(data=st.data())
def test_a_damaged_policy_is_refused_or_plays(game_name, data):
    blob = damaged_policy(data, game_name)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "policy.pt"
        torch.save(blob, path)
        plays_a_game(path, game_name)


@pytest.mark.parametrize("game_name", sorted(GAMES))
@fuzz_settings(25)
@given(data=st.data())
def test_a_policy_file_with_damaged_bytes_is_refused_or_plays(game_name, data):
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "policy.pt"
        save_policy(path, valid_blob(game_name)["weights"], valid_blob(game_name)["meta"])
        path.write_bytes(damage_bytes(data, path.read_bytes()))
        plays_a_game(path, game_name)


class _Payload:
    """Unpickling this would run ``print``: the loader must refuse it before it can."""

    def __reduce__(self):
        return (print, ("this must never be printed",))


@fuzz_settings(10)
@given(where=st.sampled_from(["meta", "weights", "root", "inside"]))
def test_a_pickled_object_is_refused_unread_in_one_line(where, capsys):
    blob = valid_blob("members_only")
    if where == "root":
        blob = _Payload()
    elif where == "inside":
        blob["weights"]["action_net.bias"] = [_Payload()]
    else:
        blob[where]["payload"] = _Payload()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "evil.pt"
        torch.save(blob, path)
        with pytest.raises(PolicyFileError) as caught:
            load_agent(str(path), game=load_game("members_only"))
    message = str(caught.value)
    assert "holds pickled Python objects" in message and "weights_only" not in message and "\n" not in message
    assert "this must never be printed" not in capsys.readouterr().out
