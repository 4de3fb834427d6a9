"""The model card written by club_envs.training.ship (``club-envs ship``): exploitability figures belong
to the weights they were measured against, and every shipped card re-renders from its data."""

import json
from pathlib import Path

import pytest

pytest.importorskip("yaml")

from club_envs.cli import main  # noqa: E402
from club_envs.training.ship import render_card  # noqa: E402

RESULT = Path(__file__).parent / "data" / "exploit_result.json"


def _card(exploit):
    return {
        "name": "members_only", "game": "members_only", "side": "player", "roles": None, "file": "members_only.pt",
        "acting": "greedy", "obs_size": 10, "num_actions": 3, "network": {"hidden": [8], "activation": "tanh"},
        "policy_steps": 1000, "run_steps": {"player": 1000}, "training_seconds": 36.0, "cpus": 2,
        "stopped_early": False, "learning_curve": None, "command": "club-envs train members_only_4p",
        "config": {"budget": {"total_steps": 1000}}, "evaluations": [], "exploit": exploit, "notes": "",
    }


def test_every_shipped_card_renders_from_its_data_byte_for_byte():
    from club_envs.agents.registry import SHIPPED_DIR

    cards = sorted(SHIPPED_DIR.glob("*.json"))
    assert cards
    for path in cards:
        assert render_card(json.loads(path.read_text())) == path.with_suffix(".md").read_text(), path.name


def test_card_renders_exploit_results_with_baseline_and_command():
    result = json.loads(RESULT.read_text())
    text = render_card(_card([result]))
    section = text.split("## Exploitability", 1)[1].split("## Training config", 1)[0]
    assert "`club-envs exploit members_only --game members_only --players 4 --steps 2048 --eval-games 40 --seed 3`" in section
    assert "| members_only | player | 2,048 | 0.100 [0.040, 0.230] (40 games) | 0.250 | -0.150 |" in section
    assert "| heuristic | player | 2,048 | 0.200 [0.100, 0.350] (40 games) | 0.250 | -0.050 |" in section
    assert "lower bound" in section


def test_a_card_counts_an_imitation_warm_start_apart_from_the_steps():
    plain = render_card(_card([]))
    assert "imitation" not in plain.split("## Learning curve", 1)[0]
    text = render_card({**_card([]), "imitated": 3_000_448})
    assert "run steps: player 1,000 after 3,000,448 decisions of imitation (not counted in the steps); " in text


def test_card_without_exploit_results_says_they_were_not_measured():
    text = render_card(_card([]))
    section = text.split("## Exploitability", 1)[1].split("## Training config", 1)[0]
    assert "Not measured for these weights" in section
    assert "club-envs exploit members_only --game members_only" in section
    assert "responder wins" not in section


def test_a_belief_run_ships_with_its_card_and_loads_by_name(tmp_path, monkeypatch):
    """A belief-iteration run's best model ships as ``<name>.npz`` beside a card that says what it
    is, and the shipped name then loads as a belief agent."""
    import yaml

    from club_envs.agents import registry
    from club_envs.members_only.belief_agent import BeliefAgent
    from club_envs.training import ship
    from club_envs.training import train as trainer

    config = tmp_path / "members_only_belief_tiny.yaml"
    config.write_text(yaml.safe_dump({"recipe": "belief_iteration", "game": {"num_players": 3},
                                      "selfplay": {"generations": 1, "games": 4}, "model": {"hidden": [8]},
                                      "evaluation": {"games": 3, "opponents": ["random"]}}))
    run_dir = trainer.run(config, runs_dir=tmp_path / "runs", progress=False)
    shipped = tmp_path / "shipped"
    monkeypatch.setattr(ship, "SHIPPED_DIR", shipped)
    monkeypatch.setattr(registry, "SHIPPED_DIR", shipped)
    monkeypatch.setitem(registry.SHIPPED, "tiny_belief", ("members_only", {"*": "tiny_belief.npz"}))
    assert main(["ship", str(run_dir), "--side", "player", "--name", "tiny_belief", "--notes", "a test"]) == 0
    card = json.loads((shipped / "tiny_belief.json").read_text())
    assert card["kind"] == "belief" and card["generations_run"] == 1 and card["decisions"] > 0
    text = (shipped / "tiny_belief.md").read_text()
    assert "belief iteration, self-play" in text and "580 -> 8 -> 70" in text
    assert "club-envs train configs/members_only_belief_tiny.yaml" in text
    assert (shipped / "tiny_belief_curve.png").is_file()
    assert isinstance(registry.load("tiny_belief"), BeliefAgent)


