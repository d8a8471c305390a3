"""The SDK's ``agents.handoffs``, at the same path.

The names that module of the OpenAI Agents SDK defines, where this project has them (the same
objects as ``jupyter_agents``'s). ``agents.handoffs.history`` is ``.history``.
"""

from __future__ import annotations

from ..runtime.handoff_history import (
    HandoffHistoryMapper,
    default_handoff_history_mapper,
    get_conversation_history_wrappers,
    nest_handoff_history,
    reset_conversation_history_wrappers,
    set_conversation_history_wrappers,
)
from ..runtime.handoffs import Handoff, HandoffInputData, HandoffInputFilter, handoff

__all__ = [
    "Handoff",
    "HandoffHistoryMapper",
    "HandoffInputData",
    "HandoffInputFilter",
    "default_handoff_history_mapper",
    "get_conversation_history_wrappers",
    "handoff",
    "nest_handoff_history",
    "reset_conversation_history_wrappers",
    "set_conversation_history_wrappers",
]
