"""The SDK's ``agents.handoffs.history``, at the same path: nested handoff history (the same
objects as ``jupyter_agents``'s)."""

from __future__ import annotations

from ..runtime.handoff_history import (
    default_handoff_history_mapper,
    get_conversation_history_wrappers,
    nest_handoff_history,
    reset_conversation_history_wrappers,
    set_conversation_history_wrappers,
)

__all__ = [
    "default_handoff_history_mapper",
    "get_conversation_history_wrappers",
    "nest_handoff_history",
    "reset_conversation_history_wrappers",
    "set_conversation_history_wrappers",
]
