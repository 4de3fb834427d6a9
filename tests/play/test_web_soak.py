"""A short soak (``benchmarks/soak_study.py`` runs the long one): participants play at once while
the study server is killed twice; the export, the records folder and the report agree at the end,
and no game or acknowledged move is lost."""

from __future__ import annotations

from benchmarks.soak_study import soak


def test_a_crowd_and_two_kills_lose_nothing(tmp_path, database):
    figures = soak(tmp_path, participants=6, seconds=20, kills=2, database=database, seed=1)
    assert figures.kills == 2 and figures.moves > 30 and figures.games >= 6
    assert figures.games_lost == 0 and figures.moves_lost == 0
    assert figures.refused == []
