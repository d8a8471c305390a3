"""The session tests' servers (``jupyter_agents.testing.db_servers``): missing, a test skips
on a developer's machine and fails under CI, whose `.ci/run` installs both."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from jupyter_agents.testing.db_servers import ServerMissing
from jupyter_agents.testing.db_servers import postgres_server as _postgres
from jupyter_agents.testing.db_servers import redis_server as _redis
from tests.prerequisites import fail_or_skip

__all__ = ["postgres_server", "redis_server"]


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
