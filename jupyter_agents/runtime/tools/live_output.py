"""Text a tool produces while it runs (a shell command's output), for whoever shows the run.

A user interface sets ``tool_output_sink`` around a run; tools that stream call
``streamer`` for their call and send it text as it comes. Without a sink nothing is sent and
the tool's result is the only output.
"""

from __future__ import annotations

from collections.abc import Callable
from contextvars import ContextVar

__all__ = ["streamer", "tool_output_sink"]

tool_output_sink: ContextVar[Callable[[str, str], None] | None] = ContextVar(
    "jupyter_agents_tool_output_sink", default=None
)
"""``(call_id, text)``: where running tools send what they print."""


def streamer(call_id: str) -> Callable[[str], None] | None:
    """A function taking the text call ``call_id`` produces, or None when nobody listens."""
    sink = tool_output_sink.get()
    if sink is None:
        return None
    return lambda text: sink(call_id, text)
