"""The documentation site builds in strict mode: no broken link or anchor, no missing page, snippet
or API reference (what ``make docs`` runs, into a temporary folder)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_site_builds_in_strict_mode(tmp_path):
    site = tmp_path / "site"
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--config-file",
                           str(ROOT / "mkdocs.yml"), "--site-dir", str(site)],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-4000:]
    api = (site / "api" / "index.html").read_text(encoding="utf-8")
    assert "club_envs.records.replay" in api  # the API reference was generated from the docstrings
    game = (site / "games" / "members_only" / "index.html").read_text(encoding="utf-8")
    assert "seats_present" in game and "--8&lt;--" not in game  # the generated tables were included
