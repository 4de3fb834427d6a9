"""The observation layout: named slices, egocentric order, padding, and the documentation's table."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from club_envs.members_only.engine import State
from club_envs.members_only.observer import LAYOUT, SIZE, SLICES, Observer
from club_envs.members_only.rules import Config
from tests.members_only.helpers import play_default

TABLE = Path(__file__).resolve().parents[2] / "docs" / "_generated" / "members_only_observation.md"


def test_slices_tile_the_vector_in_layout_order():
    position = 0
    for name, size, _ in LAYOUT:
        assert SLICES[name] == slice(position, position + size)
        position += size
    assert position == SIZE == Observer.size


@pytest.mark.parametrize("num_players", [3, 4, 5])
def test_observation_is_egocentric_and_padded_to_five_seats(num_players):
    config = Config(num_players=num_players)
    state = State(config, seed=1)
    play_default(state, until=lambda s: s.heat == 2, bets={(1, 1, 1): 14})
    observer = Observer(config)
    for seat in range(num_players):
        obs = observer.observe(state.player_view(seat))
        assert obs.shape == (SIZE,) and obs.dtype == np.float32
        assert obs.min() >= 0.0 and obs.max() <= 1.0
        present = obs[SLICES["seats_present"]]
        assert present.tolist() == [1.0] * num_players + [0.0] * (5 - num_players)
        tracks = obs[SLICES["tracks"]].reshape(5, 5) * 10
        for r in range(num_players):
            assert np.allclose(tracks[r], state.tracks[(seat + r) % num_players])
        assert not tracks[num_players:].any()
        hand_sizes = obs[SLICES["hand_sizes"]] * 11
        assert hand_sizes[0] == pytest.approx(sum(state.hands[seat]))
        start = obs[SLICES["start_player"]]
        assert start[(state.start_player - seat) % num_players] == 1.0 and start.sum() == 1.0


def test_board_slice_names_the_owner_relative_to_the_viewer():
    config = Config(num_players=4)
    state = State(config, seed=1)
    state.apply_action(15)  # seat 0: double chip on umbrella >=8, on the risk marker
    observer = Observer(config)
    board = observer.observe(state.player_view(2))[SLICES["board"]].reshape(40, 7)
    spot = 7  # umbrella >=8
    assert board[spot].tolist() == [0, 0, 1, 0, 0, 1, 1]  # seat 0 is two seats after seat 2
    assert board[np.arange(40) != spot].sum() == 0


def test_describe_lists_every_slice_with_its_size():
    rows = Observer(Config()).describe()
    assert [r[0] for r in rows] == list(SLICES)
    assert sum(r[1] for r in rows) == SIZE
    table = Observer.describe_markdown()
    assert f"| **total** | **{SIZE}** | |" in table


def test_the_documented_observation_table_matches_the_observer():
    text = TABLE.read_text(encoding="utf-8") if TABLE.exists() else ""
    assert text == Observer.describe_markdown() + "\n", (
        "docs/_generated/members_only_observation.md (the Members Only page's table) must be "
        "club_envs.members_only.observer.Observer.describe_markdown(): run python docs/gen_pages.py"
    )
