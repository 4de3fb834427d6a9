"""The batched multi-agent Arkham Decoders Club (:mod:`club_envs.arkham_decoders.vector_game`) plays the
PettingZoo environment's game: every game it plays, replayed move by move on the reference engine
through :class:`~club_envs.arkham_decoders.env.raw_env` from the same setup and reshuffles, gives the
same player to move, observation (byte for byte), legal actions, rewards to every seat, end, final
views, results and record (``keep_records=True``).

Each batch is played twice from the same seed and the same random moves: the first time to learn
every game's setup and reshuffled decks (the inputs of ``State(config, setup=..., reshuffle_decks=...)``),
the second time in step with the PettingZoo environments -- which also checks that a seed gives the
same games. Short by default; ``CLUB_ENVS_LONG=1`` plays 2,000+ games. The replay runs once more
with ``NUMBA_DISABLE_JIT=1``, in a subprocess because numba reads the setting when it is imported.
"""

from __future__ import annotations

import numpy as np
import pytest
from gymnasium.vector import AutoresetMode

import club_envs
from club_envs.arkham_decoders import env as aec_module
from club_envs.arkham_decoders.engine import State
from club_envs.arkham_decoders.replay import replay
from club_envs.arkham_decoders.vector_game import ArkhamDecodersVectorGame
from club_envs.errors import IllegalActionError
from club_envs.vector_game import VectorGameStep, make_vector_game, vector_game_names
from tests.differential import LONG, NO_JIT, check_end, check_move, check_position, passes_without_jit, random_moves

GAMES = 520 if LONG else (2 if NO_JIT else 12)  # per case
BATCH = 40

CASES = {
    "4p-win": {"num_players": 4},
    "5p-san": {"num_players": 5, "reward_mode": "san"},
    "6p-win": {"num_players": 6},
    # fixed public roles and the first game's penalty of 0
    "5p-fixed-roles-san": {"num_players": 5, "roles": ("member", "advisor", "leader", "advisor", "member"),
                           "insanity_penalty": 0, "reward_mode": "san"},
}


def play_out(game: ArkhamDecodersVectorGame, seed: int, on_step=None) -> None:
    """Random legal moves (from ``seed``) in every game until all are over (no autoreset);
    ``on_step(before, actions, after)`` around every step."""
    rng = np.random.default_rng(seed)
    step = game.reset(seed=seed)
    while (step.current_player >= 0).any():
        actions = random_moves(step, rng)
        after = game.step(actions)
        if on_step is not None:
            on_step(step, actions, after)
        step = after


def reference_envs(game: ArkhamDecodersVectorGame, options: dict, monkeypatch) -> list:
    """One PettingZoo environment per game, its reference engine set up as the batched game was
    (``game`` holds the finished games)."""
    envs = []
    aec_options = {k: v for k, v in options.items() if k != "num_players"}
    for g in range(game.num_games):
        setup, decks = game.games.setup(g), game.games.reshuffle_decks(g)
        monkeypatch.setattr(aec_module, "State", lambda config, seed=None, s=setup, d=decks: State(
            config, setup=s, reshuffle_decks=d))
        env = aec_module.raw_env(num_players=options["num_players"], illegal_action="raise", **aec_options)
        env.reset(seed=g)
        envs.append(env)
    return envs


def check_arkham_end(step: VectorGameStep, env, g: int, decisions: int, where: str) -> None:
    """The shared end checks, and the SAN total, the finished game's mask and its record."""
    check_end(step, env, g, decisions, where)
    assert step.info["final_info"]["total"][g] == env.game.result["total"], where
    assert step.current_player[g] == -1 and step.action_mask[g].all(), where
    assert step.info["_record"][g] and step.info["record"][g] == env.record(), where  # the same events


