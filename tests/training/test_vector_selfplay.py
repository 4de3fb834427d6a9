"""Self-play on the batched engine: each game's opponents drawn from the pools with its own
generator, results handed to the pool, the learner's inputs those of the one-game path, runs that
repeat; and the choice of engine."""

from __future__ import annotations

import json

import numpy as np
import pytest

from club_envs.agents.batched import MaskedLogits
from club_envs.agents.features import get as get_features
from club_envs.members_only.vector_views import view_of
from club_envs.sb3 import SB3VecEnv
from club_envs.training import config as configs
from club_envs.training import engines, games
from club_envs.training.config import ConfigFileError
from club_envs.training.selfplay import PoolReader
from club_envs.training.vector_selfplay import PooledVectorEnv, split
from club_envs.vector_evaluation import available, policy_win_share
from tests.training.test_selfplay_vec import config_with_pool
from tests.training.test_train import assert_same_runs


def pooled(tmp_path, cfg, num_envs=9, seed=3, keep_records=False, features="none") -> PooledVectorEnv:
    pools = {s: str(tmp_path / "pool" / s) for s in games.side_names(cfg.game.name)}
    return PooledVectorEnv(cfg.game, "player", pools, num_envs, seed, features, keep_records)


def random_actions(env, rng) -> np.ndarray:
    masks = env.action_masks()
    return np.argmax(np.where(masks, rng.random(masks.shape), -1.0), axis=1)


def test_games_are_split_over_the_table_sizes_and_each_draws_its_own_opponents(tmp_path):
    cfg = config_with_pool(tmp_path, "members_only", bots=("heuristic", "random"))
    env = pooled(tmp_path, cfg, num_envs=9, seed=3)
    assert [p.num_players for p in env.parts] == [3, 4, 5] and [p.num_envs for p in env.parts] == [3, 3, 3]
    assert split(10, 3) == [4, 3, 3]
    env.reset()
    # the same draws, made again with each game's generator (spawned from the seed as the env spawns them)
    draws = np.random.SeedSequence(3).spawn(2)[1].spawn(2)[0].spawn(9)
    readers = {"player": PoolReader(tmp_path / "pool" / "player", np.random.default_rng(0))}
    seen = set()
    for g in range(9):
        k, j = g // 3, g % 3
        readers["player"].rng = np.random.default_rng(draws[g])
        _, ids = games.opponents_for("members_only", "player")(env.parts[k].num_players, readers, readers["player"].rng)
        names = [i.removeprefix("bot:") for i in ids]
        assert env._drawn[g] == ids
        assert list(env.parts[k].lineups.names[j]) == names, f"game {g}"
        seen.update(names)
    assert {"heuristic", "random"} <= seen and any(n.startswith("snap-") for n in seen)


def test_finished_games_give_the_pool_their_opponents_and_the_learners_share(tmp_path):
    cfg = config_with_pool(tmp_path, "members_only", bots=("heuristic", "random"))
    env = pooled(tmp_path, cfg, num_envs=6, seed=5, keep_records=True)
    env.reset()
    rng = np.random.default_rng(0)
    finished = 0
    at_start = list(map(list, env._drawn))
    while finished < 12:
        obs, rewards, terminated, truncated, info = env.step(random_actions(env, rng))
        done = terminated | truncated
        for g in np.flatnonzero(done):
            result, record = info["final_info"]["selfplay"][g], info["final_info"]["record"][g]
            assert result["opponents"] == at_start[g]
            seats = record["seats"]
            learner = next(s for s, seat in enumerate(seats) if seat["controller"] == "learner")
            others = [seats[(learner + 1 + i) % len(seats)]["controller"] for i in range(len(seats) - 1)]
            assert others == [i.removeprefix("bot:") for i in at_start[g]], "the record names the drawn opponents"
            scores = record["result"]["scores"]
            top = [s for s in range(len(scores)) if scores[s] == max(scores)]
            assert result["win"] == (1.0 / len(top) if learner in top else 0.0)
            assert rewards[g] == (0.0 if len(top) == len(scores) else (1 / len(top) if learner in top else
                                                                        -1 / (len(scores) - len(top))))
            finished += 1
        at_start = [list(d) for d in env._drawn]


