"""The site's generated tables say what the code does now, and every page is reachable.

The tables that describe code (observation layouts, action lists, spaces, the config reference, the
command reference) are written by ``docs/gen_pages.py``; a change to the code that changes one of
them fails here until ``python docs/gen_pages.py`` is run.
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"


@pytest.fixture(scope="module")
def gen():
    spec = importlib.util.spec_from_file_location("club_envs_docs_gen_pages", DOCS / "gen_pages.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _pages() -> dict[str, str]:
    return {str(p.relative_to(DOCS)): p.read_text(encoding="utf-8")
            for p in DOCS.rglob("*.md") if "_generated" not in p.parts}


def _nav_files(nav) -> list[str]:
    out: list[str] = []
    for item in nav:
        if isinstance(item, str):
            out.append(item)
        elif isinstance(item, dict):
            for value in item.values():
                out.extend(_nav_files(value) if isinstance(value, list) else [value])
    return out


def test_every_generated_table_is_current(gen):
    outdated = gen.stale()
    assert not outdated, f"out of date: {', '.join(outdated)}; run python docs/gen_pages.py"


def test_the_observation_tables_are_the_observers(gen):
    from club_envs.arkham_decoders.observer import Observer as ArkhamObserver
    from club_envs.members_only.observer import Observer as MembersOnlyObserver

    for name, observer in (("members_only", MembersOnlyObserver), ("arkham_decoders", ArkhamObserver)):
        text = (DOCS / "_generated" / f"{name}_observation.md").read_text(encoding="utf-8")
        assert text == observer.describe_markdown() + "\n"
        page = (DOCS / "games" / f"{name}.md").read_text(encoding="utf-8")
        assert f'--8<-- "docs/_generated/{name}_observation.md"' in page


def test_every_config_key_has_a_meaning_and_no_meaning_is_left_over(gen):
    keys = [key for key, _ in gen.config_keys()]
    assert set(keys) == set(gen.CONFIG_MEANINGS), (
        f"without a meaning: {sorted(set(keys) - set(gen.CONFIG_MEANINGS))}; "
        f"no longer in the schema: {sorted(set(gen.CONFIG_MEANINGS) - set(keys))}")
    table = gen.config_reference()
    for key in keys:
        assert f"| `{key}` |" in table


def test_every_table_ppo_key_has_a_meaning_and_its_default(gen):
    from club_envs.training.config import TABLE_PPO_DEFAULTS, TABLE_PPO_SCHEMA

    keys = [key for key, _ in gen._leaves(TABLE_PPO_SCHEMA)]
    assert set(keys) == set(gen.TABLE_PPO_MEANINGS), sorted(set(keys) ^ set(gen.TABLE_PPO_MEANINGS))
    table = gen.table_ppo_reference()
    assert f"| `ppo.games` | `{TABLE_PPO_DEFAULTS['ppo']['games']}` |" in table
    assert all(f"| `{key}` |" in table for key in keys)


def test_the_config_reference_shows_the_schema_defaults(gen):
    from club_envs.training.config import DEFAULTS

    table = gen.config_reference()
    assert f"| `algorithm.n_steps` | `{DEFAULTS['algorithm']['n_steps']}` |" in table
    assert f"| `pretrain.critic_steps` | `{DEFAULTS['pretrain']['critic_steps']}` |" in table
    assert "| `game.name` | (required) |" in table


def test_check_mode_names_a_stale_file_and_writing_fixes_it(gen, tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(gen, "OUT", tmp_path)
    assert gen.main(["--check"]) == 1  # nothing written yet: every file is missing
    assert gen.main([]) == 0
    assert gen.main(["--check"]) == 0
    (tmp_path / "config_reference.md").write_text("| hand-edited |\n", encoding="utf-8")
    capsys.readouterr()
    assert gen.main(["--check"]) == 1
    assert "docs/_generated/config_reference.md is out of date" in capsys.readouterr().err


def test_every_generated_file_is_included_by_a_page(gen):
    text = "\n".join(_pages().values())
    for name in gen.PAGES:
        assert f'--8<-- "docs/_generated/{name}"' in text, f"no page includes docs/_generated/{name}"


def test_every_page_is_in_the_navigation_and_every_nav_entry_exists():
    nav = _nav_files(yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))["nav"])
    left_out = sorted(set(_pages()) - set(nav))
    assert not left_out, f"pages missing from the navigation in mkdocs.yml: {left_out}"
    missing = [page for page in nav if not (DOCS / page).is_file()]
    assert not missing, f"in the navigation but not written: {missing}"


def test_every_tutorial_script_has_a_page_that_shows_it():
    pages = _pages()
    for script in sorted((DOCS / "tutorials").glob("*.py")):
        page = pages.get(f"tutorials/{script.stem}.md", "")
        sections = set(re.findall(r"\[start:(\w+)\]", script.read_text(encoding="utf-8")))
        assert sections, f"{script.name} marks no section to show"
        for section in sections:
            assert f'--8<-- "docs/tutorials/{script.name}:{section}"' in page or \
                f'--8<-- "docs/tutorials/{script.name}:{section}"' in pages["index.md"], \
                f"section {section} of {script.name} is on no page"


def test_every_shipped_config_is_listed_and_valid():
    from club_envs.training.config import load

    reference = (DOCS / "config.md").read_text(encoding="utf-8")
    for path in sorted((ROOT / "configs").glob("*.yaml")):
        load(path)
        assert f"`{path.name}`" in reference, f"configs/{path.name} is not listed on docs/config.md"


def test_every_extra_says_what_it_is_for(gen):
    assert set(gen.extras()) == set(gen.EXTRA_USES), (
        "docs/gen_pages.py EXTRA_USES must name exactly the extras of pyproject.toml")
    assert "mkdocs" in gen.extras()["docs"] and "docs" in gen.extras()["all"][0]
