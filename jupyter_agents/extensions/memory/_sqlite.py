"""What SQLite needs from ``SQLAlchemySession`` so many connections can share one file:
a busy timeout on every connection, and WAL mode switched on once per new file."""

from __future__ import annotations

import asyncio
from typing import Any

from sqlalchemy import event
from sqlalchemy.exc import OperationalError
from sqlalchemy.ext.asyncio import AsyncEngine

from ...runtime.sessions._common import logger

BUSY_TIMEOUT_MS = 30_000
_WAL_MODES = ("wal", "memory")  # an in-memory database keeps its own mode


def configure(engine: AsyncEngine) -> None:
    """Make every new connection of a SQLite ``engine`` wait for other writers instead of
    failing at once (a no-op for other databases, and the second time)."""
    sync_engine = engine.sync_engine
    if engine.dialect.name != "sqlite" or getattr(sync_engine, "_jupyter_agents", False):
        return

    @event.listens_for(sync_engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        cursor = dbapi_connection.cursor()
        try:
            cursor.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        finally:
            cursor.close()

    sync_engine._jupyter_agents = True  # type: ignore[attr-defined]


async def use_wal(engine: AsyncEngine) -> None:
    """Switch the engine's SQLite file to WAL mode (readers then never wait for a writer).

    WAL is a property of the file, so this is done once per engine and only changes a new
    file. The switch needs a moment alone with the file, and SQLite answers "database is
    locked" at once, without its busy timeout, while another connection (in this process or
    another) is using it: so the switch is retried, yielding to the event loop between tries,
    until the busy timeout. A file that cannot use WAL keeps working with a warning.
    """
    sync_engine = engine.sync_engine
    if engine.dialect.name != "sqlite" or getattr(sync_engine, "_jupyter_agents_wal", False):
        return
    loop = asyncio.get_running_loop()
    deadline = loop.time() + BUSY_TIMEOUT_MS / 1000
    delay = 0.002
    async with engine.connect() as conn:
        while True:
            mode = str((await conn.exec_driver_sql("PRAGMA journal_mode")).scalar()).lower()
            if mode in _WAL_MODES:
                break
            try:
                switched = (await conn.exec_driver_sql("PRAGMA journal_mode = WAL")).scalar()
            except OperationalError as exc:
                if "locked" not in str(exc) or loop.time() >= deadline:
                    raise
                await conn.rollback()
                await asyncio.sleep(delay)
                delay = min(delay * 2, 0.1)
                continue
            if str(switched).lower() not in _WAL_MODES:
                logger.warning(
                    "SQLite could not use WAL mode for %s (it uses %r); sessions still commit "
                    "atomically, but readers and writers will wait for each other.",
                    engine.url.database,
                    switched,
                )
            break
    sync_engine._jupyter_agents_wal = True  # type: ignore[attr-defined]
