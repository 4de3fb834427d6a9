"""The Members Only vector environment's opponents -- ``heuristic``, ``heuristic_bold``, ``random``
and batched policies, alone or seat by seat -- play each game exactly as the one-game environment's
opponents do; ``keep_records=True`` gives each finished game's standard record; bad input is refused
without touching any game."""

from __future__ import annotations

import zlib

import gymnasium
import numpy as np
import pytest

import club_envs  # noqa: F401  (registers the environment ids)
from club_envs import records
from club_envs.agents.batched import BatchedPolicy, MaskedLogits
from club_envs.errors import ConfigError, IllegalActionError
from club_envs.members_only import gym_env
from club_envs.members_only.bots import make_agent
from club_envs.members_only.gym_env import MembersOnlyGymEnv
from club_envs.members_only.replay import replay
from club_envs.members_only.vector_rng import draw, seed_states
from tests.members_only.helpers import random_decks, reference_game


def make(num_envs: int, **kwargs):
    return gymnasium.make_vec(
        "club_envs/MembersOnly-v0", num_envs=num_envs, vectorization_mode="vector_entry_point", **kwargs
    )


class HashPolicy:
    """A deterministic batched policy (the legal action picked by a hash of the observation's
    bytes, so one row or many give the same answer) that logs the size of every call."""

    name = "hash"

    def __init__(self) -> None:
        self.calls: list[int] = []

    def __call__(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        self.calls.append(len(observations))
        legal = [np.flatnonzero(m) for m in action_masks]
        return np.array([a[zlib.crc32(o.tobytes()) % len(a)] for o, a in zip(observations, legal)], np.int64)

    def one(self, obs: dict) -> int:
        """The same policy as the one-game environment's callable opponents take."""
        return int(self(obs["observation"][None], obs["action_mask"][None].astype(bool))[0])


def single_opponents(spec, states: np.ndarray, g: int, config):
    """The one-game environment's opponents for the vector environment's ``spec`` in game ``g``:
    reference bots, random moves drawn from the same per-game generators, the same policy."""
    def opponent(item):
        if isinstance(item, HashPolicy):
            return item.one
        if item == "random":
            return lambda obs: np.flatnonzero(obs["action_mask"])[draw(states, g, int(obs["action_mask"].sum()))]
        return make_agent(item, config)

    return [opponent(item) for item in spec] if isinstance(spec, list) else opponent(spec)


CASES = [
    ({"num_players": 4, "seat": 2}, "heuristic"),
    ({"num_players": 3, "seat": "random", "max_heats": 6}, ["random", "heuristic_bold"]),
    ({"num_players": 5, "seat": 1, "reward_mode": "score", "heat_shaping": 0.25}, ["policy", "heuristic", "policy", "random"]),
    # every other game seats another line-up (set_opponents(..., games=...)), as a trainer drawing per game does
    ({"num_players": 4, "seat": "random"}, (["policy", "random", "heuristic"], "heuristic_bold")),
]


@pytest.mark.parametrize("options,spec", CASES, ids=["4p-heuristic", "3p-random-bold", "5p-policy-mix", "4p-per-game"])
def test_each_game_and_its_record_are_the_one_game_environments(options, spec, monkeypatch):
    """Vector games with these opponents, replayed in the one-game environment with the reference
    opponents on the same decks, give identical observations, masks, rewards, ends and records."""
    count, seed = 8, 4
    policy = HashPolicy()
    specs = list(spec) if isinstance(spec, tuple) else [spec, spec]
    specs = [[policy if item == "policy" else item for item in s] if isinstance(s, list) else s for s in specs]
    envs = make(count, opponents=specs[0], keep_records=True, **options)
    envs.set_opponents(specs[1], games=np.arange(1, count, 2))
    config = envs.config
    rng = np.random.default_rng(7)
    decks = random_decks(rng, count, config.max_heats)
    obs, info = envs.reset(seed=seed, options={"decks": decks})
    states = seed_states(np.random.SeedSequence(seed).spawn(2)[1], count)
    singles = []
    for g in range(count):
        monkeypatch.setattr(gym_env, "State", lambda config, seed=None, g=g: reference_game(config, decks[g], 0))
        single_options = {**options, "seat": int(info["seat"][g])}
        env = MembersOnlyGymEnv(opponents=single_opponents(specs[g % 2], states, g, config), **single_options)
        first, _ = env.reset(seed=g)
        assert obs[g].tobytes() == first.tobytes(), f"game {g}"
        singles.append(env)
    playing = np.ones(count, bool)
    finished = 0
    while playing.any():
        masks = envs.action_masks()
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        obs, rewards, terminated, truncated, info = envs.step(actions)
        for g in np.flatnonzero(playing):
            env = singles[g]
            assert (masks[g] == env.action_masks()).all(), f"game {g}"
            expected, reward, term, trunc, _ = env.step(actions[g])
            assert (rewards[g], terminated[g], truncated[g]) == (reward, term, trunc), f"game {g}"
            seen = info["final_obs"][g] if term or trunc else obs[g]
            assert seen.tobytes() == expected.tobytes(), f"game {g}"
            if term or trunc:
                playing[g] = False
                finished += 1
                assert info["_record"][g]
                record = info["record"][g]
                reference = env.record()
                assert record["events"] == reference["events"] and record["result"] == reference["result"]
                records.validate(record)
                assert replay(record) == reference["result"]
                assert record["seats"][env.seat]["controller"] == "learner"
        if "record" in info:
            assert (info["_record"] == (terminated | truncated)).all()
            assert all(r is None for r in info["record"][~info["_record"]])
    assert finished == count


def test_heuristic_opponents_by_name_and_the_errors_for_those_the_vector_environment_lacks():
    envs = make(4, num_players=4, opponents="heuristic")
    assert (envs.lineups.names == "heuristic").all() and envs.lineups.names.shape == (4, 3)
    with pytest.raises(ConfigError, match="'alphazero' is not available.*heuristic_sampled.*compiled: random, "
                                          "heuristic, heuristic_bold, heuristic_sampled\\).*batched policy.*sync"):
        make(2, opponents="alphazero")
    with pytest.raises(ConfigError, match="lists 1 opponents; 4 players need 3"):
        make(2, num_players=4, opponents=["heuristic"])


def test_a_policy_shared_by_seats_is_one_group_and_is_called_for_many_games_at_once():
    policy = HashPolicy()
    envs = make(32, num_players=4, opponents=[policy, "heuristic", policy])
    assert len(envs.lineups.groups) == 1 and (envs.lineups.group[:, [0, 2]] == 0).all() and (envs.lineups.group[:, 1] == -1).all()
    assert isinstance(policy, BatchedPolicy)
    envs.reset(seed=0)
    rng = np.random.default_rng(0)
    sizes = []
    for _ in range(40):
        policy.calls.clear()
        envs.step(np.array([rng.choice(np.flatnonzero(m)) for m in envs.action_masks()]))
        assert len(policy.calls) <= 12  # one call per round of moves, whatever the number of games
        sizes += policy.calls
    assert max(sizes) > 16 and sum(sizes) > 4 * len(sizes)  # each call answers many games


class SharedInputsHash(HashPolicy):
    """:class:`HashPolicy` that reads its inputs through the shared path of ``ask_groups``
    (``inputs_key``: every instance reads the same inputs), logging each computation of them."""

    inputs_key = "hash inputs"
    computed: list[int] = []

    def inputs(self, observations: np.ndarray, action_masks: np.ndarray, state) -> np.ndarray:
        SharedInputsHash.computed.append(len(observations))
        return observations

    def choose(self, inputs: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        return self(inputs, action_masks)


def test_policies_that_read_the_same_inputs_share_one_computation_and_play_the_same_moves():
    """Two snapshots of one network (two policy objects, one ``inputs_key``): their inputs are
    computed once per round of moves for the games of both, and every game goes as it goes when each
    is asked on its own."""
    SharedInputsHash.computed.clear()
    shared, plain = [SharedInputsHash(), SharedInputsHash()], [HashPolicy(), HashPolicy()]
    envs = [make(24, num_players=4, opponents=[p[0], "heuristic", p[1]]) for p in (shared, plain)]
    results = [e.reset(seed=3)[0] for e in envs]
    assert results[0].tobytes() == results[1].tobytes()
    rng = np.random.default_rng(0)
    for _ in range(60):
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in envs[0].action_masks()])
        (a, ra, *_), (b, rb, *_) = (e.step(actions) for e in envs)
        assert a.tobytes() == b.tobytes() and ra.tobytes() == rb.tobytes()
    asked = sum(len(p.calls) for p in shared)
    assert 0 < len(SharedInputsHash.computed) < asked, "one computation for both policies' games"
    assert sum(SharedInputsHash.computed) == sum(sum(p.calls) for p in shared)


