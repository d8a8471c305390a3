"""Traces: one per workflow (usually one per run), holding every span created inside it.

``Trace`` is the interface (the SDK's); ``TraceImpl`` records and reports to a processor;
``NoOpTrace`` records nothing; ``ReattachedTrace`` continues a trace that started before (a
resumed run), without announcing it again; ``TraceState`` is a trace's persisted form.
"""

from __future__ import annotations

import abc
import contextvars
import hashlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import TracebackType
from typing import TYPE_CHECKING, Any

from . import setup, util
from .logger import logger
from .processor_interface import TracingProcessor
from .scope import Scope

if TYPE_CHECKING:
    from .config import TracingConfig

__all__ = [
    "NO_OP_ID",
    "NoOpTrace",
    "ReattachedTrace",
    "Trace",
    "TraceImpl",
    "TraceState",
    "get_current_trace",
    "reattach_trace",
    "trace",
]

NO_OP_ID = "no-op"
"""The ``trace_id`` / ``span_id`` of traces and spans that record nothing."""


class Trace(abc.ABC):
    """A workflow's trace. Create it with ``trace``.

    Use it as a context manager (``with`` or ``async with``), or call ``start`` and ``finish``
    yourself when a ``with`` block cannot span the work (a generator yielding in between).
    Times are ISO 8601 strings (UTC), ``None`` until set.

    Attributes:
        trace_id: ``trace_`` and 32 hex digits, or ``"no-op"`` for a trace that records nothing.
        name: What the workflow is called, e.g. ``"Agent workflow"`` (also ``workflow_name``).
        group_id: Links traces of one conversation or job, if given.
        metadata: Free-form values attached to the trace.
        tracing_api_key: The API key to export it with (``trace(tracing={"api_key": ...})``).
        include_sensitive_data: When ``False``, ``span.export()`` leaves out the model and tool
            inputs and outputs (the fields each span data class names in ``sensitive_fields``).
        started_at: When it started, or ``None``.
        ended_at: When it finished, or ``None``.
    """

    _prev_context_token: contextvars.Token[Trace | None] | None
    trace_id: str
    name: str
    group_id: str | None
    metadata: dict[str, Any] | None
    tracing_api_key: str | None
    include_sensitive_data: bool = True
    started_at: str | None = None
    ended_at: str | None = None

    @property
    def workflow_name(self) -> str:
        """The workflow's name (``name``)."""
        return self.name

    @property
    def recording(self) -> bool:
        """Whether spans created in this trace are recorded (``False`` when it records
        nothing)."""
        return True

    @abc.abstractmethod
    def start(self, mark_as_current: bool = False) -> None:
        """Start the trace and tell the processor (repeats do nothing).

        Args:
            mark_as_current: Also make it the current trace of this context, so spans created
                here (and in tasks started from here) join it. Undo with
                ``finish(reset_current=True)`` from the same context (from another one, that
                raises ``ValueError``).
        """

    @abc.abstractmethod
    def finish(self, reset_current: bool = False) -> None:
        """Finish the trace and tell the processor (repeats do nothing).

        Args:
            reset_current: Restore the trace that was current before ``start``.
        """

    @abc.abstractmethod
    def export(self) -> dict[str, Any] | None:
        """The trace as a JSON-friendly dict (``"object": "trace"``, ``id``, ``workflow_name``,
        ``group_id``, ``metadata``), or ``None`` for a trace that records nothing."""

    def to_json(self, *, include_tracing_api_key: bool = False) -> dict[str, Any] | None:
        """``export()``, for saving or sending; with ``include_tracing_api_key``, also the
        tracing API key (left out by default, so that it is not stored by mistake)."""
        exported = self.export()
        if exported is None:
            return None
        payload = dict(exported)
        if include_tracing_api_key and self.tracing_api_key:
            payload["tracing_api_key"] = self.tracing_api_key
        return payload

    def __enter__(self) -> Trace:
        if self._is_started():
            if getattr(self, "_prev_context_token", None) is None:
                logger.error("Trace already started but no context token set")
            return self
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
        else:
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

    def _is_started(self) -> bool:
        return False

    def _reset(self, reset_current: bool) -> None:
        token = getattr(self, "_prev_context_token", None)
        if reset_current and token is not None:
            Scope.reset_current_trace(token)
            self._prev_context_token = None

    def __repr__(self) -> str:
        return f"<Trace {self.name!r} {self.trace_id}>"


