"""How the batched engine's functions are compiled: :data:`club_envs.compiled.compiled` (shared by
both games' batched engines; see that module for why ``cache=True`` and ``_nrt=False``)."""

from __future__ import annotations

from club_envs.compiled import compiled

__all__ = ["compiled"]
