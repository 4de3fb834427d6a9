"""Departures from a reference bot: counted per kind of decision, and what reverting each kind costs."""

from __future__ import annotations

import json

from club_envs import departures
from club_envs.games import load_game

TEAM = ["leader", "member", "investigator"]


def test_the_reference_bot_never_departs_from_itself_and_gains_nothing():
    game = load_game("arkham_decoders")
    config = game.Config(num_players=5)
    seen = departures.tally(game, config, "heuristic", TEAM, {"black_man": "heuristic"}, games=12, seed=3)
    assert seen["kinds"] and all(c["departures"] == 0 and c["decisions"] > 0 for c in seen["kinds"].values())
    assert {k.split("/")[0] for k in seen["kinds"]} == set(TEAM)
    worth = departures.gains(game, config, "heuristic", TEAM, {"black_man": "heuristic"}, list(seen["kinds"]),
                             games=12, seed=3)
    assert all(row["gain"] == 0 and row["gain_95ci"] == [0.0, 0.0] for key, row in worth.items() if key != "agent")
    assert worth["agent"] == seen["win_share"]


def test_a_random_agent_departs_and_reverting_every_kind_plays_the_reference_bot(tmp_path):
    game = load_game("arkham_decoders")
    config = game.Config(num_players=4)
    others = {"black_man": "heuristic"}
    seen = departures.tally(game, config, "random", TEAM, others, games=16, seed=1)
    assert all(0 < c["share"] <= 1 for k, c in seen["kinds"].items() if not k.endswith("choose"))
    kinds = list(seen["kinds"])
    worth = departures.gains(game, config, "random", TEAM, others, kinds, games=16, seed=1)
    plain = departures.tally(game, config, "heuristic", TEAM, others, games=16, seed=1)
    assert worth["all reverted"]["win_share"] == plain["win_share"]  # the same seeds, the same games
    assert worth["agent"] == seen["win_share"]
    low, high = worth["all reverted"]["gain_95ci"]  # paired game by game on the shared deals
    assert low <= worth["all reverted"]["gain"] <= high and high - low > 0
    out = tmp_path / "d.json"
    assert departures.main(["arkham_decoders", "--players", "4", "--agent", "random", "--roles", ",".join(TEAM),
                            "--others", "black_man=heuristic", "--games", "6", "--seed", "2", "--json", str(out)]) == 0
    data = json.loads(out.read_text())
    assert set(data) == {"settings", "departures", "gains"} and data["departures"]["kinds"]


def test_members_only_decisions_count_by_player():
    game = load_game("members_only")
    config = game.Config(num_players=3)
    seen = departures.tally(game, config, "heuristic_bold", ["player"], {"player": "random"}, games=6, seed=0)
    assert seen["kinds"] and set(seen["kinds"]) <= {"player/bet", "player/reveal", "player/discard"}
    assert 0 < sum(c["departures"] for c in seen["kinds"].values()) < sum(c["decisions"] for c in seen["kinds"].values())
    same = departures.tally(game, config, "heuristic", ["player"], {"player": "random"}, games=6, seed=0)
    assert all(c["departures"] == 0 for c in same["kinds"].values())
