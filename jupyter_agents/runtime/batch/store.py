"""Where a batch's rows are kept as they finish: SQLite, one row written (and committed) the
moment it is done, keyed by the batch's identity and the row's key. Running the same batch
again reads what is there and runs only the rest, after a crash, a Stop or a kernel restart.

The rows' recordings (``run_batch(cassette=...)``) are kept alike by :class:`BatchCassette`:
merged into the caller's cassette as each row finishes, appended to a journal beside its file,
and the file written once when the batch ends (rewriting it after every row costs the whole
cassette each time). A batch that crashed leaves its journal; the next batch with that
cassette merges it first, so no finished row's recording is lost."""

from __future__ import annotations

import json
import os
import sqlite3
import threading
import time
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Any, TextIO

from .._util import STATE_FOLDER, make_state_folder
from .._wal import switch_to_wal
from ..replay import Cassette
from .row import ROW_FIELD, ReplayPool, RowRecordings

__all__ = ["DEFAULT_STORE", "BatchCassette", "ResultsStore", "StoredRow", "journal_path"]

DEFAULT_STORE = Path(".jupyter_agents") / "batches.sqlite"
"""The store's place, relative to the working directory (the notebook's folder)."""
_BUSY_TIMEOUT = 30.0  # seconds another kernel writing the same store may keep us waiting

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
    tool_calls TEXT,
    cost_usd TEXT,
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
    tool_calls: list[dict[str, Any]] | None = None
    """The run's tool calls (``RowResult.tool_calls``)."""
    cost_usd: Decimal | None = None
    """What the row's model calls cost (None: no known price)."""


class ResultsStore:
    """A SQLite file of batch results (WAL mode: a killed process loses no committed row)."""

    def __init__(self, path: str | Path = DEFAULT_STORE) -> None:
        self.path = Path(path)
        if self.path.parent.name == STATE_FOLDER:
            make_state_folder(self.path.parent)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(
            self.path, timeout=_BUSY_TIMEOUT, check_same_thread=False, isolation_level=None
        )
        self._lock = threading.Lock()
        with self._lock:
            switch_to_wal(self._db, _BUSY_TIMEOUT)
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.executescript(_SCHEMA)
            _add_columns(self._db)

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
            json.dumps(row.tool_calls, default=str) if row.tool_calls is not None else None,
            str(row.cost_usd) if row.cost_usd is not None else None,
        )
        with self._lock:
            self._db.execute(
                "INSERT OR REPLACE INTO rows (batch, key, prompt_hash, status, output, error, "
                "tokens, seconds, state, waiting, updated, tool_calls, cost_usd) "
                "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
                values,
            )

    def close(self) -> None:
        with self._lock:
            self._db.close()


_SELECT = (
    "SELECT key, prompt_hash, status, output, error, tokens, seconds, state, waiting, "
    "tool_calls, cost_usd FROM rows"
)

_ADDED_COLUMNS = {"tool_calls": "TEXT", "cost_usd": "TEXT"}
"""Columns a store made by an earlier version lacks (added when it is opened)."""


def _add_columns(db: sqlite3.Connection) -> None:
    have = {r[1] for r in db.execute("PRAGMA table_info(rows)").fetchall()}
    for name, kind in _ADDED_COLUMNS.items():
        if name not in have:
            db.execute(f"ALTER TABLE rows ADD COLUMN {name} {kind}")


def _stored(r: tuple[Any, ...]) -> StoredRow:
    key, hashed, status, output, error, tokens, seconds, state, waiting, calls, cost = r
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
        tool_calls=json.loads(calls) if calls is not None else None,
        cost_usd=Decimal(cost) if cost is not None else None,
    )


