"""A session stored in a SQLite database (the standard library's ``sqlite3``).

Durability choices, for a file database:

* ``journal_mode=WAL``: readers never block the writer and the writer never blocks readers, and
  a transaction that did not reach its commit record is ignored when the database is next
  opened, so a process killed mid-write leaves all of a batch or none of it.
* ``synchronous=FULL``: the WAL is flushed to disk (fsync) at every commit, so a committed
  batch survives a power loss or an OS crash, not only a killed process. ``NORMAL`` would sync
  only at checkpoints and could lose the last committed runs after a power cut. A session
  commits once per run, so one fsync per run costs nothing noticeable.
* Every write is one ``BEGIN IMMEDIATE`` ... ``COMMIT`` transaction, rolled back on any error.
  ``IMMEDIATE`` takes the write lock up front, so concurrent writers (threads, other sessions,
  other processes) queue on SQLite's busy timeout instead of failing on a lock upgrade.
"""

from __future__ import annotations

import asyncio
import os
import re
import sqlite3

from ..errors import UserError
from ..items import TResponseInputItem
from ._common import check_limit, check_session_id, decode_item, encode_items, run_write
from ._sqlite_db import SQLiteConnections, rollback_on_error
from .base import SessionABC

__all__ = ["SQLiteSession"]

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


def _check_table_name(argument: str, name: object) -> str:
    if not isinstance(name, str) or not _IDENTIFIER.match(name):
        raise UserError(
            f"{argument} must be a plain SQL identifier (letters, digits, underscores), "
            f"got {name!r}."
        )
    return name


