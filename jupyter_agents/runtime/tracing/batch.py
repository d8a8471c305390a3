"""Exporting finished traces and spans in batches: the SDK's ``TracingExporter`` (what writes
them somewhere) and ``BatchTraceProcessor`` (the processor that collects them and hands them
over, from a background thread, in batches).

Traces are queued when they start (as in the SDK: a backend learns of the trace before its
spans), spans when they end (bounded: when the queue is full, new items are dropped and
counted, never blocking a run); a daemon thread exports a batch every ``schedule_delay``
seconds, or as soon as the queue holds ``export_trigger_ratio`` of its size; ``force_flush`` and
``shutdown`` export what is left, in the caller's thread. An exporter that raises loses that
batch, logged once per batch, and the run goes on.
"""

from __future__ import annotations

import abc
import logging
import threading
from collections import deque
from typing import Any

from .processors import TracingProcessor
from .spans import Span
from .traces import Trace

__all__ = ["BatchTraceProcessor", "TracingExporter"]

logger = logging.getLogger("jupyter_agents.tracing")


class TracingExporter(abc.ABC):
    """Writes finished traces and spans somewhere (a file, a backend); used by
    ``BatchTraceProcessor``."""

    @abc.abstractmethod
    def export(self, items: list[Trace | Span[Any]]) -> None:
        """Export ``items``: started traces and ended spans, in that order of events."""


class BatchTraceProcessor(TracingProcessor):
    """Hands ended traces and spans to ``exporter`` in batches, from a background thread."""

    def __init__(
        self,
        exporter: TracingExporter,
        max_queue_size: int = 8192,
        max_batch_size: int = 128,
        schedule_delay: float = 5.0,
        export_trigger_ratio: float = 0.7,
    ) -> None:
        """Create the processor (its thread starts with the first item).

        Args:
            exporter: Where batches go.
            max_queue_size: Items kept waiting at most; more are dropped (``dropped`` counts).
            max_batch_size: Items per ``export`` call at most.
            schedule_delay: Seconds between exports.
            export_trigger_ratio: Export early once the queue is this full.
        """
        self.exporter = exporter
        self.dropped = 0
        """Items dropped because the queue was full."""
        self._queue: deque[Trace | Span[Any]] = deque()
        self._max_queue = max_queue_size
        self._max_batch = max(1, max_batch_size)
        self._delay = schedule_delay
        self._trigger = max(1, int(max_queue_size * export_trigger_ratio))
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._stopped = threading.Event()
        self._thread: threading.Thread | None = None

    def on_trace_start(self, trace: Trace) -> None:
        """Queue the trace (its spans follow as they end)."""
        self._put(trace)

    def on_span_end(self, span: Span[Any]) -> None:
        """Queue the finished span."""
        self._put(span)

    def force_flush(self) -> None:
        """Export everything queued, now, in this thread."""
        while self._export_batch():
            pass

    def shutdown(self) -> None:
        """Stop the thread and export what is left."""
        self._stopped.set()
        self._wake.set()
        thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout=self._delay + 5)
        self.force_flush()

    def _put(self, item: Trace | Span[Any]) -> None:
        with self._lock:
            if len(self._queue) >= self._max_queue:
                self.dropped += 1
                return
            self._queue.append(item)
            full = len(self._queue) >= self._trigger
            if self._thread is None and not self._stopped.is_set():
                self._thread = threading.Thread(
                    target=self._loop, name="jupyter_agents trace export", daemon=True
                )
                self._thread.start()
        if full:
            self._wake.set()

    def _loop(self) -> None:
        while not self._stopped.is_set():
            self._wake.wait(self._delay)
            self._wake.clear()
            self.force_flush()

    def _export_batch(self) -> bool:
        """Export one batch; False when the queue was empty."""
        with self._lock:
            batch = [self._queue.popleft() for _ in range(min(self._max_batch, len(self._queue)))]
        if not batch:
            return False
        try:
            self.exporter.export(batch)
        except Exception:
            logger.exception("a trace exporter failed; %d items were lost", len(batch))
        return True
