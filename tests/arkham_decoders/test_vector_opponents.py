"""The Arkham Decoders Club vector environment's opponents -- ``heuristic``, ``random`` and batched
policies (also those that read the game state), for every seat, seat by seat or role by role, and
game by game -- play each game exactly as the one-game environment's opponents do;
``keep_records=True`` gives each finished game's record with its line-up; policies are asked once
per round of moves; bad answers and bad line-ups are refused by name."""

from __future__ import annotations

import zlib

import gymnasium
import numpy as np
import pytest

import club_envs  # noqa: F401  (registers the environment ids)
from club_envs import records
from club_envs.arkham_decoders import gym_env
from club_envs.arkham_decoders.engine import State
from club_envs.arkham_decoders.features import heuristic_inputs
from club_envs.arkham_decoders.gym_env import ArkhamDecodersGymEnv
from club_envs.arkham_decoders.replay import replay
from club_envs.arkham_decoders.rules import ROLES
from club_envs.arkham_decoders.vector_features import heuristic_inputs_rows
from club_envs.errors import ConfigError, IllegalActionError
from club_envs.vector_rng import draw, seed_states


def make(num_envs: int, **kwargs):
    return gymnasium.make_vec(
        "club_envs/ArkhamDecoders-v0", num_envs=num_envs, vectorization_mode="vector_entry_point", **kwargs
    )


