"""Monte-Carlo Q learning with action features (``recipe: table_dmc``): what the action features
say, targets that are the rewards a seat received after each decision, ε-greedy play, a fit that
brings Q to the returns, an exported policy that plays Q's argmax, runs that repeat and resume, and
the config's checks."""

from __future__ import annotations

import functools
import json

import numpy as np
import pytest
import torch
import yaml

from club_envs.agents.policy import load_policy_file
from club_envs.members_only import actions as A
from club_envs.members_only.action_features import KINDS, action_features
from club_envs.training import config as configs
from club_envs.training.launch import run
from club_envs.training.progress import Reporter
from club_envs.training.table_dmc import TableDmc
from tests.training.test_table_ppo import BASE as PPO_BASE
from tests.training.test_table_ppo import settings as table_settings
from tests.training.test_train import assert_same_runs

# test_table_ppo's tables, league, evaluation and budget, with the Q learner's section
BASE = {**{k: v for k, v in PPO_BASE.items() if k != "ppo"}, "recipe": "table_dmc",
        "dmc": {"games": 16, "steps": 24, "minibatch": 256, "learning_rate": 1e-3}}
settings = functools.partial(table_settings, BASE)


def test_action_features_say_what_each_action_is():
    phi = action_features()
    assert phi.shape[0] == A.NUM_ACTIONS and len({row.tobytes() for row in phi}) == A.NUM_ACTIONS
    kind = phi[:, :len(KINDS)].argmax(1)
    assert (kind[:A.NUM_BETS] == 0).all() and kind[A.NO_BET] == 1
    assert (kind[A.REVEAL_BASE:A.DISCARD_BASE] == 2).all() and (kind[A.DISCARD_BASE:] == 3).all()
    category = slice(len(KINDS), len(KINDS) + 5)
    single, double = A.encode_bet(3, 5, 0), A.encode_bet(3, 5, 1)
    shared = np.flatnonzero((phi[single] == phi[double]) & (phi[single] > 0))
    assert len(shared) >= 4, "a single and a double chip on one space share kind, category, space and threshold"
    hat_no = A.encode_reveal(9)  # the hat's NO! card
    assert (phi[hat_no, category] == phi[A.encode_bet(4, 0, 0), category]).all(), "the revealed card's category"
    assert phi[hat_no].sum() > phi[A.encode_reveal(4)].sum(), "a NO! card is marked as one"
    assert phi[A.NO_BET].sum() == 2.0, "no bet: its kind and its own one-hot, nothing else"


class Logged(TableDmc):
    """Logs every learner decision (game, seat) and every step's rewards and ends, so the targets can
    be recomputed independently: forwards, adding each reward to the decisions still open."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.log: list = []
        for table in self.tables:
            step = table.game.step

            def logged(actions, step=step):
                out = step(actions)
                self.log.append(("step", out.rewards.copy(), (out.terminated | out.truncated).copy()))
                return out
            table.game.step = logged

    def _learner_moves(self, table, mine, seats, step, sink):
        self.log.extend(("decide", int(g), int(s)) for g, s in zip(mine, seats))
        return super()._learner_moves(table, mine, seats, step, sink)


def test_each_target_is_what_its_seat_received_from_the_decision_to_the_games_end(tmp_path):
    cfg = settings(game={"num_players": [4], "options": {"reward_mode": "win", "heat_shaping": 0.05}},
                   league={"share": 0.0}, dmc={"games": 6, "steps": 700})
    trainer = Logged(cfg, tmp_path, {}, Reporter.quiet())
    finished, _ = trainer.rollout()
    open_: dict = {}
    expected: list[float] = []
    for event in trainer.log:
        if event[0] == "decide":
            open_.setdefault(event[1:], []).append(0.0)
            continue
        _, rewards, ended = event
        for (g, s), totals in open_.items():
            totals[:] = [t + rewards[g, s] for t in totals]
        for g in np.flatnonzero(ended):
            for s in range(4):
                expected.extend(open_.pop((int(g), s), []))
    assert finished.size > 100 and finished.size == len(expected)
    assert np.allclose(finished.returns, expected, atol=1e-5)
    assert len(set(np.round(finished.returns, 4))) > 4, "shaping makes the targets differ along a game"
    assert sum(len(v) for v in open_.values()) == sum(len(d) for t in trainer.tables for g in t.open for d in g), \
        "decisions of games still running stay open"


class Watched(TableDmc):
    """Keeps every learner decision's Q, legal actions and choice."""

    def _learner_moves(self, table, mine, seats, step, sink):
        chosen = super()._learner_moves(table, mine, seats, step, sink)
        x, _ = self.inputs(table, mine, seats, step.observation[mine], step.action_mask[mine])
        with torch.no_grad():
            q = self.acting["q"](torch.from_numpy(x)).numpy()
        self.seen = getattr(self, "seen", []) + [(q, step.action_mask[mine], chosen)]
        return chosen