def _finish_on_generator_exit(trace: Trace) -> None:
    """Finish a trace whose ``with`` block unwinds because its generator was closed.

    Closed from the task that ran it, the scope resets as usual. An abandoned async generator
    is closed by whichever task finalises it, a context that never saw the trace as current:
    the reset cannot work there (``ValueError``), and that case alone is tolerated. A processor
    failing in ``finish`` still raises; the scope is released all the same.
    """
    try:
        trace.finish(reset_current=False)
    finally:
        token = getattr(trace, "_prev_context_token", None)
        if token is not None:
            try:
                Scope.reset_current_trace(token)
            except ValueError:
                logger.debug("Trace %s closed outside the context that started it", trace)
            trace._prev_context_token = None


class TraceImpl(Trace):
    """A trace that records, reporting its start and end to ``processor``.

    Args:
        name: The workflow's name.
        trace_id: Its id (a new one from ``util.gen_trace_id`` when ``None``).
        group_id: Links traces of one conversation or job.
        metadata: Free-form values.
        processor: Told when it (and each of its spans) starts and ends; its exceptions
            propagate (the provider's processor catches and logs those of each processor).
        tracing_api_key: The key to export it with.
        include_sensitive_data: Whether its spans' exports keep model and tool inputs and
            outputs.
    """

    __slots__ = (
        "_processor",
        "_started",
        "ended_at",
        "group_id",
        "include_sensitive_data",
        "metadata",
        "name",
        "started_at",
        "trace_id",
        "tracing_api_key",
    )

    def __init__(
        self,
        name: str,
        trace_id: str | None,
        group_id: str | None,
        metadata: dict[str, Any] | None,
        processor: TracingProcessor,
        tracing_api_key: str | None = None,
        *,
        include_sensitive_data: bool = True,
    ) -> None:
        self.name = name
        self.trace_id = trace_id or util.gen_trace_id()
        self.group_id = group_id
        self.metadata = metadata
        self.tracing_api_key = tracing_api_key
        self.include_sensitive_data = include_sensitive_data
        self.started_at = None
        self.ended_at = None
        self._processor = processor
        self._started = False
        self._prev_context_token = None

    def _is_started(self) -> bool:
        return self._started

    def start(self, mark_as_current: bool = False) -> None:
        if self._started:
            return
        self._started = True
        self.started_at = util.time_iso()
        self._processor.on_trace_start(self)
        if mark_as_current:
            self._prev_context_token = Scope.set_current_trace(self)

    def finish(self, reset_current: bool = False) -> None:
        if not self._started:
            return
        if self.ended_at is None:
            self.ended_at = util.time_iso()
            self._processor.on_trace_end(self)
        self._reset(reset_current)

    def export(self) -> dict[str, Any] | None:
        return {
            "object": "trace",
            "id": self.trace_id,
            "workflow_name": self.name,
            "group_id": self.group_id,
            "metadata": self.metadata,
        }


class NoOpTrace(Trace):
    """A trace that records nothing (tracing is off, or the trace was disabled).

    It still becomes the current trace while entered, so spans created inside record nothing.
    """

    __slots__ = ("_started",)

    trace_id = NO_OP_ID
    name = NO_OP_ID
    group_id = None
    metadata = None
    tracing_api_key = None

    def __init__(self) -> None:
        self._started = False
        self._prev_context_token = None

    @property
    def recording(self) -> bool:
        return False

    def _is_started(self) -> bool:
        return self._started

    def __enter__(self) -> Trace:
        if self._started:
            if self._prev_context_token is None:
                logger.error("Trace already started but no context token set")
            return self
        self._started = True
        self.start(mark_as_current=True)
        return self

    def start(self, mark_as_current: bool = False) -> None:
        if mark_as_current:
            self._prev_context_token = Scope.set_current_trace(self)

    def finish(self, reset_current: bool = False) -> None:
        self._reset(reset_current)

    def export(self) -> dict[str, Any] | None:
        return None


