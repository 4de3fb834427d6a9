"""Where the server keeps its games: a database, so that nothing is lost when it stops.

Every game the server deals is a row (its seed, options and owner), every move a row, and every
finished or abandoned game's record is stored with it. The moves of a game are committed before
the request that played them is answered, so a server killed at any moment restarts with every
game where the person last saw it: the seed and the stored moves re-create it exactly.

SQLite (a file beside the records folder) needs no server; any SQLAlchemy URL
(``postgresql+psycopg://...``) serves a larger study. Nothing is ever deleted.

Writes go through one writer (:class:`GroupCommit`): the changes that many requests ask for at
the same moment are committed together, one transaction and one flush to disk for all of them,
and each request returns only once the commit holding its change is done. A commit is on disk
when it returns (SQLite: write-ahead log with ``synchronous=FULL``, so it survives the process
being killed and the machine losing power; PostgreSQL: its own durable commit), so what a
request acknowledged is never lost, while a crowd of players costs one disk flush per batch
rather than one per move.
"""

from __future__ import annotations

import json
import secrets
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from sqlalchemy import (
    Boolean,
    ForeignKey,
    Integer,
    String,
    Text,
    UniqueConstraint,
    create_engine,
    event,
    func,
    insert,
    select,
    update,
)
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import DeclarativeBase, Mapped, Session, mapped_column, sessionmaker

PLAYING, FINISHED, ABANDONED = "playing", "finished", "abandoned"
BOUND_BROWSERS_KEPT = 10_000  # browser bindings kept in memory (a lookup beyond them asks the database)


class Base(DeclarativeBase):
    pass


class MetaRow(Base):
    """Server-wide secrets (the token key, the owner's token), kept so restarts keep them."""

    __tablename__ = "meta"
    key: Mapped[str] = mapped_column(String(64), primary_key=True)
    value: Mapped[str] = mapped_column(Text)


class GameRow(Base):
    __tablename__ = "games"
    __table_args__ = (UniqueConstraint("participant", "slot", name="one_game_per_slot"),)

    id: Mapped[str] = mapped_column(String(40), primary_key=True)
    owner: Mapped[str] = mapped_column(String(80), index=True)
    participant: Mapped[str | None] = mapped_column(String(80), index=True, nullable=True)
    condition: Mapped[str | None] = mapped_column(String(80), nullable=True)
    slot: Mapped[int | None] = mapped_column(Integer, nullable=True)
    game: Mapped[str] = mapped_column(String(40))
    num_players: Mapped[int] = mapped_column(Integer)
    human_seat: Mapped[int] = mapped_column(Integer)
    opponents: Mapped[str] = mapped_column(Text)
    seed: Mapped[str] = mapped_column(String(64))  # up to 128 bits: text, every database holds it
    show_agents: Mapped[bool] = mapped_column(Boolean, default=True)
    interface: Mapped[str] = mapped_column(String(20), default="browser")
    status: Mapped[str] = mapped_column(String(12), index=True, default=PLAYING)
    started_at: Mapped[str] = mapped_column(String(40))
    ended_at: Mapped[str | None] = mapped_column(String(40), nullable=True)
    record_name: Mapped[str | None] = mapped_column(String(200), nullable=True, index=True)
    record: Mapped[str | None] = mapped_column(Text, nullable=True)


class MoveRow(Base):
    __tablename__ = "moves"

    game_id: Mapped[str] = mapped_column(ForeignKey("games.id"), primary_key=True)
    ply: Mapped[int] = mapped_column(Integer, primary_key=True)
    seat: Mapped[int] = mapped_column(Integer)
    action: Mapped[int] = mapped_column(Integer)


class ParticipantRow(Base):
    __tablename__ = "participants"

    code: Mapped[str] = mapped_column(String(80), primary_key=True)
    position: Mapped[int] = mapped_column(Integer, unique=True)
    consented_at: Mapped[str | None] = mapped_column(String(40), nullable=True)


