"""Spans: one timed operation (an agent, a model call, a tool call, ...) inside a trace.

``Span`` is the interface (the SDK's); ``SpanImpl`` records and reports to a processor;
``NoOpSpan`` records nothing (``NO_OP_SPAN`` is the shared one the span helpers return when
tracing is off).
"""

from __future__ import annotations

import abc
import contextvars
from types import TracebackType
from typing import Any, Generic, TypedDict, TypeVar

from . import util
from .logger import logger
from .processor_interface import TracingProcessor
from .scope import Scope
from .span_data import SpanData

__all__ = ["NO_OP_SPAN", "NoOpSpan", "Span", "SpanError", "SpanImpl", "TSpanData"]

TSpanData = TypeVar("TSpanData", bound=SpanData)

_ROUTING_KEYS = ("agent_harness_id",)
"""Trace metadata keys that every exported span carries (in its ``metadata``)."""


class SpanError(TypedDict):
    """What went wrong in a span."""

    message: str
    """A one-line description."""

    data: dict[str, Any] | None
    """Extra details (for an exception leaving a ``with`` block: its ``type``)."""


class Span(abc.ABC, Generic[TSpanData]):
    """A timed operation in a trace. Create it with a helper such as ``function_span``.

    Use it as a context manager (``with`` or ``async with``): entering starts it and makes it
    the current span, so spans created inside (also in ``asyncio`` tasks started inside) become
    its children; leaving finishes it, and an ``Exception`` leaving the block is recorded as
    its error and re-raised (cancellation and ``GeneratorExit`` are not errors). Code that
    cannot wrap the work in ``with`` (a generator yielding in between) calls ``start`` and
    ``finish`` instead. Times are ISO 8601 strings (UTC), ``None`` until set.

    Attributes:
        span_id: ``span_`` and 24 hex digits (``"no-op"`` for a span that records nothing).
        trace_id: The id of the trace it belongs to.
        parent_id: The id of its parent span, or ``None`` for a top-level span of the trace.
        span_data: What it records; fields may be filled in until it finishes.
        started_at: When it started, or ``None``.
        ended_at: When it finished, or ``None``.
        error: What went wrong, or ``None``.
        tracing_api_key: The API key its trace is exported with (``trace(tracing=...)``).
        trace_metadata: Its trace's metadata.
    """

    __slots__ = ()

    span_id: str
    trace_id: str
    parent_id: str | None
    span_data: TSpanData
    started_at: str | None
    ended_at: str | None
    error: SpanError | None
    tracing_api_key: str | None
    trace_metadata: dict[str, Any] | None

    @abc.abstractmethod
    def start(self, mark_as_current: bool = False) -> None:
        """Start the span: stamp ``started_at`` and tell the processor. Repeats do nothing.

        Args:
            mark_as_current: Also make it the current span of this context, so spans created
                here become its children. Undo with ``finish(reset_current=True)`` from the
                same context (from another one, that raises ``ValueError``).
        """

    @abc.abstractmethod
    def finish(self, reset_current: bool = False) -> None:
        """Finish the span: stamp ``ended_at`` and tell the processor. Repeats do nothing.

        Args:
            reset_current: Restore the span that was current before ``start``.
        """

    @abc.abstractmethod
    def set_error(self, error: SpanError | str, data: dict[str, Any] | None = None) -> None:
        """Record what went wrong (replacing an earlier error): a ``SpanError``, or a
        message and optional JSON-friendly ``data``."""

    @abc.abstractmethod
    def export(self) -> dict[str, Any] | None:
        """The span as a JSON-friendly dict (``"object": "trace.span"``); ``None`` for a span
        that records nothing."""

    def __enter__(self) -> Span[TSpanData]:
        self.start(mark_as_current=True)
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if exc_type is GeneratorExit:
            _finish_on_generator_exit(self)
            return
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


def _finish_on_generator_exit(span: Span[Any]) -> None:
    """Finish a span whose ``with`` block unwinds because its generator was closed.

    Closed from the task that ran it, the scope resets as usual. An abandoned async generator
    is closed by whichever task finalises it, a context that never saw the span as current:
    the reset cannot work there (``ValueError``), and that case alone is tolerated. A processor
    failing in ``finish`` still raises; the scope is released all the same.
    """
    try:
        span.finish(reset_current=False)
    finally:
        token = getattr(span, "_token", None)
        if token is not None:
            try:
                Scope.reset_current_span(token)
            except ValueError:
                logger.debug("Span %s closed outside the context that started it", span)
            span._token = None  # type: ignore[attr-defined]


def _as_error(error: SpanError | str, data: dict[str, Any] | None) -> SpanError:
    if isinstance(error, str):
        return {"message": error, "data": data}
    return error