def test_the_learners_inputs_are_the_features_of_its_own_view(tmp_path):
    cfg = config_with_pool(tmp_path, "members_only", bots=("heuristic",))
    features = get_features("members_only_heuristic")
    env = pooled(tmp_path, cfg, num_envs=6, features="members_only_heuristic")
    rows = env.reset()[0]
    rng = np.random.default_rng(1)
    for _ in range(30):
        part = env.parts[1]
        lo = env.offsets[1]
        raw = part.observer.observe_games(part.games, np.arange(part.num_envs), part.seats.astype(np.int64))
        views = [view_of(part.games, j, int(part.seats[j])) for j in range(part.num_envs)]
        expected = features.transform_batch(raw, views, part.action_masks())
        assert np.array_equal(rows[lo:lo + part.num_envs], expected.astype(np.float32))
        rows = env.step(random_actions(env, rng))[0]


def test_the_same_seed_gives_the_same_games(tmp_path):
    cfg = config_with_pool(tmp_path, "members_only", bots=("heuristic", "random"))

    def play(seed):
        env = SB3VecEnv(pooled(tmp_path, cfg, num_envs=6, seed=1, features="members_only_beliefs"))
        env.seed(seed)
        out = [env.reset()]
        rng = np.random.default_rng(0)
        for _ in range(120):
            obs, rewards, dones, infos = env.step(random_actions(env, rng))
            out += [obs, rewards, dones, [i.get("selfplay", {}).get("win") for i in infos]]
        return out

    a, b, c = play(7), play(7), play(8)
    assert all(np.array_equal(x, y) for x, y in zip(a, b))
    assert not all(np.array_equal(x, y) for x, y in zip(a, c))


def test_the_engine_is_the_batched_one_where_it_plays_the_whole_config():
    base = {"game": {"name": "members_only", "num_players": [4]}, "selfplay": {"bots": ["heuristic", "random"]}}
    settings = configs.from_mapping(base)
    assert engines.resolve(settings, {}) == ("vector", "the batched engine plays everything this config asks for")
    apart = configs.from_mapping({**base, "envs": {"subprocess": True}})
    engine, why = engines.resolve(apart, {})
    assert engine == "reference" and "envs.subprocess" in why
    with pytest.raises(ConfigFileError, match=r"envs.engine: vector cannot play envs.subprocess.*"
                                              r"allowed values for this config: auto, reference"):
        engines.resolve(configs.from_mapping({**base, "envs": {"subprocess": True, "engine": "vector"}}), {})
    privileged = configs.from_mapping({**base, "algorithm": {"critic": "privileged"}})
    assert engines.resolve(privileged, {})[0] == "vector"
    everything = configs.from_mapping({**base, "selfplay": {"bots": ["heuristic_sampled", "members_only_style_mix"]},
                                       "network": {"features": "members_only_heuristic"}})
    assert engines.resolve(everything, {})[0] == "vector"
    assert engines.resolve(configs.from_mapping({**base, "envs": {"engine": "reference"}}), {})[0] == "reference"
    assert engines.resolve(settings, {"engine": "reference"})[0] == "reference", "a run keeps its engine"
    assert engines.resolve(settings, {"steps": {"player": 10}})[0] == "reference", "an older run folder"
    with pytest.raises(ConfigFileError, match=r"envs.engine: 'turbo' is not allowed; allowed values: auto, vector, reference"):
        configs.from_mapping({**base, "envs": {"engine": "turbo"}})


