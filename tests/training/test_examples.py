"""The example configs by name (``club-envs train members_only_4p``), ``club-envs configs``, and the
checkout's ``training/`` scripts, which only run ``club-envs`` commands."""

from __future__ import annotations

import runpy
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from club_envs.cli import main
from club_envs.training import examples
from club_envs.training import train as trainer

ROOT = Path(__file__).resolve().parents[2]
CONFIG_DIR = ROOT / "configs"
NAMES = sorted(p.stem for p in CONFIG_DIR.glob("*.yaml"))


def test_a_checkout_reads_its_configs_folder_and_every_example_has_a_name():
    assert examples.examples_dir() == CONFIG_DIR
    assert examples.names() == NAMES and "members_only_4p" in NAMES


def test_an_installed_package_reads_its_packaged_copy(tmp_path, monkeypatch):
    package = tmp_path / "site-packages" / "club_envs"
    (package / "configs").mkdir(parents=True)
    (package / "configs" / "only_this.yaml").write_text("# Packaged: a copy made by the build.\n")
    monkeypatch.setattr(examples, "_PACKAGE", package)
    assert examples.names() == ["only_this"]
    assert examples.resolve("only_this") == package / "configs" / "only_this.yaml"
    assert examples.describe("only_this") == "Packaged"


@pytest.mark.parametrize("arg", ["members_only_4p", "members_only_4p.yaml"])
def test_a_bare_name_resolves_to_the_example(arg, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # no such file here
    assert examples.resolve(arg) == CONFIG_DIR / "members_only_4p.yaml"


def test_a_file_wins_over_an_example_of_the_same_name(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("members_only_4p.yaml").write_text("game: {name: members_only}\n")
    assert examples.resolve("members_only_4p.yaml") == Path("members_only_4p.yaml")
    assert examples.resolve(CONFIG_DIR / "arkham_smoke.yaml") == CONFIG_DIR / "arkham_smoke.yaml"


def test_an_unknown_name_lists_every_example(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(FileNotFoundError) as err:
        examples.resolve("members_only_5p")
    message = str(err.value)
    assert message.startswith("members_only_5p: no such config file, and no example config named 'members_only_5p'")
    assert all(name in message for name in NAMES)
    assert "club-envs configs" in message


def test_a_missing_path_is_a_missing_file_not_a_name(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(FileNotFoundError, match=r"configs/typo.yaml: no such config file .*members_only_4p"):
        examples.resolve("configs/typo.yaml")


def test_train_cli_refuses_an_unknown_name_in_one_line_and_writes_nothing(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["train", "no_such_example", "--runs-dir", "runs", "--no-progress"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and err.startswith("club-envs train: error: no_such_example: no such config file")
    assert all(name in err for name in NAMES)
    assert not Path("runs").exists() or not any(Path("runs").iterdir())


def test_training_from_an_example_name(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    run_dir = trainer.run(Path("members_only_smoke"), runs_dir=tmp_path / "runs", progress=False)
    assert run_dir.name.startswith("members_only_smoke-")
    assert (run_dir / "best" / "policy.pt").is_file()


def test_configs_lists_every_example_with_what_it_is_for(capsys):
    assert main(["configs"]) == 0
    listed = capsys.readouterr().out
    assert main(["configs", "list"]) == 0
    assert capsys.readouterr().out == listed
    rows = {line.split()[0]: line for line in listed.splitlines()[: len(NAMES)]}
    assert sorted(rows) == NAMES
    assert "The default config (make train)" in rows["members_only_belief"]
    assert "the shipped `members_only` policy" in rows["members_only_4p"]


def test_configs_copy_writes_an_identical_editable_file(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["configs", "copy", "members_only_4p"]) == 0
    assert Path("members_only_4p.yaml").read_bytes() == (CONFIG_DIR / "members_only_4p.yaml").read_bytes()
    assert "club-envs train members_only_4p.yaml" in capsys.readouterr().out
    assert main(["configs", "copy", "arkham_smoke", "mine/"]) == 0  # a folder (created) gets NAME.yaml
    assert Path("mine/arkham_smoke.yaml").read_bytes() == (CONFIG_DIR / "arkham_smoke.yaml").read_bytes()
    assert main(["configs", "copy", "arkham_smoke", "mine/edited.yaml"]) == 0
    assert Path("mine/edited.yaml").is_file()


def test_configs_copy_keeps_an_existing_file_unless_forced(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    Path("mine.yaml").write_text("# my edits\n")
    assert main(["configs", "copy", "members_only_4p", "mine.yaml"]) == 2
    assert "--force" in capsys.readouterr().err
    assert Path("mine.yaml").read_text() == "# my edits\n"
    assert main(["configs", "copy", "members_only_4p", "mine.yaml", "--force"]) == 0
    assert Path("mine.yaml").read_bytes() == (CONFIG_DIR / "members_only_4p.yaml").read_bytes()


def test_configs_copy_of_an_unknown_name_lists_the_names(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["configs", "copy", "nope"]) == 2
    err = capsys.readouterr().err
    assert "no example config named 'nope'" in err and all(name in err for name in NAMES)
    assert not any(tmp_path.iterdir())


# The checkout's scripts: ``python -m training.<module> ARGS`` runs ``club-envs COMMAND ARGS``.
SUBCOMMANDS = {
    "training.train": "train",
    "training.belief": "train",
    "training.rllib_backend.__main__": "train",
    "training.ship": "ship",
    "training.throughput": "bench",
    "training.curves": "curves",
    "training.rllib_backend.export": "export",
}


@pytest.mark.parametrize("entry,command", sorted(SUBCOMMANDS.items()))
def test_a_checkout_script_runs_its_club_envs_command(entry, command, monkeypatch):
    import club_envs.cli

    path = ROOT / (entry.replace(".", "/") + ".py")
    source = path.read_text()
    assert "def " not in source and "class " not in source, f"{path} holds code of its own"
    calls = []
    monkeypatch.setattr(club_envs.cli, "main", lambda argv=None: calls.append(argv) or 0)
    monkeypatch.setattr(sys, "argv", [str(path), "RUN", "--flag"])
    with pytest.raises(SystemExit) as done:
        runpy.run_module(entry, run_name="__main__")
    assert done.value.code == 0 and calls == [[command, "RUN", "--flag"]]


def test_train_takes_its_config_once_as_an_argument_or_an_option(capsys):
    assert main(["train", "a.yaml", "--config", "b.yaml"]) == 2
    assert "give the CONFIG file once" in capsys.readouterr().err


def test_python_m_training_train_runs_the_package_main():
    done = subprocess.run([sys.executable, "-m", "training.train", "--help"], cwd=ROOT, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "--resume" in done.stdout and "--config" in done.stdout


def test_the_wheel_packages_only_club_envs():
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert pyproject["tool"]["setuptools"]["packages"]["find"]["include"] == ["club_envs*"]