def hashed_choice(rows: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """A legal action per row, picked by a hash of the row's bytes: any difference in a row's
    numbers changes the choice, so a game in which they differed would go another way."""
    legal = [np.flatnonzero(m) for m in masks]
    return np.array([a[zlib.crc32(row.tobytes()) % len(a)] for row, a in zip(rows, legal)], np.int64)


class HashPolicy:
    """A batched policy of the observation alone that logs the size of every call."""

    name = "hash"

    def __init__(self) -> None:
        self.calls: list[int] = []

    def __call__(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        self.calls.append(len(observations))
        return hashed_choice(observations, action_masks)

    def single(self, decision) -> int:
        """The same policy for one decision of the one-game environment."""
        return int(hashed_choice(decision.observation[None], decision.action_mask[None].astype(bool))[0])


class FeaturePolicy:
    """A batched policy that reads the game state: its inputs are the observation and the
    ``arkham_heuristic`` inputs of the seat to move. Logs the games of every call."""

    name = "features"
    reads_state = True

    def __init__(self) -> None:
        self.games: list[list[int]] = []

    def __call__(self, observations: np.ndarray, action_masks: np.ndarray, state) -> np.ndarray:
        self.games.append(state.rows.tolist())
        return hashed_choice(heuristic_inputs_rows(observations, action_masks, state), action_masks)

    def single(self, decision) -> int:
        mask = decision.action_mask.astype(bool)
        inputs = heuristic_inputs(decision.observation, decision.view, mask)
        return int(hashed_choice(inputs[None], mask[None])[0])


class Seated:
    """An agent of the one-game environment with a controller name and a move function."""

    def __init__(self, name: str, move) -> None:
        self.name, self.move = name, move

    def reset(self, seat: int, seed: int | None = None) -> None:
        pass

    def act(self, decision) -> int:
        return self.move(decision)


def single_opponents(spec, states: np.ndarray, g: int):
    """The one-game environment's opponents for the vector environment's ``spec`` in game ``g``:
    the reference heuristic bot, random moves drawn from the same per-game generator, the same
    policies."""
    def opponent(item):
        if isinstance(item, (HashPolicy, FeaturePolicy)):
            return Seated(item.name, item.single)
        if item == "random":
            return Seated("random", lambda d: d.legal_actions[draw(states, g, len(d.legal_actions))])
        return item

    if isinstance(spec, dict):
        return {role: opponent(item) for role, item in spec.items()}
    return [opponent(item) for item in spec] if isinstance(spec, list) else opponent(spec)


def first_episodes(envs, count: int, seed: int, rng: np.random.Generator) -> list[dict]:
    """Steps the vector environment with random learner moves until every game's first episode
    ended; per game its setup, reshuffles, learner seat, first observation, record and per step
    (mask, action, observation, reward, terminated)."""
    reshuffles: dict[int, list] = {}
    opened = envs._open

    def keep_reshuffles(which):  # a finished game's reshuffles, before it is dealt again
        for g in np.flatnonzero(which):
            reshuffles.setdefault(int(g), envs.games.reshuffle_decks(int(g)))
        opened(which)

    obs, info = envs.reset(seed=seed)
    games = [{"setup": envs.games.setup(g), "seat": int(info["seat"][g]), "first": obs[g].copy(), "steps": []}
             for g in range(count)]
    envs._open = keep_reshuffles
    while len(reshuffles) < count:
        masks = envs.action_masks()
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        playing = [g for g in range(count) if g not in reshuffles]
        obs, rewards, terminated, truncated, info = envs.step(actions)
        assert not truncated.any()
        for g in playing:
            seen = info["final_obs"][g] if terminated[g] else obs[g]
            games[g]["steps"].append((masks[g], actions[g], seen.copy(), rewards[g], terminated[g]))
            if terminated[g]:
                games[g]["record"] = info["record"][g]
    for g in range(count):
        games[g]["reshuffles"] = reshuffles[g]
    return games


BY_ROLE = {"leader": "heuristic", "member": "hash", "investigator": "random", "black_man": "heuristic"}
WITH_FEATURES = {"leader": "features", "investigator": "heuristic", "black_man": "hash", "member": "heuristic"}
CASES = {  # (options, opponents, the opponents of every other game, or None)
    "4p-leader-heuristic": ({"num_players": 4, "role": "leader"}, "heuristic", None),
    "5p-any-by-role": ({"num_players": 5, "role": "any", "reward_mode": "san"}, BY_ROLE, None),
    "6p-black-man-by-seat": ({"num_players": 6, "role": "black_man"},
                             ["features", "heuristic", "hash", "random", "heuristic"], None),
    "5p-member-per-game": ({"num_players": 5, "role": "member", "insanity_penalty": 0}, "heuristic", WITH_FEATURES),
    # a bot played by its reference code on the seat's view (deterministic, so the games must agree)
    "5p-investigator-reference-bots": ({"num_players": 5, "role": "investigator"},
                                       {"leader": "holdout_greedy", "member": "heuristic", "black_man": "holdout_greedy"},
                                       ["holdout_greedy", "random", "heuristic", "holdout_greedy"]),
}


@pytest.mark.parametrize("case", list(CASES))
def test_each_game_and_its_record_are_the_one_game_environments(case, monkeypatch):
    """Vector games with these opponents (in the last case every other game seats a second
    line-up, ``set_opponents(..., games=...)``), replayed in the one-game environment with the
    reference opponents on the same deals, give identical observations, masks, rewards, ends and
    records."""
    options, spec, odd_spec = CASES[case]
    count, seed = 8, 4
    hash_policy, feature_policy = HashPolicy(), FeaturePolicy()

    def policies(s):
        named = {"hash": hash_policy, "features": feature_policy}
        if isinstance(s, dict):
            return {role: named.get(item, item) for role, item in s.items()}
        return [named.get(item, item) for item in s] if isinstance(s, list) else named.get(s, s)

    specs = [policies(spec), policies(odd_spec if odd_spec is not None else spec)]
    envs = make(count, opponents=specs[0], keep_records=True, **options)
    envs.set_opponents(specs[1], games=np.arange(1, count, 2))
    games = first_episodes(envs, count, seed, np.random.default_rng(5))
    states = seed_states(np.random.SeedSequence(seed).spawn(2)[1], count)
    for g, game in enumerate(games):
        monkeypatch.setattr(gym_env, "State", lambda config, seed=None, game=game: State(
            config, setup=game["setup"], reshuffle_decks=game["reshuffles"]))
        monkeypatch.setattr(ArkhamDecodersGymEnv, "_choose_seat", lambda self, state, game=game: game["seat"])
        env = ArkhamDecodersGymEnv(opponents=single_opponents(specs[g % 2], states, g), **options)
        first, _ = env.reset(seed=g)
        assert first.tobytes() == game["first"].tobytes(), f"game {g}"
        for step, (mask, action, obs, reward, terminated) in enumerate(game["steps"]):
            assert (mask == env.action_masks()).all(), f"game {g}, step {step}"
            expected, expected_reward, term, _, _ = env.step(action)
            assert (reward, terminated) == (expected_reward, term), f"game {g}, step {step}"
            assert obs.tobytes() == expected.tobytes(), f"game {g}, step {step}"
        assert term
        record, reference = game["record"], env.record()
        assert record["events"] == reference["events"] and record["result"] == reference["result"], f"game {g}"
        assert record["seats"] == reference["seats"], f"game {g}: the record names its line-up"
        records.validate(record)
        assert replay(record) == reference["result"]
    for name, calls in (("hash", hash_policy.calls), ("features", feature_policy.games)):
        assert bool(calls) == (name in repr((spec, odd_spec))), f"{name} was asked only if seated"


def test_a_policy_is_asked_once_per_round_for_every_game_and_seat_it_plays():
    """One policy object in two seats is one group: each round of moves asks it once, for all the
    games and seats where it is to move; another policy is asked on its own."""
    shared, alone = HashPolicy(), HashPolicy()
    envs = make(32, num_players=6, role="leader", opponents=[shared, "heuristic", shared, alone, "random"])
    assert len(envs.lineups.groups) == 2
    rounds = []
    advance = envs._advance
    envs._advance = lambda which: (rounds.append(1), advance(which))
    envs.reset(seed=0)
    rng = np.random.default_rng(0)
    sizes = []
    for _ in range(40):
        shared.calls.clear()
        alone.calls.clear()
        rounds.clear()
        envs.step(np.array([rng.choice(np.flatnonzero(m)) for m in envs.action_masks()]))
        assert len(shared.calls) <= len(rounds) and len(alone.calls) <= len(rounds)
        sizes += shared.calls
    assert max(sizes) > 8 and sum(sizes) > 3 * len(sizes)  # a call answers many games at once


def test_set_opponents_for_some_games_changes_those_games_alone_and_their_records():
    """After ``set_opponents(policy, games=[1, 6])`` those two games' opponents are the policy,
    which is asked about them alone; every other game goes on exactly as in a twin environment
    that kept its opponents; records name each game's line-up. A policy no game seats any more is
    let go."""
    envs, twin = (make(8, num_players=5, role="investigator", opponents="heuristic", keep_records=True)
                  for _ in range(2))
    policy = FeaturePolicy()
    envs.reset(seed=3)
    twin.reset(seed=3)
    rng = np.random.default_rng(3)
    for step in range(300):
        if step == 5:
            envs.set_opponents(policy, games=[1, 6])
            assert (envs.lineups.names[[1, 6], :4] == "features").all()
            assert (envs.lineups.names[[0, 2, 3, 4, 5, 7], :4] == "heuristic").all()
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in envs.action_masks()])
        obs, rewards, terminated, _, info = envs.step(actions)
        if step < 5:
            twin.step(actions)
            continue
        for g in np.flatnonzero(terminated):
            names = {seat["controller"] for seat in info["record"][g]["seats"]} - {"learner"}
            assert names == ({"features"} if g in (1, 6) else {"heuristic"}), f"game {g}"
        others = [0, 2, 3, 4, 5, 7]
        twin_obs, twin_rewards = twin.step(np.where(np.isin(np.arange(8), others), actions,
                                                    [np.flatnonzero(m)[0] for m in twin.action_masks()]))[:2]
        assert twin_obs[others].tobytes() == obs[others].tobytes() and (twin_rewards[others] == rewards[others]).all()
    assert policy.games and set(sum(policy.games, [])) == {1, 6}
    envs.set_opponents("random", games=np.array([False, True, False, False, False, False, True, False]))
    assert not envs.lineups.groups and (envs.lineups.names[[1, 6], :4] == "random").all()


