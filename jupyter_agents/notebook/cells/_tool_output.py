"""Routing ``print()`` from a running tool to that tool's card.

A proxy around ``sys.stdout`` / ``sys.stderr`` checks a context variable: inside a tool call it
hands the text to the call's sink, elsewhere it writes to the real stream. Sync tools run on
worker threads with a copy of the caller's context, so the variable follows them there.

``printing_to`` sends a call's printed text where the runtime sends any tool's live output
(``tools.live_output``), so a view gets every tool's output one way: its ``tool_output_text``,
set once around the run as the ``tool_output_sink``.
"""

from __future__ import annotations

import contextlib
import contextvars
import sys
from collections.abc import Callable, Iterator
from typing import Any, TextIO

from ...runtime.tools.live_output import streamer

__all__ = ["install", "printing_to", "sink", "uninstall"]

sink: contextvars.ContextVar[Callable[[str], None] | None] = contextvars.ContextVar(
    "jupyter_agents_tool_sink", default=None
)


class _ToolAwareStream:
    """Writes to the current tool's sink when there is one, else to the wrapped stream."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        target = sink.get()
        if target is None:
            return self._stream.write(text)
        target(text)
        return len(text)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


@contextlib.contextmanager
def printing_to(call_id: str) -> Iterator[None]:
    """While the block runs, what is printed goes to call ``call_id``'s live output (to the
    real stream when nobody listens)."""
    token = sink.set(streamer(call_id))
    try:
        yield
    finally:
        sink.reset(token)


def install() -> None:
    """Wrap ``sys.stdout`` and ``sys.stderr`` (idempotent)."""
    for name in ("stdout", "stderr"):
        stream = getattr(sys, name)
        if not isinstance(stream, _ToolAwareStream):
            setattr(sys, name, _ToolAwareStream(stream))


def uninstall() -> None:
    """Restore the wrapped streams."""
    for name in ("stdout", "stderr"):
        stream = getattr(sys, name)
        if isinstance(stream, _ToolAwareStream):
            setattr(sys, name, stream._stream)