def test_an_arkham_belief_run_ships_as_the_team_and_loads_by_name(tmp_path, monkeypatch):
    """The belief file's meta names the game: an Arkham run ships with a team card, and its name
    loads as a belief agent for the three team roles (the Black Man is not covered)."""
    import yaml

    from club_envs.agents import registry
    from club_envs.agents.policy import RoleDispatchAgent
    from club_envs.arkham_decoders.rules import Config
    from club_envs.games import load_game
    from club_envs.training import ship
    from club_envs.training import train as trainer

    config = tmp_path / "arkham_team_belief_tiny.yaml"
    config.write_text(yaml.safe_dump({"recipe": "arkham_belief_iteration", "game": {"num_players": 4},
                                      "selfplay": {"generations": 1, "games": 3}, "model": {"hidden": [8]},
                                      "training": {"epochs": 1, "validation_share": 0.5}, "evaluation": {"games": 2}}))
    run_dir = trainer.run(config, runs_dir=tmp_path / "runs", progress=False)
    shipped = tmp_path / "shipped"
    monkeypatch.setattr(ship, "SHIPPED_DIR", shipped)
    monkeypatch.setattr(registry, "SHIPPED_DIR", shipped)
    files = {role: "tiny_team.npz" for role in ("leader", "member", "investigator")}
    monkeypatch.setitem(registry.SHIPPED, "tiny_team", ("arkham_decoders_club", files))
    assert main(["ship", str(run_dir), "--side", "team", "--name", "tiny_team"]) == 0
    card = json.loads((shipped / "tiny_team.json").read_text())
    assert (card["kind"], card["game"], card["side"]) == ("belief", "arkham_decoders", "team")
    assert card["roles"] == ["leader", "member", "investigator"] and card["decisions"] > 0
    text = (shipped / "tiny_team.md").read_text()
    assert "side: team (roles: leader, member, investigator" in text and "433 -> 8 -> 8" in text
    assert "club-envs train configs/arkham_team_belief_tiny.yaml" in text and "Members Only" not in text
    assert (shipped / "tiny_team_curve.png").is_file()
    assert "tempered" not in card and "- tempered:" not in text
    with pytest.raises(ValueError, match=r"learned no Black Man \(no best/black_man.npz\); ship its team with --side team"):
        ship.ship(run_dir, "both", "x")
    agent = registry.load("tiny_team", game=load_game("arkham_decoders"), config=Config(num_players=4))
    assert isinstance(agent, RoleDispatchAgent)