def test_a_policy_answer_that_is_illegal_or_misshapen_names_the_game_the_seat_and_the_legal_actions():
    def always_pass(observations, action_masks):
        return np.full(len(observations), 24, np.int64)  # the leader may never pass

    envs = make(4, num_players=5, role="black_man", opponents=always_pass)
    with pytest.raises(IllegalActionError, match=r"game \d: opponent 'policy' at seat \d chose illegal action 24; "
                                                 r"legal actions: \d+"):
        envs.reset(seed=0)  # the leader opens every game
    envs = make(4, num_players=5, role="black_man", opponents=lambda obs, masks: np.zeros(len(obs) + 1, np.int64))
    with pytest.raises(IllegalActionError, match="must answer 4 whole numbers, one per game; got shape"):
        envs.reset(seed=0)
    envs = make(2, num_players=5, role="black_man", opponents=lambda obs, masks: masks.argmax(axis=1).astype(float))
    with pytest.raises(IllegalActionError, match="whole numbers.*float64"):
        envs.reset(seed=0)


def test_line_ups_the_vector_environment_cannot_play_are_refused_by_name():
    with pytest.raises(ConfigError, match="opponent 'ismcts' is not available.*arkham_style_mix.*holdout_counter.*"
                                          "compiled: random, heuristic.*sync"):
        make(2, opponents="ismcts")
    with pytest.raises(ConfigError, match="lists 2 opponents; 5 players need 4"):
        make(2, num_players=5, opponents=["heuristic", "random"])
    with pytest.raises(ConfigError, match="unknown role 'advisor'"):
        make(2, opponents={"advisor": "heuristic"})
    with pytest.raises(ConfigError, match="no opponent for role\\(s\\) investigator, black_man"):
        make(2, role="leader", opponents={"member": "random"})
    envs = make(4, role="leader", opponents={"member": "random", "investigator": "heuristic", "black_man": "heuristic"})
    assert (envs.lineups.names[:, ROLES.index("leader")] == "").all()  # the learner's own role needs no one
    with pytest.raises(ConfigError, match="games holds 4; games are 0..3"):
        envs.set_opponents("random", games=[0, 4])
    with pytest.raises(ConfigError, match=r"mask of shape \(3,\); expected \(4,\)"):
        envs.set_opponents("random", games=np.array([True, False, True]))