class ReattachedTrace(Trace):
    """A trace rebuilt from its persisted state (a resumed run): entering it makes it current
    again, without telling the processors that it starts or ends a second time.

    Args:
        name: The workflow's name.
        trace_id: The id of the trace it continues.
        group_id: Its group id.
        metadata: Its metadata.
        tracing_api_key: The key to export it with.
        processor: Where its new spans go (default: the current provider's processors).
    """

    __slots__ = (
        "_processor",
        "_started",
        "group_id",
        "metadata",
        "name",
        "trace_id",
        "tracing_api_key",
    )

    def __init__(
        self,
        *,
        name: str,
        trace_id: str,
        group_id: str | None,
        metadata: dict[str, Any] | None,
        tracing_api_key: str | None,
        processor: TracingProcessor | None = None,
    ) -> None:
        self.name = name
        self.trace_id = trace_id
        self.group_id = group_id
        self.metadata = metadata
        self.tracing_api_key = tracing_api_key
        if processor is None:
            from .setup import get_trace_provider

            processor = get_trace_provider().processor()
        self._processor = processor
        self._started = False
        self._prev_context_token = None

    def _is_started(self) -> bool:
        return self._started

    def start(self, mark_as_current: bool = False) -> None:
        if self._started:
            return
        self._started = True
        if mark_as_current:
            self._prev_context_token = Scope.set_current_trace(self)

    def finish(self, reset_current: bool = False) -> None:
        if self._started:
            self._reset(reset_current)

    def export(self) -> dict[str, Any] | None:
        return {
            "object": "trace",
            "id": self.trace_id,
            "workflow_name": self.name,
            "group_id": self.group_id,
            "metadata": self.metadata,
        }


class _NestedTrace(Trace):
    """What ``trace()`` returns inside a recording trace: a view of the outer trace (its id,
    name, times and processor), announcing no start or end of its own, that may narrow
    ``include_sensitive_data`` for the spans created in it."""

    __slots__ = ("_outer", "_started", "include_sensitive_data", "metadata")

    def __init__(self, outer: Trace, include_sensitive_data: bool) -> None:
        root = outer._outer if isinstance(outer, _NestedTrace) else outer
        self._outer: Trace = root
        self.metadata = root.metadata
        self.include_sensitive_data = outer.include_sensitive_data and include_sensitive_data
        self._started = False
        self._prev_context_token = None

    # the outer trace's values, read through
    trace_id = property(lambda self: self._outer.trace_id)
    name = property(lambda self: self._outer.name)
    group_id = property(lambda self: self._outer.group_id)
    tracing_api_key = property(lambda self: self._outer.tracing_api_key)
    started_at = property(lambda self: self._outer.started_at)
    ended_at = property(lambda self: self._outer.ended_at)

    @property
    def _processor(self) -> TracingProcessor:
        processor: TracingProcessor = getattr(self._outer, "_processor")  # noqa: B009
        return processor

    def _is_started(self) -> bool:
        return self._started

    def start(self, mark_as_current: bool = False) -> None:
        if self._started:
            return
        self._started = True
        if mark_as_current:
            self._prev_context_token = Scope.set_current_trace(self)

    def finish(self, reset_current: bool = False) -> None:
        self._reset(reset_current)

    def export(self) -> dict[str, Any] | None:
        return self._outer.export()


def _hash_key(key: str | None) -> str | None:
    return None if key is None else hashlib.sha256(key.encode("utf-8")).hexdigest()


