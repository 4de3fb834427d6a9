"""PPO on the batched multi-agent engine (``recipe: table_ppo``): advantages along each seat's chain
of decisions, rewards credited to the decision they follow, the league's seats, the anchor, runs
that repeat and resume, exported policies that play, and the config's checks."""

from __future__ import annotations

import csv
import json

import numpy as np
import pytest
import torch
import yaml

from club_envs.agents.batched import GameRows
from club_envs.agents.policy import PolicyAgent, load_policy_file
from club_envs.training import config as configs
from club_envs.training.launch import run
from club_envs.training.table_ppo import LEARNER, Actor, Chains, Critic, TablePpo, chain_advantages, masked_logits
from club_envs.training.settings import ExploitSettings
from club_envs.training.progress import Reporter
from tests.training.test_train import assert_same_runs

BASE = {"recipe": "table_ppo", "game": {"name": "members_only", "num_players": [3, 4]},
        "ppo": {"games": 16, "steps": 24, "minibatch": 256},
        "network": {"hidden": [32], "features": "members_only_beliefs"},
        "league": {"share": 0.5, "snapshot_every": 1000, "pool_size": 3, "bots": ["heuristic", "random"],
                   "bot_share": 0.5},
        "evaluation": {"every": 1500, "games": 12, "opponents": ["heuristic", "random"]},
        "checkpoint": {"every": 1000}, "budget": {"total_steps": 1500}, "seed": 5}


def settings(base=BASE, **changes):
    """``base`` with the sections ``changes`` names updated, checked and typed."""
    raw = json.loads(json.dumps(base))
    for section, values in changes.items():
        if isinstance(values, dict):
            raw.setdefault(section, {}).update(values)
        else:
            raw[section] = values
    return configs.from_mapping(raw)


def test_advantages_follow_each_seats_chain():
    # two chains: 0 -> 2 -> 4 (ends with the game), 1 -> 3 (cut by the rollout, bootstrapped)
    rewards = np.array([0.0, 0.1, 0.0, 0.0, 1.0])
    values = np.array([0.5, 0.2, 0.6, 0.3, 0.8])
    nxt = np.array([2, 3, 4, -1, -1])
    done = np.array([False, False, False, False, True])
    bootstrap = np.array([0.0, 0.0, 0.0, 0.4, 0.0])
    gamma, lam = 0.9, 0.8
    out = np.zeros(5)
    chain_advantages(rewards, values, nxt, done, bootstrap, gamma, lam, out)
    a4 = 1.0 - 0.8
    a2 = 0.0 + gamma * 0.8 - 0.6 + gamma * lam * a4
    a0 = 0.0 + gamma * 0.6 - 0.5 + gamma * lam * a2
    a3 = 0.0 + gamma * 0.4 - 0.3
    a1 = 0.1 + gamma * 0.3 - 0.2 + gamma * lam * a3
    assert out == pytest.approx([a0, a1, a2, a3, a4])


def test_rewards_go_to_the_decision_they_follow_and_ends_close_every_chain(tmp_path):
    cfg = settings(league={"share": 0.0}, game={"num_players": [4], "options": {"reward_mode": "win"}},
                   ppo={"games": 12, "steps": 800})
    trainer = TablePpo(cfg, tmp_path, {}, Reporter.quiet())
    buffer, links = trainer.rollout()
    closed = links["done"]
    # every game began in this (first) rollout, so each finished game closes one chain per seat
    assert closed.sum() >= 8 and closed.sum() % 4 == 0, "every seat of every finished game closes its chain"
    ends = links["reward"][closed]
    allowed = {1.0, -1.0 / 3, 0.5, -0.5, 1 / 3, -1.0, 0.25, 0.0}
    assert all(any(abs(r - a) < 1e-6 for a in allowed) for r in ends)  # float32 rewards
    assert np.all(links["reward"][~closed] == 0.0), "without shaping only a game's end pays"
    assert abs(ends.sum()) < 1e-6, "a finished game's rewards sum to zero over its seats (all the learner's here)"
    chained = links["next"] >= 0
    assert not (chained & closed).any(), "a chain goes on only within a game"


