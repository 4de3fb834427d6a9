"""Every Python example on the site's pages and in the README runs as printed.

Blocks that include a tutorial section (``--8<--``) are the tutorials' own code, run by
``test_tutorials.py``; every other ```python block is run here, in a fresh process from an empty
folder.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
_BLOCK = re.compile(r"^```python\n(.*?)^```", re.S | re.M)


def examples() -> list[tuple[str, str]]:
    files = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
    found = []
    for path in files:
        if "_generated" in path.parts:
            continue
        for k, match in enumerate(_BLOCK.finditer(path.read_text(encoding="utf-8"))):
            code = match.group(1)
            if code.lstrip().startswith("--8<--") or any(code == seen for _, seen in found):
                continue  # a tutorial's own code, or the same example on another page
            found.append((f"{path.relative_to(ROOT)}#{k}", code))
    return found


EXAMPLES = examples()


def test_the_readme_has_a_pettingzoo_and_a_gymnasium_example():
    readme = [code for name, code in EXAMPLES if name.startswith("README.md")]
    assert any("agent_iter()" in code for code in readme)
    assert any("gymnasium.make(" in code for code in readme)


@pytest.mark.parametrize("name,code", EXAMPLES, ids=[name for name, _ in EXAMPLES])
def test_the_example_runs(name, code, tmp_path):
    if "runs/demo/" in code:  # the records example reads what `make demo` writes
        subprocess.run([sys.executable, "-m", "club_envs", "simulate", "members_only", "--players", "4",
                        "--games", "1", "--agents", "heuristic,random,random,random", "--seed", "1",
                        "--out", "runs/demo", "--no-progress"], cwd=tmp_path, check=True, capture_output=True)
    # One BLAS/OpenMP thread: on a shared, loaded machine torch's thread pools otherwise spin
    # against each other and a few seconds of training take minutes.
    env = {**os.environ, "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True,
                          timeout=600, stdin=subprocess.DEVNULL, env=env)
    assert done.returncode == 0, f"{name} failed:\n{done.stderr[-4000:]}"
