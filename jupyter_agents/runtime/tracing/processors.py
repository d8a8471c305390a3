"""Who receives traces and spans: the processor protocol, the global registry, a JSON-lines file.

Processors are called synchronously, in registration order, on the thread that starts or
finishes the trace or span; an exception from a processor is logged and swallowed so that
tracing can never break a run. Nothing here touches the network, and there is no default
processor: until one is registered, tracing records nothing and costs almost nothing.
"""

from __future__ import annotations

import atexit
import json
import logging
import os
import threading
from collections.abc import Sequence
from typing import IO, TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from .spans import Span
    from .traces import Trace

__all__ = [
    "JSONLinesExporter",
    "TracingProcessor",
    "add_trace_processor",
    "flush_traces",
    "get_trace_processors",
    "set_trace_processors",
    "set_tracing_disabled",
]

logger = logging.getLogger("jupyter_agents.tracing")


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


class _Registry:
    """The process-wide tracing switches. Reads are lock-free: ``processors`` is a tuple that
    is replaced, never mutated, so a trace can keep the snapshot it started with."""

    def __init__(self) -> None:
        self.processors: tuple[TracingProcessor, ...] = ()
        self.disabled = False
        self._lock = threading.Lock()
        self._atexit_registered = False

    def replace(self, processors: tuple[TracingProcessor, ...]) -> None:
        with self._lock:
            self._set(processors)

    def append(self, processor: TracingProcessor) -> None:
        with self._lock:
            self._set((*self.processors, processor))

    def _set(self, processors: tuple[TracingProcessor, ...]) -> None:
        self.processors = processors
        if processors and not self._atexit_registered:
            atexit.register(_shutdown_all)
            self._atexit_registered = True


_registry = _Registry()


def add_trace_processor(processor: TracingProcessor) -> None:
    """Register ``processor`` after the ones already registered.

    Traces already running keep the processors they started with.
    """
    _registry.append(processor)


def set_trace_processors(processors: Sequence[TracingProcessor]) -> None:
    """Replace every registered processor (the old ones are not shut down).

    ``set_trace_processors([])`` turns tracing off until a processor is added again.
    """
    _registry.replace(tuple(processors))


def get_trace_processors() -> tuple[TracingProcessor, ...]:
    """The registered processors, in the order they are called."""
    return _registry.processors


def set_tracing_disabled(disabled: bool) -> None:
    """Turn all tracing off (``True``) or back on, for every trace and span created after."""
    _registry.disabled = disabled


def flush_traces() -> None:
    """Call ``force_flush`` on every registered processor."""
    for processor in _registry.processors:
        _call(processor.force_flush)


def _shutdown_all() -> None:
    for processor in _registry.processors:
        _call(processor.shutdown)


def _call(method: Any, *args: Any) -> None:
    try:
        method(*args)
    except Exception:
        logger.exception("Tracing processor %r failed", method)


class JSONLinesExporter(TracingProcessor):
    """Appends one JSON object per finished span and per finished trace to a file.

    Lines are ``span.export()`` / ``trace.export()`` (``"object": "trace.span"`` or
    ``"trace"``); values that JSON cannot encode are written with ``str()``. Spans come before
    the trace that contains them, because they end first. Safe to call from several threads;
    writes are buffered and reach the disk on ``force_flush``, ``shutdown`` or exit.

    Args:
        path: The file to append to; created (with its parent folder) on the first write.
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = os.fspath(path)
        """The file written to."""
        self._file: IO[str] | None = None
        self._lock = threading.Lock()

    def on_trace_end(self, trace: Trace) -> None:
        """Write the finished trace."""
        self._write(trace.export())

    def on_span_end(self, span: Span[Any]) -> None:
        """Write the finished span."""
        self._write(span.export())

    def force_flush(self) -> None:
        """Push buffered lines to the file."""
        with self._lock:
            if self._file is not None:
                self._file.flush()

    def shutdown(self) -> None:
        """Flush and close the file; a later write opens it again."""
        with self._lock:
            if self._file is not None:
                self._file.close()
                self._file = None

    def _write(self, record: dict[str, Any] | None) -> None:
        if record is None:
            return
        line = json.dumps(record, default=str, ensure_ascii=False) + "\n"
        with self._lock:
            if self._file is None:
                parent = os.path.dirname(self.path)
                if parent:
                    os.makedirs(parent, exist_ok=True)
                self._file = open(self.path, "a", encoding="utf-8")  # noqa: SIM115
            self._file.write(line)
