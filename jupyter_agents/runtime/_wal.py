"""Switching a SQLite file to WAL mode when other connections may be opening it too."""

from __future__ import annotations

import sqlite3
import time


def pause(seconds: float) -> None:
    """Wait between two tries (a name of its own so tests can act in the gap)."""
    time.sleep(seconds)


def switch_to_wal(conn: sqlite3.Connection, timeout: float) -> str:
    """Ask for WAL mode and return the journal mode the file ends up in.

    The switch needs a moment alone with the file, and SQLite answers "database is locked" at
    once, without its busy timeout, while another connection uses the file (another process
    opening the same new file, say). So it is tried again until ``timeout`` seconds pass.
    """
    deadline = time.monotonic() + timeout
    delay = 0.002
    while True:
        try:
            (mode,) = conn.execute("PRAGMA journal_mode = WAL").fetchone()
            return str(mode).lower()
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() >= deadline:
                raise
        pause(delay)
        delay = min(delay * 2, 0.1)