def test_league_games_seat_the_learner_once_and_draw_the_rest(tmp_path):
    cfg = settings(league={"share": 1.0}, ppo={"games": 16, "steps": 700})
    trainer = TablePpo(cfg, tmp_path, {}, Reporter.quiet())
    for table in trainer.tables:
        learners = (table.controllers == LEARNER).sum(axis=1)
        assert (learners == 1).all()
        assert all(len(d) == table.num_players - 1 for d in table.drawn)
    trainer.rollout()
    played = {m["id"]: m["games"] for m in trainer.pool.members}
    assert sum(played.values()) > 0 and set(played) == {"bot:heuristic", "bot:random", "snap-000000000.pt"}, \
        "finished league games are recorded against the members drawn"
    everyone = settings(league={"share": 0.0})
    trainer = TablePpo(everyone, tmp_path / "b", {}, Reporter.quiet())
    assert all((t.controllers == LEARNER).all() for t in trainer.tables)


def test_the_anchor_pulls_the_policy_towards_the_heuristics_choices(tmp_path):
    cfg = settings(network={"hidden": [64], "features": "members_only_heuristic"},
                   anchor={"bot": "heuristic", "coef": 5.0, "anneal_steps": 0},
                   ppo={"games": 32, "steps": 32, "minibatch": 512, "learning_rate": 2e-3, "epochs": 4, "entropy": 0.0},
                   league={"share": 0.0})
    trainer = TablePpo(cfg, tmp_path, {}, Reporter.quiet())
    losses = []
    for _ in range(12):
        buffer, links = trainer.rollout()
        losses.append(trainer.update(buffer, links)["anchor_loss"])
        trainer.steps += buffer.size
    assert np.mean(losses[-3:]) < 0.6 * losses[0], losses
    belief = TablePpo(settings(network={"hidden": [16], "features": "members_only_belief_inputs"},
                               anchor={"bot": "belief", "coef": 1.0}), tmp_path / "b", {}, Reporter.quiet())
    buffer, _ = belief.rollout()
    data = buffer.arrays()
    assert (data["anchors"] >= 0).all() and data["masks"][np.arange(buffer.size), data["anchors"]].all(), \
        "the belief agent's choices, legal, at every decision"
    annealed = settings(anchor={"bot": "heuristic", "coef": 2.0, "anneal_steps": 1000})
    trainer = TablePpo(annealed, tmp_path / "a", {}, Reporter.quiet())
    trainer.steps = 250
    assert trainer._anchor_coef() == pytest.approx(1.5)
    trainer.steps = 5000
    assert trainer._anchor_coef() == 0.0


def test_the_learning_rate_is_constant_or_moves_linearly_to_its_final_value_over_the_budget(tmp_path):
    constant = TablePpo(settings(ppo={"learning_rate": 1e-3}), tmp_path / "c", {}, Reporter.quiet())
    constant.steps = 1200
    assert constant._learning_rate() == 1e-3
    falling = TablePpo(settings(ppo={"learning_rate": 1e-3, "learning_rate_final": 2e-4}), tmp_path / "f", {},
                       Reporter.quiet())
    for steps, rate in [(0, 1e-3), (750, 6e-4), (1500, 2e-4), (4000, 2e-4)]:  # the budget is 1,500 decisions
        falling.steps = steps
        assert falling._learning_rate() == pytest.approx(rate)
    # an update steps at that rate and logs it
    falling.steps = 375
    buffer, links = falling.rollout()
    figures = falling.update(buffer, links)
    assert figures["learning_rate"] == pytest.approx(8e-4)
    assert all(group["lr"] == pytest.approx(8e-4) for group in falling.optimizer.param_groups)


