"""The connection handling under ``SQLiteSession``: one connection per
worker thread (or one shared ``:memory:`` connection), WAL, ``BEGIN IMMEDIATE`` transactions
rolled back on any error, and a close that waits for running work. See ``sqlite.py`` for the
durability choices."""

from __future__ import annotations

import os
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager

from .._wal import switch_to_wal
from ..errors import UserError
from ._common import logger

__all__ = ["SQLiteConnections", "rollback_on_error"]

# One writer lock per database file in this process: writers of the same file queue here
# instead of polling SQLite's busy handler. Other processes still serialise through SQLite.
_file_write_locks: dict[str, threading.Lock] = {}
_file_write_locks_guard = threading.Lock()


def _file_write_lock(path: str) -> threading.Lock:
    key = os.path.realpath(path)
    with _file_write_locks_guard:
        return _file_write_locks.setdefault(key, threading.Lock())


class SQLiteConnections:
    """Connections to one SQLite database for a session class; subclasses create their tables
    in ``_create_schema``."""

    db_path: str

    def _init_connections(self, db_path: str | os.PathLike[str], busy_timeout: float) -> None:
        """Check the settings and open the database (tables created); call from ``__init__``."""
        self.db_path = os.fspath(db_path)
        if not isinstance(busy_timeout, (int, float)) or busy_timeout < 0:
            raise UserError(f"busy_timeout must be a number of seconds >= 0, got {busy_timeout!r}.")
        self._busy_timeout = float(busy_timeout)
        self._is_memory = self.db_path == ":memory:"
        # Guards _closed, _active and _connections; close() waits on it for running operations.
        self._state = threading.Condition()
        self._closed = False
        self._active = 0
        self._connections: dict[threading.Thread, sqlite3.Connection] = {}
        self._shared: sqlite3.Connection | None = None
        self._write_lock = threading.Lock() if self._is_memory else _file_write_lock(self.db_path)
        self._open()

    def _create_schema(self, conn: sqlite3.Connection) -> None:
        raise NotImplementedError

    def close(self) -> None:
        """Close the database connections; later calls raise ``UserError``.

        Waits for operations already running on worker threads. Closing a ``":memory:"``
        session discards its data. Closing twice is harmless.
        """
        with self._state:
            self._closed = True
            self._state.wait_for(lambda: self._active == 0)
            connections = list(self._connections.values())
            self._connections.clear()
            if self._shared is not None:
                connections.append(self._shared)
                self._shared = None
        for connection in connections:
            connection.close()

    def _open(self) -> None:
        try:
            conn = self._connect()
        except sqlite3.Error as exc:
            raise UserError(
                f"Cannot open the session database {self.db_path!r}: {exc}. Check that its "
                "folder exists and is writable."
            ) from exc
        try:
            if not self._is_memory:
                self._enable_wal(conn)
            self._create_schema(conn)
        except BaseException:
            conn.close()
            raise
        if self._is_memory:
            self._shared = conn
        else:
            # This thread (usually the event loop's) does no later work; workers open their own.
            conn.close()

    def _connect(self) -> sqlite3.Connection:
        # isolation_level=None: no implicit transactions; every write says BEGIN IMMEDIATE.
        # check_same_thread=False: close() may close a worker thread's connection.
        conn = sqlite3.connect(
            self.db_path,
            timeout=self._busy_timeout,
            isolation_level=None,
            check_same_thread=False,
        )
        try:
            conn.execute("PRAGMA synchronous = FULL")
            conn.execute("PRAGMA foreign_keys = ON")
        except BaseException:
            conn.close()
            raise
        return conn

    def _enable_wal(self, conn: sqlite3.Connection) -> None:
        mode = switch_to_wal(conn, self._busy_timeout)
        if mode != "wal":
            logger.warning(
                "SQLite could not use WAL mode for %s (it uses %r); sessions still commit "
                "atomically, but readers and writers will block each other.",
                self.db_path,
                mode,
            )

    def _check_open(self) -> None:
        if self._closed:
            raise UserError(
                f"{self!r} is closed; create a new {type(self).__name__} to use it again."
            )

    @contextmanager
    def _connection(self, *, write: bool) -> Iterator[sqlite3.Connection]:
        with self._state:
            self._check_open()
            self._active += 1
        try:
            if self._is_memory:
                assert self._shared is not None
                with self._write_lock:  # one connection: every use, read or write, is exclusive
                    yield self._shared
            elif write:
                with self._write_lock:
                    yield self._thread_connection()
            else:
                yield self._thread_connection()  # WAL readers see a committed snapshot
        finally:
            with self._state:
                self._active -= 1
                self._state.notify_all()

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        with self._connection(write=True) as conn:
            try:
                with rollback_on_error(conn):
                    conn.execute("BEGIN IMMEDIATE")
                    yield conn
                    conn.execute("COMMIT")
            except sqlite3.Error:
                if conn.in_transaction:  # the rollback failed too: never reuse this connection
                    self._discard(conn)
                raise

    def _discard(self, conn: sqlite3.Connection) -> None:
        with self._state:
            owners = [t for t, c in self._connections.items() if c is conn]
            for thread in owners:
                del self._connections[thread]
        if owners:  # the shared :memory: connection holds the data, so it is kept
            conn.close()

    def _thread_connection(self) -> sqlite3.Connection:
        thread = threading.current_thread()
        with self._state:
            conn = self._connections.get(thread)
            if conn is not None:
                return conn
            # Worker threads come and go (each asyncio.run has its own executor); close the
            # connections of finished threads, which nothing else can reach any more.
            finished = [t for t in self._connections if not t.is_alive()]
            stale = [self._connections.pop(t) for t in finished]
        for old in stale:
            old.close()
        conn = self._connect()
        with self._state:
            self._connections[thread] = conn
        return conn


@contextmanager
def rollback_on_error(conn: sqlite3.Connection) -> Iterator[None]:
    """Roll back the open transaction if the block fails, then re-raise."""
    try:
        yield
    except BaseException:
        if conn.in_transaction:
            try:
                conn.rollback()
            except sqlite3.Error:
                logger.exception("Rolling back a failed session transaction failed too")
        raise
