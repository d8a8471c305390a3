"""Where a batch's rows are kept as they finish: SQLite, one row written (and committed) the
moment it is done, keyed by the batch's identity and the row's key. Running the same batch
again reads what is there and runs only the rest, after a crash, a Stop or a kernel restart."""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .._util import STATE_FOLDER, make_state_folder

__all__ = ["DEFAULT_STORE", "ResultsStore", "StoredRow"]

DEFAULT_STORE = Path(".jupyter_agents") / "batches.sqlite"
"""The store's place, relative to the working directory (the notebook's folder)."""

_SCHEMA = """
CREATE TABLE IF NOT EXISTS batches (
    id TEXT PRIMARY KEY, identity TEXT NOT NULL, created REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS rows (
    batch TEXT NOT NULL,
    key TEXT NOT NULL,
    prompt_hash TEXT NOT NULL,
    status TEXT NOT NULL,
    output TEXT,
    error TEXT,
    tokens INTEGER NOT NULL DEFAULT 0,
    seconds REAL NOT NULL DEFAULT 0,
    state TEXT,
    waiting TEXT,
    updated REAL NOT NULL,
    PRIMARY KEY (batch, key)
);
"""


@dataclass(frozen=True)
class StoredRow:
    """One row as stored."""

    key: str
    prompt_hash: str
    status: str
    output: Any
    error: str | None
    tokens: int
    seconds: float
    state: str | None
    """A paused run's ``RunState`` JSON (status ``waiting``)."""
    waiting: list[dict[str, Any]] | None
    """The calls a paused row waits on: ``{"call_id", "tool", "arguments"}``."""


class ResultsStore:
    """A SQLite file of batch results (WAL mode: a killed process loses no committed row)."""

    def __init__(self, path: str | Path = DEFAULT_STORE) -> None:
        self.path = Path(path)
        if self.path.parent.name == STATE_FOLDER:
            make_state_folder(self.path.parent)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        self._lock = threading.Lock()
        with self._lock:
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.executescript(_SCHEMA)

    def open_batch(self, batch_id: str, identity: dict[str, Any], fresh: bool = False) -> None:
        """Make sure the batch exists; ``fresh`` forgets its rows."""
        with self._lock:
            if fresh:
                self._db.execute("DELETE FROM rows WHERE batch = ?", (batch_id,))
            self._db.execute(
                "INSERT OR IGNORE INTO batches (id, identity, created) VALUES (?, ?, ?)",
                (batch_id, json.dumps(identity, sort_keys=True, default=str), time.time()),
            )

    def rows(self, batch_id: str) -> dict[str, StoredRow]:
        """Every stored row of the batch, by key."""
        with self._lock:
            found = self._db.execute(f"{_SELECT} WHERE batch = ?", (batch_id,)).fetchall()
        return {r[0]: _stored(r) for r in found}

    def row(self, batch_id: str, key: str) -> StoredRow | None:
        """One stored row, or None."""
        with self._lock:
            found = self._db.execute(
                f"{_SELECT} WHERE batch = ? AND key = ?", (batch_id, key)
            ).fetchone()
        return _stored(found) if found is not None else None

    def put(self, batch_id: str, row: StoredRow) -> None:
        """Write one row now (it replaces an earlier one with its key)."""
        values = (
            batch_id,
            row.key,
            row.prompt_hash,
            row.status,
            json.dumps(row.output, default=str) if row.output is not None else None,
            row.error,
            row.tokens,
            row.seconds,
            row.state,
            json.dumps(row.waiting) if row.waiting is not None else None,
            time.time(),
        )
        with self._lock:
            self._db.execute(
                "INSERT OR REPLACE INTO rows (batch, key, prompt_hash, status, output, error, "
                "tokens, seconds, state, waiting, updated) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
                values,
            )

    def close(self) -> None:
        with self._lock:
            self._db.close()


_SELECT = (
    "SELECT key, prompt_hash, status, output, error, tokens, seconds, state, waiting FROM rows"
)


def _stored(r: tuple[Any, ...]) -> StoredRow:
    key, hashed, status, output, error, tokens, seconds, state, waiting = r  # as _SELECT
    return StoredRow(
        key=key,
        prompt_hash=hashed,
        status=status,
        output=json.loads(output) if output is not None else None,
        error=error,
        tokens=tokens,
        seconds=seconds,
        state=state,
        waiting=json.loads(waiting) if waiting is not None else None,
    )
