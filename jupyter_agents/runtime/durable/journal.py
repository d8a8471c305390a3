"""A run's journal: what it has done, saved after every step, so a run cut off by a crash (the
kernel killed, the machine restarted) can go on from its last finished step.

The journal is the run's recording (``runtime/replay``) written as it grows, one row per step
in SQLite (``.jupyter_agents/runs.sqlite`` in the working folder, the notebook's): the first
request's identity, each model reply, each tool call's output, each decision, and a mark when a
call starts running. Every row is committed at once and marked with the person's secret
(``signing.journal_mac``); a journal someone else wrote or changed offers nothing.

A finished, failed or stopped run ends its journal (its rows are dropped). One whose process is
gone without an end was cut off: ``RunJournal.cut_off()`` lists it, and its ``cassette()``
resumes it. The resumed run replays the recorded replies and outputs (no model request, no tool
call runs again) and goes live where the recording ends; a call that had started without an
output is asked about first ("it was running when the run stopped: run it again?").
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .._util import STATE_FOLDER, make_state_folder
from .._wal import switch_to_wal
from ..errors import UserError

if TYPE_CHECKING:  # (``%load_ext`` reads the journal: the replay machinery loads when used)
    from ..replay import Cassette

__all__ = ["DEFAULT_JOURNAL", "CutOffRun", "JournalRun", "RunJournal"]

DEFAULT_JOURNAL = Path(".jupyter_agents") / "runs.sqlite"
"""The journal's place, relative to the working folder (the notebook's)."""

KINDS = ("begin", "call", "tool", "approval", "guardrail", "started")
"""What a row holds: the first request (``begin``), a model reply (``call``), a tool call's
output (``tool``), a decision (``approval``), a guardrail's result, a call that started."""

_SCHEMA = """
CREATE TABLE IF NOT EXISTS runs (
    id TEXT PRIMARY KEY, meta TEXT NOT NULL, pid INTEGER NOT NULL, started REAL NOT NULL,
    ended REAL, status TEXT, mac TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS steps (
    run TEXT NOT NULL, seq INTEGER NOT NULL, kind TEXT NOT NULL, key TEXT NOT NULL,
    data TEXT NOT NULL, mac TEXT NOT NULL, PRIMARY KEY (run, seq)
);
"""
_BUSY_TIMEOUT = 30.0


