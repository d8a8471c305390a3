"""The processor interface (the SDK's ``agents.tracing.processor_interface``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from .spans import Span
    from .traces import Trace

__all__ = ["TracingProcessor"]


class TracingProcessor(Protocol):
    """Receives traces and spans as they start and end.

    Any object with these six methods will do. Subclassing the protocol explicitly inherits
    do-nothing defaults, so a subclass only writes the methods it needs. Methods should be
    thread-safe and quick; to export, prefer ``trace.export()`` / ``span.export()``, which
    honour the trace's ``include_sensitive_data``.
    """

    def on_trace_start(self, trace: Trace) -> None:
        """Called when a trace starts, before any of its spans."""
        return None

    def on_trace_end(self, trace: Trace) -> None:
        """Called when a trace ends, after the spans that ended inside it."""
        return None

    def on_span_start(self, span: Span[Any]) -> None:
        """Called when a span starts."""
        return None

    def on_span_end(self, span: Span[Any]) -> None:
        """Called when a span ends; its data and error are final."""
        return None

    def shutdown(self) -> None:
        """Flush and release resources; called at interpreter exit."""
        return None

    def force_flush(self) -> None:
        """Write out anything buffered, now."""
        return None