def test_a_run_logs_its_falling_learning_rate_and_resumes_on_the_same_line(tmp_path):
    raw = json.loads(json.dumps(BASE))
    raw["ppo"].update({"learning_rate": 1e-3, "learning_rate_final": 0.0})
    path = tmp_path / "lr.yaml"
    path.write_text(yaml.safe_dump(raw))
    folder = run(path, runs_dir=tmp_path / "runs", progress=False)
    rows = list(csv.DictReader((folder / "progress.csv").open()))
    rates = [float(r["learning_rate"]) for r in rows]
    assert len(rates) >= 3 and rates[0] <= 1e-3 and rates == sorted(rates, reverse=True) and rates[-1] < rates[0]
    raw["budget"]["total_steps"] = 3000  # a longer budget read on resume stretches the rest of the line
    (folder / "config.yaml").write_text(yaml.safe_dump(raw))
    run(resume=folder, progress=False)
    resumed = [float(r["learning_rate"]) for r in list(csv.DictReader((folder / "progress.csv").open()))[len(rows):]]
    assert resumed and all(0 < rate <= 1e-3 * (1 - 1500 / 3000) + 1e-12 for rate in resumed)


def test_imitation_copies_the_anchor_before_ppo_and_seeds_the_league_with_the_copy(tmp_path):
    raw = json.loads(json.dumps(BASE))
    raw.update({"network": {"hidden": [64], "features": "members_only_heuristic"},
                "ppo": {"games": 32, "steps": 32, "minibatch": 512, "learning_rate": 2e-3},
                "anchor": {"bot": "heuristic", "coef": 0.0},
                "imitation": {"decisions": 16000, "epochs": 4, "learning_rate": 3e-3},
                "budget": {"total_steps": 700}})
    path = tmp_path / "imitate.yaml"
    path.write_text(yaml.safe_dump(raw))
    folder = run(path, runs_dir=tmp_path / "runs", progress=False)
    rows = list(csv.DictReader((folder / "progress.csv").open()))
    imitation = [r for r in rows if r["steps_per_second"] == ""]
    ppo = [r for r in rows if r["steps_per_second"] != ""]
    assert imitation and ppo and rows.index(ppo[0]) == len(imitation), "imitation first, then PPO"
    assert all(float(r["steps"]) == 0 for r in imitation), "imitated decisions are not PPO steps"
    assert float(imitation[-1]["anchor_loss"]) < 0.5 * float(imitation[0]["anchor_loss"]), "the actor learns the copy"
    state = json.loads((folder / "state.json").read_text())
    assert state["imitated"] >= 16000 and 700 <= state["steps"]["player"] < 16000
    snapshots = [m for m in json.loads((folder / "pool" / "player" / "pool.json").read_text())["members"]
                 if m["kind"] == "snapshot"]
    assert snapshots[0]["id"] == "snap-000000000.pt", "the league's first member is the imitated policy"
    evaluated = list(csv.DictReader((folder / "evaluations.csv").open()))
    assert evaluated[0]["total_step"] == "0", "the copy is evaluated before PPO moves it"
    # the imitated copy plays the heuristic's move on most decisions it is shown
    trainer = TablePpo(configs.load(folder / "config.yaml"), folder, state, Reporter.quiet())
    assert trainer.imitated == state["imitated"] and not trainer.imitating
    buffer, _ = trainer.rollout()
    data = buffer.arrays()
    with torch.no_grad():
        logits = trainer.actor(torch.from_numpy(data["inputs"]))
        greedy = masked_logits(logits, torch.from_numpy(data["masks"])).argmax(1).numpy()
    assert (greedy == data["anchors"]).mean() > 0.8