class RunJournal:
    """The journals of the runs started in one working folder (one SQLite file)."""

    def __init__(self, path: str | os.PathLike[str] = DEFAULT_JOURNAL) -> None:
        self.path = Path(path)
        self._db: sqlite3.Connection | None = None
        self._lock = threading.Lock()

    @contextmanager
    def _use(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            if self._db is None:
                self._db = self._open()
            yield self._db

    def _open(self) -> sqlite3.Connection:
        if self.path.parent.name == STATE_FOLDER:
            make_state_folder(self.path.parent)  # with its .gitignore
        self.path.parent.mkdir(parents=True, exist_ok=True)
        if self.path.is_symlink():
            raise UserError(f"The run journal {self.path} is a link; remove it.")
        try:
            db = sqlite3.connect(self.path, timeout=_BUSY_TIMEOUT, check_same_thread=False)
            switch_to_wal(db, _BUSY_TIMEOUT)
            db.execute("PRAGMA synchronous = NORMAL")  # a killed process loses nothing
            db.executescript(_SCHEMA)
        except sqlite3.DatabaseError as e:
            raise UserError(
                f"The run journal {self.path} is not a usable SQLite file ({e}); move it away."
            ) from None
        return db

    def begin(self, meta: dict[str, Any]) -> JournalRun:
        """Start the journal of a new run; ``meta`` says what the run is (JSON)."""
        from ..replay.signing import journal_mac

        run_id = os.urandom(16).hex()
        text = json.dumps(meta, ensure_ascii=False, sort_keys=True, default=repr)
        with self._use() as db, db:
            db.execute(
                "INSERT INTO runs (id, meta, pid, started, mac) VALUES (?, ?, ?, ?, ?)",
                (
                    run_id,
                    text,
                    os.getpid(),
                    time.time(),
                    journal_mac(_head(run_id, os.getpid(), text)),
                ),
            )
        return JournalRun(self, run_id)

    def add(self, run_id: str, seq: int, kind: str, key: str, data: str) -> None:
        """Write one step of run ``run_id`` (committed at once)."""
        from ..replay.signing import journal_mac

        mark = journal_mac(f"{run_id}\0{seq}\0{kind}\0{key}\0{data}")
        with self._use() as db, db:
            db.execute(
                "INSERT INTO steps (run, seq, kind, key, data, mac) VALUES (?, ?, ?, ?, ?, ?)",
                (run_id, seq, kind, key, data, mark),
            )

    def end(self, run_id: str, status: str) -> None:
        """Close run ``run_id``'s journal: it is not offered again; its steps are dropped."""
        with self._use() as db, db:
            db.execute(
                "UPDATE runs SET ended = ?, status = ? WHERE id = ?", (time.time(), status, run_id)
            )
            db.execute("DELETE FROM steps WHERE run = ?", (run_id,))

    def cut_off(self) -> list[CutOffRun]:
        """The runs whose process ended without ending them, oldest first (a journal row
        someone else wrote or changed leaves its run out)."""
        if not self.path.exists():
            return []
        with self._use() as db:
            rows = db.execute(
                "SELECT id, meta, pid, started, mac FROM runs WHERE ended IS NULL ORDER BY started"
            ).fetchall()
        found = []
        for run_id, meta, pid, started, mark in rows:
            if _alive(pid):
                continue
            from ..replay.signing import is_journal_mac  # (only for a run that may be cut off)

            if not is_journal_mac(mark, _head(run_id, pid, meta)):
                continue
            run = self._read(run_id, json.loads(meta), started)
            if run is not None:
                found.append(run)
        return found

    def _read(self, run_id: str, meta: dict[str, Any], started: float) -> CutOffRun | None:
        from ..replay.signing import is_journal_mac

        with self._use() as db:
            steps = db.execute(
                "SELECT seq, kind, key, data, mac FROM steps WHERE run = ? ORDER BY seq",
                (run_id,),
            ).fetchall()
        run = CutOffRun(run_id, meta, started)
        for seq, kind, key, data, mark in steps:
            if not is_journal_mac(mark, f"{run_id}\0{seq}\0{kind}\0{key}\0{data}"):
                return None
            run.fold(kind, key, json.loads(data))
        return run if run.recording.get("key") else None

    def close(self) -> None:
        with self._lock:
            if self._db is not None:
                self._db.close()
                self._db = None


def _head(run_id: str, pid: int, meta: str) -> str:
    """What a run's mark covers: which run, its process, what it is."""
    return f"{run_id}\0{pid}\0{meta}"


def _alive(pid: int) -> bool:
    """Whether process ``pid`` still runs (this process counts: its runs are not cut off)."""
    if pid == os.getpid():
        return True
    try:  # Linux: a zombie (exited, not reaped yet) is gone
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as f:
            return f.read().rsplit(")", 1)[-1].split()[:1] not in (["Z"], ["X"])
    except FileNotFoundError:
        return False
    except OSError:
        pass
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


@dataclass
class JournalRun:
    """The journal of one run being made: ``note`` adds a step."""

    journal: RunJournal
    run_id: str
    seq: int = 0
    ended: bool = False

    def note(self, kind: str, key: str, data: Any) -> None:
        """Save one step (see ``KINDS``)."""
        if self.ended:
            return
        self.seq += 1
        text = json.dumps(data, ensure_ascii=False, separators=(",", ":"), default=repr)
        self.journal.add(self.run_id, self.seq, kind, key, text)

    def end(self, status: str) -> None:
        """The run ended (``done``, ``failed``, ``cancelled``, ``paused``)."""
        if not self.ended:
            self.ended = True
            self.journal.end(self.run_id, status)


@dataclass
class CutOffRun:
    """A run cut off before it ended: what it is (``meta``), its recording so far, and the
    calls that had started without an output."""

    run_id: str
    meta: dict[str, Any]
    started: float
    recording: dict[str, Any] = field(
        default_factory=lambda: {"calls": [], "tools": {}, "approvals": {}}
    )
    running: set[str] = field(default_factory=set)
    """Calls that had started and have no output: what they did is not known."""

    def fold(self, kind: str, key: str, data: Any) -> None:
        """Add one step to the recording."""
        if kind == "begin" and isinstance(data, dict):
            self.recording.update(key=key, first=data.get("first"), recorded_at=self.started)
        elif kind == "call" and isinstance(data, dict):
            self.recording["calls"].append({**data, "id": key})
        elif kind in ("tool", "approval") and isinstance(data, dict):
            self.recording["tools" if kind == "tool" else "approvals"][key] = data
            if kind == "tool":
                self.running.discard(key)
        elif kind == "guardrail" and isinstance(data, dict):
            self.recording.setdefault("guardrails", {})[key] = data
        elif kind == "started" and key not in self.recording["tools"]:
            self.running.add(key)

    @property
    def steps(self) -> int:
        """Model replies and tool outputs saved."""
        return len(self.recording["calls"]) + len(self.recording["tools"])

    def cassette(self) -> Cassette:
        """What resumes the run: its recording replayed, then live; finished calls are answered
        from it, and the calls that were running are asked about."""
        from ..replay import Cassette

        return Cassette(mode="replay", runs=[self.recording], interrupted=frozenset(self.running))

    def describe(self) -> str:
        """One line: which run, when, how far."""
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(self.started))
        what = str(self.meta.get("prompt", ""))[:60].replace("\n", " ")
        unknown = f", {len(self.running)} call(s) of unknown outcome" if self.running else ""
        return f"{self.run_id[:8]} · {when} · {self.steps} steps saved{unknown} · {what!r}"
