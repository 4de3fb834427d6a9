"""The study report's conclusions on a real (small) study: each game paired with the baseline agent
in the same seat of the same deal, the control-variate estimates, duplicate seating turning the
seat between participants, the smallest detectable difference, and ``--plan``."""

from __future__ import annotations

import math
from collections import Counter, defaultdict

import numpy as np
import pytest
import yaml

from club_envs.cli import main
from club_envs.play.catalogue import AgentCatalogue
from club_envs.study import plan as plans
from club_envs.study.analysis import PairedGame, analyse, paired_games, reference_values, seat_result
from club_envs.study.planning import pilot_spread
from club_envs.study.plan import StudyFileError
from club_envs.stats import t_quantile
from club_envs.study_stats import paired_difference, participants_needed, variance_components
from club_envs.web.app import create_app
from tests.play.conftest import play_out
from tests.play.test_study import enter, next_game

CODES = [f"code-{c}" for c in "abcdef"]
STUDY = {
    "name": "paired",
    "participants": CODES,
    "games_per_condition": 2,
    "order": "as_listed",
    "conditions": [
        {"name": "mo_dup", "game": "members_only", "players": 3, "opponents": "random", "duplicate": True,
         "seeds": [5, 6]},
        {"name": "mo_free", "game": "members_only", "players": 3, "seat": "random", "opponents": "random"},
    ],
}


@pytest.fixture
def study_file(tmp_path):
    path = tmp_path / "study.yaml"
    path.write_text(yaml.safe_dump(STUDY))
    return path


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    """Every participant plays all four of their games (a seeded random choice of moves), dealt,
    stored and recorded by the server's own calls, as ``POST /study/next`` makes them; in the
    default database (SQLite beside the records), which the command line then reads."""
    folder = tmp_path_factory.mktemp("played")
    study_file = folder / "study.yaml"
    study_file.write_text(yaml.safe_dump({**STUDY, "records": "records"}))
    app = create_app(folder / "records", study=plans.load(study_file))
    server = app.state.server
    for i, code in enumerate(CODES):
        _, position, _ = server.store.participant(code)
        for slot in server.study.schedule(position):
            c = slot.condition
            entry = server.games.start(f"p:{code}", c.game, c.players, slot.seat, c.role, c.opponents, slot.seed,
                                       show_agents=False, participant_code=code, slot=slot)
            play_out(entry.game, seed=10 * i + slot.number)
            server.games.persist(entry)
    return app, study_file


@pytest.mark.parametrize("change,message", [
    ({"seat": 0}, "conditions[0].duplicate: the seat turns with each participant; give neither seat nor role"),
    ({"seeds": None}, "conditions[0].duplicate: needs seeds, one per game"),
    ({"duplicate": "yes"}, "conditions[0].duplicate: 'yes' has the wrong type; expected boolean"),
])
def test_a_bad_duplicate_condition_is_refused_by_name(tmp_path, change, message):
    condition = {k: v for k, v in {**STUDY["conditions"][0], **change}.items() if v is not None}
    path = tmp_path / "bad.yaml"
    path.write_text(yaml.safe_dump({**STUDY, "conditions": [condition]}))
    with pytest.raises(StudyFileError) as err:
        plans.load(path)
    assert message in str(err.value)


def test_duplicate_seating_turns_the_seat_so_that_each_deal_is_played_from_every_seat(study_file):
    plan = plans.load(study_file)
    seats = defaultdict(set)
    for position in range(3):
        schedule = plan.schedule(position)
        mine = [s for s in schedule if s.condition.name == "mo_dup"]
        assert [s.seed for s in mine] == [5, 6]  # every participant the same deals ...
        assert len({s.seat for s in mine}) == 2  # ... from a different seat each
        for s in mine:
            seats[s.seed].add(s.seat)
        assert all(s.seat is None for s in schedule if s.condition.name == "mo_free")
    assert seats == {5: {0, 1, 2}, 6: {0, 1, 2}}  # three participants in a row cover every seat of both


def test_the_study_page_deals_a_duplicate_game_at_the_participants_turn_of_seat(tmp_path, study_file, database):
    plan = plans.load(study_file)
    app = create_app(tmp_path / "records", study=plan, database=database)
    for code in CODES[:3]:
        gid = next_game(enter(app, code))
        _, position, _ = app.state.store.participant(code)
        assert app.state.store.game(gid).human_seat == plan.seat_for(plan.conditions[0], position, 0) == position
        assert app.state.live[gid].game.seed == 5


