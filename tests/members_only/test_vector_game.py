"""The batched multi-agent Members Only (:mod:`club_envs.members_only.vector_game`) plays the PettingZoo
environment's game: every game it plays, replayed move by move on the reference engine through
:class:`~club_envs.members_only.env.raw_env` from the same decks, gives the same player to move,
observation (byte for byte), legal actions, rewards to every seat, end and final views and results.

Short by default; ``CLUB_ENVS_LONG=1`` plays 2,000+ games. The replay runs once more with
``NUMBA_DISABLE_JIT=1``, in a subprocess because numba reads the setting when it is imported.
"""

from __future__ import annotations

import numpy as np
import pytest
from gymnasium.vector import AutoresetMode

import club_envs
from club_envs.errors import IllegalActionError
from club_envs.members_only import env as aec_module
from club_envs.members_only.vector_game import MembersOnlyVectorGame
from club_envs.vector_game import make_vector_game, vector_game_names
from tests.differential import LONG, NO_JIT, check_end, check_move, check_position, passes_without_jit, random_moves
from tests.members_only.helpers import random_decks, reference_game

GAMES = 500 if LONG else (2 if NO_JIT else 12)  # per case

CASES = {
    "3p-win": {"num_players": 3},
    "4p-score-shaped": {"num_players": 4, "reward_mode": "score", "heat_shaping": 0.25},
    "5p-win-shaped": {"num_players": 5, "heat_shaping": 0.05},
    # its own reward table, a random start player and a short safety net (truncations)
    "4p-variant": {"num_players": 4, "rewards": (7, 0, 2, 1, 1, 2, 0, 9), "max_heats": 3,
                   "random_start_player": True},
}


def reference_envs(options: dict, decks: np.ndarray, starts: np.ndarray, monkeypatch) -> list:
    """One PettingZoo environment per game, its reference engine dealt from that game's decks."""
    envs = []
    aec_options = {k: v for k, v in options.items() if k != "num_players"}
    for g in range(len(decks)):
        monkeypatch.setattr(aec_module, "State", lambda config, seed=None, g=g: reference_game(config, decks[g], int(starts[g])))
        env = aec_module.raw_env(num_players=options["num_players"], illegal_action="raise", **aec_options)
        env.reset(seed=g)
        envs.append(env)
    return envs


def play_case(options: dict, count: int, rng: np.random.Generator, monkeypatch) -> int:
    """Plays ``count`` games on both sides (random legal moves); returns the decisions checked."""
    n = options["num_players"]
    game = MembersOnlyVectorGame(count, autoreset=False, **options)
    decks = random_decks(rng, count, game.config.max_heats)
    starts = rng.integers(n, size=count) if game.config.random_start_player else np.zeros(count, np.int64)
    envs = reference_envs(options, decks, starts, monkeypatch)
    step = game.reset(seed=int(rng.integers(2**31)), options={"decks": decks, "start_players": starts})
    playing = np.ones(count, bool)
    decisions = moves = 0
    made = np.zeros(count, np.int64)  # decisions per game
    while playing.any():
        for g in np.flatnonzero(playing):
            check_position(step, envs[g], g, f"{options}, game {g}, move {moves}")
        actions = random_moves(step, rng)
        step = game.step(actions)
        moves += 1
        for g in np.flatnonzero(playing):
            env, where = envs[g], f"{options}, game {g}, move {moves}"
            env.step(int(actions[g]))
            decisions += 1
            made[g] += 1
            check_move(step, env, g, where)
            if env.game.is_over:
                check_end(step, env, g, int(made[g]), where)
                playing[g] = False
        assert (step.rewards[~playing & ~step.terminated & ~step.truncated] == 0).all()
    return decisions


@pytest.mark.long
@pytest.mark.parametrize("case", list(CASES))
def test_every_game_replays_identically_on_the_pettingzoo_environment(case, monkeypatch):
    rng = np.random.default_rng(list(CASES).index(case))
    played = 0
    while played < GAMES:
        count = min(32, GAMES - played)
        assert play_case(CASES[case], count, rng, monkeypatch) > 0
        played += count


def test_the_same_replay_passes_with_the_jit_disabled():
    passes_without_jit(__file__, "test_every_game_replays_identically_on_the_pettingzoo_environment")