def test_a_batched_series_balances_the_seats_and_repeats():
    learner = MaskedLogits(lambda obs: np.zeros((len(obs), 101)), greedy=False, seed=0)
    assert available("members_only", "heuristic") and available("members_only", "heuristic_sampled")
    assert not available("members_only", "ismcts")
    share, (lo, hi) = policy_win_share("members_only", 4, learner, "random", 400, seed=2)
    assert 0.18 < share < 0.32 and lo < share < hi  # a random player among random players: 1/4
    strong, _ = policy_win_share("members_only", 4, learner, "heuristic", 200, seed=2)
    assert strong < 0.05
    again = policy_win_share("members_only", 4, MaskedLogits(lambda obs: np.zeros((len(obs), 101)), greedy=False,
                                                             seed=0), "random", 400, seed=2)
    assert again == (share, (lo, hi))


def test_training_on_the_batched_engine_repeats_and_resumes(tmp_path):
    from club_envs.training.launch import run

    config = {"game": {"name": "members_only", "num_players": [3, 4], "options": {"heat_shaping": 0.02}},
              "algorithm": {"n_steps": 32, "batch_size": 256}, "network": {"hidden": [32],
                                                                            "features": "members_only_beliefs"},
              "envs": {"n_envs": 8, "engine": "vector"},
              "selfplay": {"snapshot_every": 512, "pool_size": 3, "bots": ["heuristic", "random"]},
              "evaluation": {"every": 1024, "games": 20, "opponents": ["heuristic", "random"]},
              "checkpoint": {"every": 512}, "budget": {"total_steps": 1024}, "seed": 4}
    import yaml

    path = tmp_path / "vec.yaml"
    path.write_text(yaml.safe_dump(config))
    a = run(path, runs_dir=tmp_path / "a", progress=False)
    b = run(path, runs_dir=tmp_path / "b", progress=False)
    assert_same_runs(a, b)
    import json

    state = json.loads((a / "state.json").read_text())
    assert state["engine"] == "vector" and state["steps"]["player"] == 1024
    config["budget"]["total_steps"] = 2048
    (a / "config.yaml").write_text(yaml.safe_dump(config))
    run(resume=a, progress=False)
    state = json.loads((a / "state.json").read_text())
    assert state["steps"]["player"] == 2048 and state["engine"] == "vector"
    assert len((a / "evaluations.csv").read_text().splitlines()) == 1 + 2 * 4  # two evaluations x 2 bots x 2 sizes


def test_a_privileged_critics_rows_end_with_the_hidden_state(tmp_path):
    from club_envs.members_only.vector_privileged import SIZE, privileged_rows

    cfg = config_with_pool(tmp_path, "members_only", bots=("heuristic", "random"))
    plain = pooled(tmp_path, cfg, num_envs=6, seed=2, features="members_only_beliefs")
    hidden = PooledVectorEnv(cfg.game, "player", {"player": str(tmp_path / "pool" / "player")}, 6, 2,
                             "members_only_beliefs", privileged=True)
    assert hidden.privileged_size == SIZE and hidden.single_observation_space.shape == (510 + 45 + SIZE,)
    a, b = plain.reset()[0], hidden.reset()[0]
    rng_a, rng_b = np.random.default_rng(0), np.random.default_rng(0)
    for _ in range(60):
        assert np.array_equal(a, b[:, :-SIZE])
        part, lo = hidden.parts[0], hidden.offsets[0]
        rows = np.arange(part.num_envs)
        assert np.array_equal(b[lo:lo + part.num_envs, -SIZE:], privileged_rows(part.games, rows, part.seats))
        a, b = plain.step(random_actions(plain, rng_a))[0], hidden.step(random_actions(hidden, rng_b))[0]


