"""The SDK's ``agents.memory.session``, at the same path.

The names that module of the OpenAI Agents SDK defines, where this project has them (the same
objects as ``jupyter_agents``'s).
"""

from __future__ import annotations

from ..runtime.sessions import Session, SessionABC

__all__ = ["Session", "SessionABC"]
