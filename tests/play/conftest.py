"""Helpers shared by the human-play tests."""

from __future__ import annotations

import random

import pytest

from club_envs.play.human_game import HumanGame
from tests.play.databases import KINDS, fresh_database


def play_out(game: HumanGame, seed: int = 0, max_moves: int = 2000) -> int:
    """Play the person's seat with a seeded choice among the legal moves until the end."""
    rng = random.Random(seed)
    moves = 0
    while True:
        game.advance()
        if game.finished:
            return moves
        game.play(rng.choice(game.moves()).action)
        moves += 1
        assert moves < max_moves, "the game did not end"


@pytest.fixture
def records_dir(tmp_path):
    return tmp_path / "records"


@pytest.fixture(params=KINDS)
def database(request):
    """Each database the persistence tests run on (:mod:`tests.play.databases`)."""
    yield from fresh_database(request.param)
