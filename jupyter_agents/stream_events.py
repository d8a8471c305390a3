"""The SDK's ``agents.stream_events``, at the same path.

The names that module of the OpenAI Agents SDK defines, where this project has them (the same
objects as ``jupyter_agents``'s).
"""

from __future__ import annotations

from .runtime.events import (
    AgentUpdatedStreamEvent,
    RawResponsesStreamEvent,
    RunItemStreamEvent,
    StreamEvent,
)

__all__ = [
    "AgentUpdatedStreamEvent",
    "RawResponsesStreamEvent",
    "RunItemStreamEvent",
    "StreamEvent",
]