def test_play_is_greedy_on_q_but_for_the_epsilon_share(tmp_path):
    share = {}
    for epsilon in (0.0, 0.3):
        trainer = Watched(settings(league={"share": 0.0}, dmc={"epsilon": epsilon}), tmp_path / str(epsilon), {},
                          Reporter.quiet())
        trainer.rollout()
        q, masks, chosen = (np.concatenate(part) for part in zip(*trainer.seen))
        assert masks[np.arange(len(chosen)), chosen].all(), "every move legal"
        greedy = np.where(masks, q, -np.inf).argmax(1)
        choices = masks.sum(1) > 1
        share[epsilon] = (chosen[choices] != greedy[choices]).mean()
    assert share[0.0] == 0.0, "with epsilon 0 each move is the legal action of highest Q"
    assert 0.15 < share[0.3] < 0.3, "a uniform draw among the legal actions on about 30% of the decisions"


def test_the_update_brings_q_towards_the_returns(tmp_path):
    cfg = settings(league={"share": 0.0}, game={"num_players": [4]}, dmc={"games": 16, "steps": 400, "epochs": 4})
    trainer = TableDmc(cfg, tmp_path, {}, Reporter.quiet())
    finished, _ = trainer.rollout()
    first = trainer.update(finished, {})
    for _ in range(5):
        last = trainer.update(finished, {})
    assert last["q_loss"] < 0.7 * first["q_loss"], (first, last)
    assert last["explained_variance"] > first["explained_variance"]
    assert trainer.update(type(finished)(), {})["decisions"] == 0.0, "a rollout in which no game ended trains nothing"


def test_the_exported_policy_is_q_over_the_temperature(tmp_path):
    trainer = TableDmc(settings(dmc={"temperature": 0.05}), tmp_path, {}, Reporter.quiet())
    path = trainer._export(tmp_path / "policy.pt")
    net, meta = load_policy_file(path)
    assert meta["backend"] == "table_dmc" and meta["features"] == "members_only_beliefs"
    x = np.random.default_rng(0).normal(size=(7, trainer.input_size)).astype(np.float32)
    with torch.no_grad():
        q = trainer.q(torch.from_numpy(x)).numpy()
    assert np.allclose(net.logits(x) * 0.05, q, atol=1e-4)


def test_a_run_repeats_resumes_and_overlaps(tmp_path):
    raw = json.loads(json.dumps(BASE))
    raw["dmc"]["overlap"] = True
    path = tmp_path / "dmc.yaml"
    path.write_text(yaml.safe_dump(raw))
    a = run(path, runs_dir=tmp_path / "a", progress=False)
    b = run(path, runs_dir=tmp_path / "b", progress=False)
    assert_same_runs(a, b)
    done = json.loads((a / "state.json").read_text())["steps"]["player"]
    assert done >= 1500
    raw["budget"]["total_steps"] = done + 600
    (a / "config.yaml").write_text(yaml.safe_dump(raw))
    run(resume=a, progress=False)
    assert json.loads((a / "state.json").read_text())["steps"]["player"] >= done + 600
    pool = json.loads((a / "pool" / "player" / "pool.json").read_text())
    assert len([m for m in pool["members"] if m["kind"] == "snapshot"]) >= 2
    (a / "checkpoint.pt").write_bytes(b"not a checkpoint")
    with pytest.raises(ValueError, match=r"checkpoint.pt: not a table DMC checkpoint.*move it away"):
        run(resume=a, progress=False)


@pytest.mark.parametrize("changes,message", [
    ({"dmc": {"epsilon": 1.5}}, r"dmc.epsilon: 1.5 is not allowed; allowed values"),
    ({"dmc": {"games": 1}}, r"dmc.games: 1 cannot cover 2 table sizes"),
    ({"dmc": {"clip": 0.1}}, r"dmc"),
    ({"ppo": {"games": 16}}, r"ppo"),
    ({"anchor": {"bot": "heuristic"}}, r"anchor"),
    ({"league": {"bots": [], "bot_share": 0.5}}, r"league.bot_share: 0.5 needs league.bots"),
])
def test_bad_settings_are_refused_in_one_line(changes, message):
    with pytest.raises(configs.ConfigFileError, match=message):
        settings(**changes)
