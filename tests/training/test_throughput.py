"""The throughput tool (``club-envs bench``) measures each mode next to its ceiling and next to the games alone, and
prints the ratios and the bounds the games' own cost sets."""

from __future__ import annotations

import re

import numpy as np
import pytest
from stable_baselines3.common.vec_env import DummyVecEnv

from club_envs.cli import bench, main
from club_envs.training import throughput


def test_the_tool_prints_each_mode_and_loop_beside_the_ceiling_and_the_games_alone(capsys):
    assert main(["bench", "members_only_smoke", "arkham_smoke", "--rollouts", "1",
                 "--modes", "batched", "workers"]) == 0
    out = capsys.readouterr().out
    for case in ("members_only_smoke", "arkham_smoke"):
        assert case in out
    rows = re.findall(r"^\s*(ceiling|batched|workers)(\+ov)?\s+(\d+)\s+([\d.]+)(.*)$", out, flags=re.M)
    assert [mode + ov for mode, ov, *_ in rows] == ["ceiling", "batched", "batched+ov", "workers", "workers+ov"] * 2
    ceiling = 0
    for mode, ov, rate, ratio, rest in rows:
        assert int(rate) > 0 and float(ratio) > 0
        if mode == "ceiling":
            ceiling = int(rate)
            assert float(ratio) == 1.0
            # the ceiling's own split: env, acting and update shares add up to the whole
            assert abs(sum(int(x) for x in re.findall(r"(\d+)%", rest)) - 100) <= 2
        elif not ov:
            games, bound = rest.split()[-2:]
            # the in-turn bound is G / (G + C), printed to two places
            assert float(bound) == pytest.approx(int(games) / (int(games) + ceiling), abs=0.006)
            assert 0 < float(bound) < 1
        else:  # the overlapped loop's bound is higher: its halves run side by side
            games, bound = rest.split()[-2:]
            assert float(bound) > int(games) / (int(games) + ceiling) - 0.006
    assert len(re.findall(r"^two-core bound: [\d.]+ x ceiling", out, flags=re.M)) == 2
    # the summary: per case the ceiling, then per mode and loop steps/s, x, x cpu and bound, then the two-core bound
    summary = [line for line in out.splitlines() if line.startswith(("members_only_smoke ", "arkham_smoke "))]
    assert len(summary) == 2 and all(len(line.split()) == 2 + 4 * 4 + 1 for line in summary)
    assert main(["bench", "members_only_smoke", "--rollouts", "1", "--modes", "batched", "--loops", "overlap"]) == 0
    assert re.findall(r"^\s*(ceiling|batched\+ov|batched)\s", capsys.readouterr().out, flags=re.M) == [
        "ceiling", "batched+ov"]


def test_the_command_offers_the_modes_the_tool_measures(capsys):
    assert bench.MODES == throughput.MODES and bench.LOOPS == throughput.LOOPS
    assert main(["bench"]) == 2 and "give CONFIG files or --suite" in capsys.readouterr().err


def test_the_two_core_bound_is_the_ideal_overlap_of_games_and_acting():
    # 1 ms per ceiling step, 0.6 ms of it the update: A = 0.4 ms, U = 0.6 ms; games 1 ms of CPU a step
    ceiling = {"steps_per_second": 1000.0, "update_share": 0.6}
    assert throughput.two_core_bound(ceiling, 1000.0) == pytest.approx(1.0 / (0.6 + (1.0 + 0.4) / 2))
    # games for free: both cores share the acting, so a loop could beat its one-core ceiling
    assert throughput.two_core_bound(ceiling, 1e12) == pytest.approx(1.0 / (0.6 + 0.2))
    # dearer games, lower bound
    assert throughput.two_core_bound(ceiling, 500.0) < throughput.two_core_bound(ceiling, 1000.0)


def test_the_overlap_bound_is_the_slower_of_its_two_halves():
    # 1 ms per ceiling step, 0.6 ms of it the update: A = 0.4 ms, U = 0.6 ms
    ceiling = {"steps_per_second": 1000.0, "update_share": 0.6}
    assert throughput.overlap_bound(ceiling, 1000.0) == pytest.approx(1.0 / 1.4)  # games + acting 1.4 ms
    assert throughput.overlap_bound(ceiling, 1e12) == pytest.approx(1.0 / 0.6)  # the update alone bounds it
    g = 2000.0
    assert throughput.overlap_bound(ceiling, g) > g / (g + 1000.0)  # above taking turns


def test_games_alone_plays_every_legal_move_and_only_those():
    played: list[int] = []

    class Counting(throughput.TrivialEnv):
        """Refuses an illegal action; the legal ones are the even ones."""

        def __init__(self):
            super().__init__(3, 6)
            self._mask = np.arange(6) % 2 == 0

        def step(self, action):
            assert self._mask[action], f"illegal action {action}"
            played.append(int(action))
            return super().step(action)

    r = throughput.games_alone(DummyVecEnv([Counting] * 4), steps=400, seed=3)
    assert r["steps_per_second"] > 0 and r["steps_per_cpu_second"] > 0
    assert len(played) == 4 * (400 // 32 + 400 // 4)  # a warm-up of an eighth, then the timed steps
    assert set(played) == {0, 2, 4}