class BrowserRow(Base):
    """A browser (its cookie) that entered a participant code."""

    __tablename__ = "browsers"

    id: Mapped[str] = mapped_column(String(80), primary_key=True)
    participant: Mapped[str] = mapped_column(ForeignKey("participants.code"))


@dataclass(frozen=True)
class StoredGame:
    """A game's row, detached from the database session."""

    id: str
    owner: str
    participant: str | None
    condition: str | None
    slot: int | None
    game: str
    num_players: int
    human_seat: int
    opponents: str
    seed: int
    show_agents: bool
    interface: str
    status: str
    started_at: str
    ended_at: str | None
    record_name: str | None
    record: dict[str, Any] | None

    @property
    def over(self) -> bool:
        return self.status != PLAYING


class SlotTaken(Exception):
    """A participant's game for this place in their schedule exists already."""


def default_url(records_dir: str | Path) -> str:
    """The SQLite file beside the records folder: ``runs/human`` -> ``runs/human.sqlite``."""
    records_dir = Path(records_dir)
    return f"sqlite:///{records_dir.with_name(records_dir.name + '.sqlite')}"


def now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


class _Write:
    """One request's change, waiting for the commit that holds it."""

    __slots__ = ("change", "done", "result", "error")

    def __init__(self, change: Callable[[Session], Any]) -> None:
        self.change = change
        self.done = False
        self.result: Any = None
        self.error: BaseException | None = None


class GroupCommit:
    """The one writer of a store: changes asked for at the same time share one commit.

    A thread hands its change (a function of a session) to :meth:`write` and waits. Whoever holds
    the writer's lock takes every change waiting, applies them in one transaction and commits
    once; the threads whose changes were in it find them done and return. While one commit is
    being flushed to disk the next changes gather, so a crowd pays one flush per batch. If a
    batch fails (say one change breaks a constraint), each of its changes is applied again in a
    transaction of its own, so that only the change at fault gets the error.
    """

    def __init__(self, session: sessionmaker) -> None:
        self._session = session
        self._writer = threading.Lock()  # one transaction writing at a time: no waiting on the database's locks
        self._queue_lock = threading.Lock()
        self._queue: list[_Write] = []
        self.commits = 0  # how many commits, and how many changes they held (read by benchmarks)
        self.changes = 0

    def write(self, change: Callable[[Session], Any]) -> Any:
        """Apply ``change(session)`` and commit; return its result once it is on disk."""
        mine = _Write(change)
        with self._queue_lock:
            self._queue.append(mine)
        with self._writer:
            if not mine.done:
                with self._queue_lock:
                    batch, self._queue = self._queue, []
                self._commit(batch)
        if mine.error is not None:
            raise mine.error
        if not mine.done:  # never answered as if committed
            raise RuntimeError("the change was not committed: the commit holding it was interrupted")
        return mine.result

    def _commit(self, batch: list[_Write]) -> None:
        try:
            with self._session() as s:
                results = [w.change(s) for w in batch]
                s.commit()
            self.commits += 1
            self.changes += len(batch)
            for w, result in zip(batch, results):
                w.result, w.done = result, True
            return
        except Exception as exc:  # noqa: BLE001 -- each change is tried again alone just below
            if len(batch) == 1:
                batch[0].error, batch[0].done = exc, True
                return
        except BaseException as exc:  # interrupted: every change of the batch is told, none is retried
            for w in batch:
                w.error, w.done = exc, True
            raise
        for w in batch:
            self._commit([w])


