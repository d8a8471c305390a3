"""Where a batch's rows are kept as they finish: SQLite, one row written (and committed) the
moment it is done, keyed by the batch's identity and the row's key. Running the same batch
again reads what is there and runs only the rest, after a crash, a Stop or a kernel restart.

A file is open once per process however many batches use it (each batch's result keeps its
store, for ``resume()``; a connection each would keep three file handles per batch). Before
each use the store checks that the file is still the one it opened: a file deleted or replaced
meanwhile is made again with every row the connection held, and a warning says so. A file that
is not a usable SQLite database is a ``BatchStoreError`` naming it and what to do.

The rows' recordings (``run_batch(cassette=...)``) are kept alike by ``BatchCassette``:
merged into the caller's cassette as each row finishes, appended to a journal beside its file,
and the file written once when the batch ends (rewriting it after every row costs the whole
cassette each time). A batch that crashed leaves its journal; the next batch with that
cassette merges it first, so no finished row's recording is lost."""

from __future__ import annotations

import json
import logging
import os
import sqlite3
import threading
import time
import weakref
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Any, TextIO

from .._util import STATE_FOLDER, make_state_folder
from .._wal import switch_to_wal
from ..errors import UserError
from ..replay import Cassette
from ..replay.signing import sign
from .row import ROW_FIELD, ReplayPool, RowRecordings

__all__ = [
    "DEFAULT_STORE",
    "BatchCassette",
    "BatchStoreError",
    "ResultsStore",
    "StoredRow",
    "journal_path",
]

logger = logging.getLogger("jupyter_agents")

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


class BatchStoreError(UserError):
    """The batch results store's file cannot be used (damaged, not a database, locked, not
    writable); the message names the file and what to do."""

    def __init__(self, path: Path, problem: sqlite3.Error) -> None:
        if type(problem) is sqlite3.DatabaseError:  # not a database, or a damaged one
            what = f"is damaged ({problem}). Move it aside to start a new one (its rows run again)"
        else:
            what = (
                f"cannot be used ({problem}). Check that its folder is writable and that no "
                "other process keeps it locked"
            )
        super().__init__(
            f"The batch store {path} {what}, or give run_batch another file with cache=PATH, "
            "or cache=False to keep no store."
        )
        self.path = path
        """The store's file."""


class ResultsStore:
    """A SQLite file of batch results (WAL mode: a killed process loses no committed row)."""

    def __init__(self, path: str | Path = DEFAULT_STORE) -> None:
        """Open (or create) the store at ``path``; ``":memory:"`` keeps it in this object.

        Raises:
            BatchStoreError: The file is not a usable SQLite database.
        """
        self.path = Path(path)
        self._file: _StoreFile | None = _StoreFile.shared(path)

    def open_batch(self, batch_id: str, identity: dict[str, Any], fresh: bool = False) -> None:
        """Make sure the batch exists; ``fresh`` forgets its rows."""
        with self._use() as db:
            if fresh:
                db.execute("DELETE FROM rows WHERE batch = ?", (batch_id,))
            db.execute(
                "INSERT OR IGNORE INTO batches (id, identity, created) VALUES (?, ?, ?)",
                (batch_id, json.dumps(identity, sort_keys=True, default=str), time.time()),
            )

    def rows(self, batch_id: str) -> dict[str, StoredRow]:
        """Every stored row of the batch, by key."""
        with self._use() as db:
            found = db.execute(f"{_SELECT} WHERE batch = ?", (batch_id,)).fetchall()
        return {r[0]: _stored(r) for r in found}

    def row(self, batch_id: str, key: str) -> StoredRow | None:
        """One stored row, or None."""
        with self._use() as db:
            found = db.execute(f"{_SELECT} WHERE batch = ? AND key = ?", (batch_id, key)).fetchone()
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
        with self._use() as db:
            db.execute(f"INSERT OR REPLACE INTO rows ({_COLUMNS}) VALUES ({_MARKS})", values)

    def close(self) -> None:
        """Stop using the file (closed when no other store of this process uses it)."""
        self._file = None

    @contextmanager
    def _use(self) -> Iterator[sqlite3.Connection]:
        if self._file is None:
            raise UserError(f"The batch store {self.path} is closed.")
        with self._file.lock, _reported(self._file.path):
            yield self._file.checked()


_COLUMNS = (
    "batch, key, prompt_hash, status, output, error, tokens, seconds, state, waiting, updated, "
    "tool_calls, cost_usd"
)
_MARKS = ",".join("?" * len(_COLUMNS.split(",")))


