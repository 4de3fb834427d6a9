"""``club-envs play``: scripted stdin stands in for a person at the terminal."""

from __future__ import annotations

import io

from club_envs import records
from club_envs.cli import build_parser, main
from club_envs.cli import play as play_cli


def run_play(argv: list[str], typed: str) -> tuple[int, str]:
    args = build_parser().parse_args(["play", *argv])
    out = io.StringIO()
    code = play_cli.run(args, stdin=io.StringIO(typed), stdout=out)
    return code, out.getvalue()


def test_members_only_full_game_from_typed_codes(tmp_path):
    code, out = run_play(
        ["members_only", "--players", "4", "--seat", "0", "--opponents", "heuristic,random,heuristic",
         "--seed", "5", "--records", str(tmp_path)],
        "1\n" * 3000,
    )
    assert code == 0
    assert "Your legal moves:" in out and "Bets: type single/double code" in out
    assert "Seat 2 (random) places" in out  # the agents' moves are shown as they happen
    assert "Only markers at 5 or more score" in out  # the scoring explained
    assert out.index("Seed 5") > out.index("Result")  # the seed, which tells the deal, only at the end
    saved = next(tmp_path.glob("members_only_*.json"))
    assert f"Record saved to {saved}" in out
    record = records.load(saved)
    assert "result" in record and record["human_seat"] == 0
    assert [s["controller"] for s in record["seats"]] == ["human", "heuristic", "random", "heuristic"]


def test_arkham_full_game_as_the_black_man(tmp_path):
    code, out = run_play(
        ["arkham_decoders", "--players", "5", "--role", "black_man", "--opponents", "heuristic",
         "--seed", "2", "--records", str(tmp_path)],
        "1\n" * 500,
    )
    assert code == 0
    assert "You are an Advisor: the Black Man." in out
    assert "The true grimoire was" in out and "Total SAN" in out
    record = records.load(next(tmp_path.glob("arkham_decoders_club_*.json")))
    assert record["seats"][record["human_seat"]]["role"] == "black_man"
    assert record["seats"][record["human_seat"]]["controller"] == "human"


def test_wrong_entries_get_a_message_and_the_same_question_again(tmp_path):
    code, out = run_play(
        ["members_only", "--players", "3", "--seat", "0", "--opponents", "random", "--seed", "1",
         "--records", str(tmp_path)],
        "fold\n999\ndiscard hat\n\nhelp\ntable\nquit\n",
    )
    assert code == 0
    assert out.count("Not a legal move:") == 3
    assert "cannot read action 'fold'" in out
    assert "no move has the number 999; the moves are numbered 1-81" in out
    assert "'discard hat' is not a legal move now" in out
    assert "Type a move's number, or 'help'." in out
    assert "Members Only. Each heat you bet chips" in out  # help
    assert out.count("Your move> ") == 7  # one question, asked again after each entry
    record = records.load(next(tmp_path.glob("*.json")))
    assert [e["type"] for e in record["events"]] == ["heat_start"]  # nothing was played


def test_quit_saves_the_unfinished_game(tmp_path):
    code, out = run_play(
        ["arkham_decoders", "--players", "4", "--role", "leader", "--opponents", "random", "--seed", "3",
         "--records", str(tmp_path)],
        "1\nquit\n",
    )
    assert code == 0
    path = next(tmp_path.glob("*.json"))
    assert f"Game left unfinished. Record saved to {path}" in out
    record = records.load(path)
    assert "result" not in record and record["abandoned"] is True
    assert any(e["type"] == "reveal" and e["seat"] == record["human_seat"] for e in record["events"])


def test_end_of_input_counts_as_quitting(tmp_path):
    code, out = run_play(
        ["members_only", "--players", "4", "--seat", "1", "--records", str(tmp_path), "--seed", "0"], ""
    )
    assert code == 0 and "Game left unfinished" in out


def test_bad_command_line_exits_with_a_clear_message(capsys, tmp_path):
    assert main(["play", "members_only", "--players", "7", "--records", str(tmp_path)]) == 2
    assert "takes 3, 4, 5 players, not 7" in capsys.readouterr().err
    assert main(["play", "arkham_decoders", "--players", "5", "--role", "king", "--records", str(tmp_path)]) == 2
    assert "unknown role 'king'" in capsys.readouterr().err
