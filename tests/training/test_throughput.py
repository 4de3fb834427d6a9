"""The throughput tool measures each mode next to its ceiling and prints the ratios."""

from __future__ import annotations

import re

from club_envs.training import throughput


def test_the_tool_prints_each_mode_beside_the_ceiling(capsys):
    assert throughput.main(["members_only_smoke", "arkham_smoke", "--rollouts", "1",
                            "--modes", "batched", "workers"]) == 0
    out = capsys.readouterr().out
    for case in ("members_only_smoke", "arkham_smoke"):
        assert case in out
    rows = re.findall(r"^\s*(ceiling|batched|workers)\s+(\d+)\s+([\d.]+)", out, flags=re.M)
    assert [mode for mode, _, _ in rows] == ["ceiling", "batched", "workers"] * 2
    for mode, rate, ratio in rows:
        assert int(rate) > 0 and float(ratio) > 0
        if mode == "ceiling":
            assert float(ratio) == 1.0
    # the summary table: one line per case with the ceiling and each mode's steps/s and ratios
    summary = [line for line in out.splitlines() if line.startswith(("members_only_smoke ", "arkham_smoke "))]
    assert len(summary) == 2 and all(len(line.split()) == 2 + 3 * 2 for line in summary)