def test_a_belief_ships_tempered_when_asked_and_its_card_says_by_how_much(tmp_path, monkeypatch):
    """``--temper F`` ships the run's best belief with its logits scaled by F (the last layer's
    weights and bias times F), records F in the file and the card, and names a population of Black
    Men in the recipe; ``--side team`` leaves out the Black Man the run learned beside its team; a
    policy run refuses the option."""
    import numpy as np
    import yaml

    from club_envs.arkham_decoders.belief_model import BeliefModel
    from club_envs.training import ship
    from club_envs.training import train as trainer

    config = tmp_path / "arkham_team_mix_tiny.yaml"
    config.write_text(yaml.safe_dump({"recipe": "arkham_belief_iteration", "game": {"num_players": 4},
                                      "selfplay": {"generations": 1, "games": 3, "opponents": ["self", "arkham_style_mix"]},
                                      "model": {"hidden": [8]}, "black_man": {"hidden": [4], "epochs": 1},
                                      "training": {"epochs": 1, "validation_share": 0.5},
                                      "evaluation": {"games": 2}}))
    run_dir = trainer.run(config, runs_dir=tmp_path / "runs", progress=False)
    monkeypatch.setattr(ship, "SHIPPED_DIR", tmp_path / "shipped")
    assert main(["ship", str(run_dir), "--side", "team", "--name", "tiny_mix", "--temper", "0.25"]) == 0
    source, shipped = BeliefModel.load(run_dir / "best" / "belief.npz"), BeliefModel.load(tmp_path / "shipped" / "tiny_mix.npz")
    for (w0, b0), (w1, b1) in zip(source.layers[:-1], shipped.layers[:-1]):
        np.testing.assert_array_equal(w0, w1)
        np.testing.assert_array_equal(b0, b1)
    np.testing.assert_array_equal(shipped.layers[-1][0], source.layers[-1][0] * np.float32(0.25))
    np.testing.assert_array_equal(shipped.layers[-1][1], source.layers[-1][1] * np.float32(0.25))
    assert shipped.meta["tempered"] == 0.25 and (run_dir / "best" / "black_man.npz").is_file()
    assert sorted(p.name for p in (tmp_path / "shipped").glob("*.npz")) == ["tiny_mix.npz"]
    card = json.loads((tmp_path / "shipped" / "tiny_mix.json").read_text())
    assert (card["side"], card["roles"], card["black_man"]) == ("team", ["leader", "member", "investigator"], None)
    text = (tmp_path / "shipped" / "tiny_mix.md").read_text()
    assert card["tempered"] == 0.25 and text == render_card(card)
    assert "- tempered: the learned logits scaled by 0.25 before they refine the hand-set prior" in text
    assert ("belief iteration against Black Men cycled over the games: the run's own learned Black Man (`self`, "
            "refitted every generation), `arkham_style_mix`") in text
    with pytest.raises(ValueError, match=r"--temper scales a learned belief; .* is a policy run"):
        ship.ship(_fake_ppo_run(tmp_path), "team", "x", temper=0.5)
    with pytest.raises(ValueError, match=r"temper factor must be in \(0, 1\]"):
        ship.ship(run_dir, "team", "x", temper=2.0)
    with pytest.raises(ValueError, match=r"an Arkham belief run ships side both or team, not 'player'"):
        ship.ship(run_dir, "player", "x")


def test_a_card_renders_a_pool_evaluation_with_its_gains():
    """``--eval`` also takes ``club-envs evaluate --pool`` results: the command restated, each
    member and side beside the baseline on the same deals, the gain and its paired interval."""
    pool = {"game": "arkham_decoders_club", "players": 5, "agent": "tiny", "pool": "holdout",
            "members": ["holdout_greedy"], "games": 1000, "seed": 7, "engine": "reference", "baseline": "heuristic",
            "rows": [{"opponent": "holdout_greedy", "side": "team", "games": 1000, "win_share": 0.866,
                      "win_share_95ci": [0.843, 0.886], "engine": "reference", "baseline": "heuristic",
                      "baseline_win_share": 0.862, "gain": 0.004, "gain_95ci": [-0.023, 0.031]}]}
    section = render_card({**_card([]), "evaluations": [pool]}).split("## Evaluation", 1)[1].split("## Exploit", 1)[0]
    assert ("`club-envs evaluate arkham_decoders_club --players 5 --agents tiny --pool holdout --members holdout_greedy "
            "--baseline heuristic --games 1000 --seed 7 --engine reference`") in section
    assert "| opponent | side | games | win share | 95% interval | heuristic (same seats, same deals) | gain | paired 95% |" in section
    assert "| holdout_greedy | team | 1000 | 0.866 | [0.843, 0.886] | 0.862 | +0.004 | [-0.023, +0.031] |" in section


