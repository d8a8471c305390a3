"""Session stores at the SDK's path (``agents.extensions.memory``).

* ``AdvancedSQLiteSession``: a SQLite session with branches and usage per turn (also
  importable from ``jupyter_agents``).
* ``SQLAlchemySession``: history in PostgreSQL (asyncpg), SQLite (aiosqlite) or another
  database SQLAlchemy reaches asynchronously; needs ``pip install 'jupyter_agents[sqlalchemy]'``.
* ``RedisSession``: history in Redis; needs ``pip install 'jupyter_agents[redis]'``.
* ``EncryptedSession``: wraps any session, encrypting each item (Fernet, a key per
  session) and skipping items older than its TTL; needs ``pip install 'jupyter_agents[encrypt]'``.

The last three are imported on first use, so ``import jupyter_agents`` never imports
SQLAlchemy, redis or cryptography.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

from ...runtime.sessions import AdvancedSQLiteSession
from ._optional import missing_extra

if TYPE_CHECKING:
    from .encrypt_session import EncryptedSession
    from .redis_session import RedisSession
    from .sqlalchemy_session import SQLAlchemySession

__all__ = ["AdvancedSQLiteSession", "EncryptedSession", "RedisSession", "SQLAlchemySession"]

_LAZY: dict[str, tuple[str, str, str]] = {
    "EncryptedSession": ("encrypt_session", "cryptography", "encrypt"),
    "RedisSession": ("redis_session", "redis", "redis"),
    "SQLAlchemySession": ("sqlalchemy_session", "sqlalchemy", "sqlalchemy"),
}
"""Name -> (module in this package, the package it needs, the extra that installs it)."""


def __getattr__(name: str) -> Any:
    if name not in _LAZY:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    module_name, package, extra = _LAZY[name]
    try:
        module = import_module(f"{__name__}.{module_name}")
    except ImportError as exc:
        missing_extra(name, package, extra, exc)
    value = getattr(module, name)
    globals()[name] = value
    return value