class _StoreFile:
    """One open store file, shared by the ``ResultsStore`` objects of this process that
    use it, and closed as soon as the last of them is closed or dropped: this object is in no
    reference cycle, so it is freed at once, and it closes its connection then (a
    ``sqlite3.Connection`` is in a cycle with its statement cache, and alone would keep its
    files open until the garbage collector runs)."""

    _open: weakref.WeakValueDictionary[tuple[int, str], _StoreFile] = weakref.WeakValueDictionary()
    _open_lock = threading.Lock()

    def __init__(self, path: Path | None) -> None:
        self.path = path
        """The file (absolute), or None for a store in memory."""
        self.lock = threading.Lock()
        with _reported(path):
            self.db = _connect(path)
        self.identity = _identity(path)

    @classmethod
    def shared(cls, path: str | Path) -> _StoreFile:
        """The open file at ``path`` (opened now if no store of this process has it)."""
        if str(path) == ":memory:":
            return cls(None)
        where = Path(os.path.abspath(path))
        key = (os.getpid(), str(where))  # a child process opens its own connection
        with cls._open_lock:
            found = cls._open.get(key)
            if found is None:
                found = cls._open[key] = cls(where)
            return found

    def checked(self) -> sqlite3.Connection:
        """The connection, after making the file again if it was deleted or replaced."""
        if self.path is not None and _identity(self.path) != self.identity:
            self._make_again(self.path)
        return self.db

    def __del__(self) -> None:
        db = getattr(self, "db", None)  # absent when opening failed
        if db is not None:
            db.close()

    def _make_again(self, path: Path) -> None:
        """Write every row this connection holds into the file now at ``path`` (a new one
        when it was deleted), and use that file from now on."""
        batches = self.db.execute("SELECT id, identity, created FROM batches").fetchall()
        rows = self.db.execute(f"SELECT {_COLUMNS} FROM rows").fetchall()
        # The journal (path-wal) is this file's, and SQLite keeps it at close when the file
        # was moved: emptied now, a new file at the path cannot take its pages for its own.
        self.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        self.db.close()
        deleted = not path.exists()
        if deleted:
            for suffix in ("-wal", "-shm"):
                Path(f"{path}{suffix}").unlink(missing_ok=True)
        self.db = _connect(path)
        self.db.execute("BEGIN IMMEDIATE")
        with self.db:  # commits, or rolls back on an error
            self.db.executemany("INSERT OR IGNORE INTO batches VALUES (?, ?, ?)", batches)
            self.db.executemany(_MERGE, rows)
        self.identity = _identity(path)
        logger.warning(
            "The batch store %s was %s while in use: %s with the %d rows this kernel held, "
            "so none is lost.",
            path,
            "deleted" if deleted else "replaced by another file",
            "made again" if deleted else "merged",
            len(rows),
        )


_MERGE = (
    f"INSERT INTO rows ({_COLUMNS}) VALUES ({_MARKS}) ON CONFLICT (batch, key) DO UPDATE SET "
    + ", ".join(f"{c} = excluded.{c}" for c in _COLUMNS.replace(" ", "").split(",")[2:])
    + " WHERE excluded.updated > rows.updated"
)
"""Adds a row to another copy of the store, unless that copy has a newer one of its key."""


def _connect(path: Path | None) -> sqlite3.Connection:
    """A connection to the store at ``path`` (in memory for None), in WAL mode, with the
    tables made and upgraded; its folder is made first."""
    if path is not None:
        if path.parent.name == STATE_FOLDER:
            make_state_folder(path.parent)
        path.parent.mkdir(parents=True, exist_ok=True)
    db = sqlite3.connect(
        path or ":memory:", timeout=_BUSY_TIMEOUT, check_same_thread=False, isolation_level=None
    )
    try:
        switch_to_wal(db, _BUSY_TIMEOUT)
        db.execute("PRAGMA synchronous=NORMAL")
        db.executescript(_SCHEMA)
        _add_columns(db)
    except BaseException:
        db.close()
        raise
    return db


def _identity(path: Path | None) -> tuple[int, int] | None:
    """Which file is at ``path`` now (None: no file)."""
    if path is None:
        return None
    try:
        found = os.stat(path)
    except FileNotFoundError:
        return None
    return found.st_dev, found.st_ino


@contextmanager
def _reported(path: Path | None) -> Iterator[None]:
    """Turn SQLite's errors about the file into a ``BatchStoreError`` naming it."""
    try:
        yield
    except (sqlite3.IntegrityError, sqlite3.ProgrammingError):
        raise  # a mistake of this module, not of the file
    except sqlite3.DatabaseError as exc:
        if path is None:
            raise
        raise BatchStoreError(path, exc) from None


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
        owned = [cassette.owns(run) for run in cassette.runs]
        self.pool = ReplayPool(cassette.runs, cassette.mode, cassette.replay_tools, owned)
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
            sign(recording)  # made by this batch's rows: the person's (a worker may lack the key)
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
