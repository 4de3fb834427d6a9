"""The databases the persistence tests run against: SQLite always (the default, a file beside the
records folder) and PostgreSQL when ``CLUB_ENVS_TEST_DATABASE`` names a server
(``bash .ci/with_postgres`` starts one and sets it), each test on a database of its own."""

from __future__ import annotations

import os
import secrets
from collections.abc import Iterator

SERVER = os.environ.get("CLUB_ENVS_TEST_DATABASE")
KINDS = ["sqlite", "postgresql"] if SERVER else ["sqlite"]


def fresh_database(kind: str) -> Iterator[str | None]:
    """``None`` for SQLite (the server's default); for PostgreSQL the URL of a new, empty database
    on ``SERVER``, dropped afterwards."""
    if kind == "sqlite":
        yield None
        return
    from sqlalchemy import create_engine, text
    from sqlalchemy.engine import make_url

    name = "club_test_" + secrets.token_hex(6)
    admin = create_engine(SERVER, isolation_level="AUTOCOMMIT")
    with admin.connect() as c:
        c.execute(text(f'CREATE DATABASE "{name}"'))
    try:
        yield make_url(SERVER).set(database=name).render_as_string(hide_password=False)
    finally:
        with admin.connect() as c:
            c.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


def cli_args(database: str | None) -> list[str]:
    """``--database URL`` for a command on the same database (nothing for the SQLite default)."""
    return ["--database", database] if database else []