class SpanImpl(Span[TSpanData]):
    """A span that records, reporting its start and end to ``processor``.

    Args:
        trace_id: Its trace's id.
        span_id: Its id (a new one from ``util.gen_span_id`` when ``None``).
        parent_id: Its parent span's id, or ``None`` at the top of the trace.
        processor: Told when it starts and ends (its exceptions propagate).
        span_data: What it records.
        tracing_api_key: The key its trace is exported with.
        trace_metadata: Its trace's metadata.
        include_sensitive_data: When ``False``, ``export()`` leaves out the span data's
            ``sensitive_fields`` (model and tool inputs and outputs).
    """

    __slots__ = (
        "_processor",
        "_sensitive",
        "_token",
        "ended_at",
        "error",
        "parent_id",
        "span_data",
        "span_id",
        "started_at",
        "trace_id",
        "trace_metadata",
        "tracing_api_key",
    )

    def __init__(
        self,
        trace_id: str,
        span_id: str | None,
        parent_id: str | None,
        processor: TracingProcessor,
        span_data: TSpanData,
        tracing_api_key: str | None,
        trace_metadata: dict[str, Any] | None = None,
        *,
        include_sensitive_data: bool = True,
    ) -> None:
        self.trace_id = trace_id
        self.span_id = span_id or util.gen_span_id()
        self.parent_id = parent_id
        self.span_data = span_data
        self.started_at = None
        self.ended_at = None
        self.error = None
        self.tracing_api_key = tracing_api_key
        self.trace_metadata = trace_metadata
        self._processor = processor
        self._sensitive = include_sensitive_data
        self._token: contextvars.Token[Span[Any] | None] | None = None

    def start(self, mark_as_current: bool = False) -> None:
        if self.started_at is not None:
            logger.debug("Span %s started twice: ignored", self)
            return
        self.started_at = util.time_iso()
        self._processor.on_span_start(self)
        if mark_as_current:
            self._token = Scope.set_current_span(self)

    def finish(self, reset_current: bool = False) -> None:
        if self.started_at is not None and self.ended_at is None:
            self.ended_at = util.time_iso()
            self._processor.on_span_end(self)
        if reset_current and self._token is not None:
            Scope.reset_current_span(self._token)
            self._token = None

    def set_error(self, error: SpanError | str, data: dict[str, Any] | None = None) -> None:
        self.error = _as_error(error, data)

    def export(self) -> dict[str, Any] | None:
        """The span as a JSON-friendly dict (``"object": "trace.span"``).

        When its trace excludes sensitive data, the span data's ``sensitive_fields`` (model and
        tool inputs and outputs) are left out. A ``metadata`` entry holds the span data's
        ``metadata`` and the trace's routing keys (``agent_harness_id``), when there are any.
        """
        data = self.span_data.export()
        if not self._sensitive:
            for name in self.span_data.sensitive_fields:
                data.pop(name, None)
        record: dict[str, Any] = {
            "object": "trace.span",
            "id": self.span_id,
            "trace_id": self.trace_id,
            "parent_id": self.parent_id,
            "started_at": self.started_at,
            "ended_at": self.ended_at,
            "span_data": data,
            "error": self.error,
        }
        metadata: dict[str, Any] = {}
        if self.trace_metadata:
            metadata = {
                k: self.trace_metadata[k] for k in _ROUTING_KEYS if k in self.trace_metadata
            }
        own = getattr(self.span_data, "metadata", None)
        if isinstance(own, dict):
            metadata.update({k: v for k, v in own.items() if k not in metadata})
        if metadata:
            record["metadata"] = metadata
        return record


class NoOpSpan(Span[TSpanData]):
    """A span that records nothing (tracing is off, or its trace records nothing).

    It still becomes the current span while entered, so spans created inside are no-ops too.
    """

    __slots__ = ("_token", "span_data")

    span_id = "no-op"
    trace_id = "no-op"
    parent_id = None
    started_at = None
    ended_at = None
    error = None
    tracing_api_key = None
    trace_metadata = None

    def __init__(self, span_data: TSpanData) -> None:
        self.span_data = span_data
        self._token: contextvars.Token[Span[Any] | None] | None = None

    def start(self, mark_as_current: bool = False) -> None:
        if mark_as_current:
            self._token = Scope.set_current_span(self)

    def finish(self, reset_current: bool = False) -> None:
        if reset_current and self._token is not None:
            Scope.reset_current_span(self._token)
            self._token = None

    def set_error(self, error: SpanError | str, data: dict[str, Any] | None = None) -> None:
        """Do nothing."""

    def export(self) -> dict[str, Any] | None:
        return None


class _DiscardedData(SpanData):
    """The ``span_data`` of the shared no-op span: reads give ``None``, writes are dropped."""

    __slots__ = ()
    type = "no-op"
    sensitive_fields = ()

    def __getattr__(self, name: str) -> None:
        return None

    def __setattr__(self, name: str, value: object) -> None:
        pass

    def export(self) -> dict[str, Any]:
        return {"type": self.type}


class _SharedNoOpSpan(NoOpSpan[Any]):
    """``NO_OP_SPAN``: one object for every context, so it never becomes the current span
    (there is no per-context state to keep); entering and leaving it do nothing."""

    __slots__ = ()

    def start(self, mark_as_current: bool = False) -> None:
        """Do nothing."""

    def finish(self, reset_current: bool = False) -> None:
        """Do nothing."""

    def __enter__(self) -> Span[Any]:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        return None


NO_OP_SPAN: Span[Any] = _SharedNoOpSpan(_DiscardedData())
"""The shared span that records nothing, returned by the span helpers whenever tracing is off."""
