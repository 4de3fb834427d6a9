"""The package keeps the shape docs/development.md draws (figures from ``tests/structure.py``)."""

from __future__ import annotations

import textwrap

from tests import structure


def test_no_layer_outside_the_registry_compares_against_a_game_name():
    assert structure.measure().game_names == []


def test_every_module_is_on_the_layer_map_and_imports_point_down():
    figures = structure.measure()
    assert figures.unplaced == []
    assert figures.upward == []


def test_no_import_cycles():
    assert structure.measure().cycles == []


def test_no_function_is_longer_than_the_limit():
    assert structure.measure().long_functions == []


def test_only_the_config_loader_takes_a_raw_config_dict():
    assert set(structure.measure().cfg_modules) <= {structure.CONFIG_LOADER}


def test_the_walk_finds_what_it_is_meant_to_find(tmp_path):
    """A planted comparison, upward import, cycle, long function and cfg parameter are all caught."""
    package = tmp_path / "club_envs"
    (package / "games").mkdir(parents=True)
    (package / "cli").mkdir()
    (package / "__init__.py").write_text("")
    (package / "games" / "__init__.py").write_text("")
    (package / "cli" / "__init__.py").write_text("")
    (package / "records.py").write_text("from club_envs.cli import a\n")
    (package / "cli" / "a.py").write_text("from club_envs.cli import b\nif x == 'toy':\n    pass\n")
    body = "\n".join(f"    x{i} = {i}" for i in range(structure.MAX_FUNCTION_LINES))
    (package / "cli" / "b.py").write_text("import club_envs.cli.a\n\ndef long(cfg):\n" + body + "\n")
    (package / "stray.py").write_text(textwrap.dedent("x = 1\n"))
    figures = structure.measure(tmp_path, game_names=["toy"])
    assert figures.game_names == ["club_envs/cli/a.py:2"]
    assert figures.upward == ["club_envs.records -> club_envs.cli.a (layer 0 -> 3)"]
    assert figures.unplaced == ["club_envs.stray"]
    assert figures.cycles == [["club_envs.cli.a", "club_envs.cli.b"]]
    assert figures.long_functions == [(structure.MAX_FUNCTION_LINES + 1, "club_envs/cli/b.py:long")]
    assert figures.cfg_modules == ["club_envs.cli.b"]
