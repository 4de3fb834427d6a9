"""Fuzzing the command line: any mix of good and bad options gives exit status 0, or status 2
with exactly one line on stderr and nothing written -- never a traceback."""

from __future__ import annotations

import contextlib
import io
import os
import tempfile
from pathlib import Path

import torch
from hypothesis import given
from hypothesis import strategies as st

from club_envs.agents.policy import save_policy
from club_envs.cli import main

from .mutations import fuzz_settings

GAMES = ["members_only", "arkham", "arkham_decoders_club", "chess", "", "MEMBERS_ONLY"]
NUMBERS = ["-1", "0", "1", "2", "3", "4", "5", "6", "7", "x", "1.5", "99999999999999999999", "4294967296", "nan"]
AGENTS = ["random", "heuristic", "random:greedy", "heuristic:bogus", "members_only", "arkham_decoders",
          "arkham_team", "nobody", "role=random", "leader=random,member=random,investigator=random,black_man=random",
          "black_man=heuristic", "{wrong_policy}", "{folder}", "{file}", "{missing}", ",", "random,random,random,random"]
OUTPUTS = ["{new}", "{file}", "{folder}", "{under_file}", "{new}/deeper/still"]


def workspace(tmp: Path) -> dict[str, str]:
    """Paths the options may name: an existing file, a folder, a policy for the wrong game, ..."""
    (tmp / "existing.txt").write_text("keep me\n")
    (tmp / "folder").mkdir()
    g = torch.Generator().manual_seed(0)
    wrong = {"mlp_extractor.policy_net.0.weight": torch.randn(8, 510, generator=g),
             "mlp_extractor.policy_net.0.bias": torch.zeros(8),
             "action_net.weight": torch.randn(5, 8, generator=g), "action_net.bias": torch.zeros(5)}
    save_policy(tmp / "five_actions.pt", wrong, {"game": "members_only", "obs_size": 510, "num_actions": 5})
    return {"file": str(tmp / "existing.txt"), "folder": str(tmp / "folder"), "missing": str(tmp / "missing.pt"),
            "wrong_policy": str(tmp / "five_actions.pt"), "new": str(tmp / "out"),
            "under_file": str(tmp / "existing.txt" / "inside")}


def snapshot(root: Path) -> dict[str, tuple[int, int]]:
    return {str(p): (p.stat().st_size, p.stat().st_mtime_ns) for p in sorted(root.rglob("*"))}


def command_lines() -> st.SearchStrategy[list[str]]:
    def build(command, game, options, extra):
        # a command line that would run, then the drawn options (argparse keeps the last of a repeated option)
        argv = [command] if command == "report" else [command, game, "--players", "4", "--games", "1"]
        if command == "league":
            argv += ["--agents", "random,heuristic"]
        elif command == "evaluate":
            argv += ["--agents", "random"]
        for option, value in options:
            argv += [option, value]
        if command in ("simulate", "evaluate", "league"):
            argv.append("--no-progress")
        elif command == "report":
            argv.append("--no-chart")
        return argv + extra

    option_pairs = {
        "simulate": [("--players", NUMBERS), ("--games", ["-1", "0", "1", "2", "x", "4294967296"]),
                     ("--agents", AGENTS), ("--seed", NUMBERS), ("--out", OUTPUTS)],
        "evaluate": [("--players", NUMBERS), ("--games", ["-1", "0", "1", "2", "x"]), ("--agents", AGENTS),
                     ("--seed", NUMBERS), ("--records", OUTPUTS), ("--json", OUTPUTS), ("--workers", ["0", "1", "-2"])],
        "league": [("--players", NUMBERS), ("--games", ["0", "1", "x"]), ("--agents", AGENTS + ["random,heuristic"]),
                   ("--seed", NUMBERS), ("--json", OUTPUTS)],
        "report": [("--csv", OUTPUTS)],
    }
    return st.sampled_from(sorted(option_pairs)).flatmap(lambda command: st.builds(
        build,
        st.just(command),
        st.sampled_from(["members_only", "arkham"] * 3 + GAMES),
        st.lists(st.sampled_from(option_pairs[command]).flatmap(
            lambda pair: st.tuples(st.just(pair[0]), st.sampled_from(pair[1]))), max_size=5),
        st.lists(st.sampled_from(OUTPUTS + ["--bogus", "{file}", "{folder}", "-", "--"]), max_size=2)
        if command == "report" else st.sampled_from([[]] * 6 + [["--bogus"], ["extra"], ["--players"]]),
    ))


@fuzz_settings(80)
@given(argv=command_lines())
def test_any_command_line_gives_status_0_or_one_line_and_status_2(argv):
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        names = workspace(root)
        argv = [part.format(**names) for part in argv]
        # a valid run stays short: every command line plays at most 2 games
        before = snapshot(root)
        err, out = io.StringIO(), io.StringIO()
        cwd = os.getcwd()
        os.chdir(root)  # default outputs (report's CSV) land in the throw-away folder
        try:
            with contextlib.redirect_stderr(err), contextlib.redirect_stdout(out):
                try:
                    status = main(argv)
                except SystemExit as exc:  # argparse: a malformed command line
                    status = exc.code
        finally:
            os.chdir(cwd)
        assert status in (0, 2), (argv, status, err.getvalue())
        if status == 2:
            lines = err.getvalue().strip().splitlines()
            assert len(lines) == 1 and ": error: " in lines[0], (argv, lines)
            assert "Traceback" not in err.getvalue()
            assert snapshot(root) == before, (argv, "wrote files although it refused")
