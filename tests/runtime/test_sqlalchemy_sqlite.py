"""SQLAlchemySession on SQLite files that several connections open at once: a new file is
switched to WAL mode even while another connection holds it, instead of failing the run."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path
from typing import Any

from sqlalchemy import event

from jupyter_agents.extensions.memory import SQLAlchemySession

SWITCH = "PRAGMA journal_mode = WAL"


async def test_a_new_file_held_by_another_writer_is_switched_to_wal_once_it_is_free(
    tmp_path: Path,
) -> None:
    path = tmp_path / "new.db"
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")  # another process's write: SQLite refuses the switch
    holder.execute("CREATE TABLE other (x)")
    session = SQLAlchemySession.from_url("s", url=f"sqlite+aiosqlite:///{path}", create_tables=True)
    tries: list[str] = []
    retried = asyncio.Event()

    @event.listens_for(session.engine.sync_engine, "before_cursor_execute")
    def _count(_conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        if statement == SWITCH:
            tries.append(statement)
            if len(tries) >= 2:  # the first try was refused and the session tried again
                retried.set()

    adding = asyncio.create_task(session.add_items([{"role": "user", "content": "hi"}]))
    waiting = asyncio.create_task(retried.wait())
    try:
        await asyncio.wait({adding, waiting}, timeout=30, return_when=asyncio.FIRST_COMPLETED)
        assert retried.is_set(), adding.exception() if adding.done() else "no second try"
        assert not adding.done()
        holder.execute("COMMIT")
        await asyncio.wait_for(adding, timeout=30)
        assert await session.get_items() == [{"role": "user", "content": "hi"}]
    finally:
        waiting.cancel()
        holder.close()
        await session.close()
    with sqlite3.connect(path) as check:
        assert check.execute("PRAGMA journal_mode").fetchone() == ("wal",)
        assert check.execute("SELECT x FROM other").fetchall() == []
