"""Trace providers (the SDK's ``agents.tracing.provider``): what creates traces and spans,
holds the processors and the on/off switch, and gives times and ids.

``DefaultTraceProvider`` is the one in use unless ``setup.set_trace_provider`` sets another.
It has no processor until one is added (nothing is exported by default), and when tracing
records nothing its span helpers return the shared no-op span without building anything.
Traces keep the processors registered when they were created.
"""

from __future__ import annotations

import abc
import os
import threading
from collections.abc import Sequence
from typing import Any

from . import util
from .config import TracingConfig
from .logger import logger
from .processor_interface import TracingProcessor
from .scope import Scope, current_span, current_trace
from .spans import NO_OP_SPAN, NoOpSpan, Span, SpanImpl, TSpanData
from .traces import NO_OP_ID, NoOpTrace, Trace, TraceImpl, _NestedTrace

__all__ = ["DefaultTraceProvider", "SynchronousMultiTracingProcessor", "TraceProvider"]


class SynchronousMultiTracingProcessor(TracingProcessor):
    """Passes every call on to its processors, in order; a processor that raises is logged
    and the others are still called (tracing never breaks a run).

    Args:
        processors: The processors to call.
    """

    __slots__ = ("_processors",)

    def __init__(self, processors: Sequence[TracingProcessor] = ()) -> None:
        self._processors: tuple[TracingProcessor, ...] = tuple(processors)

    @property
    def processors(self) -> tuple[TracingProcessor, ...]:
        """The processors called, in order."""
        return self._processors

    def add_tracing_processor(self, tracing_processor: TracingProcessor) -> None:
        """Call ``tracing_processor`` too, after the others."""
        self._processors = (*self._processors, tracing_processor)

    def set_processors(self, processors: Sequence[TracingProcessor]) -> None:
        """Call ``processors`` instead of the current ones."""
        self._processors = tuple(processors)

    def on_trace_start(self, trace: Trace) -> None:
        self._each("on_trace_start", trace)

    def on_trace_end(self, trace: Trace) -> None:
        self._each("on_trace_end", trace)

    def _each(self, method: str, *args: Any) -> None:
        """``method`` of every processor, in order; one that raises is logged, the rest called.
        (The span methods, called per span, keep their loops written out.)"""
        for processor in self._processors:
            try:
                getattr(processor, method)(*args)
            except Exception:
                logger.exception("Tracing processor %r failed in %s", processor, method)

    def on_span_start(self, span: Span[Any]) -> None:
        for processor in self._processors:
            try:
                processor.on_span_start(span)
            except Exception:
                logger.exception("Tracing processor %r failed in on_span_start", processor)

    def on_span_end(self, span: Span[Any]) -> None:
        for processor in self._processors:
            try:
                processor.on_span_end(span)
            except Exception:
                logger.exception("Tracing processor %r failed in on_span_end", processor)

    def shutdown(self) -> None:
        self._each("shutdown")

    def force_flush(self) -> None:
        self._each("force_flush")