def play_case(options: dict, count: int, seed: int, monkeypatch) -> int:
    """Plays ``count`` games on both sides; returns the decisions checked."""
    first = ArkhamDecodersVectorGame(count, autoreset=False, **options)
    play_out(first, seed)
    envs = reference_envs(first, options, monkeypatch)
    game = ArkhamDecodersVectorGame(count, autoreset=False, keep_records=True, **options)
    counted = {"moves": 0, "decisions": 0}
    made = np.zeros(count, np.int64)
    playing = np.ones(count, bool)

    def on_step(before: VectorGameStep, actions: np.ndarray, step: VectorGameStep) -> None:
        moves = counted["moves"]
        for g in np.flatnonzero(playing):
            env, where = envs[g], f"{options}, game {g}, move {moves}"
            check_position(before, env, g, where)
            env.step(int(actions[g]))
            counted["decisions"] += 1
            made[g] += 1
            check_move(step, env, g, where)
            if env.game.is_over:
                check_arkham_end(step, env, g, int(made[g]), where)
                playing[g] = False
            else:
                check_position(step, env, g, where)
        assert (step.rewards[~playing & ~step.terminated] == 0).all()
        counted["moves"] += 1

    play_out(game, seed, on_step)
    assert not playing.any()
    return counted["decisions"]


@pytest.mark.long
@pytest.mark.parametrize("case", list(CASES))
def test_every_game_replays_identically_on_the_pettingzoo_environment(case, monkeypatch):
    played = 0
    while played < GAMES:
        count = min(BATCH, GAMES - played)
        assert play_case(CASES[case], count, 1_000 * list(CASES).index(case) + played, monkeypatch) > 0
        played += count


def test_the_same_replay_passes_with_the_jit_disabled():
    passes_without_jit(__file__, "test_every_game_replays_identically_on_the_pettingzoo_environment")


def test_same_step_autoreset_is_a_restart_from_each_games_own_generator():
    """With autoreset, the step that ends a game returns the next game's first position: the same
    game a disabled-autoreset copy gets by restarting just that game with ``reset_mask``."""
    auto = club_envs.make_vector_game("arkham_decoders", num_games=5, num_players=4, seed=4)
    manual = club_envs.make_vector_game("arkham_decoders", num_games=5, num_players=4, autoreset=False)
    assert auto.metadata["autoreset_mode"] == AutoresetMode.SAME_STEP
    assert manual.metadata["autoreset_mode"] == AutoresetMode.DISABLED
    a, m = auto.reset(seed=9), manual.reset(seed=9)
    rng = np.random.default_rng(1)
    restarts = 0
    for _ in range(400):
        assert (a.current_player >= 0).all() and a.action_mask.any(axis=1).all()
        actions = random_moves(a, rng)
        a, m = auto.step(actions), manual.step(actions)
        for field in ("rewards", "terminated", "truncated"):
            assert (getattr(a, field) == getattr(m, field)).all(), field
        ended = a.terminated
        if ended.any():
            restarts += ended.sum()
            assert (a.info["_final_obs"] == ended).all()
            for g in np.flatnonzero(ended):
                assert (a.info["final_obs"][g] == m.info["final_obs"][g]).all()
                assert a.info["final_obs"][g].shape == (4, auto.observation_size)
                assert (a.rewards[g] != 0).all()
            for key in ("scores", "winners", "total", "decisions"):
                assert (a.info["final_info"][key] == m.info["final_info"][key]).all(), key
            assert (m.current_player[ended] == -1).all() and m.action_mask[ended].all()
            m = manual.reset(options={"reset_mask": ended})
        assert (a.observation == m.observation).all() and (a.current_player == m.current_player).all()
        assert (a.action_mask == m.action_mask).all()
    assert restarts >= 5


def test_a_finished_game_without_autoreset_waits_and_scores_nothing():
    game = ArkhamDecodersVectorGame(3, num_players=4, autoreset=False, seed=0)
    play_out(game, 0)
    step = game.step(np.arange(3))  # any actions: every game is over
    assert not (step.terminated | step.truncated).any() and (step.rewards == 0).all() and not step.info
    assert (step.current_player == -1).all() and step.action_mask.all()


def test_the_rewards_are_the_sides_and_a_seed_gives_the_same_games():
    """Every finished game pays its team seats one reward and the Black Man its negative."""
    runs = []
    for _ in range(2):
        game = club_envs.make_vector_game("arkham", num_games=4, num_players=6, reward_mode="san", seed=1)
        step, rng, totals, ended = game.reset(seed=3), np.random.default_rng(2), np.zeros((4, 6)), 0
        for _ in range(600):
            step = game.step(random_moves(step, rng))
            totals += step.rewards
            final = step.info.get("final_info", {})
            for g in np.flatnonzero(step.terminated):
                ended += 1
                team = np.float32(np.clip((final["total"][g] - 0.5) / 10, -1, 1))
                r = step.rewards[g]
                assert sorted(r.tolist()) == sorted([team] * 5 + [-team]), (r, team)
                assert ((r > 0) == final["winners"][g]).all()  # the winning side is paid, the other pays
        runs.append((totals, step.observation))
    assert (runs[0][0] == runs[1][0]).all() and (runs[0][1] == runs[1][1]).all()
    assert ended >= 4 and (runs[0][0] != 0).any()


