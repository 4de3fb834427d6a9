"""Fuzzing training configs: a damaged config is refused with one ConfigFileError line naming the
file (and ``club-envs train`` exits 2 creating no run folder), or it loads into a config whose rule
options the game accepts and that reads back the same from the run folder's ``config.yaml``."""

from __future__ import annotations

import contextlib
import io
import tempfile
from pathlib import Path

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from club_envs.cli import main
from club_envs.training import config as configs
from club_envs.training import games as training_games
from club_envs.training.settings import SelfPlayConfig, TrainingConfig

from .mutations import damage_bytes, fuzz_settings, mutate

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = sorted((ROOT / "configs").glob("*.yaml"))


def load_checked(path: Path) -> TrainingConfig | None:
    """The config, or ``None`` after checking the refusal is one line naming the file."""
    try:
        cfg = configs.load(path)
        if isinstance(cfg, SelfPlayConfig):  # the belief recipes play the standard rules
            training_games.check_options(cfg.game)
    except configs.ConfigFileError as exc:
        message = str(exc)
        assert message.startswith(str(path) + ":") or message.startswith("game.options:"), message
        assert "\n" not in message and len(message) < 1000, message
        return None
    return cfg


def assert_resumable(cfg: TrainingConfig, folder: Path) -> None:
    """What ``club-envs train`` writes as ``config.yaml`` validates again to the same config."""
    written = folder / "config.yaml"
    written.write_text(configs.dump(cfg.raw))
    assert configs.load(written) == cfg


@pytest.mark.parametrize("shipped", SHIPPED, ids=[p.stem for p in SHIPPED])
@fuzz_settings(15)
@given(data=st.data())
def test_a_damaged_config_is_refused_or_loads(shipped, data):
    raw = mutate(data, yaml.safe_load(shipped.read_text()))
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "config.yaml"
        try:
            path.write_text(yaml.safe_dump(raw))
        except yaml.YAMLError:  # a value YAML cannot write is not a file a user can have
            return
        cfg = load_checked(path)
        if cfg is not None:
            assert_resumable(cfg, Path(tmp))


@fuzz_settings(40)
@given(data=st.data())
def test_a_config_file_with_damaged_bytes_is_refused_or_loads(data):
    shipped = data.draw(st.sampled_from(SHIPPED), label="config")
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "config.yaml"
        path.write_bytes(damage_bytes(data, shipped.read_bytes()))
        cfg = load_checked(path)
        if cfg is not None:
            assert_resumable(cfg, Path(tmp))


@fuzz_settings(12)
@given(data=st.data())
def test_train_refuses_a_bad_config_in_one_line_and_creates_no_run_folder(data):
    raw = mutate(data, yaml.safe_load((ROOT / "configs" / "members_only_smoke.yaml").read_text()))
    with tempfile.TemporaryDirectory() as tmp:
        path, runs = Path(tmp) / "bad.yaml", Path(tmp) / "runs"
        try:
            path.write_text(yaml.safe_dump(raw))
        except yaml.YAMLError:
            return
        if load_checked(path) is not None:
            return  # a config that is still valid would start training: not this test's business
        err = io.StringIO()
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            status = main(["train", str(path), "--runs-dir", str(runs), "--no-progress"])
        assert status == 2
        lines = err.getvalue().strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("club-envs train: error: "), lines
        assert not runs.exists()
