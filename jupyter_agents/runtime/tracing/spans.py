"""Spans: one timed operation (an agent, a model call, a tool call, ...) inside a trace."""

from __future__ import annotations

import logging
import time
from types import TracebackType
from typing import TYPE_CHECKING, Any, Generic, TypedDict, TypeVar

from ._scope import current_span
from .span_data import SpanData

if TYPE_CHECKING:
    from .traces import Trace

__all__ = ["NO_OP_SPAN", "Span", "SpanError"]

logger = logging.getLogger("jupyter_agents.tracing")

TSpanData = TypeVar("TSpanData", bound=SpanData)


class SpanError(TypedDict):
    """What went wrong in a span."""

    message: str
    """A one-line description."""

    data: dict[str, Any] | None
    """Extra details (for an exception leaving a ``with`` block: its ``type``)."""


class Span(Generic[TSpanData]):
    """A timed operation in a trace. Create it with a helper such as ``function_span``.

    Use it as a context manager (``with`` or ``async with``): entering starts it and makes it
    the current span, so spans created inside (also in ``asyncio`` tasks started inside) become
    its children; leaving finishes it, and an ``Exception`` leaving the block is recorded as
    its error and re-raised (cancellation and ``GeneratorExit`` are not errors). Code that
    cannot wrap the work in ``with`` (a generator yielding in between) calls ``start`` and
    ``finish`` instead. Times are epoch seconds (``time.time()`` floats), ``None`` until set.

    Attributes:
        span_id: ``span_`` and 24 hex digits (``"no-op"`` for the span that records nothing).
        trace_id: The id of the trace it belongs to.
        parent_id: The id of its parent span, or ``None`` for a top-level span of the trace.
        span_data: What it records; fields may be filled in until it finishes.
        started_at: When it started, or ``None``.
        ended_at: When it finished, or ``None``.
        error: What went wrong, or ``None``.
    """

    __slots__ = (
        "_token",
        "_trace",
        "ended_at",
        "error",
        "parent_id",
        "span_data",
        "span_id",
        "started_at",
        "trace_id",
    )

    def __init__(self, trace: Trace, span_id: str, parent_id: str | None, data: TSpanData) -> None:
        self.span_id = span_id
        self.trace_id = trace.trace_id
        self.parent_id = parent_id
        self.span_data: TSpanData = data
        self.started_at: float | None = None
        self.ended_at: float | None = None
        self.error: SpanError | None = None
        self._trace = trace
        self._token: Any = None

    def start(self, mark_as_current: bool = False) -> None:
        """Start the span: stamp ``started_at`` and tell the processors. Repeats do nothing.

        Args:
            mark_as_current: Also make it the current span of this context, so spans created
                here become its children. Undo with ``finish(reset_current=True)`` from the
                same context.
        """
        if self.started_at is None:
            self.started_at = time.time()
            for processor in self._trace._processors:
                try:
                    processor.on_span_start(self)
                except Exception:
                    logger.exception("Tracing processor %r failed in on_span_start", processor)
        if mark_as_current and self._token is None:
            self._token = current_span.set(self)

    def finish(self, reset_current: bool = False) -> None:
        """Finish the span: stamp ``ended_at`` and tell the processors. Repeats do nothing.

        Args:
            reset_current: Restore the span that was current before ``start``.
        """
        if self.started_at is not None and self.ended_at is None:
            self.ended_at = time.time()
            for processor in self._trace._processors:
                try:
                    processor.on_span_end(self)
                except Exception:
                    logger.exception("Tracing processor %r failed in on_span_end", processor)
        if reset_current and self._token is not None:
            token, self._token = self._token, None
            try:
                current_span.reset(token)
            except ValueError:
                # Finished from another context (an async generator closed by a finaliser):
                # that context never saw the span as current, so there is nothing to undo.
                logger.debug("Span %s finished outside the context that started it", self)

    def set_error(self, message: str, data: dict[str, Any] | None = None) -> None:
        """Record what went wrong (replacing an earlier error).

        Args:
            message: A one-line description.
            data: Extra JSON-friendly details.
        """
        self.error = {"message": message, "data": data}

    def export(self) -> dict[str, Any]:
        """The span as a JSON-friendly dict (``"object": "trace.span"``).

        When the trace excludes sensitive data, the span data's ``sensitive_fields`` (model and
        tool inputs and outputs) are left out.
        """
        data = self.span_data.export()
        if not self._trace.include_sensitive_data:
            for name in self.span_data.sensitive_fields:
                data.pop(name, None)
        return {
            "object": "trace.span",
            "id": self.span_id,
            "trace_id": self.trace_id,
            "parent_id": self.parent_id,
            "started_at": self.started_at,
            "ended_at": self.ended_at,
            "span_data": data,
            "error": self.error,
        }

    def __enter__(self) -> Span[TSpanData]:
        self.start(mark_as_current=True)
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if isinstance(exc, Exception) and self.error is None:
            self.set_error(str(exc) or type(exc).__name__, {"type": type(exc).__name__})
        self.finish(reset_current=True)

    async def __aenter__(self) -> Span[TSpanData]:
        return self.__enter__()

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.__exit__(exc_type, exc, tb)

    def __repr__(self) -> str:
        return f"<Span {self.span_data.type} {self.span_id}>"


class _DiscardedData:
    """The ``span_data`` of the no-op span: reads give ``None``, writes are dropped."""

    __slots__ = ()
    type = "no-op"
    sensitive_fields = ()

    def __getattr__(self, name: str) -> None:
        return None

    def __setattr__(self, name: str, value: object) -> None:
        pass

    def export(self) -> dict[str, Any]:
        return {"type": self.type}


class _NoOpSpan(Span[Any]):
    """The one span returned whenever tracing records nothing. Every method does nothing."""

    __slots__ = ()

    def __init__(self) -> None:
        self.span_id = self.trace_id = "no-op"
        self.parent_id = None
        self.span_data = _DiscardedData()
        self.started_at = self.ended_at = None
        self.error = None
        self._token = None

    def start(self, mark_as_current: bool = False) -> None:
        """Do nothing."""

    def finish(self, reset_current: bool = False) -> None:
        """Do nothing."""

    def set_error(self, message: str, data: dict[str, Any] | None = None) -> None:
        """Do nothing."""

    def export(self) -> dict[str, Any]:
        """An empty record (it is never given to processors)."""
        return {"object": "trace.span", "id": self.span_id, "span_data": self.span_data.export()}

    def __enter__(self) -> Span[Any]:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        return None


NO_OP_SPAN: Span[Any] = _NoOpSpan()
"""The shared span that records nothing, returned whenever tracing is off."""
