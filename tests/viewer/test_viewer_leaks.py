"""Each seat's replay shows only what that seat knew: twin records that differ only in hidden
information give that seat (and the spectator) byte-identical answers at every step -- the table,
the log, what the agent weighed, the result -- while the seat that holds the difference, and the
researcher's view, do see it (so the comparison is not vacuous)."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator

import pytest

from club_envs.play.replay_view import Replay
from club_envs.web.viewer import step_body, templates
from tests.viewer.records_made import ARKHAM, MEMBERS_ONLY, arkham_twin, members_only_twin, record

PAGES = templates()


LONG = os.environ.get("CLUB_ENVS_LONG") == "1"


def _steps(replay: Replay, view: str, numbers) -> Iterator[bytes]:
    """The bytes the API sends for each step (``JSONResponse`` writes the body as JSON)."""
    return (json.dumps(step_body(replay, n, view, PAGES)).encode() for n in numbers)


def _same(first: Replay, second: Replay, view: str, numbers) -> bool:
    return all(a == b for a, b in zip(_steps(first, view, numbers), _steps(second, view, numbers), strict=True))


def test_members_only_discard_and_cards_out_of_play_stay_hidden():
    rec = record(MEMBERS_ONLY)
    first, second = Replay.from_record(rec), Replay.from_record(members_only_twin(rec, seat=1))
    total = first.total
    assert second.total == total
    # the heat of the changed discard and the end (every step with CLUB_ENVS_LONG=1)
    numbers = range(total + 1) if LONG else [*range(first.chapters()[1][1] + 1), total]
    for view in ("0", "2", "public"):
        assert _same(first, second, view, numbers), view
    assert not _same(first, second, "1", numbers)
    assert not _same(first, second, "all", numbers)


def test_arkham_identities_stay_hidden_from_the_team_until_the_end():
    rec = record(ARKHAM)
    first, second = Replay.from_record(rec), Replay.from_record(arkham_twin(rec))
    total = first.total
    roles = rec["events"][0]["roles"]
    team = [str(s) for s, role in enumerate(roles) if role != "advisor"]
    advisors = [str(s) for s, role in enumerate(roles) if role == "advisor"]
    # the end reveals the true grimoire to everyone: compare every step before it
    for view in (*team, "public"):
        assert _same(first, second, view, range(total)), view
    for view in (*advisors, "all"):
        assert not _same(first, second, view, range(total)), view


@pytest.mark.parametrize("which", [MEMBERS_ONLY, ARKHAM])
def test_a_seat_sees_only_its_own_decisions_explained(which):
    rec = record(which)
    replay = Replay.from_record(rec)
    own = omniscient = 0
    for n in range(1, 16):
        everything = step_body(replay, n, "all", PAGES)["thinking"]
        assert step_body(replay, n, "public", PAGES)["thinking"] is None
        for seat in range(len(rec["seats"])):
            thinking = step_body(replay, n, str(seat), PAGES)["thinking"]
            if everything is not None and seat == everything["seat"]:
                assert thinking["thoughts"] and all("truth" not in b for b in thinking["beliefs"])
                own += 1
            else:
                assert thinking is None
        omniscient += everything is not None
    assert own > 0 and omniscient > 0
