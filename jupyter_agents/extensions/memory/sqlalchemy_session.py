"""A session stored through SQLAlchemy's asyncio engines: PostgreSQL (``postgresql+asyncpg``),
SQLite (``sqlite+aiosqlite``) or another database with an async driver.

Many kernels and processes may share one database and even one session::

    session = SQLAlchemySession.from_url(
        "user-42", url="postgresql+asyncpg://app:secret@db/agents", create_tables=True
    )
    await Runner.run(agent, "Hello", session=session)

The tables are the SDK's (``agent_sessions``, ``agent_messages``), so either library reads
the other's history. How writes stay whole and ordered:

* ``add_items`` is one transaction: the session's row is updated first, which locks it (a
  row lock in PostgreSQL, the write lock in SQLite), then the items are inserted. A second
  writer of the same session waits for the first to commit, so the ids of each batch are
  contiguous and later than every committed item; a writer that dies before its commit
  leaves nothing (the server rolls the transaction back).
* History is read in id order, so what a reader saw stays in front of what is added later.
* ``pop_item`` takes the same lock, so two pops never return the same item.
* ``replace_after`` (a notebook re-running a cell) deletes the replaced items and inserts the
  new ones in one transaction under that lock: a writer that dies half way changes nothing.
"""

from __future__ import annotations

import zlib
from typing import Any

from ._optional import missing_extra

try:
    from sqlalchemy import (
        TIMESTAMP,
        Column,
        CursorResult,
        ForeignKey,
        Index,
        Integer,
        MetaData,
        String,
        Table,
        Text,
        delete,
        func,
        insert,
        select,
        text,
        update,
    )
    from sqlalchemy.dialects import postgresql, sqlite
    from sqlalchemy.exc import DBAPIError
    from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, create_async_engine
except ImportError as exc:  # pragma: no cover - depends on the installed extras
    missing_extra("SQLAlchemySession", "sqlalchemy", "sqlalchemy", exc)

from ...runtime.errors import UserError
from ...runtime.items import TResponseInputItem
from ...runtime.sessions._common import check_session_id, decode_item, encode_items
from ...runtime.sessions.replace import check_keep, cut_position
from ...runtime.sessions.settings import (
    SessionSettings,
    coerce_session_settings,
)
from . import _sqlite
from ._common import PerLoop, ServerHistory, settle

__all__ = ["SQLAlchemySession"]


def _engine_for(url: str, engine_kwargs: dict[str, Any]) -> AsyncEngine:
    try:
        engine = create_async_engine(url, **engine_kwargs)
    except Exception as exc:
        if isinstance(exc, ModuleNotFoundError) and exc.name in ("asyncpg", "aiosqlite"):
            missing_extra("SQLAlchemySession", exc.name, "sqlalchemy", exc)
        lines = str(exc).splitlines() or [type(exc).__name__]
        detail = lines[0].replace(url, "<the URL>")  # the URL may hold a password
        raise UserError(
            f"SQLAlchemySession.from_url: {detail}. Give an async URL such as "
            "'postgresql+asyncpg://user:password@host/db' or 'sqlite+aiosqlite:///history.db'."
        ) from None
    _sqlite.configure(engine)
    return engine


