"""Where the server keeps its games: a database, so that nothing is lost when it stops.

Every game the server deals is a row (its seed, options and owner), every move a row, and every
finished or abandoned game's record is stored with it. The moves of a game are committed before
the request that played them is answered, so a server killed at any moment restarts with every
game where the person last saw it: the seed and the stored moves re-create it exactly.

SQLite (a file beside the records folder) needs no server; any SQLAlchemy URL
(``postgresql+psycopg://...``) serves a larger study. Nothing is ever deleted.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Iterable, Sequence
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
    select,
)
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, sessionmaker

PLAYING, FINISHED, ABANDONED = "playing", "finished", "abandoned"


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

    def close(self) -> None:
        self.engine.dispose()

    # ------------------------------------------------------------------ secrets
    def meta(self, key: str, make: Any = None) -> str | None:
        """The stored value of ``key``; if absent and ``make`` is given, store ``make()`` first."""
        with self._session() as s:
            row = s.get(MetaRow, key)
            if row is not None or make is None:
                return row.value if row else None
            s.add(MetaRow(key=key, value=make()))
            try:
                s.commit()
            except IntegrityError:  # another process made it first
                s.rollback()
            return s.get(MetaRow, key).value

    # ------------------------------------------------------------------ games
    def add_game(self, **fields: Any) -> StoredGame:
        fields = {**fields, "seed": str(fields["seed"]), "status": PLAYING}
        with self._session() as s:
            s.add(GameRow(**fields))
            try:
                s.commit()
            except IntegrityError:
                s.rollback()
                raise SlotTaken(f"slot {fields.get('slot')} of {fields.get('participant')} is taken") from None
        return self.game(fields["id"])

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
        """Append ``moves`` (numbered from ``first_ply``) and the game's status, in one commit."""
        with self._session() as s:
            for i, (seat, action) in enumerate(moves):
                s.add(MoveRow(game_id=game_id, ply=first_ply + i, seat=int(seat), action=int(action)))
            row = s.get(GameRow, game_id)
            row.status = status
            if ended_at is not None:
                row.ended_at = ended_at
            if record is not None:
                row.record = json.dumps(record)
                row.record_name = record_name
            s.commit()

    # ------------------------------------------------------------------ participants
    def ensure_participants(self, codes: Iterable[str]) -> None:
        """Register the study's participant codes (positions in the given order), once."""
        with self._session() as s:
            known = {r.code for r in s.scalars(select(ParticipantRow))}
            position = len(known)
            for code in codes:
                if code not in known:
                    s.add(ParticipantRow(code=code, position=position))
                    position += 1
            s.commit()

    def participants(self) -> list[tuple[str, int, str | None]]:
        with self._session() as s:
            rows = s.scalars(select(ParticipantRow).order_by(ParticipantRow.position))
            return [(r.code, r.position, r.consented_at) for r in rows]

    def participant(self, code: str) -> tuple[str, int, str | None] | None:
        with self._session() as s:
            row = s.get(ParticipantRow, code)
            return (row.code, row.position, row.consented_at) if row else None

    def bind_browser(self, browser: str, code: str, consented: bool) -> None:
        with self._session() as s:
            row = s.get(BrowserRow, browser)
            if row is None:
                s.add(BrowserRow(id=browser, participant=code))
            else:
                row.participant = code
            person = s.get(ParticipantRow, code)
            if consented and person.consented_at is None:
                person.consented_at = now()
            s.commit()

    def participant_of(self, browser: str) -> str | None:
        with self._session() as s:
            row = s.get(BrowserRow, browser)
            return row.participant if row else None


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