class TraceProvider(abc.ABC):
    """What creates traces and spans; ``setup.set_trace_provider`` puts one in use."""

    @abc.abstractmethod
    def register_processor(self, processor: TracingProcessor) -> None:
        """Add a processor, after the others: it receives every trace and span."""

    @abc.abstractmethod
    def set_processors(self, processors: list[TracingProcessor]) -> None:
        """Replace the processors."""

    @abc.abstractmethod
    def get_current_trace(self) -> Trace | None:
        """The trace current in this context, or ``None``."""

    @abc.abstractmethod
    def get_current_span(self) -> Span[Any] | None:
        """The span current in this context, or ``None``."""

    @abc.abstractmethod
    def set_disabled(self, disabled: bool) -> None:
        """Turn tracing off (``True``) or back on."""

    @abc.abstractmethod
    def time_iso(self) -> str:
        """Now, as an ISO 8601 string."""

    @abc.abstractmethod
    def gen_trace_id(self) -> str:
        """A new trace id."""

    @abc.abstractmethod
    def gen_span_id(self) -> str:
        """A new span id."""

    @abc.abstractmethod
    def gen_group_id(self) -> str:
        """A new group id."""

    @abc.abstractmethod
    def create_trace(
        self,
        name: str,
        trace_id: str | None = None,
        group_id: str | None = None,
        metadata: dict[str, Any] | None = None,
        disabled: bool = False,
        tracing: TracingConfig | None = None,
    ) -> Trace:
        """A new trace (not started)."""

    @abc.abstractmethod
    def create_span(
        self,
        span_data: TSpanData,
        span_id: str | None = None,
        parent: Trace | Span[Any] | None = None,
        disabled: bool = False,
    ) -> Span[TSpanData]:
        """A new span (not started) under ``parent``, or the current span or trace."""

    def force_flush(self) -> None:
        """Have the processors export what they buffer, now (by default: nothing to do)."""
        return None

    def shutdown(self) -> None:
        """Release what the provider holds (by default: nothing to do)."""
        return None

    def processor(self) -> TracingProcessor:
        """The processor new spans of a trace made elsewhere (a reattached one) report to."""
        return SynchronousMultiTracingProcessor()