def test_a_run_repeats_resumes_and_exports_policies_that_play(tmp_path):
    raw = json.loads(json.dumps(BASE))
    raw["ppo"]["critic"] = "privileged"
    path = tmp_path / "tp.yaml"
    path.write_text(yaml.safe_dump(raw))
    a = run(path, runs_dir=tmp_path / "a", progress=False)
    b = run(path, runs_dir=tmp_path / "b", progress=False)
    assert_same_runs(a, b)
    rows = list(csv.DictReader((a / "progress.csv").open()))
    assert rows and all(float(r["decisions"]) > 0 for r in rows)
    state = json.loads((a / "state.json").read_text())
    done = state["steps"]["player"]
    assert done >= 1500
    raw["budget"]["total_steps"] = done + 600
    (a / "config.yaml").write_text(yaml.safe_dump(raw))
    run(resume=a, progress=False)
    assert json.loads((a / "state.json").read_text())["steps"]["player"] >= done + 600
    agent = PolicyAgent.from_file(a / "latest" / "policy.pt")
    assert agent.meta["features"] == "members_only_beliefs" and agent.meta["backend"] == "table_ppo"
    # the file acts by default as the run's evaluation played it; the league's snapshots sample
    assert agent.deterministic is raw.get("evaluation", {}).get("greedy", True) is agent.meta["deterministic"]
    pool = json.loads((a / "pool" / "player" / "pool.json").read_text())
    assert [m["id"] for m in pool["members"] if m["kind"] == "bot"] == ["bot:heuristic", "bot:random"]
    assert len([m for m in pool["members"] if m["kind"] == "snapshot"]) >= 2
    (a / "checkpoint.pt").write_bytes(b"not a checkpoint")
    with pytest.raises(ValueError, match=r"checkpoint.pt: not a table PPO checkpoint.*move it away"):
        run(resume=a, progress=False)


def test_overlap_plays_the_next_rollout_on_the_weights_before_the_update_and_repeats(tmp_path):
    raw = json.loads(json.dumps(BASE))
    raw["ppo"].update({"overlap": True, "critic": "privileged"})
    raw["budget"]["total_steps"] = 2500
    path = tmp_path / "overlap.yaml"
    path.write_text(yaml.safe_dump(raw))
    a = run(path, runs_dir=tmp_path / "a", progress=False)
    b = run(path, runs_dir=tmp_path / "b", progress=False)
    assert_same_runs(a, b)  # two threads, one result: each keeps a generator of its own
    rows = list(csv.DictReader((a / "progress.csv").open()))
    assert len(rows) >= 3 and json.loads((a / "state.json").read_text())["steps"]["player"] >= 2500
    # the copy that plays is the learner before the update: what the rollout stored, it computed
    trainer = TablePpo(configs.load(a / "config.yaml"), tmp_path / "c", {}, Reporter.quiet())
    assert trainer.acting_actor is not trainer.actor
    trainer._refresh_acting()
    buffer, links = trainer.rollout()
    before = {k: v.clone() for k, v in trainer.actor.state_dict().items()}
    _, following = trainer._update_while_playing(buffer, links)
    assert any((before[k] != v).any() for k, v in trainer.actor.state_dict().items()), "the learner moved"
    assert all((before[k] == v).all() for k, v in trainer.acting_actor.state_dict().items()), "the copy did not"
    data = following[0].arrays()
    with torch.no_grad():
        logits = masked_logits(trainer.acting_actor(torch.from_numpy(data["inputs"])), torch.from_numpy(data["masks"]))
        logp = torch.distributions.Categorical(logits=logits).log_prob(torch.from_numpy(data["actions"])).numpy()
    assert np.allclose(logp, data["logp"], atol=1e-5)


