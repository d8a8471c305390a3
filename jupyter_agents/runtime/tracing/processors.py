"""Who receives traces and spans: the processor protocol, the global registry, a JSON-lines file.

Processors are called synchronously, in registration order, on the thread that starts or
finishes the trace or span; an exception from a processor is logged and swallowed so that
tracing can never break a run. Nothing here touches the network, and there is no default
processor: until one is registered, tracing records nothing and costs almost nothing.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Sequence
from typing import IO, TYPE_CHECKING, Any

from .logger import logger
from .processor_interface import TracingProcessor
from .setup import get_trace_provider

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
    "set_tracing_export_api_key",
]


def add_trace_processor(processor: TracingProcessor) -> None:
    """Register ``processor`` after the ones already registered (with the current provider).

    Traces already running keep the processors they started with.
    """
    get_trace_provider().register_processor(processor)


def set_trace_processors(processors: Sequence[TracingProcessor]) -> None:
    """Replace every registered processor (the old ones are not shut down).

    ``set_trace_processors([])`` turns tracing off until a processor is added again.
    """
    get_trace_provider().set_processors(list(processors))


def get_trace_processors() -> tuple[TracingProcessor, ...]:
    """The registered processors, in the order they are called (none for a provider that
    does not say)."""
    processors: tuple[TracingProcessor, ...] = getattr(get_trace_provider(), "processors", ())
    return processors


def set_tracing_disabled(disabled: bool) -> None:
    """Turn all tracing off (``True``) or back on, for every trace and span created after."""
    get_trace_provider().set_disabled(disabled)


def flush_traces() -> None:
    """Have every registered processor export what it buffers, now (``force_flush``), also
    when tracing is off."""
    get_trace_provider().force_flush()


def set_tracing_export_api_key(api_key: str) -> None:
    """Set the key ``BackendSpanExporter``'s shared instance (``processors.default_exporter()``)
    sends traces with. It sends nothing unless its processor is registered
    (``add_trace_processor(default_processor())``)."""
    from .backend import default_exporter

    default_exporter().set_api_key(api_key)


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
        """Write the finished trace (with its ``started_at`` and ``ended_at``)."""
        record = trace.export()
        if record is not None:
            self._write({**record, "started_at": trace.started_at, "ended_at": trace.ended_at})

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
