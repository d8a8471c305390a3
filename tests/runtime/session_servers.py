"""The session tests' servers (``jupyter_agents.testing.db_servers``): missing, a test skips
on a developer's machine and fails under CI, whose `.ci/run` installs both.

The fixtures (``pg_url``, ``redis_url``, and ``make``: sessions of each kind on them) reach
the runtime tests through ``tests/runtime/conftest.py``.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from jupyter_agents import SQLiteSession
from jupyter_agents.extensions.memory import EncryptedSession, RedisSession, SQLAlchemySession
from jupyter_agents.testing.db_servers import ServerMissing
from jupyter_agents.testing.db_servers import postgres_server as _postgres
from jupyter_agents.testing.db_servers import redis_server as _redis
from tests.prerequisites import fail_or_skip

__all__ = ["KINDS", "kind", "make", "pg_url", "postgres_server", "redis_server", "redis_url"]

KINDS = ["postgres", "sqlite", "redis", "encrypted"]
"""The stores ``make`` builds: SQLAlchemy on PostgreSQL and on SQLite, Redis, and the
encrypting wrapper (around a SQLite session)."""


@contextmanager
def postgres_server() -> Iterator[str]:
    """A private PostgreSQL (fsync off: the tests kill clients, never the server)."""
    try:
        server = _postgres(fsync=False)
        url = server.__enter__()
    except ServerMissing as exc:
        fail_or_skip(str(exc))
    try:
        yield url
    finally:
        server.__exit__(None, None, None)


@contextmanager
def redis_server() -> Iterator[str]:
    """A private Redis."""
    try:
        server = _redis()
        url = server.__enter__()
    except ServerMissing as exc:
        fail_or_skip(str(exc))
    try:
        yield url
    finally:
        server.__exit__(None, None, None)


@pytest.fixture(scope="module")  # a server is a child process: not past the module
def pg_url() -> Iterator[str]:
    with postgres_server() as url:
        yield url


@pytest.fixture(scope="module")  # a server is a child process: not past the module
def redis_url() -> Iterator[str]:
    with redis_server() as url:
        yield url


@pytest.fixture(params=KINDS)
def kind(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
async def make(
    kind: str, request: pytest.FixtureRequest, tmp_path: Path
) -> AsyncIterator[Callable[..., Any]]:
    """Build sessions of the parametrized kind on one store; close them afterwards."""
    opened: list[Any] = []
    url = {
        "postgres": lambda: request.getfixturevalue("pg_url"),
        "redis": lambda: request.getfixturevalue("redis_url"),
    }.get(kind, lambda: f"sqlite+aiosqlite:///{tmp_path / 's.db'}")()
    prefix = uuid.uuid4().hex  # every test has conversations of its own on the shared servers

    def build(session_id: str = "s", **settings: Any) -> Any:
        sid = f"{prefix}-{session_id}"
        if kind == "redis":
            session: Any = RedisSession.from_url(sid, url=url, **settings)
        elif kind == "encrypted":
            store = SQLiteSession(sid, tmp_path / "plain.db")
            session = EncryptedSession(sid, store, encryption_key="team secret", **settings)
        else:
            session = SQLAlchemySession.from_url(sid, url=url, create_tables=True, **settings)
        opened.append(session)
        return session

    build.kind = kind  # type: ignore[attr-defined]
    yield build
    for session in opened:
        closing = session.close()
        if asyncio.iscoroutine(closing):
            await closing
