"""The agents a server may seat: registered names and the entries of one server-side folder.

A person at a web page names opponents by word only. The word is looked up here -- a built-in
bot, an installed shipped agent, or an entry of the owner's agents folder (a ``*.pt`` file or a
checkpoint/run folder directly inside it, named by its file stem or folder name) -- and never
used as a path. An unknown word gets the same answer whether or not a file of that name exists
anywhere, and a folder entry that fails to load is reported by its name only.
"""

from __future__ import annotations

import re
from pathlib import Path
from types import ModuleType
from typing import Any

import club_envs.agents.registry as registry
from club_envs.agents.base import Agent, as_agent
from club_envs.play.agents import agent_choices

NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
FLAGS = ("", "greedy", "sample")
MAX_NAME = 80


class AgentCatalogue:
    """Registered agents plus the agents folder ``agents_dir`` (optional), looked up by name."""

    def __init__(self, agents_dir: str | Path | None = None) -> None:
        self.agents_dir = Path(agents_dir) if agents_dir is not None else None
        if self.agents_dir is not None and not self.agents_dir.is_dir():
            raise ValueError(f"agents folder {self.agents_dir} does not exist")

    def folder_entries(self) -> dict[str, Path]:
        """Folder entries by name, read afresh (the owner may add agents while the server runs)."""
        if self.agents_dir is None:
            return {}
        entries: dict[str, Path] = {}
        for path in sorted(self.agents_dir.iterdir()):
            name = path.stem if path.is_file() else path.name
            if (path.is_dir() or path.suffix == ".pt") and NAME.match(name) and ":" not in name:
                entries.setdefault(name, path)
        return entries

    def choices(self, game: ModuleType) -> list[str]:
        """Every name a person may pick for ``game``: registered first, then the folder's."""
        names = agent_choices(game)
        return names + [n for n in self.folder_entries() if n not in names]

    @staticmethod
    def registered(game: ModuleType) -> list[str]:
        """Bots and installed shipped agents of ``game``, including those for some roles only
        (they may fill those roles in a role-by-role lineup)."""
        shipped = [n for n in registry.shipped_names() if registry.SHIPPED[n][0] == game.RECORD_NAME]
        return list(dict.fromkeys([*registry.bot_names(game), *agent_choices(game), *shipped]))

    def make(self, game: ModuleType, name: str, config: Any, seed: int | None = None) -> Agent:
        """The agent ``name`` (optionally ``:greedy``/``:sample``); ``ValueError`` lists the choices."""
        text = name if isinstance(name, str) else ""
        base, _, flag = text.partition(":")
        registered = self.registered(game)
        folder = self.folder_entries()
        if len(text) > MAX_NAME or flag not in FLAGS or (base not in registered and base not in folder):
            shown = text if len(text) <= MAX_NAME else text[:MAX_NAME] + "..."
            known = list(dict.fromkeys([*registered, *folder]))
            raise ValueError(f"unknown agent {shown!r}; choose one of: {', '.join(known)} "
                             "(optionally with :greedy or :sample)")
        if base in registered:
            return registry_agent(name, game, config, seed)
        try:
            return registry_agent(str(folder[base]) + (f":{flag}" if flag else ""), game, config, seed)
        except (ValueError, OSError, RuntimeError, KeyError):
            raise ValueError(f"agent {base!r} of the agents folder cannot play "
                             f"{game.RECORD_NAME} with {config.num_players} players") from None


def registry_agent(name: str, game: ModuleType, config: Any, seed: int | None) -> Agent:
    return as_agent(registry.load(name, game=game, config=config, seed=seed))