def test_observe_gives_any_seats_view_and_hides_the_others_hands():
    game = ArkhamDecodersVectorGame(5, num_players=5, seed=0)
    step = game.reset(seed=0)
    assert (game.observe(step.current_player) == step.observation).all()
    views = game.observe(np.arange(5))
    assert views.shape == (5, 409) and len({v.tobytes() for v in views}) == 5
    for seat in range(5):
        assert (game.observe(seat) == game.observer.observe(game.games, np.full(5, seat))).all()
    with pytest.raises(ValueError, match="seats 0..4"):
        game.observe(5)


def test_an_illegal_action_names_the_game_and_its_legal_actions_and_moves_no_game():
    game = ArkhamDecodersVectorGame(3, num_players=4, seed=0)
    step = game.reset(seed=0)
    before = game.games.tables.copy()
    legal = [int(np.flatnonzero(m)[0]) for m in step.action_mask]
    with pytest.raises(IllegalActionError, match=r"game 2: action 25 is not legal for seat \d in the proposal phase; "
                                                  r"legal actions: .*"):
        game.step(np.array([legal[0], legal[1], 25]))
    assert all((game.games.tables[name] == before[name]).all() for name in before.dtype.names)
    with pytest.raises(IllegalActionError, match="3 whole numbers, one per game"):
        game.step(np.array(legal, dtype=np.float64))
    with pytest.raises(ValueError, match="reset_mask must be 3 bools"):
        game.reset(options={"reset_mask": [1, 0, 1]})
    with pytest.raises(ValueError, match="unknown reset options decks; expected reset_mask"):
        game.reset(options={"decks": None})


def test_the_registry_names_the_games_with_a_batched_multi_agent_version():
    assert "arkham_decoders" in vector_game_names()
    assert isinstance(club_envs.arkham_decoders_v0.vector_game(2, seed=0), ArkhamDecodersVectorGame)
    assert make_vector_game("arkham", 2, num_players=6).num_players == 6
    with pytest.raises(ValueError, match="reward_mode"):
        make_vector_game("arkham_decoders", 2, reward_mode="points")
    with pytest.raises(ValueError, match="autoreset=1"):
        make_vector_game("arkham_decoders", 2, autoreset=1)
    with pytest.raises(ValueError, match="num_players"):
        make_vector_game("arkham_decoders", 2, num_players=3)
    with pytest.raises(ValueError, match="keep_records=1: expected True or False"):
        make_vector_game("arkham_decoders", 2, keep_records=1)


def test_records_come_only_with_keep_records_and_only_for_the_games_that_ended():
    kept, plain = (ArkhamDecodersVectorGame(6, num_players=4, seed=2, keep_records=keep) for keep in (True, False))
    a, b = kept.reset(seed=2), plain.reset(seed=2)
    rng, ended = np.random.default_rng(0), 0
    for _ in range(200):
        actions = random_moves(a, rng)
        a, b = kept.step(actions), plain.step(actions)
        assert "record" not in b.info and ("record" in a.info) == bool(a.terminated.any())
        if a.terminated.any():
            assert (a.info["_record"] == a.terminated).all()
            for g in range(6):
                record = a.info["record"][g]
                assert (record is None) != bool(a.terminated[g])
                if record is not None:
                    assert replay(record)["total"] == a.info["final_info"]["total"][g]
            ended += a.terminated.sum()
    assert ended >= 6


def test_one_seed_per_game_deals_each_game_from_its_own_seed_alone():
    """``reset(seed=[...])``: a game's deal depends on its own seed, not on the other games'."""
    first, second = (ArkhamDecodersVectorGame(3, num_players=5, autoreset=False) for _ in range(2))
    first.reset(seed=[11, 12, 13])
    second.reset(seed=[40, 11, 12])
    assert first.games.setup(0) == second.games.setup(1) and first.games.setup(1) == second.games.setup(2)
    assert first.games.setup(0) != first.games.setup(1)
    with pytest.raises(ValueError, match="2 seeds for 3 games: expected one seed per game"):
        first.reset(seed=[1, 2])
