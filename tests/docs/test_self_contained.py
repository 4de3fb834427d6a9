"""The project stands on its own: nothing points outside the repository, and the rules pages' test
references name tests that exist.

The rules and every ruling the engines follow are pages of the documentation (``docs/rules/``),
each ruling naming the tests that pin it as ``tests/<path>.py::<test name>``; a renamed or deleted
test fails here until the page says which test pins the ruling now.
"""

from __future__ import annotations

import ast
import functools
import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
RULES = sorted((ROOT / "docs" / "rules").glob("*.md"))

# What the repository must not lean on: the folder of source material kept beside a checkout
# (its rules, seeds and tools), reached by a relative path or by name.
OUTSIDE = [
    re.compile(r"\.\.[/\\]+shared\b"),
    re.compile(r"\bshared[/\\]+(?:rules|seeds|tools|hooks)\b"),
    re.compile(r"beside\s+this\s+repository|project's\s+shared\s+folder", re.I),
]
TEST_REF = re.compile(r"\b(tests/[\w/]+\.py)::(\w+)")
LINK = re.compile(r"\]\(([^)\s#]+)(?:#[^)]*)?\)")


@functools.cache
def _tracked_text_files() -> tuple[Path, ...]:
    """Every tracked file of the checkout that is text: code, tests, docs, configs, build and CI files."""
    done = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True)
    listed = done.stdout.splitlines()
    files = []
    for name in listed:
        path = ROOT / name
        data = path.read_bytes() if path.is_file() else b"\0"
        if b"\0" not in data[:8192]:  # text, not a checkpoint or an image
            files.append(path)
    return tuple(files)


def _test_names(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {node.name for node in ast.walk(tree)
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name.startswith("test")}


def test_no_tracked_file_refers_to_a_path_outside_the_repository():
    files = _tracked_text_files()
    names = {str(p.relative_to(ROOT)) for p in files}
    assert {"README.md", "mkdocs.yml", "club_envs/records.py", "docs/records.md"} <= names
    found = []
    for path in files:
        for number, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
            if any(pattern.search(line) for pattern in OUTSIDE):
                found.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert not found, "references outside the repository:\n" + "\n".join(found)


def test_the_outside_patterns_catch_what_they_are_for():
    """Sanity check of the scan above: each pattern matches the kind of reference it forbids.

    The samples are built from their parts so that this file passes its own scan.
    """
    samples = ["see " + "/".join(["..", "shared", "rules", "members_only.md"]),
               "Rules: " + "/".join(["shared", "seeds", "members_only_rules_ja.txt"]),
               " ".join(["the contract in the project's", "shared", "folder"])]
    assert all(any(p.search(s) for p in OUTSIDE) for s in samples)
    assert not any(p.search("a shared win counts 1/k; shared_memory; docs/rules/members_only.md") for p in OUTSIDE)


def test_every_relative_markdown_link_stays_inside_the_repository():
    pages = [p for p in _tracked_text_files() if p.suffix == ".md"]
    outside = []
    for page in pages:
        for target in LINK.findall(page.read_text(encoding="utf-8")):
            if "://" in target or target.startswith("mailto:"):
                continue
            resolved = (page.parent / target).resolve()
            if not resolved.is_relative_to(ROOT):
                outside.append(f"{page.relative_to(ROOT)}: {target}")
    assert not outside, "links leaving the repository:\n" + "\n".join(outside)


def test_both_games_have_a_rules_page_in_the_site():
    assert [p.name for p in RULES] == ["arkham_decoders_club.md", "members_only.md"]
    nav = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    assert all(f"rules/{p.name}" in nav for p in RULES)


@pytest.mark.parametrize("page", RULES, ids=lambda p: p.name)
def test_every_test_a_rules_page_names_exists(page):
    refs = TEST_REF.findall(page.read_text(encoding="utf-8"))
    assert len(refs) >= 10, f"{page.name} names the tests of its rules and rulings"
    missing = []
    for file, name in refs:
        path = ROOT / file
        if not path.is_file():
            missing.append(f"{file} (no such file)")
        elif name not in _test_names(path):
            missing.append(f"{file}::{name}")
    assert not missing, f"{page.name} names tests that do not exist: {missing}"


@pytest.mark.parametrize("page", RULES, ids=lambda p: p.name)
def test_every_ruling_is_numbered_anchored_and_pinned_by_a_test(page):
    text = page.read_text(encoding="utf-8")
    rulings = re.split(r"^### ", text.split("## 10. Rulings", 1)[1], flags=re.M)[1:]
    assert rulings, f"{page.name} has a rulings section"
    for number, section in enumerate(rulings, 1):
        heading = section.splitlines()[0]
        assert heading.startswith(f"R{number}. ") and heading.endswith(f"{{#r{number}}}"), heading
        pinned = section.split("Pinned by:", 1)
        assert len(pinned) == 2 and TEST_REF.search(pinned[1]), f"{page.name} R{number} names no test"


DOTTED = re.compile(r"`(club_envs(?:\.\w+)+)`")


def _resolves(dotted: str) -> bool:
    """Whether ``dotted`` names a module of the package or something a module holds."""
    import importlib

    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            found = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for name in parts[cut:]:
            if not hasattr(found, name):
                return False
            found = getattr(found, name)
        return True
    return False


def test_every_dotted_name_a_page_gives_exists():
    """A page that points a reader at ``club_envs.x.NAME`` points at something there: a constant
    moved to another module fails here until the page follows it."""
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
    missing = sorted({f"{page.relative_to(ROOT)}: {name}" for page in pages
                      for name in DOTTED.findall(page.read_text(encoding="utf-8")) if not _resolves(name)})
    assert not missing, missing
    assert not _resolves("club_envs.training.arkham_belief.SCHEMA")  # the check can fail
