"""The SDK's ``agents.extensions.memory.advanced_sqlite_session``, at the same path.

The names that module of the OpenAI Agents SDK defines, where this project has them (the same
objects as ``jupyter_agents``'s).
"""

from __future__ import annotations

from ...runtime.sessions import AdvancedSQLiteSession

__all__ = ["AdvancedSQLiteSession"]