def test_same_step_autoreset_is_a_restart_from_each_games_own_generator():
    """With autoreset, the step that ends a game returns the next game's first position: the same
    game a disabled-autoreset copy gets by restarting just that game with ``reset_mask``."""
    auto = club_envs.make_vector_game("members_only", num_games=6, num_players=3, max_heats=2, seed=4)
    manual = club_envs.make_vector_game("members_only", num_games=6, num_players=3, max_heats=2, autoreset=False)
    assert auto.metadata["autoreset_mode"] == AutoresetMode.SAME_STEP
    assert manual.metadata["autoreset_mode"] == AutoresetMode.DISABLED
    a, m = auto.reset(seed=9), manual.reset(seed=9)
    rng = np.random.default_rng(1)
    restarts = 0
    for _ in range(600):
        assert (a.current_player >= 0).all() and a.action_mask.any(axis=1).all()
        actions = random_moves(a, rng)
        a, m = auto.step(actions), manual.step(actions)
        for field in ("rewards", "terminated", "truncated"):
            assert (getattr(a, field) == getattr(m, field)).all(), field
        ended = a.terminated | a.truncated
        if ended.any():
            restarts += ended.sum()
            assert (a.info["_final_obs"] == ended).all()
            for g in np.flatnonzero(ended):
                assert (a.info["final_obs"][g] == m.info["final_obs"][g]).all()
                assert a.info["final_obs"][g].shape == (3, auto.observation_size)
            assert (a.info["final_info"]["scores"] == m.info["final_info"]["scores"]).all()
            # without autoreset the game waits: no player to move, every action allowed and ignored
            assert (m.current_player[ended] == -1).all() and m.action_mask[ended].all()
            m = manual.reset(options={"reset_mask": ended})
        assert (a.observation == m.observation).all() and (a.current_player == m.current_player).all()
        assert (a.action_mask == m.action_mask).all()
    assert restarts >= 6


def test_a_finished_game_without_autoreset_waits_and_scores_nothing():
    game = MembersOnlyVectorGame(4, num_players=3, max_heats=1, autoreset=False, seed=0)
    step = game.reset(seed=0)
    rng = np.random.default_rng(0)
    while not (step.current_player == -1).all():
        before = step.current_player >= 0
        step = game.step(random_moves(step, rng))
        assert ((step.terminated | step.truncated) <= before).all()  # an end is reported once
        assert (step.rewards[~before] == 0).all()
    step = game.step(np.arange(4))  # any actions: every game is over
    assert not (step.terminated | step.truncated).any() and (step.rewards == 0).all() and not step.info


def test_the_rewards_of_every_game_sum_to_zero_and_a_seed_gives_the_same_games():
    runs = []
    for _ in range(2):
        game = club_envs.make_vector_game("members_only", num_games=4, num_players=3, reward_mode="score", seed=1)
        step, rng, totals, ended = game.reset(seed=3), np.random.default_rng(2), np.zeros((4, 3)), 0
        for _ in range(1_000):
            step = game.step(random_moves(step, rng))
            totals += step.rewards
            ended += (step.terminated | step.truncated).sum()
            assert np.allclose(step.rewards.sum(axis=1), 0, atol=1e-4)
        runs.append((totals, step.observation))
    assert (runs[0][0] == runs[1][0]).all() and (runs[0][1] == runs[1][1]).all()
    assert ended >= 4 and (runs[0][0] != 0).all()


def test_observe_gives_any_seats_view():
    game = MembersOnlyVectorGame(5, num_players=5, seed=0)
    step = game.reset(seed=0)
    assert (game.observe(step.current_player) == step.observation).all()
    views = game.observe(np.arange(5))
    assert views.shape == (5, 510) and len({v.tobytes() for v in views}) == 5
    with pytest.raises(ValueError, match="seats 0..4"):
        game.observe(5)


def test_an_illegal_action_names_the_game_and_its_legal_actions_and_moves_no_game():
    game = MembersOnlyVectorGame(3, num_players=3, seed=0)
    game.reset(seed=0)
    before = [a.copy() for a in game.games.tables]
    with pytest.raises(IllegalActionError, match=r"game 2: action 95 .* legal actions: .*80"):
        game.step(np.array([80, 80, 95]))
    assert all((a == b).all() for a, b in zip(game.games.tables, before))
    with pytest.raises(IllegalActionError, match="3 whole numbers, one per game"):
        game.step(np.array([80.0, 80.0, 80.0]))
    with pytest.raises(ValueError, match="reset_mask must be 3 bools"):
        game.reset(options={"reset_mask": [1, 0, 1]})
    with pytest.raises(ValueError, match="unknown reset options deck; expected decks"):
        game.reset(options={"deck": None})


def test_the_registry_names_the_games_with_a_batched_multi_agent_version():
    assert "members_only" in vector_game_names()
    assert isinstance(club_envs.members_only_v0.vector_game(2, seed=0), MembersOnlyVectorGame)
    assert make_vector_game("members-only", 2, num_players=5).num_players == 5
    with pytest.raises(ValueError, match="reward_mode"):
        make_vector_game("members_only", 2, reward_mode="points")
    with pytest.raises(ValueError, match="autoreset=1"):
        make_vector_game("members_only", 2, autoreset=1)