class Store:
    """The games, moves, records and participants of one server, in one database."""

    def __init__(self, url: str) -> None:
        self.url = url
        kwargs: dict[str, Any] = {}
        if url.startswith("sqlite"):
            path = url.split("///", 1)[1] if "///" in url else ""
            if path and path != ":memory:":
                Path(path).parent.mkdir(parents=True, exist_ok=True)
            kwargs["connect_args"] = {"check_same_thread": False, "timeout": 30}
        self.engine = create_engine(url, **kwargs)
        if url.startswith("sqlite"):
            @event.listens_for(self.engine, "connect")
            def _pragmas(dbapi_connection: Any, _record: Any) -> None:
                cursor = dbapi_connection.cursor()
                cursor.execute("PRAGMA journal_mode=WAL")
                cursor.execute("PRAGMA synchronous=FULL")  # a commit is on disk before the answer
                cursor.execute("PRAGMA foreign_keys=ON")
                cursor.close()
        Base.metadata.create_all(self.engine)
        self._session = sessionmaker(self.engine, expire_on_commit=False)
        self.writer = GroupCommit(self._session)
        # browser -> participant code, as bound here (every request of a study asks it): only this
        # server binds browsers, so a binding read once or written here stays true until rebound
        self._bound: OrderedDict[str, str] = OrderedDict()
        self._bound_lock = threading.Lock()
        self._binds = 0

    def close(self) -> None:
        self.engine.dispose()

    # ------------------------------------------------------------------ secrets
    def meta(self, key: str, make: Any = None) -> str | None:
        """The stored value of ``key``; if absent and ``make`` is given, store ``make()`` first."""
        with self._session() as s:
            row = s.get(MetaRow, key)
            if row is not None or make is None:
                return row.value if row else None
        value = make()

        def add(s: Session) -> None:
            if s.get(MetaRow, key) is None:
                s.add(MetaRow(key=key, value=value))

        try:
            self.writer.write(add)
        except IntegrityError:  # another process made it first
            pass
        return self.meta(key)

    # ------------------------------------------------------------------ games
    def add_game(self, **fields: Any) -> StoredGame:
        fields = {**fields, "seed": str(fields["seed"]), "status": PLAYING}

        def add(s: Session) -> StoredGame:
            row = GameRow(**fields)
            s.add(row)
            s.flush()  # a slot taken already fails here, in this change alone
            return _detach(row)

        try:
            return self.writer.write(add)
        except IntegrityError:
            raise SlotTaken(f"slot {fields.get('slot')} of {fields.get('participant')} is taken") from None

    def game(self, game_id: str) -> StoredGame | None:
        with self._session() as s:
            row = s.get(GameRow, game_id)
            return _detach(row) if row is not None else None

    def games(self, owner: str | None = None, participant: str | None = None,
              status: str | None = None) -> list[StoredGame]:
        query = select(GameRow).order_by(GameRow.started_at, GameRow.id)
        if owner is not None:
            query = query.where(GameRow.owner == owner)
        if participant is not None:
            query = query.where(GameRow.participant == participant)
        if status is not None:
            query = query.where(GameRow.status == status)
        with self._session() as s:
            return [_detach(r) for r in s.scalars(query)]

    def count_playing(self, owner: str | None = None) -> int:
        query = select(func.count()).select_from(GameRow).where(GameRow.status == PLAYING)
        if owner is not None:
            query = query.where(GameRow.owner == owner)
        with self._session() as s:
            return int(s.scalar(query) or 0)

    def by_record_name(self, name: str) -> StoredGame | None:
        with self._session() as s:
            row = s.scalars(select(GameRow).where(GameRow.record_name == name)).first()
            return _detach(row) if row is not None else None

    def record_names(self) -> list[tuple[str, str]]:
        """``(game id, record file name)`` of every game that has its record."""
        query = select(GameRow.id, GameRow.record_name).where(GameRow.record_name.is_not(None))
        with self._session() as s:
            return [(gid, name) for gid, name in s.execute(query.order_by(GameRow.id))]

    def moves(self, game_id: str) -> list[tuple[int, int]]:
        with self._session() as s:
            rows = s.scalars(select(MoveRow).where(MoveRow.game_id == game_id).order_by(MoveRow.ply))
            return [(r.seat, r.action) for r in rows]

    def save_progress(self, game_id: str, first_ply: int, moves: Sequence[tuple[int, int]],
                      status: str = PLAYING, ended_at: str | None = None,
                      record_name: str | None = None, record: dict[str, Any] | None = None) -> None:
        """Append ``moves`` (numbered from ``first_ply``) and the game's status, in one commit;
        returns once that commit is on disk."""
        moves = [(int(seat), int(action)) for seat, action in moves]
        text = json.dumps(record) if record is not None else None

        values: dict[str, Any] = {"status": status}
        if ended_at is not None:
            values["ended_at"] = ended_at
        if text is not None:
            values.update(record=text, record_name=record_name)

        def save(s: Session) -> None:  # plain statements: no objects to track for two small writes
            if moves:
                s.execute(insert(MoveRow), [{"game_id": game_id, "ply": first_ply + i, "seat": seat, "action": action}
                                            for i, (seat, action) in enumerate(moves)])
            if s.execute(update(GameRow).where(GameRow.id == game_id).values(**values)).rowcount != 1:
                raise KeyError(f"unknown game id {game_id!r}")

        self.writer.write(save)

    # ------------------------------------------------------------------ participants
    def ensure_participants(self, codes: Iterable[str]) -> None:
        """Register the study's participant codes (positions in the given order), once."""
        codes = list(codes)

        def register(s: Session) -> None:
            known = {r.code for r in s.scalars(select(ParticipantRow))}
            position = len(known)
            for code in codes:
                if code not in known:
                    s.add(ParticipantRow(code=code, position=position))
                    known.add(code)
                    position += 1

        self.writer.write(register)

    def participants(self) -> list[tuple[str, int, str | None]]:
        with self._session() as s:
            rows = s.scalars(select(ParticipantRow).order_by(ParticipantRow.position))
            return [(r.code, r.position, r.consented_at) for r in rows]

    def participant(self, code: str) -> tuple[str, int, str | None] | None:
        with self._session() as s:
            row = s.get(ParticipantRow, code)
            return (row.code, row.position, row.consented_at) if row else None

    def bind_browser(self, browser: str, code: str, consented: bool) -> None:
        def bind(s: Session) -> None:
            row = s.get(BrowserRow, browser)
            if row is None:
                s.add(BrowserRow(id=browser, participant=code))
            else:
                row.participant = code
            person = s.get(ParticipantRow, code)
            if consented and person.consented_at is None:
                person.consented_at = now()

        self.writer.write(bind)
        with self._bound_lock:
            self._binds += 1  # a lookup that read the database before this commit must not be remembered
            self._remember(browser, code)

    def participant_of(self, browser: str) -> str | None:
        with self._bound_lock:
            code = self._bound.get(browser)
            if code is not None:
                self._bound.move_to_end(browser)
                return code
            binds = self._binds
        with self._session() as s:
            row = s.get(BrowserRow, browser)
            code = row.participant if row else None
        with self._bound_lock:
            if code is not None and binds == self._binds:  # unknown browsers are not remembered: anyone can make up ids
                self._remember(browser, code)
        return code

    def _remember(self, browser: str, code: str) -> None:
        """Keep a binding (the caller holds ``_bound_lock``); the least recently used go first."""
        self._bound[browser] = code
        self._bound.move_to_end(browser)
        while len(self._bound) > BOUND_BROWSERS_KEPT:
            self._bound.popitem(last=False)


def _detach(row: GameRow) -> StoredGame:
    return StoredGame(
        id=row.id, owner=row.owner, participant=row.participant, condition=row.condition, slot=row.slot,
        game=row.game, num_players=row.num_players, human_seat=row.human_seat, opponents=row.opponents,
        seed=int(row.seed), show_agents=bool(row.show_agents), interface=row.interface, status=row.status,
        started_at=row.started_at, ended_at=row.ended_at, record_name=row.record_name,
        record=json.loads(row.record) if row.record else None,
    )


def new_id() -> str:
    """A game id: 96 random bits, unguessable."""
    return secrets.token_urlsafe(12)