class DefaultTraceProvider(TraceProvider):
    """The provider in use by default: processors you register, an on/off switch (also
    ``OPENAI_AGENTS_DISABLE_TRACING=1``, read once, which ``set_disabled`` overrides), UTC ISO
    times and random ids."""

    takes_include_sensitive_data = True
    """``create_trace`` takes ``include_sensitive_data=`` (a provider written to the SDK's
    interface does not: ``trace()`` leaves it out for those)."""

    def __init__(self) -> None:
        self._multi_processor = SynchronousMultiTracingProcessor()
        self._lock = threading.Lock()
        self._manual_disabled: bool | None = None
        self._disabled = os.environ.get("OPENAI_AGENTS_DISABLE_TRACING", "").lower() in {
            "1",
            "true",
        }

    # -- processors and the switch -------------------------------------------------------

    @property
    def processors(self) -> tuple[TracingProcessor, ...]:
        """The registered processors, in the order they are called."""
        return self._multi_processor.processors

    @property
    def disabled(self) -> bool:
        """Whether tracing is off."""
        return self._disabled

    def register_processor(self, processor: TracingProcessor) -> None:
        """Add ``processor`` after the others (traces already running keep theirs)."""
        with self._lock:
            self._multi_processor.add_tracing_processor(processor)

    def set_processors(self, processors: Sequence[TracingProcessor]) -> None:
        """Replace the processors (the old ones are not shut down; traces already running
        keep theirs). With none, tracing records nothing until one is added."""
        with self._lock:
            self._multi_processor.set_processors(processors)

    def set_disabled(self, disabled: bool) -> None:
        self._manual_disabled = disabled
        self._disabled = disabled

    def processor(self) -> TracingProcessor:
        """The registered processors, as one (a snapshot: later changes are not seen)."""
        return SynchronousMultiTracingProcessor(self._multi_processor.processors)

    def force_flush(self) -> None:
        """``force_flush`` every registered processor (also when tracing is off)."""
        self._multi_processor.force_flush()

    def shutdown(self) -> None:
        """``shutdown`` every registered processor (also when tracing is off)."""
        self._multi_processor.shutdown()

    # -- context, times, ids -------------------------------------------------------------

    def get_current_trace(self) -> Trace | None:
        return Scope.get_current_trace()

    def get_current_span(self) -> Span[Any] | None:
        return Scope.get_current_span()

    def time_iso(self) -> str:
        return util.iso_now()

    def gen_trace_id(self) -> str:
        return util.new_trace_id()

    def gen_span_id(self) -> str:
        return util.new_span_id()

    def gen_group_id(self) -> str:
        return util.new_group_id()

    # -- traces and spans ----------------------------------------------------------------

    def create_trace(
        self,
        name: str,
        trace_id: str | None = None,
        group_id: str | None = None,
        metadata: dict[str, Any] | None = None,
        disabled: bool = False,
        tracing: TracingConfig | None = None,
        *,
        include_sensitive_data: bool = True,
    ) -> Trace:
        """A new trace; inside a trace, a view of it (see ``trace()``)."""
        if disabled or self._disabled:
            return NoOpTrace()
        outer = Scope.get_current_trace()
        if outer is not None:
            if not outer.recording:
                return NoOpTrace()
            return _NestedTrace(outer, include_sensitive_data)
        processors = self._multi_processor.processors
        if not processors:
            return NoOpTrace()
        return TraceImpl(
            name,
            trace_id or util.gen_trace_id(),
            group_id,
            metadata,
            SynchronousMultiTracingProcessor(processors),
            None if tracing is None else tracing.get("api_key"),
            include_sensitive_data=include_sensitive_data,
        )

    def recording_trace(self, parent: Trace | Span[Any] | None, disabled: bool) -> Trace | None:
        """The trace a new span under ``parent`` belongs to, or ``None`` when it records
        nothing (tracing off, ``disabled``, no recording trace, or a no-op parent)."""
        if disabled or self._disabled:
            return None
        if parent is None:
            trace = current_trace.get()
            if trace is None:
                return None
            span = current_span.get()
            if span is not None and span.trace_id == NO_OP_ID:
                return None
        elif isinstance(parent, Span):
            if parent.trace_id == NO_OP_ID:
                return None
            return _SpanParent(parent)
        else:
            trace = parent
        if trace is None or not trace.recording:
            return None
        return trace

    def new_span(
        self,
        trace: Trace,
        parent: Trace | Span[Any] | None,
        span_data: TSpanData,
        span_id: str | None,
    ) -> Span[TSpanData]:
        """A span of ``trace`` (from ``recording_trace``) under ``parent``."""
        if isinstance(parent, Span):
            parent_id: str | None = parent.span_id
        elif parent is None:
            span = Scope.get_current_span()
            parent_id = (
                span.span_id if span is not None and span.trace_id == trace.trace_id else None
            )
        else:
            parent_id = None
        processor = getattr(trace, "_processor", None)
        if processor is None:
            processor = self._multi_processor
        return SpanImpl(
            trace.trace_id,
            span_id or util.gen_span_id(),
            parent_id,
            processor,
            span_data,
            trace.tracing_api_key,
            trace.metadata,
            include_sensitive_data=trace.include_sensitive_data,
        )

    def create_span(
        self,
        span_data: TSpanData,
        span_id: str | None = None,
        parent: Trace | Span[Any] | None = None,
        disabled: bool = False,
    ) -> Span[TSpanData]:
        """A new span; a no-op one when tracing records nothing there."""
        if disabled and not self._disabled:
            return NoOpSpan(span_data)
        trace = self.recording_trace(parent, disabled)
        if trace is None or span_id == NO_OP_ID:
            return NO_OP_SPAN
        return self.new_span(trace, parent, span_data, span_id)


class _SpanParent(Trace):
    """The trace of a span given as ``parent`` outside its trace's context: its id, key,
    metadata, sensitivity and processor, read from the span."""

    __slots__ = ("_span",)

    def __init__(self, span: Span[Any]) -> None:
        self._span = span
        self._prev_context_token = None

    trace_id = property(lambda self: self._span.trace_id)
    tracing_api_key = property(lambda self: self._span.tracing_api_key)
    metadata = property(lambda self: self._span.trace_metadata)
    name = property(lambda self: "")
    group_id = None

    @property
    def include_sensitive_data(self) -> bool:  # type: ignore[override]
        return bool(getattr(self._span, "_sensitive", True))

    @property
    def _processor(self) -> TracingProcessor | None:
        return getattr(self._span, "_processor", None)

    def start(self, mark_as_current: bool = False) -> None:
        """Not a trace of its own: nothing to start."""

    def finish(self, reset_current: bool = False) -> None:
        """Not a trace of its own: nothing to finish."""

    def export(self) -> dict[str, Any] | None:
        return None
