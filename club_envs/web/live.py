"""The games being played, in memory: each re-created from the database on first use and kept in
step with it.

A game's moves are stored (:meth:`LiveGames.persist`) before the request that played them is
answered; a restarted server re-creates a game from its seed and stored moves, agents included
(:meth:`LiveGames.load`). Finished games stay in memory up to ``keep_finished``; older ones are
dropped and re-created on demand.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

from club_envs import records as record_io
from club_envs import store as db
from club_envs.play.catalogue import AgentCatalogue
from club_envs.play.human_game import HumanGame
from club_envs.web import crash
from club_envs.web.errors import ApiError
from club_envs.web.settings import Settings


@dataclass
class Live:
    """A game being played: the re-created game, how many of its moves are stored, its lock."""

    game: HumanGame
    row: db.StoredGame
    saved_moves: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)


class LiveGames:
    """The server's games in memory (``entries``, by game id), dealt, re-created and stored here."""

    def __init__(self, store: db.Store, catalogue: AgentCatalogue, settings: Settings, study: Any) -> None:
        self.store = store
        self.catalogue = catalogue
        self.settings = settings
        self.study = study
        self.entries: dict[str, Live] = {}
        self._guard = threading.Lock()
        self._loaders: dict[str, threading.Lock] = {}
        self._finished: OrderedDict[str, None] = OrderedDict()  # the memory held by finished games stays bounded
        self._create_guard = threading.Lock()

    def load(self, row: db.StoredGame) -> Live:
        with self._guard:
            entry = self.entries.get(row.id)
            if entry is not None:
                return entry
            loading = self._loaders.setdefault(row.id, threading.Lock())
        with loading:  # one game re-created at a time per game; the others play on meanwhile
            with self._guard:
                entry = self.entries.get(row.id)
            if entry is None:
                entry = self._revive(row)
        if entry.game.over and entry.row.status == db.PLAYING:  # stopped between its last move and its record
            with entry.lock:
                if entry.row.status == db.PLAYING:
                    self.persist(entry)
        return entry

    def _revive(self, row: db.StoredGame) -> Live:
        """Re-create a stored game: its seed and options, then its stored moves, agents included."""
        g = HumanGame.create(
            row.game, num_players=row.num_players, seat=row.human_seat, opponents=row.opponents,
            seed=row.seed, interface=row.interface, make_agent=self.catalogue.make, show_agents=row.show_agents,
        )
        g.game_id = row.id
        g.started_at = row.started_at
        g.record_extra = self.study_tags(row)
        moves = self.store.moves(row.id)
        g.replay_moves(moves)
        if row.status == db.ABANDONED:
            g.abandoned = True
        if row.ended_at:
            g.ended_at = row.ended_at
        if row.record_name:
            g.saved_path = self.settings.records_dir / row.record_name
        entry = Live(g, row, saved_moves=len(moves))
        with self._guard:
            self.entries[row.id] = entry
        if row.over:
            self._forget_finished(row.id)
        return entry

    def _forget_finished(self, game_id: str) -> None:
        """Count a finished game among those kept in memory, dropping the oldest beyond the limit."""
        with self._guard:
            self._finished[game_id] = None
            while len(self._finished) > self.settings.keep_finished:  # stored in full: only the memory copy goes
                self.entries.pop(self._finished.popitem(last=False)[0], None)

    def persist(self, entry: Live) -> None:
        """Store the moves played since the last call, and once the game is over its status and
        record in the same commit; then write the record file.

        The database is the account of what happened: the file is written only after the commit
        that ends the game, under a name fixed by the game's id, so a game whose server stops at
        any moment has one record, written again to the same file (:meth:`write_missing_records`)
        if the server stopped before the file.
        """
        g = entry.game
        new = g.move_log[entry.saved_moves:]
        status, record, name = db.PLAYING, None, None
        if g.over:
            status = db.FINISHED if g.finished else db.ABANDONED
            record, name = g.record(), entry.row.record_name or g.record_name
            record_io.validate(record)  # a record that cannot be saved does not end the game
        self.store.save_progress(g.game_id, entry.saved_moves, new, status, g.ended_at if g.over else None,
                                 name, record)
        entry.saved_moves = len(g.move_log)
        if not g.over:
            if new:
                crash.reached("move_stored")
            return
        crash.reached("finish_committed")
        g.saved_path = record_io.write(record, self.settings.records_dir / name)
        crash.reached("record_written")
        entry.row = self.store.game(g.game_id)
        self._forget_finished(g.game_id)

    def write_missing_records(self) -> int:
        """Write the record file of every ended game whose file is missing (its server stopped
        between the commit that ended the game and the file); returns how many were written."""
        written = 0
        for game_id, name in self.store.record_names():
            path = self.settings.records_dir / name
            if not path.exists():
                record_io.write(self.store.game(game_id).record, path)
                written += 1
        return written

    def study_tags(self, row: db.StoredGame) -> dict[str, Any]:
        if row.participant is None or self.study is None:
            return {}
        return {"study": {"name": self.study.name, "participant": row.participant, "condition": row.condition,
                          "game_number": row.slot}}

    def start(self, owner: str, game: str, players: int, seat: int | None, role: str | None, opponents: str,
              seed: int | None, show_agents: bool, participant_code: str | None = None,
              slot: Any = None) -> Live:
        """Deal and store a new game; refused with a clear message at the limits."""
        limits = self.settings
        with self._create_guard:
            mine = self.store.count_playing(owner)
            if mine >= limits.max_games_per_browser:
                raise ApiError(429, f"you have {mine} games in progress, the most allowed; finish or leave one "
                                    "before starting another")
            if self.store.count_playing() >= limits.max_games:
                raise ApiError(503, f"the server has {limits.max_games} games in progress, its limit; "
                                    "try again when some have ended")
            try:
                g = HumanGame.create(game, num_players=players, seat=seat, role=role, opponents=opponents,
                                     seed=seed, interface="browser", make_agent=self.catalogue.make,
                                     show_agents=show_agents)
            except ValueError as exc:
                raise ApiError(400, str(exc)) from None
            g.game_id = db.new_id()
            row = self.store.add_game(
                id=g.game_id, owner=owner, participant=participant_code,
                condition=slot.condition.name if slot else None, slot=slot.number if slot else None,
                game=g.game.RECORD_NAME, num_players=players, human_seat=g.human_seat, opponents=opponents,
                seed=g.seed, show_agents=show_agents, interface="browser", started_at=g.started_at,
            )
            g.record_extra = self.study_tags(row)
            entry = Live(g, row)
            with self._guard:
                self.entries[g.game_id] = entry
            return entry
