"""``gymnasium.make_vec(..., vectorization_mode="vector_entry_point")`` gives the batched Arkham
Decoders Club environment, and each of its games is the one-game Gymnasium environment's game:
given the same setup, reshuffles, learner seat and opponent moves, the same observations, masks,
rewards and ends."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest

import club_envs  # noqa: F401  (registers the environment ids)
from club_envs.arkham_decoders import gym_env
from club_envs.arkham_decoders.engine import State
from club_envs.arkham_decoders.gym_env import ArkhamDecodersGymEnv
from club_envs.arkham_decoders.rules import ROLES
from club_envs.arkham_decoders.vector_env import ArkhamDecodersVectorEnv
from club_envs.errors import ConfigError, IllegalActionError
from club_envs.vector_rng import draw, seed_states


def make(num_envs: int, **kwargs) -> ArkhamDecodersVectorEnv:
    return gymnasium.make_vec(
        "club_envs/ArkhamDecoders-v0", num_envs=num_envs, vectorization_mode="vector_entry_point", **kwargs
    )


def random_moves(envs, rng, steps):
    for _ in range(steps):
        masks = envs.action_masks()
        yield masks, envs.step([rng.choice(np.flatnonzero(m)) for m in masks])


@pytest.mark.parametrize("num_players", [4, 5, 6])
def test_make_vec_returns_the_batched_environment_with_masks_that_always_hold_a_legal_action(num_players):
    envs = make(16, num_players=num_players, opponents="random")
    assert isinstance(envs, ArkhamDecodersVectorEnv)
    assert envs.metadata["autoreset_mode"] == gymnasium.vector.AutoresetMode.SAME_STEP
    obs, _ = envs.reset(seed=3)
    assert obs.shape == (16, envs.single_observation_space.shape[0]) and obs.dtype == np.float32
    finished = 0
    for masks, (obs, rewards, terminated, truncated, info) in random_moves(envs, np.random.default_rng(0), 300):
        assert masks.shape == (16, 30) and masks.dtype == bool and masks.any(axis=1).all()
        assert (rewards[~terminated] == 0).all() and set(np.abs(rewards[terminated]).tolist()) <= {1.0}
        assert not truncated.any()
        if terminated.any():
            assert (info["_final_obs"] == terminated).all() and all(o.shape == obs[0].shape for o in info["final_obs"][terminated])
            final = info["final_info"]
            assert (final["_scores"] == terminated).all() and (final["_total"] == terminated).all()
            winners = final["winners"][terminated]  # the team's seats, or the Black Man alone
            assert ((winners.sum(axis=1) == 1) == (final["total"][terminated] < 1)).all()
            finished += terminated.sum()
    assert finished > 16 and envs.observation_space.contains(obs)


@pytest.mark.parametrize("role", ROLES)
def test_the_learner_sits_in_the_seat_of_its_role(role):
    envs = make(32, num_players=6, role=role)
    _, info = envs.reset(seed=1)
    roles = envs.games.roles()
    assert (info["role"] == role).all()
    assert (roles[np.arange(32), info["seat"]] == ROLES.index(role)).all()
    assert (envs.games.current_player == info["seat"]).all()
    if role == "member":  # one of three members, at random
        member_index = [list(np.flatnonzero(roles[g] == ROLES.index(role))).index(info["seat"][g]) for g in range(32)]
        assert set(member_index) == {0, 1, 2}


def test_any_role_seats_the_learner_anywhere():
    envs = make(64, num_players=5, role="any")
    _, info = envs.reset(seed=2)
    assert set(info["seat"].tolist()) == set(range(5)) and set(info["role"].tolist()) == set(ROLES)


def test_a_sequence_of_roles_is_taken_in_turn_by_the_games_in_every_deal():
    team = ("leader", "member", "investigator")
    envs = make(7, num_players=5, role=team, opponents="heuristic")
    wanted = np.array([team[g % 3] for g in range(7)], dtype=object)
    _, info = envs.reset(seed=3)
    rng, dealt = np.random.default_rng(0), 0
    for _ in range(200):  # the games dealt anew keep their role
        assert (info["role"] == wanted).all()
        assert (envs.games.roles()[np.arange(7), info["seat"]] == [ROLES.index(r) for r in wanted]).all()
        _, _, terminated, _, info = envs.step([rng.choice(np.flatnonzero(m)) for m in envs.action_masks()])
        dealt += int(terminated.sum())
    assert dealt > 7
    # a dict line-up names every role when the learner's varies: in some games each is someone else's
    with pytest.raises(ConfigError, match="no opponent for role.*leader"):
        make(3, role=team, opponents={"member": "random", "investigator": "random", "black_man": "heuristic"})
    make(3, role=("member",), opponents={"leader": "random", "investigator": "random", "black_man": "heuristic"})
    with pytest.raises(ConfigError, match="role"):
        make(3, role=("leader", "advisor"))
    with pytest.raises(ConfigError, match="role"):
        make(3, role=())


def test_a_seed_gives_the_same_games():
    a, b = make(8, num_players=5), make(8, num_players=5)
    obs_a, _ = a.reset(seed=9)
    obs_b, _ = b.reset(seed=9)
    assert obs_a.tobytes() == obs_b.tobytes()
    rng = np.random.default_rng(1)
    for _ in range(40):
        actions = [rng.choice(np.flatnonzero(m)) for m in a.action_masks()]
        assert a.step(actions)[0].tobytes() == b.step(actions)[0].tobytes()
    assert a.reset(seed=10)[0].tobytes() != obs_a.tobytes()


def test_the_sync_mode_still_gives_one_game_environments():
    envs = gymnasium.make_vec("club_envs/ArkhamDecoders-v0", num_envs=2, vectorization_mode="sync", opponents="random")
    assert isinstance(envs, gymnasium.vector.SyncVectorEnv)


def test_bad_options_are_named():
    with pytest.raises(ConfigError, match="opponent 'someone' is not available .*compiled: random, heuristic.*sync"):
        make(2, opponents="someone")
    with pytest.raises(ConfigError, match="role"):
        make(2, role="advisor")
    with pytest.raises(ConfigError, match="roles"):
        make(2, num_players=4, roles=("leader", "leader", "advisor", "advisor"))


def test_an_illegal_action_names_the_game_and_its_legal_actions_and_moves_no_game():
    envs = make(3, num_players=4, role="leader")
    envs.reset(seed=0)
    before = envs.games.tables.copy()
    actions = np.array([np.flatnonzero(m)[0] for m in envs.action_masks()])
    actions[2] = 24  # the leader may never pass
    with pytest.raises(IllegalActionError, match=r"game 2: action 24 is not legal for the learner \(seat \d\) .* legal actions: "):
        envs.step(actions)
    assert all((envs.games.tables[name] == before[name]).all() for name in before.dtype.names)
    with pytest.raises(IllegalActionError, match="one per game"):
        envs.step(actions[:2])
    with pytest.raises(IllegalActionError, match="one per game"):
        envs.step(actions.astype(np.float32))


def play_first_episodes(envs, count, seed, rng):
    """Steps the vector environment until every game's first episode ended; returns per game its
    setup, reshuffles, learner seat, first observation and per step (mask, action, obs, reward,
    terminated, truncated)."""
    finished: dict[int, list] = {}
    opened = envs._open

    def keep_reshuffles(which):  # the finished games' reshuffles, before they are dealt again
        for g in np.flatnonzero(which):
            finished.setdefault(int(g), envs.games.reshuffle_decks(int(g)))
        opened(which)

    obs, info = envs.reset(seed=seed)
    games = [{"setup": envs.games.setup(g), "seat": int(info["seat"][g]), "first": obs[g].copy(), "steps": []} for g in range(count)]
    envs._open = keep_reshuffles
    while len(finished) < count:
        masks = envs.action_masks()
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        playing = [g for g in range(count) if g not in finished]
        obs, rewards, terminated, truncated, info = envs.step(actions)
        for g in playing:
            seen = info["final_obs"][g] if terminated[g] else obs[g]
            games[g]["steps"].append((masks[g], actions[g], seen.copy(), rewards[g], terminated[g], truncated[g]))
    for g in range(count):
        games[g]["reshuffles"] = finished[g]
    return games


@pytest.mark.parametrize(
    "options",
    [
        {"num_players": 4, "role": "leader"},
        {"num_players": 5, "role": "black_man", "reward_mode": "san"},
        {"num_players": 5, "role": "member", "insanity_penalty": 0},
        {"num_players": 6, "role": "investigator", "roles": ("advisor", "member", "leader", "member", "advisor", "member")},
    ],
    ids=["4p-leader", "5p-black-man-san", "5p-member", "6p-investigator-fixed-roles"],
)
def test_each_game_is_the_one_game_environments_game(options, monkeypatch):
    """The one-game environments get the vector environment's setups, reshuffles and learner
    seats, and opponents that draw from the same per-game generators (the vector environment seeds
    them from ``reset``'s seed)."""
    count, seed = 6, 11
    games = play_first_episodes(make(count, **options), count, seed, np.random.default_rng(5))
    states = seed_states(np.random.SeedSequence(seed).spawn(2)[1], count)
    for g, game in enumerate(games):
        def opponent(obs, g=g):
            legal = np.flatnonzero(obs["action_mask"])
            return legal[draw(states, g, len(legal))]

        monkeypatch.setattr(
            gym_env, "State", lambda config, seed=None, game=game: State(config, setup=game["setup"], reshuffle_decks=game["reshuffles"])
        )
        monkeypatch.setattr(ArkhamDecodersGymEnv, "_choose_seat", lambda self, state, game=game: game["seat"])
        env = ArkhamDecodersGymEnv(opponents=opponent, **options)
        first, _ = env.reset(seed=g)
        assert first.tobytes() == game["first"].tobytes(), f"game {g}"
        for step, (mask, action, obs, reward, terminated, truncated) in enumerate(game["steps"]):
            assert (mask == env.action_masks()).all(), f"game {g}, step {step}"
            expected, expected_reward, term, trunc, _ = env.step(action)
            assert (reward, terminated, truncated) == (expected_reward, term, trunc), f"game {g}, step {step}"
            assert obs.tobytes() == expected.tobytes(), f"game {g}, step {step}"
        assert term
