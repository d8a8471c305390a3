"""Text a tool produces while it runs (a shell command's output), and how far it has got, for
whoever shows the run.

A user interface sets ``tool_output_sink`` (and ``tool_progress_sink``) around a run; tools
that stream call ``streamer`` for their call and send it text as it comes; tools that know how
far they are call ``ToolContext.report_progress`` (an MCP server's progress notifications come
the same way). Without a sink nothing is sent and the tool's result is the only output.
"""

from __future__ import annotations

from collections.abc import Callable
from contextvars import ContextVar

__all__ = ["progress_reporter", "streamer", "tool_output_sink", "tool_progress_sink"]

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


tool_progress_sink: ContextVar[Callable[[str, float, float | None, str], None] | None] = ContextVar(
    "jupyter_agents_tool_progress_sink", default=None
)
"""``(call_id, done, total, message)``: where running tools say how far they are."""


def progress_reporter(call_id: str) -> Callable[[float, float | None, str], None] | None:
    """A function taking call ``call_id``'s progress, or None when nobody listens."""
    sink = tool_progress_sink.get()
    if sink is None:
        return None
    return lambda done, total, message: sink(call_id, done, total, message)
