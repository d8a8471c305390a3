"""The run's trace: a new one, or, for a resumed run, the paused run's trace continued.

As in the SDK, a resumed run continues the trace its paused run started (same id, spans added,
processors not told it starts or ends again) when the trace was started in this process and
the run's tracing settings resolve to the paused run's: ``RunConfig``'s workflow name (when not
the default), trace id, group id and metadata override the saved ones, and the tracing key must
be the same. Otherwise it starts a trace of its own.

A saved ``RunState`` carries its trace (``saved_trace``: the tracing key's fingerprint, never
the key). Loaded again (``loaded_trace``), it counts only when this process started that trace:
a trace from a file written elsewhere decides nothing (not even the resumed run's trace id).
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any

from ..run_config import RunConfig
from ..tracing import Trace, TraceImpl, TraceState, get_current_trace, reattach_trace, trace

__all__ = ["loaded_trace", "run_trace", "saved_trace"]

_DEFAULT_WORKFLOW = RunConfig.workflow_name
_STARTED: dict[str, None] = {}
"""Ids of the traces runs started in this process, oldest first (the newest ``_KEEP``)."""
_KEEP = 4096


def saved_trace(paused: Trace | TraceState | None) -> dict[str, Any] | None:
    """``paused``'s trace as a saved state holds it (None: nothing to continue)."""
    state = paused if isinstance(paused, TraceState) else TraceState.from_trace(paused)
    if state is None or state.trace_id is None:
        return None
    return state.to_json()  # the key's fingerprint, not the key


def loaded_trace(saved: Mapping[str, Any] | None) -> TraceState | None:
    """A saved state's trace, when this process started it (else None: a new trace)."""
    state = TraceState.from_json(saved)
    if state is None or state.trace_id not in _STARTED:
        return None
    return state


def run_trace(config: RunConfig, paused: Trace | TraceState | None) -> Trace:
    """The trace for a run (not started yet); ``paused``: the trace of the run it resumes
    (itself, or its saved state)."""
    saved = paused if isinstance(paused, TraceState) else TraceState.from_trace(paused)
    name, trace_id = config.workflow_name, config.trace_id
    group_id, metadata = config.group_id, config.trace_metadata
    if saved is not None:
        if name == _DEFAULT_WORKFLOW and saved.workflow_name:
            name = saved.workflow_name
        trace_id = trace_id if trace_id is not None else saved.trace_id
        group_id = group_id if group_id is not None else saved.group_id
        if metadata is None and saved.metadata is not None:
            metadata = dict(saved.metadata)
    key = (config.tracing or {}).get("api_key")
    if (
        saved is not None
        and not config.tracing_disabled
        and get_current_trace() is None
        and saved.trace_id in _STARTED
        and (saved.workflow_name, saved.group_id, saved.metadata) == (name, group_id, metadata)
        and saved.trace_id == trace_id
        and _same_key(saved, key)
    ):
        reattached = reattach_trace(saved, tracing_api_key=key)
        if reattached is not None:
            return reattached
    made = trace(
        name,
        trace_id=trace_id,
        group_id=group_id,
        metadata=metadata,
        tracing=config.tracing,
        disabled=config.tracing_disabled,
        include_sensitive_data=config.trace_include_sensitive_data,
    )
    if type(made) is TraceImpl:
        _remember(made.trace_id)
    return made


def _same_key(saved: TraceState, key: str | None) -> bool:
    if saved.tracing_api_key is not None:
        return saved.tracing_api_key == key
    if saved.tracing_api_key_hash is not None:  # a state that kept only the key's fingerprint
        given = hashlib.sha256(key.encode("utf-8")).hexdigest() if key is not None else None
        return saved.tracing_api_key_hash == given
    return key is None


def _remember(trace_id: str) -> None:
    _STARTED[trace_id] = None
    if len(_STARTED) > _KEEP:
        del _STARTED[next(iter(_STARTED))]
