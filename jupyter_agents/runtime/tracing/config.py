"""Tracing settings of one trace or run (the SDK's ``agents.tracing.config``)."""

from __future__ import annotations

from typing_extensions import TypedDict

__all__ = ["TracingConfig"]


class TracingConfig(TypedDict, total=False):
    """How a trace is exported: ``trace(tracing=...)``."""

    api_key: str
    """The API key to export the trace (and its spans) with, instead of the exporter's."""

    include_task_and_turn_spans: bool
    """Accepted for the SDK's sake; the run records no task or turn spans here."""