def test_exploiters_hunt_the_current_policy_and_join_the_league(tmp_path, monkeypatch, capsys):
    raw = json.loads(json.dumps(BASE))
    raw.update({"exploiters": {"every": 1000, "steps": 500, "warm_start": "none"}, "league": {
        "share": 0.7, "snapshot_every": 1000, "pool_size": 10}, "budget": {"total_steps": 3000}})
    path = tmp_path / "hunt.yaml"
    path.write_text(yaml.safe_dump(raw))
    a = run(path, runs_dir=tmp_path / "a", progress=False)
    hunts = sorted((a / "exploiters").iterdir())
    assert len(hunts) == 2, "one exploiter per 1,000 decisions, none at the budget's end"
    target = PolicyAgent.from_file(hunts[0] / "target.pt")
    assert target.meta["steps"] == int(hunts[0].name), "the target is the policy when the hunt began"
    responder = PolicyAgent.from_file(hunts[0] / "responder" / "responder.pt")
    pool = json.loads((a / "pool" / "player" / "pool.json").read_text())
    exploiters = [m for m in pool["members"] if m["id"].startswith("exploiter-")]
    assert [m["id"] for m in exploiters] == [f"exploiter-{h.name}.pt" for h in hunts]
    state = json.loads((a / "state.json").read_text())
    drawn = TablePpo(configs.load(a / "config.yaml"), a, state, Reporter.quiet()).pool.probabilities()
    assert all(drawn[m["id"]] > 0 for m in exploiters), "drawn for the learner's tables as any member"
    joined = a / "pool" / "player" / exploiters[0]["path"]
    assert joined.read_bytes() == (hunts[0] / "responder" / "responder.pt").read_bytes() and responder.meta
    b = run(path, runs_dir=tmp_path / "b", progress=False)
    assert_same_runs(a, b)

    def broken(*args, **kwargs):
        raise RuntimeError("no responder today")

    monkeypatch.setattr("club_envs.training.exploit.train_responder", broken)
    c = run(path, runs_dir=tmp_path / "c", progress=False)
    assert "exploiter at step" in capsys.readouterr().err and json.loads(
        (c / "state.json").read_text())["steps"]["player"] >= 3000, "a failed hunt is skipped, the run goes on"


@pytest.mark.parametrize("recipe", ["table_ppo", "table_dmc"])
def test_an_exploiter_can_start_as_a_copy_of_the_policy_it_hunts(tmp_path, recipe):
    """``exploiters.warm_start: policy``: the responder has the learner's network and inputs, its
    actor starts as the hunted policy's (kept as ``imitated.pt``; for Monte-Carlo Q learning, the
    exported policy of Q), and PPO then moves it."""
    raw = json.loads(json.dumps(BASE))
    if recipe == "table_dmc":
        raw["recipe"] = recipe
        raw["dmc"] = {**raw.pop("ppo"), "learning_rate": 1e-3}
    raw.update({"exploiters": {"every": 1000, "steps": 5000, "warm_start": "policy"}, "budget": {"total_steps": 1500}})
    path = tmp_path / "copy.yaml"
    path.write_text(yaml.safe_dump(raw))
    a = run(path, runs_dir=tmp_path / "a", progress=False)
    (hunt,) = sorted((a / "exploiters").iterdir())
    folder = hunt / "responder"
    target, start = (torch.load(p, weights_only=True) for p in (hunt / "target.pt", folder / "imitated.pt"))
    assert start["meta"]["hidden"] == [32] and start["meta"]["features"] == "members_only_beliefs"
    assert all(torch.equal(start["weights"][k], v) for k, v in target["weights"].items())
    assert set(start["weights"]) == set(target["weights"])
    trained = torch.load(folder / "responder.pt", weights_only=True)["weights"]
    assert any(not torch.equal(trained[k], v) for k, v in target["weights"].items()), "PPO moved the copy"
    assert json.loads((folder / "warm_start.json").read_text())["critic_steps"] > 0
    pool = json.loads((a / "pool" / "player" / "pool.json").read_text())
    assert [m["id"] for m in pool["members"] if m["id"].startswith("exploiter-")] == [f"exploiter-{hunt.name}.pt"]


def test_a_responder_from_the_policy_needs_its_network():
    with pytest.raises(ValueError, match="needs that policy's network"):
        ExploitSettings(agent="x.pt", game="members_only", players=4, warm_start="policy")