def test_the_report_pairs_every_game_with_the_agent_on_the_same_seat_and_deal(played):
    played, study_file = played
    plan = plans.load(study_file)
    store = played.state.store
    games = [g for g in store.games() if g.record]
    assert len(games) == 24
    make = AgentCatalogue(None).make
    pairs = paired_games([g.record for g in games], plan, make)
    assert len(pairs) == 24
    by_id = {(g.participant, int(g.record["seed"]), g.human_seat): g for g in games}
    for p in pairs[:6]:
        g = by_id[(p.participant, p.seed, p.seat)]
        condition = plan.condition(p.condition)
        # the agent's game: the same deal, the same seat, the condition's lineup
        assert seat_result(condition, p.seed, p.seat, "heuristic", make)[2] == p.agent_win
        assert seat_result(condition, p.seed, p.seat, "heuristic", make, opponents="heuristic")[2] == p.value
        assert g.record["result"]["winners"] and p.person_win == (
            1 / len(g.record["result"]["winners"]) if p.seat in g.record["result"]["winners"] else 0.0)
    # duplicate seating in the stored games: participant i, game r sits at (i + r) mod 3
    positions = {code: position for code, position, _ in store.participants()}
    for g in games:
        if g.condition == "mo_dup":
            assert g.human_seat == (positions[g.participant] + g.slot) % 3
    references = reference_values(plan, make, games=12)
    analyses = {a.condition: a for a in analyse(pairs, plan, references)}
    free = analyses["mo_free"]
    assert free.participants == 6 and free.games == 12
    units = defaultdict(list)
    for p in pairs:
        if p.condition == "mo_free":
            units[p.participant].append((p.person_win, p.agent_win))
    means = np.array([np.mean(v, axis=0) for _, v in sorted(units.items())])
    expected = paired_difference(means[:, 0], means[:, 1])
    assert free.paired.mean == pytest.approx(expected.mean) and free.paired.high == pytest.approx(expected.high)
    dup = analyses["mo_dup"].duplicate
    assert dup.deals == 2 and dup.complete == 2 and dup.difference is not None
    seat_means = defaultdict(list)
    for p in pairs:
        if p.condition == "mo_dup" and p.seed == 5:
            seat_means[p.seat].append(p.person_win - p.agent_win)
    assert dup.per_deal[0] == pytest.approx(np.mean([np.mean(v) for v in seat_means.values()]))


def test_the_report_prints_the_paired_comparison_the_adjusted_estimates_and_what_it_could_detect(
        played, capsys):
    played, study_file = played
    argv = ["study", str(study_file), "--report", "--baseline-games", "12"]
    assert main(argv) == 0
    text = capsys.readouterr().out
    paired = text.split("Paired on the same deals", 1)[1].split("\n\n", 1)[0]
    assert "person against heuristic in the same seat of the same seed" in paired
    rows = {line.split()[0]: line.split() for line in paired.splitlines() if line.startswith(("mo_dup", "mo_free"))}
    assert rows["mo_dup"][1:3] == ["6", "12"] and rows["mo_free"][1:3] == ["6", "12"]
    detectable = float(rows["mo_free"][-1])
    assert 0 < detectable < 2
    reduced = text.split("Variance-reduced", 1)[1]
    assert "heuristic self-play" in reduced and "12 reference deals" in reduced
    lines = [line for line in reduced.splitlines() if " person " in f" {line} " or " agent " in f" {line} "]
    assert len(lines) >= 4  # person and agent for both conditions: an estimate, or why there is none
    dup = text.split("Duplicate seating", 1)[1]
    assert dup.splitlines()[3].split()[:3] == ["mo_dup", "2", "2"]
    # the detectable difference from the same standard error as the interval: (t.975 + t.80) se, 5 df
    low, high = (float(v) for v in " ".join(rows["mo_free"][6:8]).strip("[]").split(", "))
    se = (high - low) / 2 / t_quantile(0.975, 5)
    assert detectable == pytest.approx((t_quantile(0.975, 5) + t_quantile(0.8, 5)) * se, abs=0.02)


def test_plan_with_a_given_spread_prints_the_participants_needed(study_file, tmp_path, capsys):
    records = tmp_path / "records"
    assert main(["study", str(study_file), "--records", str(records), "--plan", "--difference", "0.1",
                 "--sd", "0.6", "--icc", "0.2"]) == 0
    text = capsys.readouterr().out
    assert "detect a difference of 0.1 in win share" in text and "(paired)" in text
    rows = [line.split() for line in text.splitlines() if line.startswith("every condition ")]
    by_games = {int(r[2]): (int(r[3]), int(r[4])) for r in rows}
    assert sorted(by_games) == [1, 2, 5, 10, 20]
    for games, (participants, total) in by_games.items():
        assert participants == participants_needed(0.1, 0.6, games, 0.2) and total == participants * games
    assert "<- the study's" in next(line for line in text.splitlines() if line.split()[2:3] == ["2"])
    assert not records.exists() and not records.with_name("records.sqlite").exists()  # nothing read, nothing made
    assert main(["study", str(study_file), "--records", str(records), "--plan", "--difference", "0.1",
                 "--sd", "0.6", "--unpaired", "--baseline-games", "1000"]) == 0
    unpaired = capsys.readouterr().out
    assert "over 1000 other deals (unpaired)" in unpaired
    first = next(line.split() for line in unpaired.splitlines() if line.startswith("every condition "))
    fixed = 0.6 ** 2 / 1000
    assert int(first[3]) == participants_needed(0.1, 0.6, 1, 0.0, fixed_variance=fixed) > by_games[1][0]