def test_any_built_in_bot_plays_by_its_reference_code_one_per_game_and_seat():
    """Bots the compiled code does not play (style and held-out bots, drawing at random) are their
    reference selves on each seat's view: legal moves, records that replay, controllers named, the
    same games for the same seed -- and a new bot per game and seat, as at a one-game table."""
    spec = {"leader": "arkham_style_mix", "member": "holdout_impostor", "investigator": "arkham_style_noisy",
            "black_man": "holdout_counter"}

    def play(seed):
        envs = make(6, num_players=6, role="any", opponents=spec, keep_records=True)
        envs.reset(seed=seed)
        rng, kept, built = np.random.default_rng(seed), [], set()
        while len(kept) < 12:
            info = envs.step(np.array([rng.choice(np.flatnonzero(m)) for m in envs.action_masks()]))[4]
            built |= {id(agent) for agent in envs._agents.values()}
            assert all(0 <= g < 6 and 0 <= seat < 6 for g, seat in envs._agents)
            if "record" in info:
                kept += list(info["record"][info["_record"]])
        return kept, built

    kept, built = play(3)
    assert len(built) > 6 * 5  # more bots than seats: each new game seats new ones
    for record in kept:
        records.validate(record)
        assert replay(record) == record["result"]
        for seat in record["seats"]:
            if seat["controller"] != "learner":
                assert seat["controller"] == spec[seat["role"]]
    assert [r["events"] for r in play(3)[0]] == [r["events"] for r in kept]
    assert [r["events"] for r in play(4)[0]] != [r["events"] for r in kept]


def test_the_heuristic_opponents_decide_in_compiled_code_and_hand_back_only_near_ties():
    envs = make(64, num_players=5, opponents="heuristic")
    envs.reset(seed=1)
    rng = np.random.default_rng(1)
    for _ in range(100):
        envs.step(np.array([rng.choice(np.flatnonzero(m)) for m in envs.action_masks()]))
    tally = envs.heuristic_tally
    assert tally["decided"] > 5_000 and tally["handed_back"] < 0.02 * tally["decided"]


def test_the_same_seed_gives_the_same_games_and_records():
    def play(seed):
        envs = make(6, num_players=6, role="any", keep_records=True,
                    opponents={"leader": "heuristic", "member": "random", "investigator": HashPolicy(),
                               "black_man": "heuristic"})
        out, rng = [envs.reset(seed=seed)[0]], np.random.default_rng(0)
        for _ in range(150):
            obs, rewards, _, _, info = envs.step([rng.choice(np.flatnonzero(m)) for m in envs.action_masks()])
            out += [obs, rewards, info["seat"]] + [r for r in info.get("record", []) if r is not None]
        return out

    first, again, other = play(3), play(3), play(4)
    assert len(first) == len(again) and all(
        (a == b) if isinstance(a, dict) else np.array_equal(a, b) for a, b in zip(first, again))
    assert any(isinstance(item, dict) for item in first)
    assert not np.array_equal(first[0], other[0])
