"""A new SQLite file held by another connection is switched to WAL mode once it is free, by
the SQLite session and the batch results store: SQLite refuses the switch at once (no busy
timeout) while another connection writes, so both try again instead of failing."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from jupyter_agents import SQLiteSession
from jupyter_agents.runtime import _wal
from jupyter_agents.runtime.batch.store import ResultsStore


def _hold(path: Path) -> sqlite3.Connection:
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")  # another process writing the new file
    holder.execute("CREATE TABLE other (x)")
    return holder


@pytest.fixture
def release_on_first_refusal(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> Iterator[list[float]]:
    """Hold a new file; commit the holder's write when the switch is first refused."""
    holder = _hold(tmp_path / "new.db")
    pauses: list[float] = []

    def commit_then_go_on(seconds: float) -> None:
        pauses.append(seconds)
        if holder.in_transaction:
            holder.execute("COMMIT")

    monkeypatch.setattr(_wal, "pause", commit_then_go_on)
    yield pauses
    holder.close()


def _mode(path: Path) -> Any:
    with sqlite3.connect(path) as conn:
        return conn.execute("PRAGMA journal_mode").fetchone()[0]


async def test_the_sqlite_session_waits_for_the_switch(
    release_on_first_refusal: list[float], tmp_path: Path
) -> None:
    session = SQLiteSession("s", tmp_path / "new.db")
    await session.add_items([{"role": "user", "content": "hi"}])
    assert await session.get_items() == [{"role": "user", "content": "hi"}]
    session.close()
    assert release_on_first_refusal  # the first switch was refused and tried again
    assert _mode(tmp_path / "new.db") == "wal"


def test_the_batch_store_waits_for_the_switch(
    release_on_first_refusal: list[float], tmp_path: Path
) -> None:
    store = ResultsStore(tmp_path / "new.db")
    store.open_batch("b", {"n": 1})
    store.close()
    assert release_on_first_refusal
    assert _mode(tmp_path / "new.db") == "wal"


def test_a_file_still_held_when_the_time_is_up_raises(tmp_path: Path) -> None:
    holder = _hold(tmp_path / "new.db")
    try:
        conn = sqlite3.connect(tmp_path / "new.db")
        with pytest.raises(sqlite3.OperationalError, match="locked"):
            _wal.switch_to_wal(conn, timeout=0.05)
        conn.close()
    finally:
        holder.close()
