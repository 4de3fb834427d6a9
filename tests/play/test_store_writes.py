"""The store's one writer: changes asked for at the same time share one commit, each caller
returns only once its change is committed, and a change that fails fails alone."""

from __future__ import annotations

import threading
import time

import pytest

from club_envs.store import SlotTaken, Store, default_url


def open_store(tmp_path, database) -> Store:
    return Store(database or default_url(tmp_path / "records"))


def game_fields(gid: str, participant: str | None = None, slot: int | None = None) -> dict:
    return dict(id=gid, owner="b:x", participant=participant, condition=None, slot=slot, game="members_only",
                num_players=4, human_seat=0, opponents="random", seed=7, show_agents=True, interface="browser",
                started_at="2026-01-01T00:00:00+00:00")


def hold_the_writer(store: Store) -> tuple[threading.Thread, threading.Event, threading.Event]:
    """A change that keeps the writer busy until released, so that the next changes queue up."""
    busy, release = threading.Event(), threading.Event()

    def slow(session) -> None:
        busy.set()
        assert release.wait(30)

    holder = threading.Thread(target=store.writer.write, args=(slow,))
    holder.start()
    assert busy.wait(30)
    return holder, busy, release


def wait_for_queue(store: Store, size: int) -> None:
    deadline = time.monotonic() + 30
    while len(store.writer._queue) < size:  # the changes waiting behind the busy writer
        assert time.monotonic() < deadline, "the changes did not queue"
        time.sleep(0.01)


def test_changes_that_arrive_together_share_one_commit_and_all_are_stored(tmp_path, database):
    store = open_store(tmp_path, database)
    try:
        games = [f"g{i:02d}" for i in range(12)]
        for gid in games:
            store.add_game(**game_fields(gid))
        holder, _, release = hold_the_writer(store)
        commits = store.writer.commits
        returned: dict[str, bool] = {}

        def play(gid: str, seat: int) -> None:
            store.save_progress(gid, 0, [(seat, 10 + seat), (seat + 1, 20 + seat)])
            returned[gid] = True  # only after the commit holding the change

        threads = [threading.Thread(target=play, args=(gid, i % 3)) for i, gid in enumerate(games)]
        for t in threads:
            t.start()
        wait_for_queue(store, len(games))
        assert not returned  # nobody is answered before the commit
        release.set()
        holder.join(30)
        for t in threads:
            t.join(30)
        assert store.writer.commits == commits + 2  # the held change, then all twelve in one commit
        assert sorted(returned) == games
        for i, gid in enumerate(games):
            seat = i % 3
            assert store.moves(gid) == [(seat, 10 + seat), (seat + 1, 20 + seat)]
    finally:
        store.close()


def test_a_change_that_fails_in_a_shared_commit_fails_alone(tmp_path, database):
    store = open_store(tmp_path, database)
    try:
        store.add_game(**game_fields("first", participant="P1", slot=0))
        store.add_game(**game_fields("other"))
        holder, _, release = hold_the_writer(store)
        outcome: dict[str, object] = {}

        def attempt(name: str, call) -> None:
            try:
                outcome[name] = call()
            except Exception as exc:  # noqa: BLE001 -- the test reads which change failed
                outcome[name] = exc

        calls = {
            "same slot": lambda: store.add_game(**game_fields("second", participant="P1", slot=0)),
            "move": lambda: store.save_progress("other", 0, [(0, 5)]),
            "new game": lambda: store.add_game(**game_fields("third", participant="P1", slot=1)),
            "unknown game": lambda: store.save_progress("nowhere", 0, []),
        }
        threads = [threading.Thread(target=attempt, args=item) for item in calls.items()]
        for t in threads:
            t.start()
        wait_for_queue(store, len(calls))
        release.set()
        holder.join(30)
        for t in threads:
            t.join(30)
        assert isinstance(outcome["same slot"], SlotTaken)
        assert isinstance(outcome["unknown game"], KeyError)
        assert store.moves("other") == [(0, 5)]
        assert outcome["new game"].id == "third" and store.game("third").slot == 1
        assert store.game("second") is None
    finally:
        store.close()


@pytest.mark.parametrize("status", ["finished", "abandoned"])
def test_the_commit_that_ends_a_game_stores_its_status_record_and_last_moves_together(tmp_path, database, status):
    store = open_store(tmp_path, database)
    try:
        store.add_game(**game_fields("g"))
        store.save_progress("g", 0, [(0, 1)])
        store.save_progress("g", 1, [(1, 2), (2, 3)], status, "2026-01-01T00:10:00+00:00", "g.json", {"game_id": "g"})
        row = store.game("g")
        assert (row.status, row.ended_at, row.record_name, row.record) == \
            (status, "2026-01-01T00:10:00+00:00", "g.json", {"game_id": "g"})
        assert store.moves("g") == [(0, 1), (1, 2), (2, 3)]
        assert store.count_playing() == 0
    finally:
        store.close()


def test_a_browser_s_participant_is_remembered_as_last_bound_and_unknown_browsers_are_not(tmp_path, database):
    store = open_store(tmp_path, database)
    store.ensure_participants(["P-A", "P-B"])
    assert store.participant_of("browser-1") is None  # not remembered as unknown: a later binding is seen
    store.bind_browser("browser-1", "P-A", consented=True)
    assert store.participant_of("browser-1") == "P-A"
    store.bind_browser("browser-1", "P-B", consented=True)  # the same browser enters another code
    assert store.participant_of("browser-1") == "P-B"
    assert store.participant_of("browser-2") is None
    assert "browser-2" not in store._bound
    again = open_store(tmp_path, database)  # a restarted server reads the binding from the database
    assert again.participant_of("browser-1") == "P-B"
    again.close()
    store.close()


def test_the_bindings_kept_in_memory_stay_bounded(tmp_path, database, monkeypatch):
    monkeypatch.setattr("club_envs.store.BOUND_BROWSERS_KEPT", 3)
    store = open_store(tmp_path, database)
    store.ensure_participants(["P-A"])
    for n in range(6):
        store.bind_browser(f"browser-{n}", "P-A", consented=False)
    assert list(store._bound) == ["browser-3", "browser-4", "browser-5"]
    assert store.participant_of("browser-0") == "P-A"  # forgotten in memory, still in the database
    store.close()