@dataclass
class TraceState:
    """A trace's persisted form (kept in a ``RunState``), enough to continue it later.

    The tracing API key is kept only when asked for (``to_json(include_tracing_api_key=True)``);
    its SHA-256 fingerprint always is, so a resumed run can check it was given the same key.
    """

    trace_id: str | None = None
    workflow_name: str | None = None
    group_id: str | None = None
    metadata: dict[str, Any] | None = None
    tracing_api_key: str | None = None
    tracing_api_key_hash: str | None = None
    object_type: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_trace(cls, trace: Trace | None) -> TraceState | None:
        """The state of ``trace`` (``None`` for no trace, or one that records nothing)."""
        if trace is None:
            return None
        return cls.from_json(trace.to_json(include_tracing_api_key=True))

    @classmethod
    def from_json(cls, payload: Mapping[str, Any] | None) -> TraceState | None:
        """Read a state from ``to_json()``'s output (or a trace's export)."""
        if not payload:
            return None
        data = dict(payload)

        def text(*keys: str) -> str | None:
            for key in keys:
                value = data.pop(key, None)
                if isinstance(value, str) and value:
                    return value
            return None

        object_type = text("object")
        trace_id = text("id", "trace_id")
        workflow_name = text("workflow_name")
        group_id = text("group_id")
        metadata = data.pop("metadata", None)
        key = text("tracing_api_key")
        stored_hash = text("tracing_api_key_hash")
        return cls(
            trace_id=trace_id,
            workflow_name=workflow_name,
            group_id=group_id,
            metadata=metadata if isinstance(metadata, dict) else None,
            tracing_api_key=key,
            tracing_api_key_hash=_hash_key(key) or stored_hash,
            object_type=object_type,
            extra=data,
        )

    def to_json(self, *, include_tracing_api_key: bool = False) -> dict[str, Any] | None:
        """The state as a JSON-friendly dict (``None`` when it holds nothing)."""
        payload: dict[str, Any] = {}
        if self.object_type:
            payload["object"] = self.object_type
        if self.trace_id:
            payload["id"] = self.trace_id
        if self.workflow_name is not None:
            payload["workflow_name"] = self.workflow_name
        if self.group_id is not None:
            payload["group_id"] = self.group_id
        if self.metadata is not None:
            payload["metadata"] = dict(self.metadata)
        if include_tracing_api_key and self.tracing_api_key:
            payload["tracing_api_key"] = self.tracing_api_key
        if self.tracing_api_key_hash:
            payload["tracing_api_key_hash"] = self.tracing_api_key_hash
        for key, value in self.extra.items():
            payload.setdefault(key, value)
        if not payload and self.tracing_api_key is None:
            return None
        return payload


def reattach_trace(trace_state: TraceState, *, tracing_api_key: str | None = None) -> Trace | None:
    """A live trace continuing ``trace_state``'s (processors are not told it starts again);
    ``None`` when the state has no trace id. ``tracing_api_key`` is used when the state
    kept none."""
    if trace_state.trace_id is None:
        return None
    return ReattachedTrace(
        name=trace_state.workflow_name or "Agent workflow",
        trace_id=trace_state.trace_id,
        group_id=trace_state.group_id,
        metadata=None if trace_state.metadata is None else dict(trace_state.metadata),
        tracing_api_key=(
            trace_state.tracing_api_key
            if trace_state.tracing_api_key is not None
            else tracing_api_key
        ),
    )


def trace(
    workflow_name: str,
    trace_id: str | None = None,
    group_id: str | None = None,
    metadata: dict[str, Any] | None = None,
    tracing: TracingConfig | None = None,
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
        tracing: ``{"api_key": ...}``: the key to export this trace with.
        disabled: Record nothing for this trace.
        include_sensitive_data: Whether exported spans keep model and tool inputs and outputs.

    Returns:
        The trace (not started yet), made by the current trace provider.
    """
    provider = setup.get_trace_provider()
    if getattr(provider, "takes_include_sensitive_data", False):  # a DefaultTraceProvider
        create: Callable[..., Trace] = provider.create_trace
        return create(
            workflow_name,
            trace_id,
            group_id,
            metadata,
            disabled,
            tracing,
            include_sensitive_data=include_sensitive_data,
        )
    return provider.create_trace(workflow_name, trace_id, group_id, metadata, disabled, tracing)


def get_current_trace() -> Trace | None:
    """The trace current in this context, or ``None``."""
    return Scope.get_current_trace()