def test_an_arkham_self_play_run_ships_both_sides_with_a_card(tmp_path, monkeypatch):
    """A self-play belief run (the Black Man learned too) ships the team belief and the Black Man's
    vote values together; the shipped name plays every role."""
    import yaml

    from club_envs.agents import registry
    from club_envs.arkham_decoders.belief_agent import BeliefAgent
    from club_envs.arkham_decoders.match import play_match
    from club_envs.arkham_decoders.rules import Config
    from club_envs.arkham_decoders.vote_value import BlackManAgent
    from club_envs.games import load_game
    from club_envs.training import ship
    from club_envs.training import train as trainer

    config = tmp_path / "arkham_selfplay_tiny.yaml"
    config.write_text(yaml.safe_dump({"recipe": "arkham_belief_iteration", "game": {"num_players": 4},
                                      "selfplay": {"generations": 1, "games": 3, "opponents": ["self"]},
                                      "model": {"hidden": [8]}, "black_man": {"hidden": [4], "epochs": 1},
                                      "training": {"epochs": 1, "validation_share": 0.5}, "evaluation": {"games": 2}}))
    run_dir = trainer.run(config, runs_dir=tmp_path / "runs", progress=False)
    shipped = tmp_path / "shipped"
    monkeypatch.setattr(ship, "SHIPPED_DIR", shipped)
    monkeypatch.setattr(registry, "SHIPPED_DIR", shipped)
    files = {**{role: "tiny_sp.npz" for role in ("leader", "member", "investigator")}, "black_man": "tiny_sp_black_man.npz"}
    monkeypatch.setitem(registry.SHIPPED, "tiny_sp", ("arkham_decoders_club", files))
    assert main(["ship", str(run_dir), "--side", "both", "--name", "tiny_sp"]) == 0
    card = json.loads((shipped / "tiny_sp.json").read_text())
    assert (card["side"], card["roles"]) == ("both", ["leader", "member", "investigator", "black_man"])
    assert card["black_man"]["file"] == "tiny_sp_black_man.npz" and card["black_man"]["hidden"] == [4]
    text = (shipped / "tiny_sp.md").read_text()
    assert "sides: both" in text and "no scripted bot at any training table" in text and "-> 4 -> 2" in text
    agent = registry.load("tiny_sp", game=load_game("arkham_decoders"), config=Config(num_players=4))
    assert isinstance(agent.by_role["black_man"], BlackManAgent) and isinstance(agent.by_role["leader"], BeliefAgent)
    assert play_match(Config(num_players=4), lambda seat, role: agent, seed=1)["result"]["winners"]


def _fake_ppo_run(tmp_path: Path) -> Path:
    """A finished self-play run folder whose best/ and latest/ team policies differ (two shipped
    networks stand in for them), as ``club-envs train`` leaves it."""
    import shutil

    import yaml

    from club_envs.agents.registry import SHIPPED_DIR

    card = json.loads((SHIPPED_DIR / "arkham_neural_team.json").read_text())
    run_dir = tmp_path / "arkham_neural_hunt-20261205-000000"
    for folder, source in (("best", "arkham_team.pt"), ("latest", "arkham_neural_team.pt")):
        (run_dir / folder).mkdir(parents=True)
        shutil.copyfile(SHIPPED_DIR / source, run_dir / folder / "team.pt")
    (run_dir / "config.yaml").write_text(yaml.safe_dump(card["config"]))
    (run_dir / "state.json").write_text(json.dumps({"steps": card["run_steps"]}))
    return run_dir


def test_a_run_ships_its_last_policy_when_asked_and_the_card_says_which(tmp_path, monkeypatch):
    """``--policy latest`` ships latest/ (a point fixed before looking, not the run's own pick) and the
    card names the choice; the default stays best/."""
    import torch

    from club_envs.training import ship

    run_dir = _fake_ppo_run(tmp_path)
    monkeypatch.setattr(ship, "SHIPPED_DIR", tmp_path / "shipped")
    for taken in ("latest", "best"):
        args = ["ship", str(run_dir), "--side", "team", "--name", f"tiny_{taken}"]
        assert main(args + (["--policy", "latest"] if taken == "latest" else [])) == 0
        shipped = torch.load(tmp_path / "shipped" / f"tiny_{taken}.pt", weights_only=True)["weights"]
        source = torch.load(run_dir / taken / "team.pt", weights_only=True)["weights"]
        assert shipped.keys() == source.keys() and all(torch.equal(shipped[k], source[k]) for k in source)
        card = json.loads((tmp_path / "shipped" / f"tiny_{taken}.json").read_text())
        assert card["taken"] == taken
        assert ship._TAKEN_TEXT[taken] in (tmp_path / "shipped" / f"tiny_{taken}.md").read_text()
    assert not torch.equal(*(torch.load(tmp_path / "shipped" / f"tiny_{t}.pt", weights_only=True)["weights"]
                             ["mlp_extractor.policy_net.0.weight"] for t in ("best", "latest")))


