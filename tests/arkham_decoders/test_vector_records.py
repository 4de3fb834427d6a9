"""``keep_records=True`` on the batched Arkham Decoders Club environment: the step that ends game ``i``
gives its standard record in ``info["record"][i]`` (``info["_record"]`` its mask); the record
validates against the schema, survives JSON, replays on the reference engine to the result the
environment reported, and is the game the learner played -- replayed event by event, the learner's
observation before each of its decisions is the one the environment gave, and its decisions are
the actions it sent."""

from __future__ import annotations

import json

import gymnasium
import numpy as np
import pytest

import club_envs  # noqa: F401  (registers the environment ids)
from club_envs import records
from club_envs.arkham_decoders import actions as A
from club_envs.arkham_decoders.engine import State
from club_envs.arkham_decoders.observer import Observer
from club_envs.arkham_decoders.replay import replay
from club_envs.arkham_decoders.rules import Config, parse_card
from club_envs.arkham_decoders.vector_records import MAX_DECISIONS
from club_envs.errors import ConfigError

DECISIONS = ("reveal", "pass", "vote", "decode")


def make(num_envs: int, **kwargs):
    return gymnasium.make_vec("club_envs/ArkhamDecoders-v0", num_envs=num_envs, vectorization_mode="vector_entry_point",
                              **kwargs)


def decision_of(state: State, event: dict) -> tuple[int, int] | None:
    """``(seat, action)`` of a decision event in ``state`` (before it is applied), else None."""
    kind = event["type"]
    if kind == "reveal":
        return event["seat"], A.REVEAL + parse_card(event["card"])
    if kind == "pass":
        return event["seat"], A.PASS
    if kind == "vote":
        return event["seat"], A.AGREE if event["vote"] == "agree" else A.OPPOSE
    if kind == "decode" and event["chooser"] is not None:
        card = parse_card(event["decoded"][0]["card"])
        return event["chooser"], A.DECODE + [c for _, c in state.table].index(card)
    return None


def check_the_learners_game(record: dict, seat: int, views: list, actions: list) -> None:
    """Replays ``record`` event by event: the learner's views and actions are ``views`` and ``actions``."""
    events = record["events"]
    config = Config.from_record(record["config"])
    decks = [(e["flipped"], e["deck"]) for e in events if e["type"] == "reshuffle"]
    state, observer, k = State(config, setup=events[0], reshuffle_decks=decks), Observer(config), 0
    for event in events[1:]:
        decision = decision_of(state, event)
        if decision is None:
            continue
        who, action = decision
        assert who == state.current_player
        if who == seat:
            assert observer.observe(state.player_view(seat)).tobytes() == views[k].tobytes(), f"decision {k}"
            assert action == actions[k], f"decision {k}"
            k += 1
        state.apply_action(action)
    assert k == len(actions) and state.events == events


@pytest.mark.parametrize("options", [{"num_players": 4, "role": "any"},
                                     {"num_players": 5, "role": "member", "reward_mode": "san"},
                                     {"num_players": 6, "role": "black_man", "insanity_penalty": 0}],
                         ids=["4p-any", "5p-member-san", "6p-black-man"])
def test_every_finished_game_comes_with_its_record(options):
    envs = make(6, keep_records=True, **options)
    obs, info = envs.reset(seed=7)
    rng = np.random.default_rng(1)
    views, sent = [[o.copy()] for o in obs], [[] for _ in range(6)]
    seats, finished = info["seat"].copy(), 0
    for _ in range(250):
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in envs.action_masks()])
        obs, rewards, terminated, _, info = envs.step(actions)
        for g in range(6):
            sent[g].append(int(actions[g]))
        if not terminated.any():
            assert "record" not in info
        else:
            assert (info["_record"] == terminated).all()
            assert all(info["record"][g] is None for g in np.flatnonzero(~terminated))
        for g in np.flatnonzero(terminated):
            finished += 1
            record = json.loads(json.dumps(info["record"][g]))  # plain JSON
            records.validate(record)
            result = replay(record)
            assert result == record["result"] and result["total"] == info["final_info"]["total"][g]
            assert result["scores"] == info["final_info"]["scores"][g].tolist()
            assert [s["controller"] for s in record["seats"]] == ["learner" if s == seats[g] else "random"
                                                                  for s in range(envs.num_players)]
            assert record["config"]["num_players"] == envs.num_players
            check_the_learners_game(record, int(seats[g]), views[g], sent[g])
            views[g], sent[g] = [], []
        seats = info["seat"].copy()
        for g in range(6):
            views[g].append(obs[g].copy())
    assert finished >= 6


def test_records_are_off_by_default_and_a_seed_gives_the_same_records():
    runs = []
    for keep in (False, True, True):
        envs, found, ended = make(4, num_players=4, keep_records=keep), [], 0
        envs.reset(seed=3)
        rng = np.random.default_rng(5)
        for _ in range(120):
            _, _, terminated, _, info = envs.step([rng.choice(np.flatnonzero(m)) for m in envs.action_masks()])
            ended += terminated.sum()
            assert ("record" in info) == (keep and terminated.any())
            found += [info["record"][g] for g in np.flatnonzero(terminated)] if keep else []
        assert ended >= 4
        runs.append(found)
    assert len(runs[1]) >= 4 and runs[1] == runs[2]


def test_bad_keep_records_is_named_and_the_log_fits_every_game():
    with pytest.raises(ConfigError, match="keep_records='yes': expected True or False"):
        make(2, keep_records="yes")
    envs = make(64, num_players=6, keep_records=True, role="member")
    envs.reset(seed=0)
    rng, longest = np.random.default_rng(0), 0
    for _ in range(300):
        _, _, terminated, _, info = envs.step([rng.choice(np.flatnonzero(m)) for m in envs.action_masks()])
        for g in np.flatnonzero(terminated):
            events = info["record"][g]["events"]
            longest = max(longest, sum(e["type"] in DECISIONS and e.get("chooser", 0) is not None for e in events))
    assert 0 < longest < MAX_DECISIONS
