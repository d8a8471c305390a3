"""The SDK's ``agents.memory``, at the same path.

The names that module of the OpenAI Agents SDK defines, where this project has them (the same
objects as ``jupyter_agents``'s).
"""

from __future__ import annotations

from ..runtime.run_config import SessionInputCallback
from ..runtime.sessions import Session, SessionABC, SessionSettings, SQLiteSession

__all__ = ["SQLiteSession", "Session", "SessionABC", "SessionInputCallback", "SessionSettings"]