class SQLiteSession(SQLiteConnections, SessionABC):
    """A session stored in SQLite: in memory by default, or in a file that outlives the process.

    A file database can hold many sessions (one per ``session_id``), be shared by several
    sessions, threads and processes at once, and be reopened by a new process, which finds the
    history there::

        session = SQLiteSession("user-42", "history.db")
        await session.add_items([{"role": "user", "content": "Hi"}])
        session.close()
        # later, in another process
        print(await SQLiteSession("user-42", "history.db").get_items())

    The coroutines do their database work on worker threads (``asyncio.to_thread``), never on
    the event loop; only the constructor (open, create tables) and ``close`` run on the
    calling thread. A file database uses one connection per thread; ``":memory:"`` uses one
    shared connection behind a lock, and its data lives only as long as this object. See the
    module docstring for the durability settings.
    """

    def __init__(
        self,
        session_id: str,
        db_path: str | os.PathLike[str] = ":memory:",
        sessions_table: str = "agent_sessions",
        messages_table: str = "agent_messages",
        *,
        busy_timeout: float = 30.0,
    ) -> None:
        """Open (and if needed create) the database and its tables.

        Args:
            session_id: The conversation's id; a non-empty string.
            db_path: A database file, created if missing, or ``":memory:"``.
            sessions_table: Table of sessions (id, created_at, updated_at).
            messages_table: Table of items (id, session_id, message_data JSON, created_at).
            busy_timeout: Seconds a write waits for another writer before failing.

        Raises:
            UserError: An argument is invalid, or the database file cannot be opened.
        """
        self.session_id = check_session_id(session_id)
        self.sessions_table = _check_table_name("sessions_table", sessions_table)
        self.messages_table = _check_table_name("messages_table", messages_table)
        if sessions_table == messages_table:
            raise UserError("sessions_table and messages_table must be different tables.")
        self._init_connections(db_path, busy_timeout)

    # -- public API ---------------------------------------------------------------------------

    async def get_items(self, limit: int | None = None) -> list[TResponseInputItem]:
        """Return the stored items, oldest first.

        Args:
            limit: When given, return only the latest ``limit`` items (still oldest first).

        Returns:
            Fresh copies of the stored items.

        Raises:
            UserError: ``limit`` is negative or not an int, or the session is closed.
        """
        limit = check_limit(limit)
        self._check_open()
        if limit == 0:
            return []
        return await asyncio.to_thread(self._get_items, limit)

    async def add_items(self, items: list[TResponseInputItem]) -> None:
        """Append ``items`` after the stored ones in one transaction: all are stored or none.

        Args:
            items: Responses API input item dicts, JSON-serialisable.

        Raises:
            UserError: ``items`` is not a list of JSON-serialisable dicts (nothing is stored),
                or the session is closed.
        """
        encoded = encode_items(items)
        self._check_open()
        if encoded:
            await run_write(lambda: self._add_items(encoded))

    async def pop_item(self) -> TResponseInputItem | None:
        """Remove and return the most recent item.

        Returns:
            The removed item, or ``None`` when the session is empty.

        Raises:
            UserError: The session is closed.
        """
        self._check_open()
        return await run_write(self._pop_item)

    async def clear_session(self) -> None:
        """Remove every item of this session and its row in the sessions table.

        Raises:
            UserError: The session is closed.
        """
        self._check_open()
        await run_write(self._clear_session)

    def __repr__(self) -> str:
        return f"SQLiteSession({self.session_id!r}, db_path={self.db_path!r})"

    # -- work done on worker threads ------------------------------------------------------------

    def _get_items(self, limit: int | None) -> list[TResponseInputItem]:
        m = self.messages_table
        if limit is None:
            sql = f"SELECT message_data FROM {m} WHERE session_id = ? ORDER BY id"
            params: tuple[object, ...] = (self.session_id,)
        else:
            sql = (
                f"SELECT message_data FROM (SELECT id, message_data FROM {m} "
                "WHERE session_id = ? ORDER BY id DESC LIMIT ?) ORDER BY id"
            )
            params = (self.session_id, limit)
        with self._connection(write=False) as conn:
            rows = conn.execute(sql, params).fetchall()
        return [item for (data,) in rows if (item := decode_item(data)) is not None]

    def _add_items(self, encoded: list[str]) -> None:
        s, m = self.sessions_table, self.messages_table
        with self._transaction() as conn:
            conn.execute(f"INSERT OR IGNORE INTO {s} (session_id) VALUES (?)", (self.session_id,))
            conn.executemany(
                f"INSERT INTO {m} (session_id, message_data) VALUES (?, ?)",
                [(self.session_id, data) for data in encoded],
            )
            conn.execute(
                f"UPDATE {s} SET updated_at = CURRENT_TIMESTAMP WHERE session_id = ?",
                (self.session_id,),
            )

    def _pop_item(self) -> TResponseInputItem | None:
        m = self.messages_table
        with self._transaction() as conn:
            while True:
                row = conn.execute(
                    f"SELECT id, message_data FROM {m} WHERE session_id = ? "
                    "ORDER BY id DESC LIMIT 1",
                    (self.session_id,),
                ).fetchone()
                if row is None:
                    return None
                conn.execute(f"DELETE FROM {m} WHERE id = ?", (row[0],))
                item = decode_item(row[1])
                if item is not None:  # an unreadable row is dropped and the next one popped
                    return item

    def _clear_session(self) -> None:
        with self._transaction() as conn:
            conn.execute(
                f"DELETE FROM {self.messages_table} WHERE session_id = ?", (self.session_id,)
            )
            conn.execute(
                f"DELETE FROM {self.sessions_table} WHERE session_id = ?", (self.session_id,)
            )

    # -- tables ---------------------------------------------------------------------------------

    def _create_schema(self, conn: sqlite3.Connection) -> None:
        s, m = self.sessions_table, self.messages_table
        # The same tables and index as the openai-agents SQLiteSession, so either library can
        # open the other's database.
        with rollback_on_error(conn):
            conn.execute("BEGIN IMMEDIATE")
            conn.execute(
                f"CREATE TABLE IF NOT EXISTS {s} ("
                "session_id TEXT PRIMARY KEY, "
                "created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP, "
                "updated_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP)"
            )
            conn.execute(
                f"CREATE TABLE IF NOT EXISTS {m} ("
                "id INTEGER PRIMARY KEY AUTOINCREMENT, "
                "session_id TEXT NOT NULL, "
                "message_data TEXT NOT NULL, "
                "created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP, "
                f"FOREIGN KEY (session_id) REFERENCES {s} (session_id) ON DELETE CASCADE)"
            )
            conn.execute(f"CREATE INDEX IF NOT EXISTS idx_{m}_session_id ON {m} (session_id, id)")
            conn.execute("COMMIT")