def test_plan_from_the_pilot_estimates_the_spread_per_condition(played, capsys):
    _, study_file = played
    assert main(["study", str(study_file), "--plan", "--difference", "0.2", "--games", "3"]) == 0
    text = capsys.readouterr().out
    for condition in ("mo_dup", "mo_free"):
        block = text.split(f"\n{condition}: ", 1)[1].split("\n\n", 1)[0]
        assert "from the pilot: 6 participants, 12 games" in block
        sd = float(block.split("spread sd ", 1)[1].split()[0])
        assert 0 < sd <= 1.0 + 1e-9  # a difference of two win shares
        three = next(line.split() for line in block.splitlines() if line.split()[1:2] == ["3"])
        assert three[-1] == "study's" and int(three[3]) == 3 * int(three[2])


@pytest.mark.parametrize("measure", ["win", "score"])
def test_the_pilot_spread_is_that_of_one_games_difference_by_participant(measure):
    rng = np.random.default_rng(1)
    pairs = [PairedGame("c", f"p{i}", seed, 0, *rng.integers(0, 2, 1) * 1.0, *rng.normal(20, 4, 1),
                        *rng.integers(0, 2, 1) * 1.0, *rng.normal(18, 4, 1), 0.5)
             for i in range(8) for seed in range(3)]
    for paired in (True, False):
        spread = pilot_spread(pairs, measure, paired)
        groups = defaultdict(list)
        for p in pairs:
            person, agent = getattr(p, f"person_{measure}"), getattr(p, f"agent_{measure}")
            groups[p.participant].append(person - agent if paired else person)
        assert (spread.sd, spread.icc) == pytest.approx(variance_components(list(groups.values())))
        assert spread.baseline_sd == pytest.approx(np.std([getattr(p, f"agent_{measure}") for p in pairs], ddof=1))
        assert spread.source == "from the pilot: 8 participants, 24 games"
    with pytest.raises(ValueError, match="measure 'rank' is not allowed; allowed values: win, score"):
        pilot_spread(pairs, "rank", True)


@pytest.mark.parametrize("argv,problem", [
    (["--plan"], "--plan needs --difference"),
    (["--plan", "--difference", "0"], "--difference 0 is not allowed; allowed values: a number above 0"),
    (["--plan", "--difference", "0.1", "--sd", "-1"], "--sd -1 is not allowed; allowed values: a number above 0"),
    (["--plan", "--difference", "0.1", "--sd", "0.5", "--icc", "1.5"], "--icc 1.5 is not allowed; allowed values: 0..1"),
    (["--plan", "--difference", "0.1", "--sd", "0.5", "--power", "1"],
     "--power 1 is not allowed; allowed values: between 0 and 1"),
    (["--plan", "--difference", "0.1", "--sd", "0.5", "--games", "0"], "--games 0 is not allowed; allowed values: 1 or more"),
    (["--plan", "--difference", "0.1"], "no pilot games to estimate the spread from"),
    (["--plan", "--difference", "0.1", "--sd", "0.5", "--unpaired", "--baseline-games", "50"],
     "a difference of 0.1 cannot be detected: the baseline's own standard error (0.0707) is too large"),
    (["--plan", "--difference", "0.1", "--sd", "0.5", "--unpaired", "--baseline-games", "0"],
     "the unpaired comparison needs --baseline-games 1 or more"),
])
def test_plan_refuses_bad_input_in_one_line(study_file, tmp_path, capsys, argv, problem):
    assert main(["study", str(study_file), "--records", str(tmp_path / "records"), *argv]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"club-envs study: error: {problem}"), err


def test_the_documented_plan_example_prints_what_the_docs_say(tmp_path, capsys):
    from pathlib import Path

    docs = (Path(__file__).parents[2] / "docs" / "studies.md").read_text(encoding="utf-8")
    example = docs.split("<!-- plan example -->\n```text\n", 1)[1].split("```", 1)[0]
    command = example.splitlines()[0].removeprefix("$ club-envs ").split()
    study = tmp_path / "pilot.yaml"
    study.write_text(docs.split("```yaml\n", 1)[1].split("```", 1)[0])
    assert main([command[0], str(study), *command[2:]]) == 0
    printed = capsys.readouterr().out
    assert printed.strip() == "\n".join(example.splitlines()[1:]).strip()
    assert math.isfinite(float(printed.split("spread sd ", 1)[1].split()[0]))
    assert Counter(printed.split())["<-"] == 1