def test_set_opponents_swaps_in_new_opponents_for_the_next_moves():
    envs = make(8, num_players=4, opponents="random", keep_records=True, max_heats=2)
    envs.reset(seed=2)
    policy = HashPolicy()
    envs.set_opponents([policy, "heuristic", "heuristic_bold"])
    envs.reset(seed=2)
    rng = np.random.default_rng(2)
    controllers = set()
    for _ in range(80):
        info = envs.step(np.array([rng.choice(np.flatnonzero(m)) for m in envs.action_masks()]))[4]
        if "record" in info:
            for record in info["record"][info["_record"]]:
                controllers.add(tuple(seat["controller"] for seat in record["seats"]))
    assert controllers == {("learner", "hash", "heuristic", "heuristic_bold")} and policy.calls
    envs.set_opponents("random", games=np.array([True, False] * 4))
    assert (envs.lineups.names[::2] == "random").all() and (envs.lineups.names[1::2, 0] == "hash").all()
    envs.set_opponents("heuristic", games=[1, 3, 5, 7])
    assert not envs.lineups.groups, "a policy no game seats any more is let go"
    with pytest.raises(ConfigError, match="lists 2 opponents"):
        envs.set_opponents(["random", "random"])


def test_a_torch_model_plays_as_a_batched_policy():
    import torch

    from club_envs.agents.batched import from_model

    torch.manual_seed(0)
    model = torch.nn.Linear(510, 101)
    policy = from_model(model, name="snapshot")
    envs = make(16, num_players=3, opponents=policy, keep_records=True, max_heats=2)
    envs.reset(seed=1)
    rng = np.random.default_rng(1)
    names, threads = set(), torch.get_num_threads()
    torch.set_num_threads(1)  # small batches: threads only wait for each other
    try:
        for _ in range(120):
            info = envs.step(np.array([rng.choice(np.flatnonzero(m)) for m in envs.action_masks()]))[4]
            if "record" in info:
                for record in info["record"][info["_record"]]:
                    names.update(seat["controller"] for seat in record["seats"])
                    assert replay(record) == record["result"]
    finally:
        torch.set_num_threads(threads)
    assert names == {"learner", "snapshot"}


