"""Traces: one per workflow (usually one per run), holding every span created inside it."""

from __future__ import annotations

import logging
import time
from types import TracebackType
from typing import Any

from ._scope import current_trace, gen_trace_id
from .processors import TracingProcessor, _call, _registry

__all__ = ["Trace", "get_current_trace", "trace"]

logger = logging.getLogger("jupyter_agents.tracing")

NO_OP_ID = "no-op"
"""The ``trace_id`` / ``span_id`` of traces and spans that record nothing."""


class Trace:
    """A workflow's trace. Create it with ``trace``, not directly.

    Use it as a context manager (``with`` or ``async with``), or call ``start`` and ``finish``
    yourself when a ``with`` block cannot span the work (a generator yielding in between).
    Times are epoch seconds (``time.time()`` floats), ``None`` until set.

    Attributes:
        trace_id: ``trace_`` and 32 hex digits, or ``"no-op"`` for a trace that records nothing.
        workflow_name: What the workflow is called, e.g. ``"Agent workflow"``.
        group_id: Links traces of one conversation or job, if given.
        metadata: Free-form values attached to the trace.
        include_sensitive_data: When ``False``, ``span.export()`` leaves out the model and tool
            inputs and outputs (the fields each span data class names in ``sensitive_fields``).
    """

    __slots__ = (
        "_ended_at",
        "_processors",
        "_root",
        "_started_at",
        "_token",
        "group_id",
        "include_sensitive_data",
        "metadata",
        "trace_id",
        "workflow_name",
    )

    def __init__(
        self,
        workflow_name: str,
        trace_id: str,
        group_id: str | None = None,
        metadata: dict[str, Any] | None = None,
        include_sensitive_data: bool = True,
        processors: tuple[TracingProcessor, ...] = (),
        root: Trace | None = None,
    ) -> None:
        self.trace_id = trace_id
        self.workflow_name = workflow_name
        self.group_id = group_id
        self.metadata = metadata
        self.include_sensitive_data = include_sensitive_data
        self._processors = processors
        # A nested trace() is a view of the outer trace: it shares its id, processors and
        # times, emits no start/end of its own, and may only narrow include_sensitive_data.
        self._root: Trace = self if root is None else root
        self._started_at: float | None = None
        self._ended_at: float | None = None
        self._token: Any = None

    @property
    def name(self) -> str:
        """The workflow's name (the SDK's spelling of ``workflow_name``)."""
        return self.workflow_name

    @property
    def recording(self) -> bool:
        """Whether spans created in this trace are recorded (``False`` when disabled)."""
        return bool(self._processors)

    @property
    def started_at(self) -> float | None:
        """When the trace started (epoch seconds)."""
        return self._root._started_at

    @property
    def ended_at(self) -> float | None:
        """When the trace finished (epoch seconds)."""
        return self._root._ended_at

    def start(self, mark_as_current: bool = False) -> None:
        """Start the trace: stamp ``started_at`` and tell the processors.

        Args:
            mark_as_current: Also make it the current trace of this context, so spans created
                here (and in tasks started from here) join it. Undo with
                ``finish(reset_current=True)`` from the same context.
        """
        if self._root is self and self._processors and self._started_at is None:
            self._started_at = time.time()
            for processor in self._processors:
                _call(processor.on_trace_start, self)
        if mark_as_current and self._token is None:
            self._token = current_trace.set(self)

    def finish(self, reset_current: bool = False) -> None:
        """Finish the trace: stamp ``ended_at`` and tell the processors. Repeats do nothing.

        Args:
            reset_current: Restore the trace that was current before ``start``.
        """
        root = self._root is self
        if root and self._processors and self._started_at is not None and self._ended_at is None:
            self._ended_at = time.time()
            for processor in self._processors:
                _call(processor.on_trace_end, self)
        if reset_current and self._token is not None:
            token, self._token = self._token, None
            try:
                current_trace.reset(token)
            except ValueError:
                # Finished from another context (an async generator closed by a finaliser):
                # that context never saw the trace as current, so there is nothing to undo.
                logger.debug("Trace %s finished outside the context that started it", self)

    def export(self) -> dict[str, Any]:
        """The trace as a JSON-friendly dict (``"object": "trace"``)."""
        root = self._root
        return {
            "object": "trace",
            "id": root.trace_id,
            "workflow_name": root.workflow_name,
            "group_id": root.group_id,
            "metadata": root.metadata,
            "started_at": root._started_at,
            "ended_at": root._ended_at,
        }

    def __enter__(self) -> Trace:
        self.start(mark_as_current=True)
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.finish(reset_current=True)

    async def __aenter__(self) -> Trace:
        return self.__enter__()

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.__exit__(exc_type, exc, tb)

    def __repr__(self) -> str:
        return f"<Trace {self.workflow_name!r} {self.trace_id}>"


def trace(
    workflow_name: str,
    trace_id: str | None = None,
    group_id: str | None = None,
    metadata: dict[str, Any] | None = None,
    disabled: bool = False,
    *,
    include_sensitive_data: bool = True,
) -> Trace:
    """Create a trace; enter it with ``with`` / ``async with`` (or ``start``/``finish``).

    Inside an active trace, ``trace()`` does not start a second one: it returns a view of the
    outer trace (same ``trace_id``, ``workflow_name`` and times; spans go to the outer trace;
    processors see no extra start or end). So a run inside ``with trace("my job"):`` joins
    that trace, and this function's ``trace_id``, ``group_id`` and ``metadata`` are ignored.
    A nested trace can still narrow ``include_sensitive_data`` for the spans created in it.

    A trace records nothing (and its spans cost almost nothing) when ``disabled`` is true,
    when tracing is off (``set_tracing_disabled(True)``), when no processor is registered at
    the time of this call, or when the outer trace records nothing. A disabled trace nested in
    a recording one silences the spans created inside it.

    Args:
        workflow_name: The name of the workflow, e.g. ``"Agent workflow"``.
        trace_id: The id to use (``trace_`` and 32 hex digits); a new one by default.
        group_id: Links traces of one conversation or job, e.g. a chat thread id.
        metadata: Free-form values attached to the trace.
        disabled: Record nothing for this trace.
        include_sensitive_data: Whether exported spans keep model and tool inputs and outputs.

    Returns:
        The trace (not started yet).
    """
    if disabled or _registry.disabled:
        return Trace(workflow_name, NO_OP_ID)
    outer = current_trace.get()
    if outer is not None:
        return Trace(
            outer.workflow_name,
            outer.trace_id,
            outer.group_id,
            outer.metadata,
            outer.include_sensitive_data and include_sensitive_data,
            outer._processors,
            outer._root,
        )
    processors = _registry.processors
    if not processors:
        return Trace(workflow_name, NO_OP_ID)
    return Trace(
        workflow_name,
        trace_id or gen_trace_id(),
        group_id,
        metadata,
        include_sensitive_data,
        processors,
    )


def get_current_trace() -> Trace | None:
    """The trace current in this context, or ``None``."""
    return current_trace.get()
