"""A run's evaluation of its exported policy (:mod:`club_envs.training.evaluations`): the judging
opponents and the watched agents, on either engine, and which rows pick the best policy."""

from __future__ import annotations

import pytest

from club_envs.agents.registry import SHIPPED_DIR
from club_envs.training import evaluations
from club_envs.training.settings import EvaluationSettings, GameSettings


@pytest.mark.parametrize("batched", [True, False], ids=["batched", "reference"])
def test_watched_agents_add_rows_and_leave_the_judged_ones_as_they_were(batched):
    game = GameSettings("members_only", (3, 4), {})
    judged = EvaluationSettings(every=1, games=12, opponents=("random",), greedy=True)
    watched = EvaluationSettings(every=1, games=12, opponents=("random",), greedy=True,
                                 watch=("holdout_prover", "members_only_belief"))
    path = SHIPPED_DIR / "members_only.pt"
    alone = evaluations.evaluate_policy(path, "player", game, judged, 3, "p", True, batched=batched)
    rows = evaluations.evaluate_policy(path, "player", game, watched, 3, "p", True, batched=batched)
    assert [(r.opponent, r.players) for r in rows] == [
        (o, n) for o in ("random", "holdout_prover", "members_only_belief") for n in (3, 4)]
    assert rows[:2] == alone, "watching adds rows; the judged games stay the same games"
    assert all(0.0 <= r.ci_lo <= r.win_share <= r.ci_hi <= 1.0 and r.games == 12 for r in rows)
    assert evaluations.judged_share(rows, watched) == evaluations.mean_share(alone)


def test_an_arkham_side_is_watched_against_the_other_side_of_a_two_sided_agent():
    """The team's evaluation seats the watched agent as the Black Man, and the Black Man's as the team."""
    game = GameSettings("arkham_decoders", (5,), {})
    ev = EvaluationSettings(every=1, games=6, opponents=("heuristic",), greedy=True, watch=("arkham_selfplay",))
    for side, path in (("team", SHIPPED_DIR / "arkham_team.pt"), ("black_man", SHIPPED_DIR / "arkham_black_man.pt")):
        rows = evaluations.evaluate_policy(path, side, game, ev, 5, side, True, batched=False)
        assert [(r.side, r.opponent, r.players) for r in rows] == [(side, "heuristic", 5), (side, "arkham_selfplay", 5)]
        assert all(0.0 <= r.win_share <= 1.0 for r in rows)
