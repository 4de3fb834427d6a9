"""``club-envs curves`` and ``club-envs export``: the commands that read a finished run folder."""

from __future__ import annotations

from club_envs.cli import main

HEADER = "total_step,side,side_step,opponent,players,games,win_share,ci_lo,ci_hi\n"


def test_curves_draws_a_run_folder_and_prints_the_file(tmp_path, capsys):
    (tmp_path / "evaluations.csv").write_text(HEADER + "100,player,100,random,4,20,0.4,0.2,0.6\n"
                                              "200,player,200,random,4,20,0.5,0.3,0.7\n")
    assert main(["curves", str(tmp_path), "--title", "tiny"]) == 0
    assert capsys.readouterr().out.strip() == str(tmp_path / "learning_curve.png")
    assert (tmp_path / "learning_curve.png").stat().st_size > 0
    assert main(["curves", str(tmp_path), "--out", str(tmp_path / "plots" / "c.png")]) == 0
    assert (tmp_path / "plots" / "c.png").is_file()


def test_curves_of_a_folder_without_evaluations_is_one_error_line(tmp_path, capsys):
    assert main(["curves", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "has no evaluations.csv" in err[0]


def test_export_of_a_folder_that_is_no_checkpoint_is_one_error_line(tmp_path, capsys):
    assert main(["export", str(tmp_path), str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("club-envs export: error:")
    assert not (tmp_path / "out").exists()