@pytest.mark.parametrize("changes,message", [
    ({"exploiters": {"warm_start": "random"}}, r"exploiters.warm_start: 'random' is not allowed; allowed values: "
                                                r"none, heuristic, policy"),
    ({"league": {"bots": [], "bot_share": 0.5}}, r"league.bot_share: 0.5 needs league.bots"),
    ({"anchor": {"bot": "none", "coef": 1.0}}, r"anchor.coef: 1.0 needs anchor.bot"),
    ({"ppo": {"games": 1}}, r"ppo.games: 1 cannot cover 2 table sizes"),
    ({"imitation": {"decisions": 100}}, r"imitation.decisions: 100 imitates anchor.bot, which is none"),
    ({"ppo": {"critic": "oracle"}}, r"ppo.critic: 'oracle' is not allowed; allowed values: observation, privileged"),
    ({"league": {"bots": ["alphazero"]}}, r"league.bots"),
    ({"ppo": {"precision": "float16"}}, r"ppo.precision: 'float16' is not allowed; allowed values: float32, bfloat16"),
    ({"ppo": {"learning_rate_final": "0"}}, r"ppo.learning_rate_final: '0' has the wrong type; expected number or null"),
    ({"ppo": {"learning_rate_final": -0.1}}, r"ppo.learning_rate_final: -0.1 is not allowed; allowed values: >= 0 and <= 1, or null"),
    ({"evaluation": {"watch": ["arkham_team"]}}, r"evaluation.watch: 'arkham_team' is not an agent a members_only run "
                                                 r"can watch; allowed values: random, heuristic, .*holdout_margin, .*"
                                                 r"members_only_belief"),
    ({"evaluation": {"watch": ["ismcts"]}}, r"evaluation.watch: 'ismcts' is not an agent"),
    ({"evaluation": {"watch": ["random"]}}, r"evaluation.watch: 'random' is already in evaluation.opponents"),
    ({"evaluation": {"opponents": ["holdout_margin"]}}, r"evaluation.opponents: 'holdout_margin' belongs to the held-out"),
])
def test_bad_settings_are_refused_in_one_line(changes, message):
    with pytest.raises(configs.ConfigFileError, match=message):
        settings(**changes)


def test_bad_rule_options_are_refused_before_a_run_folder_exists(tmp_path):
    raw = json.loads(json.dumps(BASE))
    raw["game"]["options"] = {"max_heat": 3}
    path = tmp_path / "bad.yaml"
    path.write_text(yaml.safe_dump(raw))
    with pytest.raises(configs.ConfigFileError, match=r"game.options: .*max_heat"):
        run(path, runs_dir=tmp_path / "runs", progress=False)
    assert not (tmp_path / "runs").exists()


def test_bfloat16_runs_the_hidden_layers_only_and_leaves_float32_exact(tmp_path):
    torch.manual_seed(0)
    exact = Actor(40, 7, (32, 32), "tanh")
    fast = Actor(40, 7, (32, 32), "tanh", "bfloat16")
    fast.load_state_dict(exact.state_dict())
    x = torch.randn(256, 40)
    with torch.no_grad():
        plain = exact.action_net(exact.policy_net(x))
        assert torch.equal(exact(x), plain), "float32 computes exactly what it did before the setting"
        out = fast(x)
    assert out.dtype == torch.float32, "the logits stay float32 (PPO's ratios divide their exponentials)"
    assert not torch.equal(out, plain), "bfloat16 is in use"
    assert torch.allclose(out, plain, atol=0.05), "and close to float32"
    assert all(p.dtype == torch.float32 for p in fast.parameters()), "the weights stay float32"
    critic = Critic(40, (32,), "tanh", "bfloat16")
    with torch.no_grad():
        assert critic(x).dtype == torch.float32 and critic(x).shape == (256,)


def test_a_bfloat16_run_repeats_learns_and_exports_float32_policies(tmp_path):
    raw = json.loads(json.dumps(BASE))
    raw["ppo"].update({"precision": "bfloat16", "overlap": True, "critic": "privileged"})
    path = tmp_path / "bf16.yaml"
    path.write_text(yaml.safe_dump(raw))
    a = run(path, runs_dir=tmp_path / "a", progress=False)
    b = run(path, runs_dir=tmp_path / "b", progress=False)
    assert_same_runs(a, b)  # the same seed, the same run, in bfloat16 too
    rows = list(csv.DictReader((a / "progress.csv").open()))
    assert rows and all(np.isfinite(float(r["policy_loss"])) and float(r["approx_kl"]) >= 0 for r in rows)
    net, _ = load_policy_file(a / "latest" / "policy.pt")
    assert all(w.dtype == np.float32 for layer in net.layers for w in layer)
    assert configs.load(a / "config.yaml").ppo.precision == "bfloat16", "the run folder states its precision"
    cfg = settings(ppo={"precision": "bfloat16", "games": 32, "steps": 32, "minibatch": 512, "learning_rate": 2e-3,
                        "epochs": 4, "entropy": 0.0},
                   network={"hidden": [64], "features": "members_only_heuristic"},
                   anchor={"bot": "heuristic", "coef": 5.0, "anneal_steps": 0}, league={"share": 0.0})
    trainer = TablePpo(cfg, tmp_path / "c", {}, Reporter.quiet())
    losses = []
    for _ in range(12):
        buffer, links = trainer.rollout()
        losses.append(trainer.update(buffer, links)["anchor_loss"])
        trainer.steps += buffer.size
    assert np.mean(losses[-3:]) < 0.6 * losses[0], "a bfloat16 learner learns as the float32 one does " + str(losses)


