"""Tracing settings of one trace or run (the SDK's ``agents.tracing.config``)."""

from __future__ import annotations

from typing_extensions import TypedDict

__all__ = ["TracingConfig", "include_task_and_turn_spans"]


class TracingConfig(TypedDict, total=False):
    """How a trace is exported: ``trace(tracing=...)``."""

    api_key: str
    """The API key to export the trace (and its spans) with, instead of the exporter's."""

    include_task_and_turn_spans: bool
    """Whether a run records a task span (the whole ``Runner`` invocation) and a span per
    turn around its model and tool calls (default: True)."""


def include_task_and_turn_spans(config: TracingConfig | None) -> bool:
    """Whether a run with this tracing configuration records task and turn spans."""
    return config is None or config.get("include_task_and_turn_spans", True)
