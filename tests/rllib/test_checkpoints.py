"""Which checkpoint a resumed run continues from."""

from __future__ import annotations

from club_envs.training.rllib_backend.run import checkpoint_to_resume


def test_resume_falls_back_to_the_previous_checkpoint_when_a_kill_fell_between_the_renames(tmp_path):
    assert checkpoint_to_resume(tmp_path) is None  # killed before the first checkpoint
    old = tmp_path / "checkpoints" / "rllib.old"
    old.mkdir(parents=True)
    (old / "league.json").write_text("{}")
    (tmp_path / "checkpoints" / "rllib.tmp").mkdir()  # a half-written one is never used
    assert checkpoint_to_resume(tmp_path) == old
    new = tmp_path / "checkpoints" / "rllib"
    new.mkdir()
    (new / "league.json").write_text("{}")
    assert checkpoint_to_resume(tmp_path) == new