def test_a_policy_answer_that_is_illegal_or_misshapen_names_the_game_and_the_legal_actions():
    def bet_always(observations, action_masks):
        return np.zeros(len(observations), np.int64)  # action 0: a bet, illegal in reveal phases

    envs = make(4, num_players=3, opponents=bet_always)
    envs.reset(seed=0)
    with pytest.raises(IllegalActionError, match=r"game \d: opponent 'policy' at seat \d chose illegal action 0; legal actions: "):
        for _ in range(50):
            envs.step(np.array([np.flatnonzero(m)[-1] for m in envs.action_masks()]))
    envs = make(4, num_players=3, opponents=lambda obs, masks: np.zeros(len(obs) + 1, np.int64))
    with pytest.raises(IllegalActionError, match="must answer 4 whole numbers, one per game; got shape"):
        envs.reset(seed=0)  # seat 0 opens: no opponent moves yet
        envs.step(np.array([np.flatnonzero(m)[-1] for m in envs.action_masks()]))
    envs = make(2, num_players=3, opponents=lambda obs, masks: masks.argmax(axis=1).astype(float))
    with pytest.raises(IllegalActionError, match="whole numbers.*float64"):
        envs.reset(seed=0)
        envs.step(np.array([np.flatnonzero(m)[-1] for m in envs.action_masks()]))