def test_snapshots_that_read_the_same_inputs_share_one_computation_that_changes_no_row(tmp_path):
    cfg = settings(network={"hidden": [16], "features": "members_only_belief_inputs"},
                   league={"share": 1.0, "bots": ["random"], "bot_share": 0.2, "pool_size": 6},
                   game={"num_players": [4]}, ppo={"games": 48, "steps": 8})
    trainer = TablePpo(cfg, tmp_path, {}, Reporter.quiet())
    for step in (100, 200, 300):
        trainer.pool.add_snapshot(step, trainer._export)
    table = trainer.tables[0]
    trainer._draw(table, np.arange(table.num_games))  # the league now seats the new snapshots too
    checked = 0
    for _ in range(6):
        step = table.step
        current = step.current_player
        who = table.controllers[np.arange(table.num_games), current]
        members = np.unique(who[who != LEARNER])
        shared = trainer._shared_inputs(table, who, members, current, step)
        opponents = list(trainer.members.values())
        snapshots = [m for m in members.tolist() if not isinstance(opponents[m], str)]
        assert len(shared) == (1 if snapshots else 0), "every snapshot of one network reads one set of inputs"
        for member in snapshots:
            rows = np.flatnonzero(who == member)
            group_rows, inputs = shared[opponents[member].inputs_key]
            alone = opponents[member].inputs(step.observation[rows], step.action_mask[rows],
                                             GameRows(table.game.games, rows, current[rows]))
            # equal to float32 rounding: the frozen belief model's matrix product sums a batch in blocks
            np.testing.assert_allclose(inputs[np.searchsorted(group_rows, rows)], alone, rtol=1e-5, atol=1e-6)
            checked += 1
        trainer._move(table, Chains())
    assert checked >= 6, "several snapshots met"


def test_watched_agents_join_the_curve_but_never_pick_the_best_policy(tmp_path):
    """``evaluation.watch`` may name held-out and shipped agents (no run may be judged against them):
    their rows are written beside the judging opponents' in ``evaluations.csv``, and ``best/``
    follows the judging opponents alone."""
    raw = json.loads(json.dumps(BASE))
    raw["evaluation"] = {"every": 1000, "games": 8, "opponents": ["random"],
                         "watch": ["holdout_margin", "members_only_belief"]}
    raw["budget"] = {"total_steps": 2000}
    path = tmp_path / "watch.yaml"
    path.write_text(yaml.safe_dump(raw))
    folder = run(path, runs_dir=tmp_path / "runs", progress=False)
    rows = list(csv.DictReader((folder / "evaluations.csv").open()))
    steps = sorted({int(r["total_step"]) for r in rows})
    assert len(steps) >= 2
    for step in steps:
        assert sorted((r["opponent"], r["players"]) for r in rows if int(r["total_step"]) == step) == [
            (o, p) for o in ("holdout_margin", "members_only_belief", "random") for p in ("3", "4")]
    judged = {step: np.mean([float(r["win_share"]) for r in rows if int(r["total_step"]) == step and
                             r["opponent"] == "random"]) for step in steps}
    best = json.loads((folder / "state.json").read_text())["best"]["player"]
    assert best["score"] == max(judged.values()) and judged[best["step"]] == best["score"]