def test_an_imitation_warm_start_with_a_privileged_critic_on_the_batched_engine(tmp_path):
    """The actor imitates the bot (its rows padded where the hidden state goes), the critic then
    learns on the batched games' real hidden state, and PPO goes on from there."""
    import yaml

    from club_envs.training.launch import run

    config = {"game": {"name": "members_only", "num_players": [4]},
              "algorithm": {"n_steps": 32, "batch_size": 256, "critic": "privileged"},
              "network": {"hidden": [32], "features": "members_only_heuristic"},
              "envs": {"n_envs": 8, "engine": "vector"},
              "selfplay": {"snapshot_every": 512, "bots": ["heuristic", "heuristic_sampled"], "bot_share": 0.6},
              "pretrain": {"games": 20, "imitate": "heuristic", "epochs": 8, "critic_steps": 256},
              "evaluation": {"every": 1024, "games": 20, "opponents": ["heuristic"]},
              "checkpoint": {"every": 512}, "budget": {"total_steps": 768}, "seed": 2}
    path = tmp_path / "imitate.yaml"
    path.write_text(yaml.safe_dump(config))
    folder = run(path, runs_dir=tmp_path, progress=False)
    rows = (folder / "logs" / "player" / "progress.csv").read_text().splitlines()
    header = rows[0].split(",")
    agreement = [float(r.split(",")[header.index("pretrain/agreement")]) for r in rows[1:]
                 if r.split(",")[header.index("pretrain/agreement")]]
    assert agreement and agreement[0] > 0.5, "the actor learned the bot's moves"
    assert (folder / "latest" / "policy.pt").is_file()


def test_both_arkham_sides_train_on_the_batched_engine_with_a_privileged_critic(tmp_path):
    """Three table sizes, the team's games taking its three roles in turn, each side learning in its phase
    against the other side's pool, the critic reading the hidden state from the arrays."""
    import yaml

    from club_envs.training.launch import run

    config = {"game": {"name": "arkham_decoders", "num_players": [4, 5, 6]},
              "algorithm": {"n_steps": 32, "batch_size": 144, "n_epochs": 1, "critic": "privileged"},
              "network": {"hidden": [32], "features": "arkham_heuristic"},
              "envs": {"n_envs": 9, "engine": "vector"},
              "selfplay": {"snapshot_every": 288, "pool_size": 3, "phase_steps": 288, "bots": ["heuristic"]},
              "evaluation": {"every": 576, "games": 6, "opponents": ["heuristic"]},
              "checkpoint": {"every": 576}, "budget": {"total_steps": 576}, "seed": 3}
    path = tmp_path / "arkham.yaml"
    path.write_text(yaml.safe_dump(config))
    folder = run(path, runs_dir=tmp_path, progress=False)
    state = json.loads((folder / "state.json").read_text())
    assert state["engine"] == "vector" and state["steps"] == {"team": 288, "black_man": 288}
    assert (folder / "latest" / "team.pt").is_file() and (folder / "latest" / "black_man.pt").is_file()
    sides = {line.split(",")[1] for line in (folder / "evaluations.csv").read_text().splitlines()[1:]}
    assert sides == {"team", "black_man"}


def test_snapshots_of_the_two_sides_with_the_same_name_stay_apart(tmp_path):
    """Both Arkham pools hold snapshots named by their step (``snap-000000001.pt``), and the two sides
    snapshot at the same steps; the team's games must seat the team's snapshot in the fellow seats
    and the Black Man's snapshot in the Black Man's seat, never one network for both."""
    cfg = config_with_pool(tmp_path, "arkham_decoders", features="none", bots=())
    env = PooledVectorEnv(cfg.game, "team", {s: tmp_path / "pool" / s for s in ("team", "black_man")}, 9, seed=0)
    team = PoolReader(tmp_path / "pool" / "team", np.random.default_rng(0))
    black_man = PoolReader(tmp_path / "pool" / "black_man", np.random.default_rng(0))
    drawn = {}
    for side, reader in (("team", team), ("black_man", black_man)):
        while len({oid for oid in drawn if oid[0] == side}) < 2:
            oid, agent = reader.sample()
            drawn[side, oid] = agent
    assert {oid for _, oid in drawn} == {"snap-000000000.pt", "snap-000000001.pt"}  # the same names on both sides
    seated = {key: env._opponent(agent) for key, agent in drawn.items()}
    for (side, oid), batched in seated.items():
        assert batched.agent is drawn[side, oid], f"{side} {oid} is played by another side's network"
    assert len({id(b) for b in seated.values()}) == 4
    env.close()