def test_bad_learner_actions_are_refused_and_leave_every_game_as_it_was():
    envs = make(3, num_players=4, opponents="heuristic", keep_records=True)
    twin = make(3, num_players=4, opponents="heuristic", keep_records=True)
    envs.reset(seed=5)
    twin.reset(seed=5)
    masks = envs.action_masks()
    good = np.array([np.flatnonzero(m)[0] for m in masks])
    bad = good.copy()
    bad[1] = np.flatnonzero(~masks[1])[0]
    before = [a.copy() for a in envs.games.tables]
    legal = ", ".join(map(str, np.flatnonzero(masks[1])))
    with pytest.raises(IllegalActionError, match=rf"game 1: action {bad[1]} is not legal .*legal actions: {legal}$"):
        envs.step(bad)
    with pytest.raises(IllegalActionError, match=r"3 whole numbers, one per game; got shape \(3,\), dtype float64"):
        envs.step(good.astype(float))
    with pytest.raises(IllegalActionError, match=r"got shape \(2,\)"):
        envs.step(good[:2])
    assert all((a == b).all() for a, b in zip(envs.games.tables, before))
    rng = np.random.default_rng(3)
    for _ in range(200):  # afterwards the games go on exactly as their twins that saw no error
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in envs.action_masks()])
        a, b = envs.step(actions), twin.step(actions)
        assert all(np.array_equal(x, y) for x, y in zip(a[:4], b[:4]))
        if "record" in a[4]:
            assert list(a[4]["record"]) == list(b[4]["record"])


def test_the_same_seed_gives_the_same_games_and_records():
    def play(seed):
        envs = make(6, num_players=5, opponents=["heuristic", "random", "heuristic_bold", "random"],
                    seat="random", keep_records=True)
        out, rng = [envs.reset(seed=seed)[0]], np.random.default_rng(0)
        for _ in range(300):
            obs, rewards, _, _, info = envs.step([rng.choice(np.flatnonzero(m)) for m in envs.action_masks()])
            out += [obs, rewards, info["seat"]] + [r for r in info.get("record", []) if r is not None]
        return out

    first, again, other = play(3), play(3), play(4)
    assert len(first) == len(again) and all(
        (a == b) if isinstance(a, dict) else np.array_equal(a, b) for a, b in zip(first, again))
    assert not np.array_equal(first[0], other[0])


def test_masked_logits_picks_legal_actions():
    policy = MaskedLogits(lambda obs: np.tile(np.arange(101.0), (len(obs), 1)))
    masks = np.zeros((3, 101), bool)
    masks[0, [3, 7]] = masks[1, 0] = masks[2, [1, 100]] = True
    assert policy(np.zeros((3, 510), np.float32), masks).tolist() == [7, 0, 100]
    sampled = MaskedLogits(lambda obs: np.zeros((len(obs), 101)), greedy=False, seed=0)
    picks = sampled(np.zeros((300, 510), np.float32), np.repeat(masks[:1], 300, axis=0))
    assert set(picks.tolist()) == {3, 7}


def test_any_built_in_bot_plays_by_its_reference_code_one_per_game_and_seat():
    """Bots the compiled code does not play (sampled, style and held-out bots) are their reference
    selves on each seat's view: legal moves, records that replay, controllers named, the same games
    for the same seed -- and one bot per game and seat, asked together where their kind allows."""
    spec = ["heuristic_sampled", "members_only_style_mix", "holdout_margin"]

    def play(seed):
        envs = make(6, num_players=4, seat="random", opponents=spec, keep_records=True, max_heats=3)
        envs.reset(seed=seed)
        rng = np.random.default_rng(seed)
        kept = []
        while len(kept) < 8:
            info = envs.step(np.array([rng.choice(np.flatnonzero(m)) for m in envs.action_masks()]))[4]
            if "record" in info:
                kept += list(info["record"][info["_record"]])
        return envs, kept

    envs, kept = play(3)
    assert len({id(agent) for agent in envs.lineups.agents.values()}) == 6 * 3
    for record in kept:
        records.validate(record)
        assert replay(record) == record["result"]
        seats = record["seats"]
        learner = next(s for s, seat in enumerate(seats) if seat["controller"] == "learner")
        assert [seats[(learner + 1 + i) % 4]["controller"] for i in range(3)] == spec
    again = play(3)[1]
    assert [r["events"] for r in again] == [r["events"] for r in kept]
