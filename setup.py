"""Build hook: the wheel carries the example training configs as package data.

The YAML files live once, in the repository's ``configs/`` folder (what people read, edit and pass
as ``club-envs train configs/NAME.yaml``). Building the wheel copies them to ``club_envs/configs/``
so that ``club-envs train NAME`` finds them after a plain ``pip install``
(:mod:`club_envs.training.examples`). The sdist carries ``configs/`` (``MANIFEST.in``), so a wheel
built from the sdist gets the same copy. Everything else is declared in ``pyproject.toml``.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

EXAMPLES = Path(__file__).resolve().parent / "configs"
PACKAGED = Path("club_envs") / "configs"


class BuildWithExampleConfigs(build_py):
    """``build_py`` plus ``configs/*.yaml`` -> ``<build>/club_envs/configs/``."""

    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):
            return  # an editable install reads the checkout's configs/ itself
        target = Path(self.build_lib) / PACKAGED
        target.mkdir(parents=True, exist_ok=True)
        for source in self._examples():
            shutil.copyfile(source, target / source.name)

    def get_outputs(self, include_bytecode: bool = True) -> list[str]:
        outputs = super().get_outputs(include_bytecode)
        if getattr(self, "editable_mode", False):
            return outputs
        return outputs + [str(Path(self.build_lib) / PACKAGED / p.name) for p in self._examples()]

    @staticmethod
    def _examples() -> list[Path]:
        found = sorted(EXAMPLES.glob("*.yaml"))
        if not found:
            raise RuntimeError(f"no example configs in {EXAMPLES}: the wheel would ship none")
        return found


setup(cmdclass={"build_py": BuildWithExampleConfigs})
