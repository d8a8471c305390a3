"""The current trace and span of this context (the SDK's ``agents.tracing.scope``).

Both are ``ContextVar``s, so ``asyncio`` tasks and ``asyncio.to_thread`` calls started inside
a trace or span inherit it.
"""

from __future__ import annotations

import contextvars
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .spans import Span
    from .traces import Trace

__all__ = ["Scope", "current_span", "current_trace"]

current_trace: contextvars.ContextVar[Trace | None] = contextvars.ContextVar(
    "jupyter_agents_trace", default=None
)
current_span: contextvars.ContextVar[Span[Any] | None] = contextvars.ContextVar(
    "jupyter_agents_span", default=None
)


class Scope:
    """Reads and sets the current span and trace of this context."""

    @classmethod
    def get_current_span(cls) -> Span[Any] | None:
        """The current span, or ``None``."""
        return current_span.get()

    @classmethod
    def set_current_span(cls, span: Span[Any] | None) -> contextvars.Token[Span[Any] | None]:
        """Make ``span`` current; the token undoes it (``reset_current_span``)."""
        return current_span.set(span)

    @classmethod
    def reset_current_span(cls, token: contextvars.Token[Span[Any] | None]) -> None:
        """Restore the span current before ``set_current_span`` gave ``token`` (``ValueError``
        from another context)."""
        current_span.reset(token)

    @classmethod
    def get_current_trace(cls) -> Trace | None:
        """The current trace, or ``None``."""
        return current_trace.get()

    @classmethod
    def set_current_trace(cls, trace: Trace | None) -> contextvars.Token[Trace | None]:
        """Make ``trace`` current; the token undoes it (``reset_current_trace``)."""
        return current_trace.set(trace)

    @classmethod
    def reset_current_trace(cls, token: contextvars.Token[Trace | None]) -> None:
        """Restore the trace current before ``set_current_trace`` gave ``token``
        (``ValueError`` from another context)."""
        current_trace.reset(token)