class BatchCassette:
    """The caller's cassette while a batch runs (see the module docstring): the pool its rows
    replay from, and the merge of what they record."""

    def __init__(self, cassette: Cassette) -> None:
        """Merge what a crashed batch left in the journal, then take the rows' pool."""
        self.cassette = cassette
        recover(cassette)
        self.pool = ReplayPool(cassette.runs, cassette.mode, cassette.replay_tools)
        self._positions = {id(run): i for i, run in enumerate(cassette.runs)}
        self._used = {id(run) for run in cassette.used}
        self._journal: TextIO | None = None
        self._changed = False

    def merge(self, recordings: RowRecordings) -> None:
        """Keep what one row's run did: the recordings it replayed count as used, new ones
        go in (in place of those they replace) and into the journal."""
        replaced = {position for _, position in recordings.kept if position is not None}
        for position in recordings.replayed:
            self.pool.taken.add(position)
            if position not in replaced:
                self._use(self.pool.runs[position])
        for recording, replacing in recordings.kept:
            old = self.pool.runs[replacing] if replacing is not None else None
            self._write_journal(recording, old)
            self._put(recording, old)
        if recordings.last is not None:
            self.cassette.last = recordings.last

    def close(self) -> None:
        """The batch is over (done, stopped or failed): write the cassette once, atomically,
        if a row changed it, then drop the journal."""
        if self._journal is not None:
            self._journal.close()
            self._journal = None
        if self._changed:
            self.cassette.save()
            self._changed = False
        if self.cassette.path is not None:
            journal_path(self.cassette.path).unlink(missing_ok=True)

    def _put(self, recording: dict[str, Any], replaces: dict[str, Any] | None) -> None:
        runs = self.cassette.runs
        position = None
        if replaces is not None:
            position = self._positions.pop(id(replaces), None)
            if position is None or position >= len(runs) or runs[position] is not replaces:
                position = next((i for i, r in enumerate(runs) if r is replaces), None)
        if replaces is not None and position is not None:
            runs[position] = recording
            if id(replaces) in self._used:
                self._used.discard(id(replaces))
                self.cassette.used = [r for r in self.cassette.used if r is not replaces]
        else:
            position = len(runs)
            runs.append(recording)
        self._positions[id(recording)] = position
        self._use(recording)
        self._changed = True

    def _use(self, recording: dict[str, Any]) -> None:
        if id(recording) not in self._used:
            self._used.add(id(recording))
            self.cassette.used.append(recording)

    def _write_journal(self, recording: dict[str, Any], replaces: dict[str, Any] | None) -> None:
        if self.cassette.path is None:
            return
        if self._journal is None:
            path = journal_path(self.cassette.path)
            path.parent.mkdir(parents=True, exist_ok=True)
            self._journal = path.open("a", encoding="utf-8")
        entry = {"recording": recording, "replaces": _ident(replaces) if replaces else None}
        self._journal.write(json.dumps(entry, ensure_ascii=False, separators=(",", ":")) + "\n")
        self._journal.flush()  # in the OS's hands: a crash of this process loses nothing


def journal_path(path: str | os.PathLike[str]) -> Path:
    """The journal of a batch writing to the cassette file ``path``: ``runs.json.journal``."""
    target = Path(path)
    return target.with_name(target.name + ".journal")


def recover(cassette: Cassette) -> None:
    """Merge the recordings a crashed batch left in the journal of ``cassette``'s file, save
    the file and drop the journal (a line the crash cut short is skipped)."""
    if cassette.path is None or not journal_path(cassette.path).is_file():
        return
    journal = journal_path(cassette.path)
    where = {_ident(run): i for i, run in enumerate(cassette.runs)}
    for line in journal.read_text(encoding="utf-8").splitlines():
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        recording = entry.get("recording") if isinstance(entry, dict) else None
        if not isinstance(recording, dict) or not isinstance(recording.get("key"), str):
            continue
        if _ident(recording) in where:  # already in the file
            continue
        replaces = entry.get("replaces")
        position = where.pop(replaces, None) if isinstance(replaces, str) else None
        if position is None:
            position = len(cassette.runs)
            cassette.runs.append(recording)
        else:
            cassette.runs[position] = recording
        where[_ident(recording)] = position
    cassette.save()
    journal.unlink()


def _ident(recording: dict[str, Any]) -> str:
    """A recording's identity across processes: its key, when it was made, and its row."""
    fields = [recording.get("key"), recording.get("recorded_at"), recording.get(ROW_FIELD)]
    return json.dumps(fields, default=str)