class SQLAlchemySession(ServerHistory):
    """A session in a SQL database reached through a SQLAlchemy ``AsyncEngine``."""

    def __init__(
        self,
        session_id: str,
        *,
        engine: AsyncEngine,
        create_tables: bool = False,
        sessions_table: str = "agent_sessions",
        messages_table: str = "agent_messages",
        session_settings: SessionSettings | dict[str, Any] | None = None,
        ensure_ascii: bool = True,
    ) -> None:
        """Use ``engine``'s database (this session does not dispose of it).

        Args:
            session_id: The conversation's id; a non-empty string.
            engine: An engine with an async driver (``postgresql+asyncpg``,
                ``sqlite+aiosqlite``, ``mysql+aiomysql``, ...).
            create_tables: Create the tables and index when missing (at first use). Leave it
                off where migrations own the schema.
            sessions_table: Table of sessions (session_id, created_at, updated_at).
            messages_table: Table of items (id, session_id, message_data JSON, created_at).
            session_settings: This session's defaults, e.g. ``SessionSettings(limit=100)``.
            ensure_ascii: Store non-ASCII characters escaped (the SDK's default format).

        Raises:
            UserError: An argument is invalid.
        """
        self.session_id = check_session_id(session_id)
        if not isinstance(engine, AsyncEngine):
            raise UserError(
                f"SQLAlchemySession needs an AsyncEngine (create_async_engine), got "
                f"{type(engine).__name__}; or use SQLAlchemySession.from_url(id, url=...)."
            )
        if sessions_table == messages_table:
            raise UserError("sessions_table and messages_table must be different tables.")
        self.session_settings: SessionSettings | None = coerce_session_settings(session_settings)
        self._ensure_ascii = ensure_ascii
        self._engines = PerLoop(engine, None)
        self._owns_engine = False
        self._create_tables = create_tables
        _sqlite.configure(engine)
        self._metadata = MetaData()
        self._sessions = Table(
            sessions_table,
            self._metadata,
            Column("session_id", String, primary_key=True),
            Column("created_at", TIMESTAMP, server_default=func.current_timestamp()),
            Column("updated_at", TIMESTAMP, server_default=func.current_timestamp()),
        )
        self._messages = Table(
            messages_table,
            self._metadata,
            Column("id", Integer, primary_key=True, autoincrement=True),
            Column(
                "session_id",
                String,
                ForeignKey(f"{sessions_table}.session_id", ondelete="CASCADE"),
                nullable=False,
            ),
            Column("message_data", Text, nullable=False),
            Column("created_at", TIMESTAMP, server_default=func.current_timestamp()),
            Index(f"idx_{messages_table}_session_id", "session_id", "id"),
            sqlite_autoincrement=True,
        )

    @classmethod
    def from_url(
        cls,
        session_id: str,
        *,
        url: str,
        engine_kwargs: dict[str, Any] | None = None,
        session_settings: SessionSettings | dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> SQLAlchemySession:
        """A session on a new engine for ``url``, closed by ``close``.

        Args:
            session_id: The conversation's id.
            url: An async database URL, e.g. ``postgresql+asyncpg://user:pw@host/db``.
            engine_kwargs: Passed to ``create_async_engine`` (pool size, echo, ...).
            session_settings: This session's defaults.
            **kwargs: The constructor's other arguments (``create_tables``, table names).
        """
        options = dict(engine_kwargs or {})
        session = cls(
            session_id,
            engine=_engine_for(url, options),
            session_settings=session_settings,
            **kwargs,
        )
        # Connections belong to the event loop that opened them; each other loop gets its own
        # engine. SQLite's driver runs on threads of its own and can share one.
        if session.engine.dialect.name != "sqlite":
            session._engines = PerLoop(session.engine, lambda: _engine_for(url, options))
        session._owns_engine = True
        return session

    @property
    def engine(self) -> AsyncEngine:
        """The engine this session uses (for the running event loop, if any)."""
        return self._engines.current()

    async def close(self) -> None:
        """Dispose of the engines ``from_url`` made; a no-op for an engine passed in.

        The running loop's engine closes its connections; the engines of other event loops
        are dropped (their connections cannot be closed from this loop).
        """
        if self._owns_engine:
            here, elsewhere = self._engines.take_all()
            for engine in here:
                await engine.dispose()
            for engine in elsewhere:
                await engine.dispose(close=False)

    # -- the Session protocol -----------------------------------------------------------------

    async def add_items(self, items: list[TResponseInputItem]) -> None:
        """Append ``items`` in one transaction: all of them, after every committed item, or
        none (an error, a cancellation or a killed process stores nothing)."""
        encoded = encode_items(items, ensure_ascii=self._ensure_ascii)
        if encoded:
            await self._ensure_tables()
            await settle(self._add(encoded))

    async def pop_item(self) -> TResponseInputItem | None:
        """Remove and return the most recent item (``None`` when the session is empty)."""
        await self._ensure_tables()
        return await settle(self._pop())

    async def replace_after(self, keep: int, items: list[TResponseInputItem]) -> None:
        """Keep the first ``keep`` items, delete the rest and append ``items``, in one
        transaction (``keep`` counts readable items, as ``get_items`` returns them)."""
        keep = check_keep(keep)
        encoded = encode_items(items, ensure_ascii=self._ensure_ascii)
        await self._ensure_tables()
        await settle(self._replace(keep, encoded))

    async def clear_session(self) -> None:
        """Remove every item of this session and its row in the sessions table."""
        await self._ensure_tables()
        await settle(self._clear())

    def __repr__(self) -> str:
        url = self._engines.first.url.render_as_string(hide_password=True)
        return f"SQLAlchemySession({self.session_id!r}, url={url!r})"

    # -- statements ---------------------------------------------------------------------------

    def _mine(self) -> Any:
        return self._messages.c.session_id == self.session_id

    async def _ready(self) -> None:
        await self._ensure_tables()

    async def _all(self) -> list[object]:
        m = self._messages
        query = select(m.c.message_data).where(self._mine()).order_by(m.c.id)
        async with self.engine.connect() as conn:
            return list((await conn.execute(query)).scalars().all())

    async def _latest(self, count: int) -> list[object]:
        m = self._messages
        newest = select(m.c.id, m.c.message_data).where(self._mine())
        query = newest.order_by(m.c.id.desc()).limit(count)
        async with self.engine.connect() as conn:
            rows = (await conn.execute(query)).all()
        return [data for _id, data in reversed(rows)]

    async def _lock_session_row(self, conn: AsyncConnection, *, create: bool) -> bool:
        """Touch the session's row, which locks it until the commit; create it if asked."""
        s = self._sessions
        touch = (
            update(s)
            .where(s.c.session_id == self.session_id)
            .values(updated_at=func.current_timestamp())
        )
        result: CursorResult[Any] = await conn.execute(touch)
        if result.rowcount or not create:
            return bool(result.rowcount)
        dialect = conn.dialect.name
        if dialect in ("postgresql", "sqlite"):
            module = postgresql if dialect == "postgresql" else sqlite
            new_row = module.insert(s).values(session_id=self.session_id)
            await conn.execute(new_row.on_conflict_do_nothing())
        else:  # another writer may create it first: a savepoint keeps this transaction alive
            try:
                async with conn.begin_nested():
                    await conn.execute(insert(s).values(session_id=self.session_id))
            except DBAPIError:
                pass
        await conn.execute(touch)  # the row is there now; this takes its lock
        return True

    async def _add(self, encoded: list[str]) -> None:
        rows = [{"session_id": self.session_id, "message_data": data} for data in encoded]
        async with self.engine.begin() as conn:
            await self._lock_session_row(conn, create=True)
            await conn.execute(insert(self._messages), rows)

    async def _replace(self, keep: int, encoded: list[str]) -> None:
        m = self._messages
        async with self.engine.begin() as conn:
            await self._lock_session_row(conn, create=True)
            query = select(m.c.id, m.c.message_data).where(self._mine()).order_by(m.c.id)
            rows = (await conn.execute(query)).all()
            cut = cut_position([data for _id, data in rows], keep)
            if cut < len(rows):
                await conn.execute(delete(m).where(self._mine(), m.c.id >= rows[cut][0]))
            if encoded:
                new = [{"session_id": self.session_id, "message_data": data} for data in encoded]
                await conn.execute(insert(m), new)

    async def _pop(self) -> TResponseInputItem | None:
        m = self._messages
        async with self.engine.begin() as conn:
            if not await self._lock_session_row(conn, create=False):
                return None
            while True:
                query = select(m.c.id, m.c.message_data).where(self._mine())
                row = (await conn.execute(query.order_by(m.c.id.desc()).limit(1))).first()
                if row is None:
                    return None
                await conn.execute(delete(m).where(m.c.id == row[0]))
                item = decode_item(row[1])
                if item is not None:  # an unreadable row is dropped and the next one popped
                    return item

    async def _clear(self) -> None:
        async with self.engine.begin() as conn:
            await conn.execute(delete(self._messages).where(self._mine()))
            s = self._sessions
            await conn.execute(delete(s).where(s.c.session_id == self.session_id))

    async def _ensure_tables(self) -> None:
        engine = self.engine
        await _sqlite.use_wal(engine)
        if not self._create_tables:
            return
        async with engine.begin() as conn:
            if conn.dialect.name == "postgresql":
                # Processes creating the same tables at once would collide in the catalog;
                # a transaction-scoped advisory lock lets one of them at a time check and create.
                names = f"{self._sessions.name}/{self._messages.name}".encode()
                key = zlib.crc32(names)
                await conn.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": key})
            elif conn.dialect.name == "sqlite":
                # Take the write lock before looking, so two processes do not both decide to
                # create. (The driver opened no transaction yet: it begins before writes only.)
                await conn.exec_driver_sql("BEGIN IMMEDIATE")
            await conn.run_sync(self._metadata.create_all)
        self._create_tables = False
