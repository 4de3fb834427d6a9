"""Random numbers for the batched engine: :mod:`club_envs.vector_rng` (one xorshift64 generator
per game, shared by both games' batched engines)."""

from __future__ import annotations

from club_envs.vector_rng import draw, seed_states

__all__ = ["draw", "seed_states"]