def test_shipping_a_missing_side_or_point_names_what_the_run_has(tmp_path, monkeypatch):
    import shutil

    from club_envs.training import ship

    run_dir = _fake_ppo_run(tmp_path)
    monkeypatch.setattr(ship, "SHIPPED_DIR", tmp_path / "shipped")
    with pytest.raises(ValueError, match=r"no latest/black_man.pt; its latest/ policies are for: team"):
        ship.ship(run_dir, "black_man", "x", taken="latest")
    with pytest.raises(ValueError, match="taken must be one of best, latest"):
        ship.ship(run_dir, "team", "x", taken="newest")
    shutil.rmtree(run_dir / "latest")
    with pytest.raises(ValueError, match="has no latest/team.pt; it has no latest/ folder"):
        ship.ship(run_dir, "team", "x", taken="latest")
    assert not (tmp_path / "shipped" / "x.pt").exists()


def test_a_card_says_when_a_run_was_imitation_only():
    """A run whose budget the critic warm-up spent (no PPO update moved the actor) is a copy of its
    teacher, and its card says so instead of calling it self-play; the run's state.json (written by
    the trainer, which knows) decides, not a second reading of the config."""
    from club_envs.training.ship import _ppo_recipe

    copy = {"pretrain": {"games": 20_000, "imitate": {"team": "arkham_team_belief", "black_man": "heuristic"},
                         "critic_steps": 36_864}, "budget": {"total_steps": 73_728}}
    assert _ppo_recipe(copy, imitation_only=True) == (
        "imitation of team: arkham_team_belief, black_man: heuristic only, 20,000 "
        "games: the critic warm-up spent the budget, so no PPO update moved the actor")
    assert _ppo_recipe(copy) == ("MaskablePPO, self-play; started as an imitation of team: arkham_team_belief, "
                                 "black_man: heuristic (20,000 games)")


def test_a_cards_recipe_line_says_whom_it_played_where_it_started_and_what_pulled_it():
    """The card's "trained with" line: the bots among its opponents, the policy or teacher it
    started from, and the KL pull towards that start, read from the run's config."""
    from club_envs.training.ship import _ppo_recipe

    assert _ppo_recipe({}) == "MaskablePPO, self-play"
    anchored = {"selfplay": {"bots": ["heuristic", "arkham_style_mix"], "bot_share": 0.6},
                "pretrain": {"games": 5000, "imitate": "heuristic", "from_policy": {"team": "arkham_neural_team_copy"}},
                "anchor": {"coef": 0.1, "anneal_steps": 2_000_000, "sides": ["team"]}}
    assert _ppo_recipe(anchored) == (
        "MaskablePPO, self-play against its snapshots and, in 60% of the draws, heuristic, arkham_style_mix; "
        "started from arkham_neural_team_copy (team); the other sides started as an imitation of heuristic "
        "(5,000 games); a KL pull towards the start (team; weight 0.1, falling to 0 over 2,000,000 of its steps)")
    unpulled = {**anchored, "selfplay": {"bots": ["heuristic"], "bot_share": 0.0}, "anchor": {"coef": 0.0, "sides": []}}
    assert _ppo_recipe(unpulled) == ("MaskablePPO, self-play; started from arkham_neural_team_copy (team); "
                                     "the other sides started as an imitation of heuristic (5,000 games)")


def test_no_shipped_card_names_a_path_on_the_machine_that_made_it():
    """A card travels with the wheel: an exploit run's folder or a scratch policy file would point
    at a machine its reader never saw (and say how it was worked on), so cards hold names only."""
    import re

    from club_envs.training import ship

    absolute = re.compile(r'"(?:/|[A-Za-z]:\\\\)[^"]*"')
    for path in sorted(ship.SHIPPED_DIR.glob("*.json")):
        assert not absolute.findall(path.read_text()), path.name
    card = {"settings": {"agent": "x"}, "run_dir": "/somewhere/exploit-x", "responder_win_share": 0.5}
    assert "run_dir" not in ship._exploit_entry(card) and ship._exploit_entry(card)["responder_win_share"] == 0.5
