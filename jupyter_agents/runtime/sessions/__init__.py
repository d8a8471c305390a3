"""Sessions: conversation history that a run loads before it starts and saves when it ends.

* ``Session`` — the contract (a structural protocol); ``SessionABC`` — the same as
  an abstract base class.
* ``InMemorySession`` — history in this process's memory.
* ``SQLiteSession`` — history in SQLite, in memory or in a file that survives restarts,
  crashes and concurrent writers.
* ``AdvancedSQLiteSession`` — a SQLite session with conversation branches and usage per
  turn.
* ``SessionSettings`` — how much history a run loads (a session's own, or the run's).

Stores on a database server (PostgreSQL, Redis) and encryption are at the SDK's path,
``jupyter_agents.extensions.memory``.
"""

from __future__ import annotations

from .advanced_sqlite import AdvancedSQLiteSession
from .base import Session, SessionABC
from .memory import InMemorySession
from .settings import SessionSettings
from .sqlite import SQLiteSession

__all__ = [
    "AdvancedSQLiteSession",
    "InMemorySession",
    "SQLiteSession",
    "Session",
    "SessionABC",
    "SessionSettings",
]
