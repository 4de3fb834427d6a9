"""What a person is told: each game's events and moves in words, from one seat's point of view.

The engine's events are the record's god's-eye view (hands, discards, identities). A presenter
turns them into sentences for the person's seat, leaving out what that seat may not know and
holding back what is simultaneous (Arkham's advice cards, Members Only's end-of-heat discards)
until everyone has chosen.
"""

from __future__ import annotations

from club_envs.play.presenter_base import Presenter, plural

__all__ = ["Presenter", "plural", "presenter_for"]


def presenter_for(record_name: str) -> type[Presenter]:
    """The presenter class of a game, by any of its names (its spec's ``presenter`` hook)."""
    from club_envs.games import get_spec

    spec = get_spec(record_name)
    if not spec.has_hook("presenter"):
        raise ValueError(f"no presenter for game {record_name!r}")
    return spec.hook("presenter")

